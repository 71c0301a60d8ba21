/**
 * The work a try of this clone kept because the remote was not reached (or its answer was lost, or the stop came at the
 * push), landed by a later session of the clone (`pi -p --continue`, or a new one) without a worker: found by its item's
 * key among every session's kept refs (core/rules/checkpoint-rules.ts `keptToLand`), landed through the same
 * `landForTeam` a worker's landing takes, under the claim its caller won, then its ref deleted. Work that cannot land as
 * is (a conflict, the claim lost) loses its mark and is worked again; another session's landing leaves it kept.
 */

import { keptToLand, unmarkedKeptRef } from "../../core/rules/checkpoint-rules.ts";
import { stillHolds } from "../../core/rules/workers.ts";
import { WORKER_TEXTS, workerWhy } from "../../core/texts/user/workers.ts";
import { completeWorkerItem, getClaimedElsewhere, getTodos, markLanding } from "../../state.ts";
import { type Claims, holdWhileWorking } from "../git/claims.ts";
import { runGit } from "../git/git.ts";
import type { HeldClaim } from "../git/leases.ts";
import { checkpointsSettled, landOneAtATime } from "../git/queue.ts";
import { storeList } from "../host/commit.ts";
import { quietly } from "../host/quietly.ts";
import { tell, tellLasting } from "../host/tell.ts";
import { landForTeam } from "./item-landing.ts";
import { completeHere, type ItemAt, type TeamSession, takeInLanded, takeInLandedBefore } from "./landed-items.ts";

/** What became of an item's kept work: none to land, landed, not landed (worked again), or the remote not reached. */
export type KeptLanding = "none" | "landed" | "not-landed" | "unreachable";

/** Kept refs whose mark git could not drop (a lock left on the ref): not landed as is again in this process. */
const unmarkable = new Set<string>();

/** The work kept to land for `key`: its ref, its commit and the commit it was worked from; undefined when none. */
async function keptWorkOf(session: TeamSession, key: string) {
	const top = session.team.repo.top;
	const listed = await runGit(top, ["for-each-ref", "--sort=-committerdate", "--format=%(refname)", "refs/til-done/"]);
	const refs = listed.code === 0 ? listed.stdout.split("\n").filter((ref) => !unmarkable.has(ref)) : [];
	const ref = keptToLand(refs, key);
	if (ref === undefined) return undefined;
	const read = await runGit(top, ["rev-parse", `${ref}^{commit}`, `${ref}^{commit}^`]);
	const [result, base] = read.code === 0 ? read.stdout.trim().split("\n") : [];
	if (!result || !base) return undefined;
	if (await onThisBranch(top, base)) return { ref, result, base };
	// Worked from another branch's plan (the person switched branches since): kept, never landed here as is.
	await unmark(session, ref, result);
	return undefined;
}

/** Whether work based on `base` (a snapshot of the work tree, standing on HEAD as it was) was worked on HEAD's branch. */
async function onThisBranch(top: string, base: string): Promise<boolean> {
	return (await runGit(top, ["merge-base", "--is-ancestor", `${base}^`, "HEAD"])).code === 0;
}

/**
 * The kept work's ref renamed to a plain kept ref (its work stays, never landed as is): one change of both refs.
 * Should git refuse, the ref is passed over for the rest of the process: tried again, it would fail the same way.
 */
async function unmark(session: TeamSession, ref: string, result: string): Promise<void> {
	const input = `update ${unmarkedKeptRef(ref)} ${result}\ndelete ${ref} ${result}\n`;
	const renamed = await runGit(session.team.repo.top, ["update-ref", "--stdin"], { input });
	if (renamed.code !== 0) unmarkable.add(ref);
}

/**
 * Lands the work this clone kept to land for `item`, under `claim` (won by the caller, let go here unless the landing
 * took it): landed once on the branch and in the work tree, the item completed and said, its ref deleted; "none" when
 * no work is kept to land (the caller starts a worker).
 */
export async function landKeptWork(
	session: TeamSession,
	item: ItemAt,
	place: { claims: Claims; claim: HeldClaim },
): Promise<KeptLanding> {
	const kept = await keptWorkOf(session, item.key);
	if (kept === undefined) return "none";
	const { pi, ctx, team } = session;
	const lease = holdWhileWorking(place.claims, place.claim, () => {});
	const change = { base: kept.base, result: kept.result };
	const teamItem = { ...item, planPath: session.planPath, listSince: session.listSince };
	// No stop reaches it: it is one landing, and no worker runs whose stop it could share.
	const stop = new AbortController().signal;
	// As a worker's landing: the item's start checkpoint taken first, its completion's after.
	markLanding(item.key);
	await checkpointsSettled();
	const landing = await landOneAtATime(() => landForTeam(team, change, teamItem, { lease, stop }));
	await lease.letGo();
	if (landing.kind === "landed") {
		tellLasting(pi, ctx, {
			level: "info",
			text: WORKER_TEXTS.keptLanded(item.index, team.branch, team.remote, landing.commit),
		});
		if (landing.workTree.kind !== "landed") {
			const text = WORKER_TEXTS.notInWorkTree(item.index, team.branch, workerWhy(landing.workTree));
			tellLasting(pi, ctx, { level: "warning", text });
		}
		// The item edited meanwhile: what landed was the item it was, not the one in its place now.
		if (stillHolds(getTodos(), item)) completeWorkerItem(item.key, item.index);
		quietly(() => storeList(pi));
		await checkpointsSettled();
		await runGit(team.repo.top, ["update-ref", "-d", kept.ref, kept.result]);
		await takeInLandedBefore(session, landing.commit, getClaimedElsewhere());
		return "landed";
	}
	const { outcome } = landing;
	if (outcome.kind === "not-on-branch" && outcome.why === "unreachable") return "unreachable";
	await unmark(session, kept.ref, kept.result);
	if (outcome.kind === "landed-elsewhere") {
		completeHere(pi, item.index, item.text);
		tell(ctx, WORKER_TEXTS.keptLandedElsewhere(item.index), "info");
		await takeInLanded(session, item);
		return "landed";
	}
	tell(ctx, WORKER_TEXTS.keptNotLanded(item.index, workerWhy(outcome)), "warning");
	return "not-landed";
}
