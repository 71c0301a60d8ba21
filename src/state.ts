/**
 * The store, a module-scoped singleton: the todo list, the continuation chain, the `/loop` in progress, the checks
 * and the decisions. Every write goes through one setter that tells the subscribers (the session's painter,
 * edges/host/painter.ts, among them); it never touches the UI itself. It is rebuilt from the session branch.
 *
 * Each session keeps its own state in it: pi may run other sessions in the same process (a subagent built on pi's
 * SDK, pi-subagents' in-process children), each with its own instance of the extension. An instance runs everything
 * it does inside its session's scope ({@link inSession}), and the store reads and writes that scope's state only.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { withAppended, withInserted } from "./core/list/changes.ts";
import { cloneTodos } from "./core/list/items.ts";
import { isAllFinished } from "./core/list/queries.ts";
import type {
	ChainStart,
	FinishedWorker,
	GoalState,
	LoopState,
	SessionRole,
	TodoItem,
	TodoStatus,
	WorkerState,
} from "./core/model/types.ts";
import {
	lastDecisions,
	lastDoneCheck,
	lastEndedWorkers,
	lastPause,
	lastSnapshot,
	lastVerdict,
	ownBranch,
} from "./core/rules/branch.ts";
import type { StoppedBy } from "./core/rules/breakers.ts";
import { type ChainState, initialChain, noteCompleted } from "./core/rules/chain.ts";
import type { Decision } from "./core/rules/decision.ts";
import type { RunOutcome } from "./core/rules/outcome.ts";
import { DEFAULT_CONFIG, type TilDoneConfig } from "./core/rules/settings.ts";
import { addApartUsage, addUsage, readUsage, tokensOf, type UsageRecord } from "./core/rules/usage.ts";
import { passesFor, type Verification } from "./core/rules/verdict.ts";
import { MAX_ENDED_WORKERS } from "./core/rules/worker-dispatch.ts";
import { STARTED_PAUSED, STORE_OUTSIDE_SESSIONS } from "./core/texts/user.ts";
import type { RunningCheck, UiView } from "./core/views/status-entries.ts";

export type { RunningCheck, UiView, Verification };

/** Everything the store holds. A new field is one line here and one in {@link initialState}. */
export interface StoreState {
	todos: readonly TodoItem[];
	chain: ChainState;
	loop: LoopState | undefined;
	/** The goal in progress (`/goal`, `--til-done-goal`), if any. */
	goal: GoalState | undefined;
	/** The workers at work, in the order they started. */
	workers: readonly WorkerState[];
	/** How many workers `/todos workers` allowed in this session, over the setting; undefined when it did not. */
	workersAllowed: number | undefined;
	/** Why no worker can work in this session (one could not start), said once; undefined while they can. */
	workersUnable: string | undefined;
	/** Workers were refused in this session for want of a git work tree: the session's model works its list. */
	workersRefused: boolean;
	/** Why each item's last worker gave it back, by the item's key: its next worker is told (as data). */
	workerNotes: ReadonlyMap<string, string>;
	/** The workers that ended in this chain (its last `MAX_ENDED_WORKERS`), in the order they ended. */
	endedWorkers: readonly FinishedWorker[];
	/** Items another live process holds the claim of, by key, in this chain: no worker of ours is handed them. */
	claimedElsewhere: readonly string[];
	/** The remote `/todos remote` chose for this session, over the setting: null for none (off); undefined when it did not. */
	remoteChosen: string | null | undefined;
	/** Set once the finished-list notice is shown; cleared when the list has work again. */
	completionAnnounced: boolean;
	panelEnabled: boolean;
	checking: RunningCheck | undefined;
	verification: Verification | undefined;
	/** The done-check set with `/todos check` on the branch: a command, null for "off", undefined when never set. */
	branchDoneCheck: string | null | undefined;
	/** The latest decisions of the auto-continue, oldest first, at most {@link MAX_DECISIONS}. */
	decisions: readonly Decision[];
	/** Setting warnings already shown: flags and environment do not change while pi runs, so each is said once. */
	reportedWarnings: ReadonlySet<string>;
	/** Whose session this is (edges/host/role.ts): only the user's own sets the exit status, and only a process's own writes to its stderr. */
	role: SessionRole;
	/** A `pi -p` of the user's whose settings were not understood: its prompt is not run. */
	runRefused: boolean;
	/** The session's settings, as resolved when it started. */
	config: Readonly<TilDoneConfig>;
	/** The outcome of the run that ended, waiting for pi to settle (interactive modes). */
	endedRun: RunOutcome | undefined;
	/** Path → hash of the text this session last wrote to or read from a plan file: a change since is someone else's. */
	planFileHashes: ReadonlyMap<string, string>;
	/** The work tree as the last chain started, while the judge or a goal is on; undefined when none was taken. */
	chainStart: ChainStart | undefined;
}

