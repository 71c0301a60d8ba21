/** Types, limits and lookup tables shared by every module. No logic lives here. */

export type TodoStatus = "not_started" | "in_progress" | "completed" | "abandoned";

export interface TodoItem {
	text: string;
	status: TodoStatus;
	/** A shell command that exits 0 when the item is really done; run before the model may complete it. */
	check?: string;
	/** The user must see this item: the model may work on it but only the user completes it. */
	review?: boolean;
	/** Indices of the items it waits for: it is ready once every one of them is completed. Never empty when present. */
	blockedBy?: number[];
	/** Index of the item it is a subtask of (one level deep): that item completes with its last subtask. */
	parent?: number;
}

/** What one check (an item's or the done-check) did. */
export interface CheckRun {
	command: string;
	passed: boolean;
	/** The exit code, or null when the check was stopped (timed out, aborted). */
	code: number | null;
	timedOut: boolean;
	aborted: boolean;
	/** The end of what it printed, stdout and stderr merged. */
	output: string;
	/** Milliseconds it ran. */
	ms: number;
}

/** Stored in every tool result's `details`; reconstruction replays these snapshots. */
export interface TodoDetails {
	action: "write" | "list" | "edit";
	todos: TodoItem[];
	error?: string;
	/** The items whose check passed in this edit, with how long each took. */
	checked?: { index: number; ms: number }[];
}

/** The counters a decision of the auto-continue was made on. */
export interface Counters {
	continuations: number;
	maxContinuations: number;
	noProgress: number;
	/** 0: the no-progress breaker is off. */
	maxNoProgress: number;
	failures: number;
	maxFailures: number;
	finished: number;
	total: number;
	tokens: number;
	cost: number;
	calls: number;
}

/** One decision of the auto-continue: what it did, why, and on which counters. */
export interface Decision {
	/** When it was made, in milliseconds since the epoch. */
	at: number;
	kind: "send" | "stop" | "end-loop" | "verify" | "idle" | "work" | "wait";
	/** The reason code. */
	code: string;
	/** The sentence the user reads. */
	text: string;
	counters: Counters;
}

export type WriteMode = "replace" | "append" | "insert";
export type EditAction = "start" | "complete" | "abandon";

/** Longest todo text, in characters; the schema and the runtime check share it. */
export const MAX_TODO_TEXT_LENGTH = 1000;
/** Hard cap on continuations per user prompt: the circuit breaker. */
export const MAX_AUTO_CONTINUE = 20;
/** Consecutive continuations in which no item got finished before the breaker trips. */
export const MAX_NO_PROGRESS = 3;
/** Most items one list may hold. */
export const MAX_TODOS = 100;
/** Most indices one `edit_todos` call may name. */
export const MAX_INDICES = 50;
/** Longest item check (a shell command), in characters; `execute` checks it (the schema leaves it out to stay short). */
export const MAX_CHECK_LENGTH = 500;
/** Longest reason the model may give with `edit_todos`; `execute` checks it (the schema leaves it out to stay short). */
export const MAX_EDIT_REASON_LENGTH = 500;
/** Longest reason the model may give for pausing; `execute` checks it (the schema leaves it out to stay short). */
export const MAX_PAUSE_REASON_LENGTH = 500;
/** Seconds the countdown shows before a continuation is sent. */
export const DEFAULT_COUNTDOWN_SECONDS = 3;
/** Iterations a `/loop` runs at most when `--max` is not given. */
export const DEFAULT_LOOP_MAX = 10;
/** Most iterations `--max` allows a `/loop`. */
export const MAX_LOOP_ITERATIONS = 1000;
/** What a `/loop`'s answer holds when the task is done, when `--until` is not given. */
export const DEFAULT_LOOP_MARKER = "LOOP_DONE";
/** Where `/todos export` writes when it is given no file and no plan file is followed. */
export const DEFAULT_PLAN_FILE = "PLAN.md";

export const INITIAL_STATUS: TodoStatus = "not_started";

export const VALID_STATUSES: ReadonlySet<string> = new Set<TodoStatus>([
	"not_started",
	"in_progress",
	"completed",
	"abandoned",
]);

export const WRITE_MODES = ["replace", "append", "insert"] as const;
export const EDIT_ACTIONS = ["start", "complete", "abandon"] as const;

/** The list tools, whose results reconstruction looks at (`write`/`edit` snapshots are replayed, `list` ones never). */
export const TOOL_NAMES: ReadonlySet<string> = new Set(["write_todos", "list_todos", "edit_todos"]);

/** Plain-text status icons; `–` is U+2013 EN DASH. */
export const STATUS_ICONS: Readonly<Record<TodoStatus, string>> = {
	not_started: "–",
	in_progress: "●",
	completed: "✓",
	abandoned: "✗",
};

export const ACTION_TO_STATUS: Readonly<Record<EditAction, TodoStatus>> = {
	start: "in_progress",
	complete: "completed",
	abandon: "abandoned",
};

