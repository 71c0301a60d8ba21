/** The store's workers: those at work, those that ended, what each spent and answered, and whether workers may work. */

import type { FinishedWorker, WorkerState } from "../core/model/types.ts";
import { addApartUsage, tokensOf, type UsageRecord } from "../core/rules/usage.ts";
import { leastWorkers, MAX_ENDED_WORKERS } from "../core/rules/worker-dispatch.ts";
import { setChain } from "./chain.ts";
import { getState, setState } from "./scope.ts";
import { sharedRemote } from "./session.ts";

/**
 * How many workers may work at once: none once one could not start or they were refused (no git work tree), else what
 * `/todos workers` said, else the setting, at least `least` (core/rules/worker-dispatch.ts `leastWorkers`). The
 * dispatch, `/todos status` and `/todos workers` all read it here.
 */
export function workersAllowed(configured: number, least = 0): number {
	const { workersUnable, workersRefused, workersAllowed: allowed } = getState();
	return workersUnable !== undefined || workersRefused ? 0 : Math.max(least, allowed ?? configured);
}

/** {@link workersAllowed} for a session's settings: at least one where it shares its plan through a remote. */
export function workersFor(config: { workers: number; remote: string | undefined }): number {
	return workersAllowed(config.workers, leastWorkers(sharedRemote(config.remote) !== undefined));
}

/** No worker can work in this session, for `why`; true the first time (it is said once). */
export function markWorkersUnable(why: string): boolean {
	if (getState().workersUnable !== undefined) return false;
	setState({ workersUnable: why });
	return true;
}

/** Workers could not start in this session: its folder is in no git work tree. None starts again in it. */
export function markWorkersRefused(): void {
	setState({ workersRefused: true });
}

/** `/todos workers <n>`: how many workers may work at once in this session. */
export function allowWorkers(count: number): void {
	setState({ workersAllowed: count });
}

/** Why the last worker on the item `key` gave it back (undefined: none did, or it has landed since). */
export function workerNote(key: string): string | undefined {
	return getState().workerNotes.get(key);
}

/** Keeps why a worker gave the item `key` back, or forgets it (undefined) once the item lands. */
export function noteWorker(key: string, why: string | undefined): void {
	const notes = new Map(getState().workerNotes);
	if (why === undefined) notes.delete(key);
	else notes.set(key, why);
	setState({ workerNotes: notes });
}

/** The workers at work. */
export function getWorkers(): readonly WorkerState[] {
	return getState().workers;
}

/** A worker started on its item. */
export function addWorker(worker: WorkerState): void {
	setState({ workers: [...getState().workers, { ...worker }] });
}

/** The worker of item `key` has its tree at `dir`. */
export function placeWorker(key: string, dir: string): void {
	setState({ workers: getState().workers.map((worker) => (worker.key === key ? { ...worker, dir } : worker)) });
}

/** The worker of item `key` lands its work now. */
export function markLanding(key: string): void {
	setState({
		workers: getState().workers.map((worker) => (worker.key === key ? { ...worker, landing: true } : worker)),
	});
}

/**
 * The worker of item `key` ended: it leaves the ones at work (which is how a wait for workers learns of its end) and,
 * with `ended`, joins those that ended in the same change (the chain keeps its last `MAX_ENDED_WORKERS`), so no listing
 * shows it as both or neither.
 */
export function removeWorker(key: string, ended?: FinishedWorker): void {
	const { workers, endedWorkers } = getState();
	setState({
		workers: workers.filter((worker) => worker.key !== key),
		...(ended ? { endedWorkers: [...endedWorkers, ended].slice(-MAX_ENDED_WORKERS) } : {}),
	});
}

/**
 * Another session holds the claim of item `key`: no worker of ours is handed it until the claims are tried again,
 * worth it in `lookAgainMs` (the shortest such wait of the items held is kept). `malformed`: its claim ref holds no
 * claim, which no lease ends (`/todos remote release` frees it).
 */
export function markClaimedElsewhere(key: string, lookAgainMs: number, malformed = false): void {
	const { workers, claimedElsewhere, claimsMalformed, lookAgainMs: before } = getState();
	setState({
		workers: workers.filter((worker) => worker.key !== key),
		claimedElsewhere: [...claimedElsewhere, key],
		claimsMalformed: malformed ? [...claimsMalformed, key] : claimsMalformed,
		lookAgainMs: before === undefined ? lookAgainMs : Math.min(before, lookAgainMs),
	});
}