function initialState(role: SessionRole): StoreState {
	return {
		role,
		runRefused: false,
		todos: [],
		chain: initialChain(),
		loop: undefined,
		goal: undefined,
		workers: [],
		workersAllowed: undefined,
		workersUnable: undefined,
		workersRefused: false,
		workerNotes: new Map(),
		claimedElsewhere: [],
		remoteChosen: undefined,
		endedWorkers: [],
		completionAnnounced: false,
		panelEnabled: false,
		checking: undefined,
		verification: undefined,
		branchDoneCheck: undefined,
		decisions: [],
		reportedWarnings: new Set(),
		config: DEFAULT_CONFIG,
		endedRun: undefined,
		planFileHashes: new Map(),
		chainStart: undefined,
	};
}

/** One session's part of the store: its state, and who listens to it. Opaque outside this module. */
export interface SessionScope {
	readonly _state: { current: StoreState };
	readonly _listeners: Set<() => void>;
}

function createSessionScope(role: SessionRole): SessionScope {
	return { _state: { current: initialState(role) }, _listeners: new Set() };
}

/** Each instance of the extension, known by the API object pi gave it, has its own part of the store. */
const parts = new WeakMap<object, SessionScope>();

/**
 * The part of the store of the instance `pi` gave `api` to (made, empty, on first use). Until its session starts and
 * says otherwise, it is a guest's: a session pi runs without starting it (a subagent built on pi's SDK) stays one.
 */
export function sessionOf(api: object): SessionScope {
	let part = parts.get(api);
	if (!part) {
		part = createSessionScope("nested");
		parts.set(api, part);
	}
	return part;
}

const scopes = new AsyncLocalStorage<SessionScope>();
/** The part unit tests that drive the store directly read and write, once they allow it; a session's code never does. */
let unscoped: SessionScope | undefined;

/** Testing only: code outside any session reads and writes a part of its own (an "own" session's), or, not allowed, fails. */
export function allowStoreOutsideSessions(allowed = true): void {
	unscoped = allowed ? (unscoped ?? createSessionScope("own")) : undefined;
}

// Outside a session there is no right part to use: a fallback would read another session's state, or none, silently.
const scope = (): SessionScope => {
	const found = scopes.getStore() ?? unscoped;
	if (found === undefined) throw new Error(STORE_OUTSIDE_SESSIONS);
	return found;
};

/** Runs `work` in the session of `session`: the store it reads and writes, and whatever `work` starts, is that one's. */
export function inSession<T>(session: SessionScope, work: () => T): T {
	return scopes.run(session, work);
}

/**
 * `callback` bound to the session it is created in, for callbacks the host or Node calls from elsewhere (a key in the
 * TUI, an event emitter's listener): timers, promises and child processes keep their session by themselves.
 */
export function bindToSession<F extends (...args: never[]) => unknown>(callback: F): F {
	return AsyncLocalStorage.bind(callback);
}

/** Calls `listener` after every change of this session's state; returns the unsubscribe function. */
export function subscribe(listener: () => void): () => void {
	const listeners = scope()._listeners;
	listeners.add(listener);
	return () => listeners.delete(listener);
}

/** The one way the store changes: every write goes through here, and every listener hears of it. */
function setState(patch: Partial<StoreState>): void {
	const { _state, _listeners } = scope();
	_state.current = { ..._state.current, ...patch };
	for (const listener of [..._listeners]) listener();
}

/** The whole state, as of now; never mutated in place, so a caller may keep it to compare. */
export function getState(): Readonly<StoreState> {
	return scope()._state.current;
}

export function getTodos(): readonly TodoItem[] {
	return getState().todos;
}

/**
 * A new list, with what follows from it: an item newly finished is progress, the completion notice is re-armed for a
 * list with work, and a pass no longer holds. A failure stays on the status bar while the list stays finished (until
 * the next verification); a list open again is not the list that failed.
 */
function withList(todos: readonly TodoItem[], byWorkers: readonly number[] = []): Partial<StoreState> {
	const { chain, completionAnnounced, verification } = getState();
	return {
		todos,
		chain: noteCompleted(chain, todos, byWorkers),
		completionAnnounced: isAllFinished(todos) ? completionAnnounced : false,
		verification: verification?.passed || !isAllFinished(todos) ? undefined : verification,
	};
}