export const ACTION_LABELS: Readonly<Record<EditAction, string>> = {
	start: "Started",
	complete: "Completed",
	abandon: "Abandoned",
};

export interface LoopSpec {
	prompt: string;
	max: number;
	marker: string;
}

export interface LoopState extends LoopSpec {
	/** Iterations sent so far (the first one included). */
	iteration: number;
}

/** A worker at work on an item, as the status bar and `/todos workers` show it. */
export interface WorkerState {
	index: number;
	/** The item's key (index and text), which names its claim and its refs. */
	key: string;
	startedAt: number;
	/** Tokens of its model calls so far. */
	tokens: number;
	/** Tokens of its model call in progress so far, as the call's stream reports them (none between calls). */
	streaming?: number;
	/** Its last answer so far: the text of its last model call that wrote any (cut as core/rules/reports.ts keeps it). */
	answer?: string;
	/** The folder of its tree. */
	dir: string;
	/** Its work is being landed: the item's start checkpoint is taken now, so its diff holds its landing alone. */
	landing?: boolean;
}

/**
 * How a worker ended, as the user is told: its item landed, given back (ready again), its work kept aside (the list no
 * longer holds its item where it was), or its pi could not start.
 */
export type WorkerEndKind = "landed" | "given-back" | "kept" | "cannot-start";

/** A worker that ended in this chain, as `/todos workers` lists it. */
export interface FinishedWorker {
	index: number;
	/** Its item's text as it started. */
	text: string;
	end: WorkerEndKind;
	/** Why it ended so, in the words of `workerWhy`. */
	why: string;
	seconds: number;
	/** Tokens of its model calls. */
	tokens: number;
	/** The files its landing wrote or deleted (none unless it landed). */
	files: readonly string[];
	/** Its last answer, at most `MAX_WORKER_ANSWER_CHARS` characters (core/rules/reports.ts). */
	answer: string;
	/** Stopped with work of its own, which is kept under its ref (`/todos workers` names it). */
	stoppedWithWork?: true;
}

/** How a check that did not pass ended: with an exit code, killed by a signal, or at its timeout. */
export type CheckEnd =
	| { kind: "exit"; code: number }
	| { kind: "signal"; signal: number }
	| { kind: "timed-out"; seconds: number };

/**
 * How a worker's run on its item ended: landed, or the kind of reason its item went back to ready. What follows is
 * decided on the kind (core/rules/workers.ts); `workerWhy` (core/texts/user.ts) words it.
 */
export type WorkerOutcome =
	/**
	 * `files`: what its landing wrote or deleted. `throughStop`: a stop came once its landing had begun writing, and it
	 * landed whole (the user is told). `onBranch`: the commit that landed it on a shared plan's branch.
	 */
	| { kind: "landed"; files: readonly string[]; throughStop?: boolean; onBranch?: string }
	/** Stopped by the user (Esc, `/todos pause`, a prompt, a session change). */
	| { kind: "stopped" }
	/** Stopped by the progress breaker, per item. */
	| { kind: "overspent"; tokens: number; factor: number; median: number }
	| { kind: "timed-out"; minutes: number }
	/** Its pi ended with an error (code null: a signal ended it). */
	/** `error`: its last model call failed, with the provider's words (its exit code then says nothing). */
	| { kind: "failed"; code: number | null; stderr: string; error?: string }
	/** It ended without its item done: it said why (`NOT DONE:`), or its answer was cut at the output limit. */
	| { kind: "unfinished"; said?: string }
	| { kind: "check-failed"; end: CheckEnd }
	| { kind: "no-tree" }
	| { kind: "no-result" }
	| { kind: "list-changed" }
	/** Its work conflicts with the work tree, or, `on` a shared plan's branch, with what others landed there. */
	| { kind: "conflict"; files: readonly string[]; on?: { branch: string; remote: string } }
	/** Files of the work tree the process may not write: nothing landed. */
	| { kind: "unwritable"; files: readonly string[] }
	/** The user's own git operation was under way (`why`): nothing landed. */
	| { kind: "git-busy"; why: string }
	/** Git could not compare its work with the work tree: nothing landed. */
	| { kind: "not-compared" }
	/** Its work changes a submodule, which never lands. */
	| { kind: "submodules"; paths: readonly string[] }
	/** Its pi ended before any model call (an extension it could not load, a bad flag): no fault of the model's. */
	| { kind: "cannot-start"; code: number; stderr: string }
	/**
	 * Its claim is no longer its session's: another session took it over (this one did not renew it within the lease:
	 * the process slept, or the remote did not answer), or someone freed it by hand (`/todos remote release`). Its work
	 * is kept under a ref and never lands, for the item is no longer this session's.
	 */
	| { kind: "claim-lost" }
	/** The plan's branch has its item checked already: another session landed it first, so this work never lands. */
	| { kind: "landed-elsewhere" }
	/** Its work could not land on the plan's branch (`branch` of `remote`), for `why`: it is kept under its ref. */
	| { kind: "not-on-branch"; why: BranchMiss; branch: string; remote: string };