/** The keys of the items held elsewhere whose claim ref holds no claim, as last tried. */
export function getClaimsMalformed(): readonly string[] {
	return getState().claimsMalformed;
}

/** The keys of the items other sessions hold, as last tried. */
export function getClaimedElsewhere(): readonly string[] {
	return getState().claimedElsewhere;
}

/** How long until the items held elsewhere are worth trying again; undefined when none is. */
export function getLookAgainMs(): number | undefined {
	return getState().lookAgainMs;
}

/**
 * The shared plan's remote did not answer a claim at `now` (monotonic ms): silent since the first such, until it
 * answers. Whether it fell silent now (it answered before).
 */
export function markRemoteSilent(now: number): boolean {
	if (getState().remoteSilentSince !== undefined) return false;
	setState({ remoteSilentSince: now });
	return true;
}

/** The session joined the shared plan `key` names (its remote answered every question of joining). */
export function markJoined(key: string): void {
	const { joined } = getState();
	if (!joined.includes(key)) setState({ joined: [...joined, key] });
}

/** Whether the session joined the shared plan `key` names before. */
export function hasJoined(key: string): boolean {
	return getState().joined.includes(key);
}

/** The shared list of plan `key` (its remote and name) is the one shared when its branch's tip was `since`. */
export function markListShared(key: string, since: string): void {
	const { listsSince } = getState();
	if (listsSince.get(key) !== since) setState({ listsSince: new Map(listsSince).set(key, since) });
}

/** The branch's tip when the shared list of plan `key` was shared; undefined when none was read yet. */
export function listSharedSince(key: string): string | undefined {
	return getState().listsSince.get(key);
}

/** The shared plan's remote answered a claim. */
export function markRemoteAnswered(): void {
	if (getState().remoteSilentSince !== undefined) setState({ remoteSilentSince: undefined });
}

/** Since when the shared plan's remote has not answered (monotonic ms); undefined while it answers. */
export function remoteSilentSince(): number | undefined {
	return getState().remoteSilentSince;
}

/**
 * The items held elsewhere are to be tried again: their claims, as the next decision hands them out. `keys`: only
 * those (another session landed them), the others still held.
 */
export function forgetClaimedElsewhere(keys?: readonly string[]): void {
	const { claimedElsewhere, claimsMalformed, lookAgainMs } = getState();
	const kept = (all: readonly string[]) => (keys === undefined ? [] : all.filter((key) => !keys.includes(key)));
	const held = kept(claimedElsewhere);
	setState({
		claimedElsewhere: held,
		claimsMalformed: kept(claimsMalformed),
		lookAgainMs: held.length === 0 ? undefined : lookAgainMs,
	});
}

/** A worker's model call ended: it counts in the chain's spend, and in the worker's own; its tokens so far. */
export function recordWorkerUsage(key: string, usage: UsageRecord): number {
	const tokens = tokensOf(usage);
	const { chain, workers } = getState();
	let total = tokens;
	setState({
		chain: { ...chain, spend: addApartUsage(chain.spend, usage, "workers") },
		workers: workers.map((worker) => {
			if (worker.key !== key) return worker;
			total = worker.tokens + tokens;
			return { ...worker, tokens: total, streaming: undefined };
		}),
	});
	return total;
}

/** The workers that ended in this chain, in the order they ended. */
export function getEndedWorkers(): readonly FinishedWorker[] {
	return getState().endedWorkers;
}

/**
 * The model call in progress of the worker of item `key` has spent `tokens` so far, as its stream says; written only
 * when that changes (a stream reports at every piece of text).
 */
export function recordWorkerStreaming(key: string, tokens: number): void {
	const { workers } = getState();
	if (workers.find((worker) => worker.key === key)?.streaming === tokens) return;
	setState({ workers: workers.map((worker) => (worker.key === key ? { ...worker, streaming: tokens } : worker)) });
}

/** The worker of item `key` answered: its last answer so far. */
export function recordWorkerAnswer(key: string, answer: string): void {
	setState({ workers: getState().workers.map((worker) => (worker.key === key ? { ...worker, answer } : worker)) });
}

/**
 * A worker ended: a failed one (`why` it gave its item back) counts as a failed run, the failures breaker bounding the
 * retries; a landed one resets it.
 */
export function recordWorkerEnd(failed: boolean, why?: string): void {
	const { chain } = getState();
	setChain({ ...chain, failures: failed ? chain.failures + 1 : 0, lastWorkerFailure: failed ? why : undefined });
}