/** Replaces the whole list. */
export function setTodos(newTodos: readonly TodoItem[]): void {
	setState(withList(cloneTodos(newTodos)));
}

/** Sets the status of every item at `indices`; the caller has validated them. */
export function updateTodoStatus(indices: readonly number[], newStatus: TodoStatus): void {
	setState(
		withList(getState().todos.map((todo, index) => (indices.includes(index) ? { ...todo, status: newStatus } : todo))),
	);
}

/**
 * The worker of item `key` landed its work: the item at `index` completes, and what that worker spent on it is the
 * item's spend (not a share of whatever the chain spent since the last item finished).
 */
export function completeWorkerItem(key: string, index: number): void {
	const { todos, workers } = getState();
	const spent = workers.find((worker) => worker.key === key)?.tokens ?? 0;
	const completed = todos.map((todo, at) => (at === index ? { ...todo, status: "completed" as const } : todo));
	setState(withList(completed, [spent]));
}

export function appendTodos(newItems: readonly TodoItem[]): void {
	setState(withList(withAppended(getState().todos, cloneTodos(newItems))));
}

/** Inserts items at `atIndex`; the links of the items that move down follow them. */
export function insertTodos(atIndex: number, newItems: readonly TodoItem[]): void {
	setState(withList(withInserted(getState().todos, atIndex, cloneTodos(newItems))));
}

export function getChain(): Readonly<ChainState> {
	return getState().chain;
}

function setChain(chain: ChainState): void {
	setState({ chain });
}

/** A run ended: the chain's counters as the next-step rules left them. */
export function recordRun(chain: ChainState): void {
	setChain(chain);
}

/** The review wait on item `index` was announced, once per wait in a chain. */
export function markReviewAnnounced(index: number): void {
	setChain({ ...getState().chain, reviewAnnounced: index });
}

/** The user took the wheel (a prompt, a command, a new session): every breaker counter starts again. */
export function resetChain(): void {
	setState({ chain: freshChain(getState().chain, getState().todos), claimedElsewhere: [], endedWorkers: [] });
}

/** A new chain over `todos`: what is completed now is not progress, and a pause of the user's lasts. */
function freshChain(old: ChainState, todos: readonly TodoItem[]): ChainState {
	const fresh = { ...initialChain(), completedByText: noteCompleted(initialChain(), todos).completedByText };
	const keepPause = old.paused && old.pausedBy === "user";
	return keepPause ? { ...fresh, paused: true, pauseReason: old.pauseReason, pausedBy: "user" } : fresh;
}

/**
 * Switches auto-continue off; a model's pause ends with the user's next prompt, a user's with `resume`. The user's
 * pause is the user acting: a stop shown until then leaves the status bar (`/todos why` keeps it).
 */
export function pauseAutoContinue(by: "user" | "model", reason?: string): void {
	const stopped = by === "user" ? undefined : getState().chain.stopped;
	setChain({ ...getState().chain, paused: true, pausedBy: by, pauseReason: reason, stopped });
}

export function resumeAutoContinue(): void {
	setChain({ ...getState().chain, paused: false, pausedBy: undefined, pauseReason: undefined });
}

/** A model call ended: its usage counts in the chain's spend (a message without usage changes nothing). */
export function recordUsage(message: unknown): void {
	const usage = readUsage(message);
	if (usage) setChain({ ...getState().chain, spend: addUsage(getState().chain.spend, usage) });
}

/** A call of the judge ended: it counts in the chain's spend, and in the judge's own. */
export function recordJudgeUsage(message: unknown): void {
	const usage = readUsage(message);
	if (usage) setChain({ ...getState().chain, spend: addApartUsage(getState().chain.spend, usage, "judge") });
}

