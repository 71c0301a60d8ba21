/**
 * An item's work landed on the plan's branch of the remote, in one atomic push: its change (base → result) merged 3-way
 * onto the branch's tip as it is then, with the plan file's line for the item checked in the same commit, pushed with a
 * lease on the tip and, in the same push, the item's claim deleted with a lease on the claim last held. So the landing
 * and the claim's release are recorded together, and a session whose claim was taken over can no longer land.
 *
 * Each try reads the branch's tip and the claim with one `ls-remote` (nothing written in the repository: no ref of
 * the person's or ours, no FETCH_HEAD), fetches the tip's commit by name where it is missing, merges with
 * `git merge-tree` on stand-in commits (core/rules/branch-landing.ts reads what it says) and writes the plan file
 * through a private index. The person's work tree, index, HEAD, branches and stash are never touched; only objects
 * are added to the repository. A push refused because the tip moved (or another push won the same instant) is merged
 * again, up to `MAX_LANDING_TRIES`.
 *
 * Sessions of one machine sharing through the repository itself (`Team.remote` undefined) are not landed here: the
 * type asks for a remote, and the caller lands those in the person's work tree as a worker's landing does.
 */

import { MAX_LANDING_TRIES, markItemDone, readMergeTree, refusalOf } from "../../core/rules/branch-landing.ts";
import { landedKeysOf } from "../../core/rules/shared-list.ts";
import { LANDED_ITEM_TRAILER } from "../../core/texts/user/workers.ts";
import { AUTHOR, type Repo, runGit } from "../git/git.ts";
import { makeStage } from "../git/land.ts";
import { fetchCommit, type HeldClaim, OVER_NETWORK, swapRefsSaying } from "../git/leases.ts";
import { holdsLastFetched, type Team } from "./join.ts";

/** A plan shared through a remote: the only kind whose items land on the branch. */
export type SharedTeam = Team & { remote: string };

/** The plan file's line for the item landed: where the file is in the tree, and the item it must hold at `index`. */
export interface PlanLine {
	/** Relative to the repository's top. */
	path: string;
	index: number;
	/** The item's text: the line at `index` must hold it, else the plan changed under the item (a conflict). */
	text: string;
}

/** An item's work to land: its change from `base` to `result` (commits or trees of the repository), and its claim. */
export interface BranchWork {
	base: string;
	result: string;
	/** The landed commit's message. */
	message: string;
	/** The claim as last renewed: the caller renews it no more while it lands (a renewal would break its lease). */
	claim: HeldClaim;
	planFile?: PlanLine;
	/** Without a plan file: the item's key, and the tip when the list was shared (a landing since naming it landed it). */
	landedAfter?: { key: string; since: string };
}

/** How a landing on the branch went. Every kind but `landed` changed nothing on the remote. */
export type BranchLanding =
	/** `commit` is on the branch, a child of `tip`; the claim is gone with it. `pushes`: the pushes it took. */
	| { kind: "landed"; commit: string; tip: string; pushes: number }
	/** The change conflicts with the tip, or the plan file's item is not the item landed: the files named. */
	| { kind: "conflict"; files: string[] }
	/** The plan file on the tip has the item checked: another session landed it first, and this work never lands. */
	| { kind: "landed-elsewhere" }
	/** The claim is not the one held (another session took it over): the work may not land. */
	| { kind: "claim-lost" }
	/** The remote was not reached (or did not answer within `REMOTE_TIMEOUT_MS`). */
	| { kind: "unreachable" }
	/** The stop came before the push: nothing was pushed. */
	| { kind: "stopped" }
	/** Each of `tries` pushes was refused because the tip had moved again. */
	| { kind: "tip-kept-moving"; tries: number }
	/** The remote has no such branch (another session deleted it). */
	| { kind: "no-branch" }
	/** The branch no longer holds what this clone last fetched of it (someone rewrote it): landing there drops that. */
	| { kind: "rewritten" }
	/** The remote refused the push for a reason of its own (a hook, a protected branch, deletions refused). */
	| { kind: "rejected" }
	/** Git could not write the landing's objects in this repository. */
	| { kind: "git-failed" };

/** The branch's tip and the claim's commit on the remote, as one `ls-remote` read them. */
type RemoteRefs = { kind: "read"; tip: string; claim: string | undefined } | { kind: "unreachable" | "no-branch" };

async function readRemote(team: SharedTeam, branchRef: string, claimRef: string): Promise<RemoteRefs> {
	const listed = await runGit(team.repo.top, ["ls-remote", team.remote, branchRef, claimRef], OVER_NETWORK);
	if (listed.code !== 0) return { kind: "unreachable" };
	const refs = new Map<string, string>();
	for (const line of listed.stdout.split("\n")) {
		const [sha, ref] = line.split("\t");
		if (sha && ref) refs.set(ref, sha);
	}
	const tip = refs.get(branchRef);
	return tip === undefined ? { kind: "no-branch" } : { kind: "read", tip, claim: refs.get(claimRef) };
}

