/**
 * A worker's item landed for a plan shared through a remote: first on the plan's branch there (one commit, its plan
 * file line checked, its claim gone in the same atomic push: edges/team/branch-landing.ts), then in the person's work
 * tree as a worker's landing on this machine is (edges/git/land.ts): their uncommitted changes kept, nothing of theirs
 * overwritten. Once on the branch the item is landed, whatever the work tree then takes; before it nothing changed.
 */

import type { WorkerOutcome } from "../../core/model/types.ts";
import type { Landing } from "../../core/rules/landing.ts";
import { LANDED_ITEM_TRAILER, WORKER_TEXTS } from "../../core/texts/user/workers.ts";
import type { HeldLease } from "../git/claims.ts";
import { runGit } from "../git/git.ts";
import { landWork } from "../git/land.ts";
import { type BranchLanding, landOnBranch, type SharedTeam, treeLessFile } from "./branch-landing.ts";

/** The work tree's side of a landing, as a worker's outcome: landed with the files written, or why nothing was. */
export function workTreeOutcome(landing: Landing | undefined): WorkerOutcome {
	if (!landing) return { kind: "not-compared" };
	if ("stopped" in landing) return { kind: "stopped" };
	if ("submodules" in landing) return { kind: "submodules", paths: landing.submodules };
	if ("conflicts" in landing) return { kind: "conflict", files: landing.conflicts };
	if ("unwritable" in landing) return { kind: "unwritable", files: landing.unwritable };
	if ("busy" in landing) return { kind: "git-busy", why: landing.busy };
	return { kind: "landed", files: landing.landed };
}

/** The item a shared plan's worker landed: where it is in the list and the plan file, its text and key. */
export interface TeamItem {
	index: number;
	text: string;
	key: string;
	/** The plan file relative to the repository's top; undefined: the plan has none. */
	planPath: string | undefined;
	/** Without a plan file: the branch's tip when the list was shared (a landing since naming the item landed it). */
	listSince?: string;
}

/** How an item of a shared plan landed: on the branch as `commit`, and in the work tree (`workTree`), or not at all. */
export type TeamLanding =
	| { kind: "landed"; commit: string; workTree: WorkerOutcome }
	| { kind: "not-landed"; outcome: WorkerOutcome };

/** What a landing on the branch that did not land means for the worker's item. */
export function missed(team: SharedTeam, landing: Exclude<BranchLanding, { kind: "landed" }>): WorkerOutcome {
	switch (landing.kind) {
		case "conflict":
			return { kind: "conflict", files: landing.files, on: { branch: team.branch, remote: team.remote } };
		case "claim-lost":
		case "landed-elsewhere":
		case "stopped":
			return { kind: landing.kind };
		case "tip-kept-moving":
		case "unreachable":
		case "no-branch":
		case "rewritten":
		case "rejected":
		case "git-failed":
			return { kind: "not-on-branch", why: landing.kind, branch: team.branch, remote: team.remote };
	}
}

/**
 * Lands the change `base` → `result` of `item` on the team's branch with its claim (renewals stopped first: the push
 * swaps the claim as last renewed), then in the person's work tree. `stop` holds until the push, the moment the item
 * lands; the work tree then takes it whatever comes.
 */
export async function landForTeam(
	team: SharedTeam,
	change: { base: string; result: string },
	item: TeamItem,
	{ lease, stop }: { lease: HeldLease; stop: AbortSignal },
): Promise<TeamLanding> {
	const claim = await lease.settle();
	const planFile =
		item.planPath === undefined ? undefined : { path: item.planPath, index: item.index, text: item.text };
	const message = WORKER_TEXTS.landingCommit(item.index, item.text, item.key);
	const landedAfter = item.listSince === undefined ? undefined : { key: item.key, since: item.listSince };
	const work = {
		...change,
		message,
		claim,
		...(planFile ? { planFile } : {}),
		...(landedAfter ? { landedAfter } : {}),
	};
	const landing = await landOnBranch(team, work, stop);
	if (landing.kind !== "landed") return { kind: "not-landed", outcome: missed(team, landing) };
	lease.landed();
	const workTree = workTreeOutcome(await landWork(team.repo, change.base, change.result));
	return { kind: "landed", commit: landing.commit, workTree };
}

/**
 * What another session landed of item `key` on the branch at `tip` (fetched), taken into the person's work tree as a
 * worker's landing is: the landed commit found by its trailer on the branch's first-parent line, its change from its
 * parent landed, the plan file's aside. Undefined when no commit of the branch names the item.
 */
export async function receiveLanded(
	team: SharedTeam,
	item: { key: string; planPath: string | undefined },
	tip: string,
): Promise<WorkerOutcome | undefined> {
	const grep = `--grep=^${LANDED_ITEM_TRAILER}: ${item.key}$`;
	const found = await runGit(team.repo.top, ["log", "--first-parent", "-n", "1", "--format=%H", grep, tip]);
	const commit = found.code === 0 ? found.stdout.trim() : "";
	if (commit === "") return undefined;
	// The plan file's line is the list's to write (the item is completed here): its change is left out.
	const work = item.planPath === undefined ? commit : await treeLessFile(team.repo, commit, item.planPath);
	if (work === undefined) return { kind: "not-compared" };
	return workTreeOutcome(await landWork(team.repo, `${commit}^`, work));
}
