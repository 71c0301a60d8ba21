/**
 * The workers of a session: each ready item it is given is claimed, set in progress, and worked by a pi of its own in
 * a tree of its own; when the worker ends, the item's check runs in its tree, its work is kept under a ref and landed
 * in the user's work tree, and the item completes (or goes back to ready, with why). The session's workers keep only the handles of
 * its processes; what the user sees (the workers at work, the list) is in the store.
 */

import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import type { FinishedWorker, WorkerEnd, WorkerOutcome, WorkerWork } from "../../core/model/types.ts";
import { keptWorkRef, workerBaseMessage, workerRef } from "../../core/rules/checkpoint-rules.ts";
import { WORKER_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { CLAIMS_POLL_MS, type ClaimStep, renewEveryMs, type SeenClaim } from "../../core/rules/leases.ts";
import { keptAnswer } from "../../core/rules/reports.ts";
import { tokensOf } from "../../core/rules/usage.ts";
import { toolFlags } from "../../core/rules/worker-bounds.ts";
import { finishedWorker, workerEndLine, workerStartLine } from "../../core/rules/worker-reports.ts";
import {
	checkOutcome,
	countsAsFailedRun,
	keptToLandAfter,
	processOutcome,
	stillHolds,
	tokensSoFar,
	withoutWorkerWords,
	workerOverspends,
	workerPrompt,
} from "../../core/rules/workers.ts";
import { WORKER_TEXTS, workerWhy } from "../../core/texts/user/workers.ts";
import {
	addWorker,
	bindToSession,
	completeWorkerItem,
	forgetClaimedElsewhere,
	getChain,
	getClaimedElsewhere,
	getTodos,
	getWorkers,
	markClaimedElsewhere,
	markLanding,
	markRemoteAnswered,
	markRemoteSilent,
	markWorkersUnable,
	noteWorker,
	placeWorker,
	recordWorkerAnswer,
	recordWorkerEnd,
	recordWorkerStreaming,
	recordWorkerUsage,
	removeWorker,
	sharedRemote,
	updateTodoStatus,
	workerNote,
} from "../../state.ts";
import { type Exec, runCheck } from "../checks/run-check.ts";
import { readPlanAgain } from "../files/follow.ts";
import { snapshotBound } from "../git/bound.ts";
import {
	type Claims,
	claimantOf,
	claimItem,
	type HeldLease,
	holdWhileWorking,
	localPlace,
	newNonce,
} from "../git/claims.ts";
import { deleteRefs, findRepo, type Repo, runGit, takeCheckpoint, withoutRepositoryVariables } from "../git/git.ts";
import { landWork } from "../git/land.ts";
import {
	type ClaimPlace,
	claimsByKey,
	judgeClaim,
	listClaims,
	releaseClaim,
	type TakeResult,
	untilClaimsMove,
} from "../git/leases.ts";
import { checkpointsSettled, landOneAtATime } from "../git/queue.ts";
import { keepWorkerResult, makeWorkerTree, removeWorkerTree, type WorkerTree } from "../git/worker-tree.ts";
import { storeList } from "../host/commit.ts";
import { ownerTag, removeInUse } from "../host/owner.ts";
import { killInside } from "../host/processes.ts";
import { quietly } from "../host/quietly.ts";
import { WORKER_MARKER } from "../host/role.ts";
import { tell, tellLasting } from "../host/tell.ts";
import type { SharedTeam } from "../team/branch-landing.ts";
import { landForTeam, workTreeOutcome } from "../team/item-landing.ts";
import { joinTeam } from "../team/join.ts";
import { landKeptWork } from "../team/kept-landing.ts";
import {
	completeHere,
	type ItemAt,
	isCompleted,
	landedOnBranch,
	type TeamSession,
	takeInAllLanded,
	takeInLanded,
	takeInLandedBefore,
} from "../team/landed-items.ts";
import { listSince, settleList } from "../team/shared-list.ts";
import { confinedInTree, WORKER_REPO_VAR, WORKER_TREE_VAR, type WorkerBounds, workerBounds } from "./confine.ts";
import { provideProject, workerExtensionFlags } from "./extensions.ts";
import { putBackLines, sweepOnce } from "./leftovers.ts";
import { confinedPi } from "./worker-jail.ts";
import { piCommand, runWorker } from "./worker-process.ts";

/** How long a stopped worker's work may take to be kept before the keeping is given up (a stop waits no longer). */
export const KEEP_ON_STOP_MS = 5_000;

/** A signal aborted `ms` after `signal` is. */
function graceAfter(signal: AbortSignal, ms: number): AbortSignal {
	const grace = new AbortController();
	const later = () => setTimeout(() => grace.abort(), ms).unref();
	if (signal.aborted) later();
	else signal.addEventListener("abort", later, { once: true });
	return grace.signal;
}

/** How long one worker may run before its group is killed and its item goes back to ready. */
export const WORKER_TIME_LIMIT_MS = 30 * 60_000;

/** One worker at work: the item it has, how to stop it, and how it ended once it has. */
interface Running {
	index: number;
	stop: AbortController;
	ended: Promise<WorkerEnd>;
}

/** The workers of one extension instance (its session). */
interface SessionWorkers {
	running: Map<string, Running>;
	/** While workers work: what an interrupt (SIGINT) of the process does first. */
	onInterrupt?: () => void;
	/** From an interrupt caught until it is raised again, their stop: no worker starts meanwhile. */
	stopping?: Promise<void>;
	/** Waits on the workers, told of an interrupt as it is caught. */
	waitsOnInterrupt: Set<(stop: InterruptStop) => void>;
	/** The session's nonce in its claims: made once, so a claim is this session's whatever its process. */
	nonce: string;
	/** The items whose claim ref was found holding no claim, said once each. */
	malformedSaid: Set<string>;
	/** Where its claims were last tried: what a wait on the items others hold reads. */
	place?: ClaimPlace;
}

const sessionWorkersByApi = new WeakMap<object, SessionWorkers>();

function sessionWorkersOf(pi: ExtensionAPI): SessionWorkers {
	let sessionWorkers = sessionWorkersByApi.get(pi);
	if (!sessionWorkers) {
		sessionWorkers = { running: new Map(), waitsOnInterrupt: new Set(), nonce: newNonce(), malformedSaid: new Set() };
		sessionWorkersByApi.set(pi, sessionWorkers);
	}
	return sessionWorkers;
}

/** The nonce of this session's claims: the same for its workers' items and a shared plan's verification. */
export function sessionNonce(pi: ExtensionAPI): string {
	return sessionWorkersOf(pi).nonce;
}

/** What a worker needs from its session. */
export interface WorkersRun {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	/** The user's request the worker is told of. */
	request: string;
	checkTimeoutSeconds: number;
	/** The progress breaker's factor: a worker spending more than this many medians per finished item is stopped. */
	spendFactor: number;
	/** What runs a worker: this pi again (tests give a stand-in). */
	command?: { command: string; args: string[] };
	/** The plan file the session follows, read again once an item is claimed (another session may have landed it). */
	planFile: string | undefined;
	/** The remote the plan is shared through, as the setting says (`/todos remote` may have chosen another). */
	remote: string | undefined;
	/** Seconds a claim may go unrenewed before another session takes it over. */
	leaseSeconds: number;
}

/** Records the list on the branch, so a reload shows what the workers did (the session may be gone by then). */
function commitList(pi: ExtensionAPI): void {
	quietly(() => storeList(pi));
}

/**
 * Starts a worker on each of `items` that it can claim; returns once they are started. Outside a git work tree nothing
 * starts and the user is told why: false.
 */
export async function startWorkers(items: readonly number[], run: WorkersRun): Promise<boolean> {
	// Handed out during an interrupt's stop: nothing starts, though the stop ends before the reads below do.
	if (sessionWorkersOf(run.pi).stopping) return true;
	const repo = await findRepo(run.ctx.cwd);
	if (!repo) {
		tell(run.ctx, WORKER_TEXTS.noRepo, "warning");
		return false;
	}
	for (const line of putBackLines(await sweepOnce(repo))) tell(run.ctx, line, "warning");
	const joined = await claimsOf(repo, run);
	if (!joined) return true;
	sessionWorkersOf(run.pi).place = joined.claims.place;
	// Without a plan file, every session works the list shared first: one taken in its place is decided on again.
	const settled =
		joined.team && run.planFile === undefined ? await settledList({ ...run, ...joined }, joined.team, items) : "kept";
	if (settled === "adopted" || settled === "unreachable") return true;
	const bounds = await workerBounds(repo, run.ctx);
	const shared = teamSessionOf({ ...run, ...joined });
	// The branch read once for all of them: an item found landed there is completed, not claimed.
	const tipRead = shared !== undefined && (await takeInAllLanded(shared, atWork())) !== "unreachable";
	const claims = await readClaimsOnce({ ...run, ...joined }, items);
	for (const index of items)
		await startOne(index, repo, { ...run, bounds, ...joined, read: claims?.get(index), tipRead });
	return true;
}

/** The keys of the items this session's workers are at work on. */
const atWork = (): Set<string> => new Set(getWorkers().map((worker) => worker.key));

/**
 * The plan's claims read once as workers are handed items: each of `items` is claimed from what was read (no read
 * of its own), the other open items that other sessions hold are known held (none is handed out only for its claim
 * to fail), and those whose claim went since are handed out again. Undefined when the place was not reached: each
 * item then reads its own claim.
 */
async function readClaimsOnce(
	run: WorkersRun & Joined,
	items: readonly number[],
): Promise<Map<number, { seen: SeenClaim }> | undefined> {
	const listed = await listClaims(run.claims.place);
	if (listed === "unreachable") return undefined;
	const claims = claimsByKey(listed);
	const gone = getClaimedElsewhere().filter((key) => !claims.has(key));
	if (gone.length > 0) forgetClaimedElsewhere(gone);
	const running = atWork();
	const read = new Map<number, { seen: SeenClaim }>();
	for (const [index, todo] of getTodos().entries()) {
		const key = itemKey(index, todo.text);
		const seen = claims.get(key);
		if (items.includes(index)) read.set(index, { seen });
		else if (todo.status !== "completed" && seen && !running.has(key) && !getClaimedElsewhere().includes(key))
			heldNow(run, index, key, judgeClaim(run.claims.place, key, seen, run.claims.me, run.claims.leaseMs));
	}
	return read;
}

/** An item another session holds as read now (or whose ref holds no claim) is known so; one free or ours is left. */
function heldNow(run: WorkersRun & Joined, index: number, key: string, step: ClaimStep): void {
	if (step.kind === "held") heldElsewhere(run, index, key, { kind: "held", by: step.by, leftMs: step.leftMs });
	else if (step.kind === "malformed") heldElsewhere(run, index, key, { kind: "malformed" });
}

/**
 * How the session claims: at the remote it shares its plan through, else in the repository itself. A remote it cannot
 * join turns the workers off for the session, said once.
 */
async function claimsOf(repo: Repo, run: WorkersRun): Promise<Joined | undefined> {
	const me = claimantOf(run.ctx.sessionManager.getSessionId(), sessionWorkersOf(run.pi).nonce);
	const leaseMs = run.leaseSeconds * 1000;
	const remote = sharedRemote(run.remote);
	if (remote === undefined)
		return { claims: { place: await localPlace(repo, run.ctx.cwd, run.planFile), me, leaseMs } };
	// A remote joined before that is silent now is still joined: its claims say so, and after a lease the run stops.
	const joined = await joinTeam(run.ctx.cwd, remote, run.planFile);
	if ("team" in joined) return { claims: { place: joined.team, me, leaseMs }, team: { ...joined.team, remote } };
	if (markWorkersUnable(joined.problem)) tell(run.ctx, joined.problem, "warning");
	return undefined;
}

/**
 * The list of a shared plan without a plan file settled before any of `items` is claimed (edges/team/shared-list.ts).
 * The remote not reached: each item is tried again as one whose claim could not be read is, said once.
 */
async function settledList(run: WorkersRun & Joined, team: SharedTeam, items: readonly number[]) {
	const me = claimantOf(run.ctx.sessionManager.getSessionId(), sessionWorkersOf(run.pi).nonce);
	const settled = await settleList({ pi: run.pi, ctx: run.ctx, team, me });
	if (settled !== "unreachable") return settled;
	for (const index of items) {
		const todo = getTodos()[index];
		if (todo) heldElsewhere(run, index, itemKey(index, todo.text), { kind: "unreachable" });
	}
	return settled;
}

/** How the session's workers claim, and the team whose branch their items land on when the plan is shared. */
interface Joined {
	claims: Claims;
	team?: SharedTeam;
}

/**
 * A run of the session's workers as they start, with their bounds (edges/workers/confine.ts), claims and team, and
 * the item's claim as read for this start (undefined: read it).
 */
type BoundRun = WorkersRun &
	Joined & {
		bounds: WorkerBounds;
		read?: { seen: SeenClaim };
		/** A shared plan's branch was read as the items were handed out: those it has landed are completed. */
		tipRead?: boolean;
	};

/**
 * Claims item `index` and starts its worker; returns once the worker's pi is started (or its start failed). From the
 * claim on, the worker is at work: a stop reaches it while its tree is being made too.
 */
async function startOne(index: number, repo: Repo, run: BoundRun): Promise<void> {
	const todo = getTodos()[index];
	// An interrupt stops the workers: a worker's end meanwhile must not hand its item out again.
	if (!todo || sessionWorkersOf(run.pi).stopping) return;
	const key = itemKey(index, todo.text);
	const session = run.ctx.sessionManager.getSessionId();
	// At work from now on: no other decision hands the item out again.
	addWorker({ index, key, startedAt: Date.now(), tokens: 0, dir: "" });
	// A shared plan's branch is read before the claim too (once for the items handed out together): an item landed
	// there is not claimed only to be let go.
	const shared = teamSessionOf(run);
	const at: ItemAt = { index, text: todo.text, key };
	if (shared && (run.tipRead ? isCompleted(at) : await landedOnBranch(shared, at))) return removeWorker(key);
	const taken = await claimItem(run.claims, key, run.read);
	if (taken.kind !== "won") return heldElsewhere(run, index, key, taken);
	markRemoteAnswered();
	// Claimed, then read: a session that landed the item wrote the plan before it let the claim go.
	if (await landedElsewhere(run, at)) {
		await releaseClaim(run.claims.place, taken.claim);
		return removeWorker(key);
	}
	// Work of this clone kept when the remote was not reached lands as is: no worker starts for it.
	const kept = shared ? await landKeptWork(shared, at, { claims: run.claims, claim: taken.claim }) : "none";
	if (kept !== "none") {
		removeWorker(key);
		return kept === "unreachable" ? heldElsewhere(run, index, key, { kind: "unreachable" }) : undefined;
	}
	tellLasting(run.pi, run.ctx, workerStartLine(index, todo.text));
	const item: Item = { index, text: todo.text, check: todo.check };
	const refs = {
		base: workerRef(session, key, "worker-base"),
		result: workerRef(session, key, "worker-result"),
		kept: (commit: string, toLand: boolean) => keptWorkRef(session, key, commit, toLand),
	};
	const stop = new AbortController();
	const lost: WorkerOutcome = { kind: "claim-lost" };
	const lease = holdWhileWorking(run.claims, taken.claim, () => stop.abort(lost));
	const sessionWorkers = sessionWorkersOf(run.pi);
	let spawned: () => void = () => {};
	const started = new Promise<void>((resolve) => {
		spawned = resolve;
	});
	const ended = live({ item, key, repo, refs, run, stop, spawned, lease }).finally(() => {
		sessionWorkers.running.delete(key);
		if (sessionWorkers.running.size === 0) stopCatchingInterrupts(sessionWorkers);
		spawned();
	});
	sessionWorkers.running.set(key, { index, stop, ended });
	catchInterrupts(sessionWorkers, run.pi);
	await started;
}

/**
 * Resolves once a claim of `keys` (items other sessions hold) moved where this session last tried its claims, read
 * every {@link CLAIMS_POLL_MS} until `signal`; never where it has tried none. A remote not reached is read next time.
 */
export function othersMoved(pi: ExtensionAPI, keys: readonly string[], signal: AbortSignal): Promise<"moved"> {
	const { place } = sessionWorkersOf(pi);
	return place === undefined ? new Promise(() => {}) : untilClaimsMove(place, keys, signal);
}

/**
 * An item whose claim this session did not win: held by another session (tried again once its lease may have run out,
 * or a renewal's interval, whichever is sooner, or as soon as a wait sees its claim move: {@link othersMoved}), or a
 * ref that holds no claim (said once; `/todos remote release` frees it), or claims that cannot be read now (said;
 * tried again at a renewal's interval). Nothing starts on it.
 */
function heldElsewhere(
	run: WorkersRun & Joined,
	index: number,
	key: string,
	taken: Exclude<TakeResult, { kind: "won" }>,
): void {
	const every = renewEveryMs(run.claims.leaseMs);
	const said = sessionWorkersOf(run.pi).malformedSaid;
	if (taken.kind === "malformed" && !said.has(key)) {
		said.add(key);
		tell(run.ctx, WORKER_TEXTS.malformedClaim(index), "warning");
	}
	// Said once as it falls silent, not at each try of each item.
	if (taken.kind !== "unreachable") markRemoteAnswered();
	else if (markRemoteSilent(performance.now()))
		tell(run.ctx, WORKER_TEXTS.claimsUnreachable(run.claims.place.remote), "warning");
	markClaimedElsewhere(key, Math.min(taken.kind === "held" ? taken.leftMs : every, every), taken.kind === "malformed");
}

/**
 * Whether the plan file, read again now that the item is claimed, has item `index` completed: another session landed
 * it (its completions are taken into the list). A shared plan's file is read as its branch on the remote holds it (a
 * landing checks the item's line in the same push that frees its claim); without a plan file there is nothing to read.
 */
async function landedElsewhere(run: BoundRun, item: ItemAt): Promise<boolean> {
	const shared = teamSessionOf(run);
	if (shared) return landedOnBranch(shared, item);
	if (run.planFile === undefined) return false;
	readPlanAgain(run.pi, run.ctx, run.planFile);
	return isCompleted(item);
}

/** The plan file relative to the repository's top, where a shared plan's branch holds it. */
function planPathOf(run: WorkersRun & Joined): string | undefined {
	return run.planFile === undefined
		? undefined
		: relative(run.claims.place.repo.top, resolve(run.ctx.cwd, run.planFile));
}

/** The session as a shared plan's: undefined when its plan is not shared through a remote. */
function teamSessionOf(run: WorkersRun & Joined): TeamSession | undefined {
	return (
		run.team && { pi: run.pi, ctx: run.ctx, team: run.team, planPath: planPathOf(run), listSince: listSinceOf(run) }
	);
}

/** Without a plan file, the branch's tip when the shared list was shared (only landings since count); else undefined. */
function listSinceOf(run: Joined & Pick<WorkersRun, "planFile">): string | undefined {
	return run.team && run.planFile === undefined ? listSince(run.team) : undefined;
}

/** A worker's life from its claim: its tree made from a snapshot, then its work ({@link work}); how it ended. */
async function live(start: Omit<Job, "tree">): Promise<WorkerEnd> {
	const { item, key, repo, refs, run, stop } = start;
	updateTodoStatus([item.index], "in_progress");
	commitList(run.pi);
	const options = { bound: snapshotBound(run.ctx), signal: stop.signal };
	const base = await takeCheckpoint(repo, refs.base, workerBaseMessage(item.index, ownerTag()), options);
	const tree = base === undefined || stop.signal.aborted ? undefined : await makeWorkerTree(repo, base);
	if (!tree || stop.signal.aborted) {
		if (tree) removeWorkerTree(tree);
		await deleteRefs(repo, [refs.base]);
		await start.lease.letGo();
		const outcome: WorkerOutcome = stop.signal.aborted ? stoppedAs(stop.signal) : { kind: "no-tree" };
		const finished = asEnded(item, key, outcome);
		endWorker(run, key, finished);
		giveBack(run, outcome, finished);
		return { outcome, work: "unchanged" };
	}
	placeWorker(key, tree.dir);
	return work({ ...start, tree });
}

/** A worker's item as it was when the worker started: a change of the list meanwhile never lands on another. */
interface Item {
	index: number;
	text: string;
	check?: string;
}

/** What a worker works with. */
interface Job {
	item: Item;
	key: string;
	repo: Repo;
	tree: WorkerTree;
	/** Its refs: the snapshot it started from, kept while it works; its result, kept when its work does not land. */
	refs: { base: string; result: string; kept: (commit: string, toLand: boolean) => string };
	run: BoundRun;
	/** Aborted to stop the worker: with the outcome as its reason when the worker itself is the cause. */
	stop: AbortController;
	/** Called once its pi is about to start (its compiled extensions being copied): the next worker starts then. */
	spawned: () => void;
	/** Its claim, renewed while it works; let go once its landing is recorded, or it ended without one. */
	lease: HeldLease;
}

/** One worker's life, from its start to its item completed or given back; how it ended. */
async function work(job: Job): Promise<WorkerEnd> {
	const { item, key, repo, tree, run } = job;
	let finished: FinishedWorker | undefined;
	try {
		const ended = await workAndLand(job);
		const { outcome } = ended;
		finished = asEnded(item, key, outcome, ended.work === "kept");
		if (outcome.kind === "landed") await landed(job, finished, outcome);
		else if (outcome.kind === "cannot-start") cannotStart(run, item, outcome, key);
		else if (outcome.kind === "landed-elsewhere") await landedByAnother(run, { ...item, key }, finished);
		else giveBack(run, outcome, finished, key);
		return ended;
	} finally {
		// What it started and left running in its tree (one that cleared its environment carries no mark) ends too.
		killInside(tree.dir);
		removeWorkerTree(tree);
		await deleteRefs(repo, [job.refs.base]);
		await job.lease.letGo();
		// Last: its end wakes the next decision, which may hand the item out again.
		endWorker(run, key, finished);
	}
}

/** What the worker of `item` is remembered as once it ended: how, and its time, tokens and last answer, as it ends. */
function asEnded(item: Item, key: string, outcome: WorkerOutcome, workKept = false): FinishedWorker {
	const worker = getWorkers().find((at) => at.key === key);
	const seconds = worker ? Math.round((Date.now() - worker.startedAt) / 1000) : 0;
	// A call in progress when it was stopped counts too: what it spent is what the list showed.
	const tokens = worker ? tokensSoFar(worker) : 0;
	const ran = { itemThere: stillHolds(getTodos(), item), seconds, tokens, answer: worker?.answer ?? "", workKept };
	return finishedWorker(item, outcome, ran);
}

/**
 * A worker leaves those at work, and joins those that ended as it leaves (never listed as both, nor as neither); the
 * session keeps how it ended, so a resumed one lists it in `/todos workers`, its answer whole.
 */
function endWorker(run: BoundRun, key: string, finished: FinishedWorker | undefined): void {
	if (finished) quietly(() => run.pi.appendEntry(WORKER_ENTRY_TYPE, finished));
	removeWorker(key, finished);
}

/** The worker runs, its work is kept, its check runs in its tree, and its work lands: how far it got, and its work. */
async function workAndLand(job: Job): Promise<WorkerEnd> {
	const { item, key, repo, tree, refs, run, stop } = job;
	const cwd = join(tree.dir, relative(repo.top, run.ctx.cwd));
	// The session's folder may hold nothing git keeps (empty, or ignored): the worker's tree has it all the same.
	mkdirSync(cwd, { recursive: true });
	provideProject(repo.top, run.ctx.cwd, tree);
	const confining = confinedPi(piCommandFor(run, repo.top, item.index, key), tree.dir, run.bounds);
	// The next worker's tree is made while this one waits for the workers' copy of the compiled extensions.
	job.spawned();
	const command = await confining;
	const ending = runWorker({
		...command,
		cwd,
		env: {
			...withoutRepositoryVariables(process.env),
			[WORKER_REPO_VAR]: run.bounds.repo,
			[WORKER_TREE_VAR]: tree.dir,
			[WORKER_MARKER]: String(process.pid),
		},
		timeoutMs: WORKER_TIME_LIMIT_MS,
		signal: stop.signal,
		onUsage: (usage) => {
			const tokens = recordWorkerUsage(key, usage);
			const overspent = workerOverspends(tokens, getChain().spend, run.spendFactor);
			if (overspent !== undefined) stop.abort(overspent);
		},
		onAnswer: (answer) => recordWorkerAnswer(key, keptAnswer(answer)),
		onStreaming: (usage) => recordWorkerStreaming(key, tokensOf(usage)),
	});
	const end = await ending;
	const ended = processOutcome(end, stoppedAs(stop.signal), WORKER_TIME_LIMIT_MS / 60_000);
	// Its work is kept, on a stop too, within a grace: a stop must not wait on a huge result.
	const result = await keepWorkerResult(repo, tree, refs.result, graceAfter(stop.signal, KEEP_ON_STOP_MS));
	const outcome = ended ?? (await checkAndLand(job, result));
	if (outcome.kind === "landed") return { outcome, work: "landed" };
	const work = workKept(result, tree.base);
	const landingBegun = run.team !== undefined && getWorkers().some((at) => at.key === key && at.landing === true);
	if (work === "kept" && result !== undefined) await keepForGood(job, result, keptToLandAfter(outcome, landingBegun));
	return { outcome, work };
}

/**
 * The work of a try that did not land moves from the worker's result ref to one of its own ({@link keptWorkRef}), in
 * one change of both refs: the item's next try keeps its own work without taking this one's place. Should git refuse,
 * it stays under the result ref. Marked `toLand` when a later session may land it as is (edges/team/kept-landing.ts).
 */
async function keepForGood({ repo, refs }: Job, result: string, toLand: boolean): Promise<void> {
	const input = `update ${refs.kept(result, toLand)} ${result}\ndelete ${refs.result} ${result}\n`;
	await runGit(repo.top, ["update-ref", "--stdin"], { input });
}

/** What became of a worker's work that did not land: its `result` kept (a commit of its own), none, or not kept. */
function workKept(result: string | undefined, base: string): WorkerWork {
	if (result === undefined) return "not-kept";
	return result === base ? "unchanged" : "kept";
}

/** The worker's `result` kept, its check runs in its tree, and its work lands: how far it got. */
async function checkAndLand(job: Job, result: string | undefined): Promise<WorkerOutcome> {
	const { stop } = job;
	// A stop holds at every moment before the landing writes: here, in the check, in the queue, before the first write.
	if (stop.signal.aborted) return stoppedAs(stop.signal);
	if (result === undefined) return { kind: "no-result" };
	const failedCheck = await checkInTree(job);
	if (failedCheck) return failedCheck;
	return landOneAtATime(() => land(job, result));
}

/** What stopped a worker: the outcome its stop was aborted with, or the user. */
function stoppedAs(signal: AbortSignal): WorkerOutcome {
	const reason: unknown = signal.reason;
	return typeof reason === "object" && reason !== null && "kind" in reason
		? (reason as WorkerOutcome)
		: { kind: "stopped" };
}

/**
 * Lands a worker's `result` in the user's work tree, between the item's start checkpoint (taken once the worker is
 * marked landing) and its completion's: landed, or why it did not (nothing written then).
 */
async function land(job: Job, result: string): Promise<WorkerOutcome> {
	const { stop } = job;
	if (stop.signal.aborted) return stoppedAs(stop.signal);
	if (!stillHolds(getTodos(), job.item)) return { kind: "list-changed" };
	markLanding(job.key);
	await checkpointsSettled();
	if (job.run.team !== undefined) return landShared(job, job.run.team, result);
	const outcome = workTreeOutcome(await landWork(job.repo, job.tree.base, result, stop.signal));
	if (outcome.kind !== "landed") return outcome.kind === "stopped" ? stoppedAs(stop.signal) : outcome;
	await completeLanded(job);
	return { ...outcome, throughStop: stop.signal.aborted };
}

/** The landed item completed in the list, between its checkpoints. */
async function completeLanded(job: Job): Promise<void> {
	completeWorkerItem(job.key, job.item.index);
	commitList(job.run.pi);
	await checkpointsSettled();
}

/**
 * Lands a shared plan's item on its branch, then in the work tree: landed once on the branch, whatever the work tree
 * took (said when it took nothing); else why not, nothing changed anywhere.
 */
async function landShared(job: Job, team: SharedTeam, result: string): Promise<WorkerOutcome> {
	const { item, run, stop } = job;
	const change = { base: job.tree.base, result };
	const landing = await landForTeam(
		team,
		change,
		{ ...item, key: job.key, planPath: planPathOf(run), listSince: listSinceOf(run) },
		{ lease: job.lease, stop: stop.signal },
	);
	if (landing.kind === "not-landed")
		return landing.outcome.kind === "stopped" ? stoppedAs(stop.signal) : landing.outcome;
	tellLasting(run.pi, run.ctx, {
		level: "info",
		text: WORKER_TEXTS.onBranch(item.index, team.branch, team.remote, landing.commit),
	});
	const inTree = landing.workTree;
	if (inTree.kind !== "landed") {
		const text = WORKER_TEXTS.notInWorkTree(item.index, team.branch, workerWhy(inTree));
		tellLasting(run.pi, run.ctx, { level: "warning", text });
	}
	await completeLanded(job);
	const files = inTree.kind === "landed" ? inTree.files : [];
	return { kind: "landed", files, throughStop: stop.signal.aborted, onBranch: landing.commit };
}

/** The worker's command: this pi again, with the session's model, tools and extensions, on its one item. */
function piCommandFor(run: WorkersRun, top: string, index: number, key: string): { command: string; args: string[] } {
	const pi = run.command ?? piCommand();
	const model = run.ctx.model ? ["--model", `${run.ctx.model.provider}/${run.ctx.model.id}`] : [];
	const prompt = workerPrompt(getTodos(), index, run.request, workerNote(key));
	const session = [...model, ...thinkingOf(run.pi)];
	return {
		command: pi.command,
		args: [
			...pi.args,
			...workerExtensionFlags(run.ctx, top),
			...toolFlags(process.argv),
			"--mode",
			"json",
			"-p",
			"--no-session",
			...session,
			prompt,
		],
	};
}

/** The session's thinking level as a flag, when pi says it: a worker thinks as the session does. */
function thinkingOf(pi: ExtensionAPI): string[] {
	let level: string | undefined;
	quietly(() => {
		level = typeof pi.getThinkingLevel === "function" ? pi.getThinkingLevel() : undefined;
	});
	return level ? ["--thinking", level] : [];
}

/**
 * The item's own check, run in the worker's tree by the one check runner, under the worker's stop; why it failed (a
 * stop among the reasons), or undefined when it passed (or there is none).
 */
async function checkInTree({ item, tree, repo, run, stop }: Job): Promise<WorkerOutcome | undefined> {
	if (item.check === undefined) return undefined;
	const exec: Exec = (command, args, options) => run.pi.exec(command, args, options);
	const timeoutSeconds = run.checkTimeoutSeconds;
	// Where the worker ran, and confined as its own bash was: the check is a command the model wrote.
	const cwd = join(tree.dir, relative(repo.top, run.ctx.cwd));
	const command = confinedInTree(item.check, tree.dir, run.bounds);
	const checked = await runCheck(exec, command, { cwd, timeoutSeconds, signal: stop.signal });
	return checkOutcome(checked, timeoutSeconds, stoppedAs(stop.signal));
}

/**
 * The item landed: a failed run no longer, and nothing of it is kept but in the work tree; its line says what it
 * changed, and a stop that came once its landing had begun writing (`throughStop`) is told it landed. On a shared
 * plan's branch, what others landed before it is taken in too (outside the landings' queue, which takes it in turn).
 */
async function landed(job: Job, finished: FinishedWorker, outcome: { throughStop?: boolean; onBranch?: string }) {
	const { item, key, repo, refs, run } = job;
	recordWorkerEnd(false);
	noteWorker(key, undefined);
	report(run, finished);
	await deleteRefs(repo, [refs.result]);
	if (outcome.throughStop === true) tell(run.ctx, WORKER_TEXTS.landedOnStop(item.index), "info");
	const shared = teamSessionOf(run);
	if (shared && outcome.onBranch !== undefined)
		await takeInLandedBefore(shared, outcome.onBranch, getClaimedElsewhere());
}

/**
 * Another session landed the item first: completed here too (where the list still holds it), no failed run; this
 * work stays under its ref and its line says so.
 */
async function landedByAnother(run: BoundRun, item: ItemAt, finished: FinishedWorker): Promise<void> {
	noteWorker(item.key, undefined);
	recordWorkerEnd(false);
	completeHere(run.pi, item.index, item.text);
	report(run, finished);
	const shared = teamSessionOf(run);
	if (shared) await takeInLanded(shared, item);
}

/** A worker's end, told as a line that stays. */
function report(run: WorkersRun, finished: FinishedWorker): void {
	const line = workerEndLine(finished);
	if (line) tellLasting(run.pi, run.ctx, line);
}

/**
 * The item goes back to ready, with why (its next worker is told); a worker that failed counts as a failed run. An item
 * the list no longer holds where it was (its work kept aside) is left as the list has it now.
 */
function giveBack(run: WorkersRun, outcome: WorkerOutcome, finished: FinishedWorker, key?: string): void {
	if (key !== undefined) noteWorker(key, finished.why);
	// The chain keeps why without the worker's own words: the failures breaker's stop is read by the session's model.
	recordWorkerEnd(countsAsFailedRun(outcome), workerWhy(withoutWorkerWords(outcome)));
	if (finished.end === "given-back") {
		updateTodoStatus([finished.index], "not_started");
		commitList(run.pi);
	}
	report(run, finished);
}

/**
 * While workers work, an interrupt (SIGINT: Ctrl+C on a `pi -p`, which the workers in their own groups never get) first
 * stops them, each claim let go and tree removed, and this process's private git folders, then is raised again, for
 * whatever else takes it (the process's end, or another listener's handling) as if this one had never caught it.
 */
function catchInterrupts(sessionWorkers: SessionWorkers, pi: ExtensionAPI): void {
	if (sessionWorkers.onInterrupt) return;
	// Bound to the session: a signal's listener runs outside it, where the store is nobody's.
	sessionWorkers.onInterrupt = bindToSession(() => {
		const stopping = stopWorkers(pi).finally(() => {
			stopCatchingInterrupts(sessionWorkers);
			removeInUse();
			sessionWorkers.stopping = undefined;
			process.kill(process.pid, "SIGINT");
		});
		// The interrupt raised again is read in the event loop's next poll, one full turn after this one: what waits
		// on the stop goes on after that (if the process is still there), never before pi -p ends on its own.
		const taken = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
		sessionWorkers.stopping = stopping.then(taken, taken);
		for (const wait of sessionWorkers.waitsOnInterrupt) wait({ stopped: sessionWorkers.stopping });
	});
	process.on("SIGINT", sessionWorkers.onInterrupt);
}

/** An interrupt caught: `stopped` resolves once the workers are stopped and the interrupt raised again. */
export interface InterruptStop {
	stopped: Promise<void>;
}

/**
 * Resolves as an interrupt is caught (at once if the workers are stopping for one now): a wait on the workers ends there,
 * for what follows would start them again; `signal` drops the wait.
 */
export function workersInterrupted(pi: ExtensionAPI, signal: AbortSignal): Promise<InterruptStop> {
	const sessionWorkers = sessionWorkersOf(pi);
	return new Promise((resolve) => {
		if (sessionWorkers.stopping) return resolve({ stopped: sessionWorkers.stopping });
		sessionWorkers.waitsOnInterrupt.add(resolve);
		signal.addEventListener("abort", () => sessionWorkers.waitsOnInterrupt.delete(resolve), { once: true });
	});
}

function stopCatchingInterrupts(sessionWorkers: SessionWorkers): void {
	if (sessionWorkers.onInterrupt) process.off("SIGINT", sessionWorkers.onInterrupt);
	sessionWorkers.onInterrupt = undefined;
}

/**
 * A worker whose pi could not start: no model's failure, and no worker here will start better. Workers stop for the
 * session, said once; the item is ready again for the session's model.
 */
function cannotStart(
	run: WorkersRun,
	item: Item,
	outcome: Extract<WorkerOutcome, { kind: "cannot-start" }>,
	key: string,
) {
	const why = workerWhy(outcome);
	noteWorker(key, why);
	if (markWorkersUnable(why)) tell(run.ctx, WORKER_TEXTS.cannotStart(outcome.code, outcome.stderr), "warning");
	if (!stillHolds(getTodos(), item)) return;
	updateTodoStatus([item.index], "not_started");
	commitList(run.pi);
}

/**
 * Stops every worker of the session: each group killed, its work kept under a ref (if it changed anything), its tree
 * removed; how each ended (one whose landing had begun writing landed), and what became of its work.
 */
export async function stopWorkers(pi: ExtensionAPI): Promise<WorkerEnd[]> {
	const running = [...sessionWorkersOf(pi).running.values()];
	const stopped: WorkerOutcome = { kind: "stopped" };
	for (const worker of running) worker.stop.abort(stopped);
	return Promise.all(running.map((worker) => worker.ended));
}