/** A commit written in the repository (by {@link AUTHOR}); its name, or undefined when git could not. */
async function commitTree(repo: Repo, tree: string, parent: string | undefined, message: string) {
	const args = ["commit-tree", tree, ...(parent === undefined ? [] : ["-p", parent])];
	const made = await runGit(repo.top, args, { input: message, env: AUTHOR });
	return made.code === 0 ? made.stdout.trim() : undefined;
}

/** The landing's tree: a tree, the files that conflict, the item landed already (by another), or git failed. */
type Merged = { tree: string } | { files: string[] } | { already: true } | undefined;

/**
 * The change `base` → `result` merged onto `tip`'s tree. git 2.39's `merge-tree` takes no merge base, so it merges
 * stand-ins: the base's tree as a root commit, and the tip's and the result's trees as its children.
 */
async function mergeOnto(repo: Repo, base: string, result: string, tip: string): Promise<Merged> {
	const root = await commitTree(repo, `${base}^{tree}`, undefined, "base");
	const ours = root && (await commitTree(repo, `${tip}^{tree}`, root, "tip"));
	const theirs = root && (await commitTree(repo, `${result}^{tree}`, root, "result"));
	if (!ours || !theirs) return undefined;
	const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs];
	const merged = await runGit(repo.top, args);
	const read = merged.code === 0 || merged.code === 1 ? readMergeTree(merged.stdout) : undefined;
	if (read === undefined) return undefined;
	return merged.code === 0 ? { tree: read.tree } : { files: read.conflicts };
}

/** One entry of `git ls-tree -z`: its mode, type and object, then its path. */
const TREE_ENTRY = /^(\d+) (\w+) ([0-9a-f]+)\t/;

/** `tree` with the plan file's item checked: a tree, the plan file as the conflict, or git failed. */
async function withItemChecked(repo: Repo, tree: string, plan: PlanLine): Promise<Merged> {
	const listed = await runGit(repo.top, ["ls-tree", "-z", tree, "--", plan.path]);
	if (listed.code !== 0) return undefined;
	const [, mode, type, blob] = TREE_ENTRY.exec(listed.stdout) ?? [];
	if (type !== "blob" || !mode || !blob || mode === "120000") return { files: [plan.path] };
	const shown = await runGit(repo.top, ["cat-file", "blob", blob]);
	if (shown.code !== 0) return undefined;
	const marked = markItemDone(shown.stdout, plan.index, plan.text);
	if (!marked.ok) return marked.why === "already-done" ? { already: true } : { files: [plan.path] };
	const written = await runGit(repo.top, ["hash-object", "-w", "--stdin"], { input: marked.text });
	if (written.code !== 0) return undefined;
	return replaced(repo, tree, { mode, blob: written.stdout.trim(), path: plan.path });
}

/**
 * `tree` with one file's blob replaced (undefined `blob`: removed), through an index of its own in a folder of ours
 * (the person's is never read).
 */
async function replaced(
	repo: Repo,
	tree: string,
	file: { mode: string; blob?: string; path: string },
): Promise<Merged> {
	const stage = makeStage(repo);
	try {
		const env = { GIT_INDEX_FILE: stage.next() };
		const update =
			file.blob === undefined
				? ["update-index", "--force-remove", "--", file.path]
				: ["update-index", "--cacheinfo", `${file.mode},${file.blob},${file.path}`];
		const steps = [["read-tree", tree], update, ["write-tree"]];
		let out = "";
		for (const step of steps) {
			const ran = await runGit(repo.top, step, { env });
			if (ran.code !== 0) return undefined;
			out = ran.stdout.trim();
		}
		return { tree: out };
	} finally {
		stage.remove();
	}
}

/**
 * The tree of `commit` with the file at `path` as its parent holds it: the commit's change less that file (a plan file,
 * which each session writes from its own list). Undefined when git could not.
 */
export async function treeLessFile(repo: Repo, commit: string, path: string): Promise<string | undefined> {
	const listed = await runGit(repo.top, ["ls-tree", "-z", `${commit}^`, "--", path]);
	if (listed.code !== 0) return undefined;
	const [, mode = "", , blob] = TREE_ENTRY.exec(listed.stdout) ?? [];
	const made = await replaced(repo, `${commit}^{tree}`, { mode, path, ...(blob ? { blob } : {}) });
	return made !== undefined && "tree" in made ? made.tree : undefined;
}