/** Why a worker's work did not land on the plan's branch, the item being its still (a conflict is said as one). */
export type BranchMiss = "unreachable" | "tip-kept-moving" | "no-branch" | "rewritten" | "rejected" | "git-failed";

/**
 * What became of a worker's work when it ended: landed in the work tree, kept under its ref, none to keep (it changed
 * nothing, or never had a tree), or not kept (git refused, or a stop's grace ran out first).
 */
export type WorkerWork = "landed" | "kept" | "unchanged" | "not-kept";

/** How a worker ended, and what became of its work. */
export interface WorkerEnd {
	outcome: WorkerOutcome;
	work: WorkerWork;
}

/**
 * What a stop of the user's did: the items given back (of their workers, how many had their work kept under a ref and
 * how many could not keep it; the others had changed nothing), and those whose landing had begun and landed whole.
 */
export interface StopTally {
	givenBack: number;
	kept: number;
	notKept: number;
	landed: number;
}

/** A goal in progress (`/goal`, `--til-done-goal`): the user's condition, and what the judge said after the last run. */
export interface GoalState {
	condition: string;
	/** Goal prompts sent after the first run (the chain's continuations count them too). */
	runs: number;
	/** The judge's word on the goal after the last run (cleared when the next goal prompt goes out), or why it gave none. */
	verdict?: { word: "met" | "not met" | "cannot tell"; reason: string } | { why: string };
}

/**
 * Whose session this is: `own`, the user's own session; `child`, the session of a process another session of ours
 * started; `nested`, one of several sessions in a process whose own session is someone else's (edges/host/role.ts).
 */
export type SessionRole = "own" | "child" | "nested";

/** What is wrong with a list's links, in the words of the tool error (core/texts/model.ts makes the sentence). */
export type LinkProblem =
	| { kind: "not-an-index"; index: number; field: "blockedBy" | "parent" }
	| { kind: "unknown"; index: number; field: "blockedBy" | "parent"; target: number }
	| { kind: "twice"; index: number; target: number }
	| { kind: "self"; index: number; field: "blockedBy" | "parent" }
	| { kind: "nested"; index: number; parent: number; grandparent: number }
	| { kind: "waits-for-subtask"; index: number; subtask: number }
	| { kind: "cycle"; steps: CycleStep[] };

/** One step of a cycle: `from` waits for `to`, or `from` (a parent) completes with its subtask `to`. */
export interface CycleStep {
	from: number;
	to: number;
	via: "waits" | "subtask";
}

/** What a chain (the runs since the user's last prompt) has spent, as core/rules/usage.ts counts it. */
export interface ChainSpend {
	/** Tokens of every model call in the chain: input + output + cache read + cache write. */
	tokens: number;
	/** pi's cost total of those calls, in the provider's currency. */
	cost: number;
	calls: number;
	/** What the last call sent as input (input + cache read + cache write): the next call sends it again. */
	lastContext: number;
	/** `tokens` less the workers' when the chain last finished an item (0 before the first). */
	tokensAtFinish: number;
	/** Tokens each item finished in this chain took, oldest first, at most `MAX_SPEND_SAMPLES`. */
	perItem: readonly number[];
	/** Of those, what each item a worker landed took, its worker's own tokens: what a worker is held to. */
	workerItems: readonly number[];
	/** The judge's calls: counted in the figures above too, shown apart in `/todos status`. */
	judge: SideSpend;
	/** The workers' calls: counted in the figures above too, shown apart in `/todos status`. */
	workers: SideSpend;
}

/** What a spender beside the session (the judge, the workers) spent in a chain. */
export interface SideSpend {
	tokens: number;
	cost: number;
	calls: number;
}

export type CheckpointPhase = "start" | "done";

/**
 * The work tree as the session's last chain started, what the judge reads the work's change from: the snapshot's
 * commit, or why none was taken (the session's folder is in no git work tree, or git failed).
 */
export type ChainStart = { commit: string } | { unread: "not-git" | "failed" };

/** One checkpoint as a session entry keeps it. */
export interface Checkpoint {
	/** The item's key: its index and a hash of its text. */
	key: string;
	index: number;
	text: string;
	phase: CheckpointPhase;
	/** The snapshot commit. */
	commit: string;
	ref: string;
	/** When it was taken, in milliseconds since the epoch. */
	at: number;
	/** What the snapshot left out that was in the tree (files over the bound, repositories with no commit), by path. */
	leftOut?: string[];
}

/** Why an entry of `TIL_DONE_WORKER_WRITABLE` is left out: not absolute, nothing there, or the person's repository's. */
export type WritableRefusal = "relative" | "missing" | "repository";