/** How many workers may work at once: none once one could not start, else what `/todos workers` said, else the setting. */
export function workersAllowed(configured: number): number {
	const { workersUnable, workersAllowed: allowed } = getState();
	return workersUnable !== undefined ? 0 : (allowed ?? configured);
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

/** The remote the session's plan is shared through: what `/todos remote` chose, else the setting; undefined: none. */
export function sharedRemote(configured: string | undefined): string | undefined {
	const chosen = getState().remoteChosen;
	return chosen === undefined ? configured : (chosen ?? undefined);
}

/** `/todos remote <name>|off`: the remote of this session (null: none). */
export function chooseRemote(remote: string | null): void {
	setState({ remoteChosen: remote });
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

/** Another live process holds the claim of item `key`: it is not ours to work in this chain, and never was. */
export function markClaimedElsewhere(key: string): void {
	const { workers, claimedElsewhere } = getState();
	setState({
		workers: workers.filter((worker) => worker.key !== key),
		claimedElsewhere: [...claimedElsewhere, key],
	});
}

/** The keys of the items other processes hold in this chain. */
export function getClaimedElsewhere(): readonly string[] {
	return getState().claimedElsewhere;
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

/** A breaker, a budget or the user's key stopped the chain: the status bar says why until the user acts. */
export function markStopped(code: StoppedBy): void {
	setChain({ ...getState().chain, stopped: code });
}

/** Decisions kept for `/todos why`: enough for a long chain's end, bounded so a long session does not grow. */
export const MAX_DECISIONS = 50;

export function recordDecision(decision: Decision): void {
	setState({ decisions: [...getState().decisions.slice(-(MAX_DECISIONS - 1)), decision] });
}

export function getDecisions(): readonly Decision[] {
	return getState().decisions;
}

/** The `/loop` in progress, if any. */
export function getLoop(): Readonly<LoopState> | undefined {
	return getState().loop;
}

export function setLoop(next: LoopState | undefined): void {
	setState({ loop: next ? { ...next } : undefined });
}

/** Stores what a sent continuation, loop iteration or goal run changes: the chain's counters, the loop, the goal. */
export function recordSend(sent: { chain: ChainState; loop: LoopState | undefined; goal?: GoalState }): void {
	setState({ chain: sent.chain, loop: sent.loop, ...(sent.goal ? { goal: sent.goal } : {}) });
}

/** The goal in progress, if any. */
export function getGoal(): Readonly<GoalState> | undefined {
	return getState().goal;
}

/** Starts a goal (`{ condition, runs: 0 }`), or ends it (undefined). */
export function setGoal(goal: GoalState | undefined): void {
	setState({ goal: goal ? { ...goal } : undefined });
}

/** What the judge said of the goal after the last run; ignored when no goal is in progress. */
export function recordGoalVerdict(verdict: NonNullable<GoalState["verdict"]>): void {
	const { goal } = getState();
	if (goal) setState({ goal: { ...goal, verdict }, checking: undefined });
}

/** Whether the "all done" notice was already shown for the current list. */
export function isCompletionAnnounced(): boolean {
	return getState().completionAnnounced;
}

export function markCompletionAnnounced(): void {
	setState({ completionAnnounced: true });
}

/** The warnings among `warnings` not shown yet, now counted as shown. */
export function takeUnreported(warnings: readonly string[]): string[] {
	const fresh = warnings.filter((warning) => !getState().reportedWarnings.has(warning));
	if (fresh.length > 0) setState({ reportedWarnings: new Set([...getState().reportedWarnings, ...fresh]) });
	return fresh;
}

export function setPanelEnabled(panelEnabled: boolean): void {
	setState({ panelEnabled });
}

export function isPanelEnabled(): boolean {
	return getState().panelEnabled;
}

/** Shows a check as running (undefined: none is). */
export function setChecking(checking: RunningCheck | undefined): void {
	setState({ checking });
}

export function getVerification(): Verification | undefined {
	return getState().verification;
}

/**
 * Keeps a verdict with the chain it leaves, which ends the check on show; a pass for another list, or for a list with
 * an item open, says nothing and is not kept. A failure re-arms the completion notice: the first pass after it is
 * news, even for a list that was announced done before it had a verification.
 */
export function recordVerdict(verification: Verification, chain: ChainState): void {
	const { todos, completionAnnounced } = getState();
	const kept =
		verification.passed && !passesFor(verification, todos, judgeIsOn()) ? getState().verification : verification;
	setState({
		verification: kept,
		checking: undefined,
		chain,
		completionAnnounced: kept?.passed === false ? false : completionAnnounced,
	});
}

/** Whether the list, as it is now, passed its verification. */
export function isVerified(): boolean {
	return passesFor(getState().verification, getState().todos, judgeIsOn());
}

/** Whether this session's settings have the judge verify a finished list. */
export function judgeIsOn(): boolean {
	return getState().config.judge !== "off";
}

/** Whether the judge had its say on the list as it is now: it is asked at most once per state of the list. */
export function isJudged(): boolean {
	const { verification, todos } = getState();
	return verification?.judge !== undefined && verification.of === todos;
}

/** The done-check the user set on this branch, if they did (null: they turned it off). */
export function getBranchDoneCheck(): string | null | undefined {
	return getState().branchDoneCheck;
}

/** The done-check in force: the one set on the branch (null: turned off there), else the configured one. */
export function effectiveDoneCheck(configured: string | undefined): string | undefined {
	const branch = getState().branchDoneCheck;
	return branch === undefined ? configured : (branch ?? undefined);
}

/** `/todos check`: a new done-check (or null for none) also makes the finished list unverified again. */
export function setBranchDoneCheck(command: string | null): void {
	setState({ branchDoneCheck: command, verification: undefined });
}

/** Whose session this is. */
export function getRole(): SessionRole {
	return getState().role;
}

/** A session started: whose it is, as the process decided (edges/host/role.ts), and its settings. */
export function beginSession(role: SessionRole, config: Readonly<TilDoneConfig>): void {
	setState({ role, config, endedRun: undefined, chainStart: undefined });
}

/** A chain's work started: the work tree as it was then (or why it could not be taken). */
export function recordChainStart(start: ChainStart): void {
	setState({ chainStart: start });
}

/** The work tree as the last chain started; undefined when no snapshot was taken in this session. */
export function getChainStart(): ChainStart | undefined {
	return getState().chainStart;
}

/** The settings of this session (the defaults before it starts). */
export function getConfig(): Readonly<TilDoneConfig> {
	return getState().config;
}

/** Holds the outcome of a run that ended until pi settles (undefined: forget it). */
export function holdEndedRun(outcome: RunOutcome | undefined): void {
	if (outcome !== getState().endedRun) setState({ endedRun: outcome });
}

/** The outcome of the run that ended, now taken: it is carried out once. */
export function takeEndedRun(): RunOutcome | undefined {
	const outcome = getState().endedRun;
	holdEndedRun(undefined);
	return outcome;
}

/** Counts `hash` as the text of the plan file at `path` as far as this session knows (it read or wrote it). */
export function rememberPlanFile(path: string, hash: string): void {
	if (getState().planFileHashes.get(path) !== hash)
		setState({ planFileHashes: new Map([...getState().planFileHashes, [path, hash]]) });
}

/** The hash of what this session last wrote to or read from the plan file at `path`; undefined when it never did. */
export function planFileHash(path: string): string | undefined {
	return getState().planFileHashes.get(path);
}

/** This `pi -p` runs nothing: its settings were not understood. */
export function markRunRefused(): void {
	setState({ runRefused: true });
}

export function isRunRefused(): boolean {
	return getState().runRefused;
}

/** Testing only: this session's part back to the initial state, with no subscriber. */
export function resetState(): void {
	const part = scope();
	part._state.current = initialState(part._state.current.role);
	part._listeners.clear();
}

/**
 * Rebuilds the store from the current branch, this session's own part of it (a guest's inherited part is its parent's):
 * the last trustworthy list, done-check, verdict, the user's pause, the decisions and the workers that ended, and a
 * fresh chain; an unreadable branch gives an empty list. What belongs to the session's start (its role, settings,
 * warnings shown, the panel switch, the plan files' hashes, whether its workers were refused or cannot start) is kept.
 * `inherited`: the whole branch is a parent's (a guest that just marked it); `startPaused`: the session starts paused
 * where the branch does not say otherwise.
 */
export function reconstructState(ctx: ExtensionContext, { inherited = false, startPaused = false } = {}): void {
	let branch: readonly unknown[] = [];
	try {
		branch = inherited ? [] : ownBranch(ctx.sessionManager.getBranch());
	} catch {
		branch = [];
	}
	const todos = lastSnapshot(branch);
	const verdict = lastVerdict(branch);
	const verification = verdict && { ...verdict, of: todos };
	// `--til-done-paused` starts a session paused unless the branch has the user's own word on it (a pause or a resume).
	const pause = lastPause(branch) ?? (startPaused ? { paused: true, reason: STARTED_PAUSED } : undefined);
	const chain = freshChain(initialChain(), todos);
	setState({
		todos,
		decisions: lastDecisions(branch, MAX_DECISIONS),
		// The user's pause is the branch's: a `/todos pause` stays through a restart, a reload or a move in the tree.
		chain: pause?.paused ? { ...chain, paused: true, pausedBy: "user", pauseReason: pause.reason } : chain,
		branchDoneCheck: lastDoneCheck(branch),
		// The last verdict of this very list; a pass the rule does not let through (an item open) says nothing.
		verification: verification?.passed && !passesFor(verification, todos, judgeIsOn()) ? undefined : verification,
		checking: undefined,
		// A finished list needs no fresh "all done" notice, unless it failed its verification: its pass is news.
		completionAnnounced: isAllFinished(todos) && verdict?.passed !== false,
		// The workers that ended on this branch, until the user's next prompt starts a chain; another branch's are not its own.
		endedWorkers: lastEndedWorkers(branch, MAX_ENDED_WORKERS),
	});
}
