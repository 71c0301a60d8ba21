/**
 * The store's ground: what it holds ({@link StoreState}), each session's part of it, and the one way it changes
 * ({@link setState}, which tells the subscribers). The other modules of this folder are its writers and readers,
 * grouped by what they change; `state.ts` is their face.
 *
 * Each session keeps its own state in it: pi may run other sessions in the same process (a session built on pi's
 * SDK, pi-subagents' in-process sessions), each with its own instance of the extension. An instance runs everything
 * it does inside its session's scope ({@link inSession}), and the store reads and writes that scope's state only.
 * Most processes only ever have one: the scopes are told apart by Node's async context from the second one on.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type {
	ChainStart,
	FinishedWorker,
	GoalState,
	LoopState,
	SessionRole,
	TodoItem,
	WorkerState,
} from "../core/model/types.ts";
import { type ChainState, initialChain } from "../core/rules/chain.ts";
import type { Decision } from "../core/rules/decision.ts";
import type { RunOutcome } from "../core/rules/outcome.ts";
import { DEFAULT_CONFIG, type TilDoneConfig } from "../core/rules/settings.ts";
import type { Verification } from "../core/rules/verdict.ts";
import { STORE_OUTSIDE_SESSIONS } from "../core/texts/user.ts";
import type { RunningCheck } from "../core/views/status-entries.ts";

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
	/** Items another session holds the claim of, by key, as last tried: no worker of ours is handed them. */
	claimedElsewhere: readonly string[];
	/** Of those, the items whose claim ref holds no claim: no session takes them until one is freed by hand. */
	claimsMalformed: readonly string[];
	/** How long until the items held elsewhere are worth trying again (ms); undefined when none is held. */
	lookAgainMs: number | undefined;
	/** The shared plans this session joined (by remote, plan file and repository): one silent later is still joined. */
	joined: readonly string[];
	/**
	 * Of the shared plans without a plan file this session works, the branch's tip when each one's list was shared (by
	 * remote and plan): only landings after it count for its items.
	 */
	listsSince: ReadonlyMap<string, string>;
	/** Since when (this process's monotonic ms) the shared plan's remote has not answered a claim; undefined: it does. */
	remoteSilentSince: number | undefined;
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
	/**
	 * Path → the text this session last wrote to or read from a plan file, and its hash: a change since is someone
	 * else's, and what it changed is told against this text.
	 */
	planFiles: ReadonlyMap<string, { hash: string; text: string }>;
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
		claimsMalformed: [],
		lookAgainMs: undefined,
		remoteSilentSince: undefined,
		joined: [],
		listsSince: new Map(),
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
		planFiles: new Map(),
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

const scopes = new AsyncLocalStorage<SessionScope>();
/**
 * Whether the parts are told apart by async context ({@link scopes}): from the second part made in the process on.
 * Until then the one part is every scope's, and Node's async hooks stay off: on, they cost a start about 1 ms, and
 * every later promise of pi's process a little more.
 */
let scoping = false;
/**
 * The part made while it was the process's only one. What its instance began before a second part existed carries
 * no async context, and is its: no other instance existed to begin it.
 */
let first: SessionScope | undefined;

/**
 * The part of the store of the instance `pi` gave `api` to (made, empty, on first use). Until its session starts and
 * says otherwise, it is a guest's: a session pi runs without starting it (a subagent built on pi's SDK) stays one.
 */
export function sessionOf(api: object): SessionScope {
	let part = parts.get(api);
	if (!part) {
		part = createSessionScope("nested");
		parts.set(api, part);
		if (scoping || first !== undefined) scoping = true;
		else first = part;
	}
	return part;
}

/**
 * Testing only: the parts are told apart by async context from the first, as in a process that has several, so that
 * code outside any session finds none (unless {@link allowStoreOutsideSessions}).
 */
export function scopeEverySession(): void {
	scoping = true;
}

/** The part unit tests that drive the store directly read and write, once they allow it; a session's code never does. */
let unscoped: SessionScope | undefined;

/** Testing only: code outside any session reads and writes a part of its own (an "own" session's), or, not allowed, fails. */
export function allowStoreOutsideSessions(allowed = true): void {
	unscoped = allowed ? (unscoped ?? createSessionScope("own")) : undefined;
}

// Outside a session there is no right part to use: a fallback would read another session's state, or none, silently.
// Work without an async context once there are several parts is the first's (see `first`).
const scope = (): SessionScope => {
	const found = (scoping ? scopes.getStore() : undefined) ?? first ?? unscoped;
	if (found === undefined) throw new Error(STORE_OUTSIDE_SESSIONS);
	return found;
};

/** Runs `work` in the session of `session`: the store it reads and writes, and whatever `work` starts, is that one's. */
export function inSession<T>(session: SessionScope, work: () => T): T {
	// Without scoping, `session` is the process's only part: every scope's already.
	return scoping ? scopes.run(session, work) : work();
}

/**
 * `callback` bound to the session it is created in, for callbacks the host or Node calls from elsewhere (a key in the
 * TUI, an event emitter's listener): timers, promises and child processes keep their session by themselves. The
 * session is taken now, so a callback bound while the process had one session keeps it once there are several.
 */
export function bindToSession<F extends (...args: never[]) => unknown>(callback: F): F {
	const session = scope();
	return ((...args: Parameters<F>) => inSession(session, () => callback(...args))) as F;
}

/** Calls `listener` after every change of this session's state; returns the unsubscribe function. */
export function subscribe(listener: () => void): () => void {
	const listeners = scope()._listeners;
	listeners.add(listener);
	return () => listeners.delete(listener);
}

/** The one way the store changes: every write goes through here, and every listener hears of it. */
export function setState(patch: Partial<StoreState>): void {
	const { _state, _listeners } = scope();
	_state.current = { ..._state.current, ...patch };
	for (const listener of [..._listeners]) listener();
}

/** The whole state, as of now; never mutated in place, so a caller may keep it to compare. */
export function getState(): Readonly<StoreState> {
	return scope()._state.current;
}

/** Testing only: this session's part back to the initial state, with no subscriber. */
export function resetState(): void {
	const part = scope();
	part._state.current = initialState(part._state.current.role);
	part._listeners.clear();
}