/** The commit that lands the work on `tip`: its name, the files that conflict, or git failed. */
async function landingCommit(
	repo: Repo,
	tip: string,
	work: BranchWork,
): Promise<{ commit: string } | Exclude<Merged, { tree: string }>> {
	if (work.landedAfter && (await landedSince(repo, work.landedAfter.since, tip))?.has(work.landedAfter.key))
		return { already: true };
	const merged = await mergeOnto(repo, work.base, work.result, tip);
	if (merged === undefined || !("tree" in merged)) return merged;
	const checked = work.planFile ? await withItemChecked(repo, merged.tree, work.planFile) : merged;
	if (checked === undefined || !("tree" in checked)) return checked;
	const commit = await commitTree(repo, checked.tree, tip, work.message);
	return commit === undefined ? undefined : { commit };
}

/**
 * A push whose answer was lost (the connection dropped, the time ran out, the remote "failed to report") may have
 * landed: read again, it has when the claim is gone and the branch holds the commit pushed (at its tip, or under
 * what another session landed since). Otherwise nothing changed there, as far as can be told.
 */
async function afterLostAnswer(team: SharedTeam, refs: { branch: string; claim: string }, commit: string) {
	const seen = await readRemote(team, refs.branch, refs.claim);
	if (seen.kind !== "read" || seen.claim !== undefined) return false;
	if (seen.tip === commit) return true;
	if (!(await fetchCommit(team.repo, team.remote, seen.tip))) return false;
	return (await runGit(team.repo.top, ["merge-base", "--is-ancestor", commit, seen.tip])).code === 0;
}

/**
 * Lands `work` on the team's branch: one commit, its parent the tip as it is then, the plan file's item checked in
 * it, pushed with the claim's deletion in one atomic push; merged again and retried while the tip moves, up to
 * {@link MAX_LANDING_TRIES} pushes. Whatever else happens (`stop` aborted before the push among it), nothing changes
 * on the remote.
 */
export async function landOnBranch(team: SharedTeam, work: BranchWork, stop?: AbortSignal): Promise<BranchLanding> {
	const refs = { branch: `refs/heads/${team.branch}`, claim: work.claim.ref };
	for (let tries = 1; tries <= MAX_LANDING_TRIES; tries++) {
		const seen = await readRemote(team, refs.branch, refs.claim);
		if (seen.kind !== "read") return { kind: seen.kind };
		if (seen.claim !== work.claim.sha) return { kind: "claim-lost" };
		if (!(await fetchCommit(team.repo, team.remote, seen.tip))) return { kind: "unreachable" };
		// A tip that dropped what this clone last fetched (a landing of ours among it): never landed on, said.
		if (!(await holdsLastFetched(team.repo, team.remote, team.branch, seen.tip))) return { kind: "rewritten" };
		const made = await landingCommit(team.repo, seen.tip, work);
		if (made === undefined) return { kind: "git-failed" };
		if ("files" in made) return { kind: "conflict", files: made.files };
		if ("already" in made) return { kind: "landed-elsewhere" };
		// A stop holds until the push: the push is the moment the item lands.
		if (stop?.aborted) return { kind: "stopped" };
		const swaps = [
			{ ref: refs.branch, expect: seen.tip, next: made.commit },
			{ ref: refs.claim, expect: work.claim.sha, next: "" },
		];
		const pushed = await swapRefsSaying(team, swaps);
		const landed = { kind: "landed", commit: made.commit, tip: seen.tip, pushes: tries } as const;
		if (pushed.outcome === "done") return landed;
		const refusal = pushed.outcome === "refused" ? refusalOf(pushed.porcelain, refs.branch, refs.claim) : undefined;
		// Read again: a claim taken over meanwhile is found there, a tip that moved merged onto.
		if (refusal === "tip-moved" || refusal === "raced") continue;
		if (refusal === "claim-lost") return { kind: refusal };
		// Unreachable, or refused with no lease broken: the remote may have taken it and its answer been lost.
		if (await afterLostAnswer(team, refs, made.commit)) return landed;
		return { kind: refusal ?? "unreachable" };
	}
	return { kind: "tip-kept-moving", tries: MAX_LANDING_TRIES };
}

/**
 * The keys of the items landed on the branch's first-parent line after `since` up to `tip` (each landing names its
 * item in a trailer); undefined when git could not read them.
 */
export async function landedSince(repo: Repo, since: string, tip: string): Promise<Set<string> | undefined> {
	const format = `--format=%(trailers:key=${LANDED_ITEM_TRAILER},valueonly)`;
	const logged = await runGit(repo.top, ["log", "--first-parent", format, `${since}..${tip}`]);
	return logged.code === 0 ? landedKeysOf(logged.stdout) : undefined;
}

/** The team's branch's tip as the remote holds it now, fetched; "unreachable" when it was not reached or fetched. */
export async function tipNow(team: SharedTeam): Promise<string | "unreachable"> {
	const branch = `refs/heads/${team.branch}`;
	const seen = await readRemote(team, branch, branch);
	return seen.kind === "read" && (await fetchCommit(team.repo, team.remote, seen.tip)) ? seen.tip : "unreachable";
}
