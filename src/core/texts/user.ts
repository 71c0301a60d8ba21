/**
 * Every text the user reads that a plain session may need at its start: notices, the sentence of each decision, the
 * status bar's words, the breakers' texts, the settings' help and warnings, the commands' descriptions, the tools as
 * the TUI shows them. A feature most sessions never use keeps its texts in `user/` (workers, judge, goal, loop, /todos
 * subcommands, list view, plan files, checkpoints, remote), loaded with it. Pure; figures come in as plain numbers and
 * words.
 */

import type { Counters, Decision, TodoItem } from "../model/types.ts";
import { CHECK_NAMES } from "./model.ts";
import { oneLine, prefix } from "./sanitize.ts";

/** Tokens as the user reads them: rounded, with thousands separators. */
export const formatTokens = (tokens: number): string => Math.round(tokens).toLocaleString("en-US");
/** Money in the provider's currency (pi does not say which), to four decimals. */
export const formatCost = (cost: number): string => cost.toFixed(4);

export function countdownText(seconds: number): string {
	return `⏳ Auto-continuing in ${seconds}s... (type anything to interrupt)`;
}

/** Why a session started with `--til-done-paused` is paused. */
export const STARTED_PAUSED = "started with auto-continue off";

export function backoffMessage(backoffMs: number): string {
	return `The last run failed; auto-continue waits ${(backoffMs / 1000).toFixed(1)}s longer before continuing.`;
}

/** What a passed verification ran: `checks` commands and, when `judge`, the judge, which is no check. */
export interface PassedBy {
	checks: number;
	judge?: boolean;
}

/** `2 check(s) passed`, `the judge: met`, or both: what verified a list. */
function passedWords({ checks, judge }: PassedBy): string {
	const words = [...(checks > 0 || !judge ? [`${checks} check(s) passed`] : []), ...(judge ? ["the judge: met"] : [])];
	return words.join("; ");
}

/** The one notice a finished list gets: verified when a verification passed (`passed`: what it ran). */
export function completionNotice(items: number, passed?: PassedBy): string {
	if (passed === undefined) return `✓ All ${items} todos are done.`;
	return `✓ All ${items} todos are done and verified (${passedWords(passed)}).`;
}

export function reviewWaitText(index: number): string {
	return `👁 [${index}] waits for your review`;
}

export const STATUS_WORDS: Record<TodoItem["status"], string> = {
	not_started: "not started",
	in_progress: "in progress",
	completed: "completed",
	abandoned: "abandoned",
};

/** Each waiting item with the items it waits for and their states: `[2] waits for [0] (in progress)`. */
function describeWaits(waiting: readonly [number, readonly [number, TodoItem["status"]][]][]): string {
	return waiting
		.map(
			([index, on]) =>
				`[${index}] waits for ${on.map(([at, status]) => `[${at}] (${STATUS_WORDS[status]})`).join(", ")}`,
		)
		.join("; ");
}

/**
 * The stop when every open item waits for one that is not completed: each waiting item with what it waits for and
 * that item's state, so the chain of waits can be followed to the item that will never complete as it is.
 */
export function blockedStop(waiting: readonly [number, readonly [number, TodoItem["status"]][]][]): string {
	const waits = describeWaits(waiting);
	return `Auto-continue stopped: no open item is ready: ${waits}. Remaining todos were not completed: reopen or remove what they wait for (/todos start, /todos remove), then /todos resume.`;
}

/** The stop of a shared plan whose remote has not answered for a lease's time: nothing is claimed or landed meanwhile. */
export const REMOTE_DOWN_STOP =
	"Auto-continue stopped: the remote of the shared plan has not answered for the lease's time, so nothing is claimed or landed. Work that did not land stays under its ref; run again once the remote answers (pi -p --continue, or /todos resume).";

/** The stop of a shared plan whose workers cannot work: its own model never works an item there, unclaimed. */
export const WORKERLESS_SHARED_STOP =
	"Auto-continue stopped: no worker can work in this session, and a plan shared through a remote is worked by workers only (the session's own model would work its items unclaimed). Remaining todos were not completed: fix what kept the workers from starting, then run again.";

/**
 * The stop of a shared plan whose verdict failed: its items are landed on the branch, so none is reopened here (a
 * worker would work what can no longer land).
 */
export const sharedUnverifiedStop = (branch: string, remote: string, tip: string, failed: readonly string[]): string =>
	`Auto-continue stopped: the shared plan on ${oneLine(branch)} of ${remoteShown(remote)} failed its verification at ${tip.slice(0, 7)} (${failed.join(", ")}). Its items are landed on the branch, so none is reopened here: fix it on ${oneLine(branch)}, then run again.`;

/** The stop of a shared plan whose every workable item has a claim ref holding no claim: only a release frees them. */
export const claimsMalformedStop = (indexes: readonly number[]): string =>
	`Auto-continue stopped: the claim ref of ${indexes.map((index) => `[${index}]`).join(", ")} holds no claim, and no session takes such an item until it is freed by hand. Remaining todos were not completed: free each with /todos remote release <i>, then run again.`;

/** The sentence of each decision that is not a stop (a stop's sentence is its stop text): what follows, and why. */
export const SENTENCES = {
	verify: (checks: number, judge: boolean) =>
		judge
			? `Every todo is finished: ${checks > 0 ? `${checks} check(s) and then the judge verify` : "the judge verifies"} the list.`
			: `Every todo is finished: ${checks} check(s) verify the list.`,
	judgeGoal: "The judge decides whether the goal holds.",
	work: (items: readonly number[], atWork: number) =>
		`Workers start on ${items.map((index) => `[${index}]`).join(" ")}: ${atWork} at work.`,
	heldElsewhere: (held: readonly number[], lookAgainMs: number) =>
		`${held.map((index) => `[${index}]`).join(" ")} ${held.length === 1 ? "is" : "are"} held by another session working this plan, and nothing else is open here: looking again in ${Math.ceil(lookAgainMs / 1000)} s (the plan read again, a claim not renewed for its lease taken over).`,
	workersBusy: (running: readonly number[]) =>
		`Workers are at work on ${running.map((index) => `[${index}]`).join(" ")}: what follows is decided as each ends.`,
	goalNext: (run: number, max: number) =>
		`The judge did not find the goal met: goal run ${run} of at most ${max} follows.`,
	unverified: (total: number, failed: readonly string[]) =>
		`Every todo is finished (${total}), but the list is not verified: ${failed.join("; ")}. Nothing continues: look at the work yourself.`,
	loopNext: (iteration: number, max: number, marker: string) =>
		`Loop iteration ${iteration} of ${max} follows: the answer did not hold ${marker}.`,
	continuation: (remaining: number, total: number, next: number, max: number) =>
		`${remaining} of ${total} todos remain: continuation ${next} of ${max} follows.`,
	fixContinuation: (next: number, max: number) =>
		`Every todo is finished, but the list did not pass its verification: continuation ${next} of ${max} asks for the fix.`,
	noTodos: "No todo list: nothing to continue.",
	toolsOff: "The todo tools are not active in this session: nothing continues the list.",
	allDone: (total: number, verified: boolean) =>
		verified
			? `Every todo is finished (${total}) and the list passed its verification: nothing to continue.`
			: `Every todo is finished (${total}): nothing to continue.`,
	aborted: "The run was aborted: the auto-continue waits for you.",
	paused: (reason: string | undefined) =>
		`Auto-continue is paused${reason ? ` (${oneLine(reason)})` : ""}: it waits for you.`,
	asksUser: "The model asked a question: the auto-continue waits for your answer.",
	reviewWait: (index: number) => `${reviewWaitText(index)}: /todos approve ${index} completes it and goes on.`,
	interrupted: "Interrupted by you: nothing follows until your next prompt (/todos resume goes on now).",
	promptedOver: "Interrupted by your prompt: it runs in the continuation's place.",
} as const;

/** The counters as one bracketed line; the cost only when pi reported any. */
export function formatCounters(counters: Counters): string {
	const parts = [
		`continuations ${counters.continuations}/${counters.maxContinuations}`,
		`no progress ${counters.maxNoProgress > 0 ? `${counters.noProgress}/${counters.maxNoProgress}` : "off"}`,
		`failures ${counters.failures}/${counters.maxFailures}`,
		`${counters.finished}/${counters.total} finished`,
		`${formatTokens(counters.tokens)} tokens in ${counters.calls} call(s)`,
	];
	if (counters.cost > 0) parts.push(`cost ${formatCost(counters.cost)}`);
	return `[${parts.join(", ")}]`;
}

const twoDigits = (value: number): string => String(value).padStart(2, "0");

/** Local time of day, `HH:MM:SS`. */
export function formatClock(at: number): string {
	const date = new Date(at);
	return `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
}

export function formatDecision(decision: Decision): string {
	return `${formatClock(decision.at)} ${decision.code}: ${decision.text} ${formatCounters(decision.counters)}`;
}

// ── The commands as pi lists them: registered at every start (what each answers is in user/) ───────────

/** `/goal` in pi's list of commands. */
export const GOAL_DESCRIPTION =
	"Work until an independent judge finds a condition met: /goal <condition>, /goal off, /goal (what is in progress)";

/** `/todos` in pi's list of commands. */
export const TODOS_DESCRIPTION =
	"Show or change the todo list and the auto-continue (/todos help lists the subcommands)";

/** `/loop` in pi's list of commands. */
export const LOOP_DESCRIPTION =
	"Send a prompt again after every run until the answer holds a marker: /loop [--max N] [--until M] <prompt>";

/** A remote's name or URL as a line shows it. */
export const remoteShown = (remote: string): string => prefix(oneLine(remote), 80);

/** Longest item text a notice quotes. */
const NOTICE_TEXT_CHARS = 60;

function describeItems(items: readonly [number, TodoItem][]): string {
	return items.map(([index, todo]) => `[${index}] ${prefix(oneLine(todo.text), NOTICE_TEXT_CHARS)}`).join(", ");
}

/** The model a notice names when pi cannot say which it is. */
export const UNNAMED_MODEL = "this model";

/** Notices: what the model did that the user must know of, and a setting that was not taken. */
export const NOTICES = {
	abandoned: (items: readonly [number, TodoItem][], reason: string | undefined) => {
		const why = reason?.trim() ? `"${oneLine(reason.trim())}"` : "no reason given";
		return `The model abandoned ${describeItems(items)} during the auto-continue (${why}).`;
	},
	dropped: (items: readonly [number, TodoItem][]) => {
		const what = items.length === 1 ? "the open item" : "the open items";
		return `The model's rewrite of the list dropped ${what} ${describeItems(items)} during the auto-continue (no reason given).`;
	},
	planRewriteRefused: (file: string, items: readonly [number, TodoItem][]) =>
		`The model's rewrite of the list was refused: it would drop or reword ${items.length === 1 ? "the open item" : "the open items"} ${describeItems(items)} of ${oneLine(file)}.`,
	pausedByModel: (reason: string) => `Auto-continue paused by the model: ${oneLine(reason)}`,
	settingWarning: (warning: string) => `pi-til-done: ${warning}`,
	runRefused: (code: number) =>
		`pi-til-done: nothing was run (exit status ${code}): pi -p runs only what it was told, and the line above stands in the way; fix what it says and run again.`,
	secondCopy: (first: string, here: string) =>
		first === here
			? `pi-til-done is loaded twice from ${first} (an installed package and -e, say): the first load acts, the second does nothing. To load it once: pi -ne -e ${first}.`
			: `pi-til-done is loaded twice: ${first} acts, ${here} does nothing. To load one copy only: pi -ne -e <its path>.`,
	inertCostBudget: (budget: number, model: string, budgetTokens: number) =>
		`pi-til-done: the cost budget of ${formatCost(budget)} cannot apply: pi knows no price for ${model}, so its calls cost 0 here. Still in force: ${budgetTokens > 0 ? `the token budget of ${formatTokens(budgetTokens)} and ` : ""}the breakers.`,
} as const;

/** Why a `/todos` change of statuses is refused: the same wait and review rules as the model's edits. */
export const STATUS_REFUSALS = {
	waiting: (waiting: readonly [number, readonly [number, TodoItem["status"]][]][]) =>
		`${describeWaits(waiting)}: complete what it waits for first (in the same command, or before it)`,
	subtasks: (parent: number, open: readonly number[]) =>
		`[${parent}] completes with its last subtask: [${open.join(", ")}] ${open.length === 1 ? "is" : "are"} still open`,
	notReview: (index: number) => `[${index}] is not a review item: /todos done ${index} completes it`,
	notOpen: (index: number, status: TodoItem["status"]) =>
		`[${index}] is ${STATUS_WORDS[status]}: only an open review item is approved${status === "abandoned" ? ` (/todos start ${index} opens it again)` : ""}`,
} as const;

/** The panel's counts of the items outside its window: above it (all finished) and below it. */
export const PANEL = {
	above: (count: number) => `↑ ${count} more`,
	below: (count: number) => `↓ ${count} more`,
} as const;

/** An empty list, as the TUI shows it: in the `/todos` view, and as a tool's result. */
export const NO_TODOS = "No todos";

// ── The status bar: entries in parts that may be cut, and their shorter forms (core/views/status-line.ts fits them) ───

/** Fixed words, or text that may be cut (`{ cut }`). */
export type StatusPart = string | { readonly cut: string };

/** One status-bar entry: its parts, and the shorter forms it takes, in turn, when its cut parts still do not fit. */
export interface StatusText {
	readonly parts: readonly StatusPart[];
	readonly shorter?: readonly string[];
}

/** The whole text of an entry, nothing cut. */
export function fullText(status: StatusText): string;
export function fullText(status: StatusText | undefined): string | undefined;
export function fullText(status: StatusText | undefined): string | undefined {
	return status?.parts.map((part) => (typeof part === "string" ? part : part.cut)).join("");
}

export const whole = (text: string, ...shorter: string[]): StatusText => ({ parts: [text], shorter });

/** Longest command shown on the status bar while its check runs. */
const STATUS_COMMAND_CHARS = 60;

/** The check status while a finished list waits for its verification. */
export const VERIFICATION_PENDING = "🔎 not verified yet";

/**
 * The check status: a check running, else what the last verification found, else `pending` when a finished list
 * waits for one; nothing otherwise.
 */
export function checkStatus(
	checking: { what: string; command: string } | undefined,
	verification: ({ passed: boolean; failed: readonly string[] } & PassedBy) | undefined,
	pending = false,
): StatusText | undefined {
	if (checking) {
		const command = prefix(oneLine(checking.command), STATUS_COMMAND_CHARS);
		const shorter = [`🔎 checking ${checking.what}`, `🔎 ${checking.what}`];
		return { parts: [`🔎 checking ${checking.what}: `, { cut: command }], shorter };
	}
	if (!verification) return pending ? whole(VERIFICATION_PENDING) : undefined;
	if (verification.passed) return whole(`✓ verified (${passedWords(verification)})`, "✓ verified");
	return { parts: ["✗ not verified: ", { cut: verification.failed.join("; ") }], shorter: ["✗ not verified"] };
}

/** A failed check as the status bar lists it: its name, and how it ended (`the done-check (exit code 1)`). */
export const failedCheck = (what: string, end: string): string => `${what} (${end})`;

/**
 * `⚙ 3 worker(s): [1] text [2] text [4] text` while workers are at work: each worker's item once, in the order given
 * (by index); shorter, `⚙ 3 worker(s): [1] [2] [4]`, then `⚙ 3`. Items other sessions hold (`held`) follow as
 * `· ⇄ 2 held elsewhere` (`⇄ 2` in the shortest); with no worker of ours, `⇄ 2 held by other sessions`.
 */
export function workersStatus(
	items: readonly (readonly [index: number, text: string | undefined])[],
	held = 0,
): StatusText {
	// The items other sessions of a shared plan hold, counted after the workers (alone when none of ours works).
	const others = held > 0 ? ` · ⇄ ${held} held elsewhere` : "";
	if (items.length === 0) return { parts: [`⇄ ${held} held by other sessions`], shorter: [`⇄ ${held}`] };
	const head = `⚙ ${items.length} worker(s):`;
	// An item the list no longer holds (its worker is ending) is named by its index alone.
	const parts = items.flatMap(([index, text]): StatusPart[] =>
		text === undefined ? [` [${index}]`] : [` [${index}] `, { cut: oneLine(text) }],
	);
	const indices = items.map(([index]) => `[${index}]`).join(" ");
	const count = `⚙ ${items.length}${held > 0 ? ` ⇄ ${held}` : ""}`;
	return { parts: [head, ...parts, ...(others ? [others] : [])], shorter: [`${head} ${indices}${others}`, count] };
}

/** `👁 [i] waits for your review` while the auto-continue waits on item `index`. */
export function reviewStatus(index: number | undefined): StatusText | undefined {
	return index === undefined ? undefined : whole(reviewWaitText(index), `👁 [${index}] review`, `👁 [${index}]`);
}

/** Width of the status-bar progress bar, in cells. */
export const PROGRESS_BAR_CELLS = 10;

/**
 * The list's status: `📋 2/5 [████░░░░░░]` (progress, once) while items remain or the finished list is not yet known
 * to be done, `✓ Done (N items)` once it is (`done`: finished, and verified where it has a verification); nothing for
 * an empty list.
 */
export function progressStatus(finished: number, total: number, done: boolean): StatusText | undefined {
	if (total === 0) return undefined;
	if (done) return whole(`✓ Done (${total} items)`);
	const filled = Math.round((finished / total) * PROGRESS_BAR_CELLS);
	const bar = `${"█".repeat(filled)}${"░".repeat(PROGRESS_BAR_CELLS - filled)}`;
	return whole(`📋 ${finished}/${total} [${bar}]`, `📋 ${finished}/${total}`);
}

/** While auto-continue is paused, with the reason the user or the model gave. */
export function pausedStatus(reason: string | undefined): StatusText {
	if (!reason) return whole("⏸ auto-continue paused", "⏸ paused");
	return { parts: ["⏸ auto-continue paused: ", { cut: oneLine(reason) }], shorter: ["⏸ paused"] };
}

/** `[i] text` for each item in progress but those another entry names (`elsewhere`), or nothing. */
export function activeStatus(
	todos: readonly TodoItem[],
	elsewhere: ReadonlySet<number> = new Set(),
): StatusText | undefined {
	const parts = todos.flatMap((todo, index): StatusPart[] =>
		todo.status === "in_progress" && !elsewhere.has(index) ? [`[${index}] `, { cut: oneLine(todo.text) }, " "] : [],
	);
	return parts.length > 0 ? { parts: parts.slice(0, -1) } : undefined;
}

/** While a stopped chain waits for the user: why (`words`), and where the figures are. */
export function stopStatus(words: string | undefined): StatusText | undefined {
	return words === undefined
		? undefined
		: whole(`⏹ auto-continue stopped: ${words} (/todos why)`, `⏹ stopped: ${words}`, `⏹ ${words}`);
}

/**
 * In a list with waits or subtasks: `▶ [i] text` for the next item ready to start (one in progress is already on the
 * bar), then `⛓ N waiting` for the open items that wait; nothing when there is neither.
 */
export function nextStatus(next: [number, TodoItem] | undefined, waiting: number): StatusText | undefined {
	const ahead = next === undefined || next[1].status !== "not_started" ? undefined : next;
	const count = waiting > 0 ? `⛓ ${waiting} waiting` : "";
	if (ahead === undefined) return count === "" ? undefined : whole(count, `⛓ ${waiting}`);
	const [index, todo] = ahead;
	const parts: StatusPart[] = [`▶ [${index}] `, { cut: oneLine(todo.text) }];
	if (count === "") return { parts, shorter: [`▶ [${index}]`] };
	return { parts: [...parts, ` ${count}`], shorter: [`▶ [${index}] ⛓ ${waiting}`, `⛓ ${waiting}`] };
}

/** `🎯 goal: <condition>` while a goal is in progress. */
export function goalStatus(condition: string): StatusText {
	return { parts: ["🎯 goal: ", { cut: oneLine(condition) }], shorter: ["🎯 goal"] };
}

export function loopStatus(iteration: number, max: number): StatusText {
	return whole(`🔁 loop ${iteration}/${max}`, `🔁 ${iteration}/${max}`);
}

// ── The breakers: why a chain stopped, as its stop text, its words on the status bar and its `/todos status` line ──

/** How a stop text ends: what was left undone. */
export const UNFINISHED_TAIL = "Remaining todos were not completed. Take over manually.";
/** The same, when every item is finished but the list failed its verification. */
export const UNVERIFIED_TAIL = "The finished list did not pass its verification. Take over manually.";

/** What a budget's stop text says stopped: the auto-continue's chain, or a `/loop`. */
export const STOPPED = { chain: "Auto-continue stopped", loop: "Loop stopped", goal: "Goal stopped" } as const;

/** The run a budget forecasts, in its stop text and its `/todos status` line: the chain's next, or a loop's next. */
export const NEXT_RUN = { chain: "continuation", loop: "loop iteration", goal: "goal run" } as const;

/** Why a chain stopped when no breaker tripped, in a few words for the status bar. */
export const STOP_WORDS = {
	interrupted: "interrupted by you",
	blocked: "no item is ready",
	"remote-down": "the remote does not answer",
	"claims-malformed": "a claim ref holds no claim",
	"workerless-shared": "a shared plan has no worker",
	"shared-unverified": "the shared plan failed its verification",
} as const;

/** A counter against its limit, as a `/todos status` line shows it: `2/3`, or `off` for a limit of 0. */
const counter = (value: number, limit: number): string => (limit > 0 ? `${value}/${limit}` : "off");

/** A stop text and how it ends (nothing, for a `/loop`). */
const withTail = (text: string, tail: string): string => (tail === "" ? text : `${text} ${tail}`);

/** A budget's stop in figures: what stopped, the run forecast, the chain's spend after its first call and before. */
export interface BudgetStop {
	/** {@link STOPPED}: the chain's or the loop's. */
	stopped: string;
	/** {@link NEXT_RUN}: the run that is not sent. */
	next: string;
	/** The chain's tokens or cost after the next run's first call, forecast. */
	forecast: number;
	budget: number;
	/** The chain's tokens or cost so far. */
	spent: number;
	/** The last context's tokens, which the next run's first call sends again. */
	context: number;
	/** What that first call costs, at the model's input price; undefined when pi knows no price. */
	nextCost?: number | undefined;
	tail: string;
}

/** A budget's stop by workers about to start: how many, and what each one is forecast at (tokens; cost when priced). */
export interface WorkersBudgetStop {
	stopped: string;
	/** The workers that would start (0: the spend so far crossed it already). */
	workers: number;
	forecast: number;
	budget: number;
	spent: number;
	/** Each worker's forecast in tokens, and whether that is the median per finished item (else the last context). */
	each: number;
	finished: boolean;
	/** The workers' cost at the model's input price; undefined when pi knows no price. */
	nextCost?: number | undefined;
	tail: string;
}

/** Who would cross a budget: the workers about to start, or (none) the chain as it is. */
const workersWords = (workers: number): string =>
	workers === 0 ? "the workers at work" : workers === 1 ? "the next worker" : `the next ${workers} workers`;

/** What each worker is forecast at, and on what basis. */
const eachWorker = ({ each, finished }: WorkersBudgetStop): string =>
	`each worker is forecast at ${formatTokens(each)} tokens, ${finished ? "the median per finished todo" : "the last context, as no todo is finished yet"}`;

/**
 * Each breaker's texts; core/rules/breakers.ts holds its row: the words on the status bar, its setting's line in
 * `pi --help`, its stop text (figures in, how it ends last) and its `/todos status` line.
 */
export const BREAKER_TEXTS = {
	failures: {
		words: "failed runs",
		description: "Give up after this many failed runs in a row (provider error, output limit)",
		/** `worker`: why the last of them, a worker's, gave its item back (a session's run fails by an error or the limit). */
		stop: (limit: number, tail: string, worker?: string) =>
			worker === undefined
				? `Auto-continue stopped after ${limit} failed runs in a row (provider error or output limit). ${tail}`
				: `Auto-continue stopped after ${limit} failed runs in a row, the last a worker's (${worker}). ${tail}`,
		report: (failures: number, limit: number) => `Failed runs in a row: ${counter(failures, limit)}`,
	},
	repeatedAnswer: {
		words: "the same answer again and again",
		description: "Stop after this many continued runs in a row complete nothing and end with the same answer (0 = off)",
		stop: (limit: number, tail: string) =>
			`Auto-continue stopped: the last ${limit} continued runs ended with the same answer. ${tail}`,
		report: (sameAnswers: number, limit: number) => `Same answer in a row: ${counter(sameAnswers, limit)}`,
	},
	noProgress: {
		words: "no todo completed",
		description: "Stop after this many continuations in a row complete no item (0 = off)",
		stop: (limit: number, tail: string) =>
			`Auto-continue stopped: no todo was completed in the last ${limit} continuations. ${tail}`,
		report: (noProgress: number, limit: number) => `Continuations without progress: ${counter(noProgress, limit)}`,
		/** Every todo is done: the counter has nothing left to count. */
		done: "Continuations without progress: none: every todo is done",
	},
	spend: {
		words: "spending without progress",
		description:
			"Stop when the tokens since the last finished item exceed this many times the median per item (0 = off)",
		stop: (factor: number, sinceFinish: number, medianPerItem: number, finished: number, tail: string) =>
			`Auto-continue stopped: ${formatTokens(sinceFinish)} tokens since the last finished todo, more than ${factor} × the median of ${formatTokens(medianPerItem)} tokens per finished todo (${finished} finished in this chain). ${tail}`,
		off: "Progress breaker: off",
		/** The figures while too few items are finished for a median. */
		armedAt: (needed: number, finished: number) => `armed once ${needed} todos are finished, ${finished} so far`,
		figures: (medianPerItem: number, sinceFinish: number) =>
			`median ${formatTokens(medianPerItem)}, ${formatTokens(sinceFinish)} since the last finished todo`,
		/** In place of the figures once every todo is done. */
		done: "every todo is done",
		report: (factor: number, figures: string) =>
			`Progress breaker: ${factor} × the median tokens per finished todo; ${figures}`,
	},
	hardCap: {
		words: "continuation limit reached",
		description: "Hard cap on continuations per user prompt",
		stop: (limit: number, tail: string) => `Auto-continue limit reached (${limit} iterations). ${tail}`,
		report: (continuations: number, limit: number) => `Continuations this prompt: ${continuations}/${limit}`,
	},
	budgetTokens: {
		words: "token budget",
		description: "Tokens a chain may spend; a continuation forecast to cross it is not sent (0 = no budget)",
		stop: ({ stopped, next, forecast, budget, spent, context, tail }: BudgetStop) =>
			withTail(
				`${stopped}: the next ${next} would bring this chain to about ${formatTokens(forecast)} tokens, over its budget of ${formatTokens(budget)} (${formatTokens(spent)} spent so far, and its first call sends the last context of ${formatTokens(context)} tokens again).`,
				tail,
			),
		workersStop: (stop: WorkersBudgetStop) =>
			withTail(
				`${stop.stopped}: ${workersWords(stop.workers)} would bring this chain to about ${formatTokens(stop.forecast)} tokens, over its budget of ${formatTokens(stop.budget)} (${formatTokens(stop.spent)} spent so far; ${eachWorker(stop)}).`,
				stop.tail,
			),
		none: "Token budget: none",
		report: (budget: number, next: string, forecast: number) =>
			`Token budget: ${formatTokens(budget)} (next ${next}: about ${formatTokens(forecast)})`,
	},
	budgetCost: {
		words: "cost budget",
		description: "Cost a chain may reach, in the provider's currency; forecast the same way (0 = no budget)",
		stop: ({ stopped, next, forecast, budget, spent, context, nextCost, tail }: BudgetStop) => {
			const first =
				nextCost === undefined
					? "the model's price for the next call is unknown"
					: `its first call sends the last context of ${formatTokens(context)} tokens again, about ${formatCost(nextCost)}`;
			return withTail(
				`${stopped}: the next ${next} would bring this chain to a cost of about ${formatCost(forecast)}, over its budget of ${formatCost(budget)} (${formatCost(spent)} spent so far; ${first}).`,
				tail,
			);
		},
		workersStop: (stop: WorkersBudgetStop) => {
			const priced =
				stop.nextCost === undefined
					? "the model's price is unknown"
					: `about ${formatCost(stop.nextCost)} for ${stop.workers === 1 ? "it" : "them"} at the model's input price`;
			return withTail(
				`${stop.stopped}: ${workersWords(stop.workers)} would bring this chain to a cost of about ${formatCost(stop.forecast)}, over its budget of ${formatCost(stop.budget)} (${formatCost(stop.spent)} spent so far; ${eachWorker(stop)}, ${priced}).`,
				stop.tail,
			);
		},
		none: "Cost budget: none",
		/** When pi knows no price for the model: every call costs 0, so the budget cannot apply. */
		unpriced: (budget: number) => `Cost budget: ${formatCost(budget)} (cannot apply: pi knows no price for this model)`,
		report: (budget: number, next: string, forecast: number, nextPriced: boolean) =>
			`Cost budget: ${formatCost(budget)} (next ${next}: about ${formatCost(forecast)}${nextPriced ? "" : ", the next call's price unknown"})`,
	},
} as const;

// ── Settings: each one's line in `pi --help`, and the warning of a value that was not taken ───────────────────

/** What each setting that is not a breaker's limit does, as `pi --help` says it (a breaker's is in BREAKER_TEXTS). */
export const SETTING_DESCRIPTIONS = {
	countdownSeconds: "Seconds of countdown before auto-continuing (0 = none)",
	failureBackoffMs: "First back-off after a failed run, in milliseconds; doubles per failure",
	checkTimeoutSeconds: "Seconds one check may run before it is killed and counts as failed",
	remindEvery: "Remind the model of the list after this many tool calls without a todo tool (0 = never)",
	workers: "Ready items worked at once, each by a pi of its own in a tree of its own, merged back (0 = off; git only)",
	maxUntrackedMb:
		"Untracked files over this many MB are left out of snapshots: workers' trees, checkpoints, the judge's (0 = none)",
	modelChecks: "on|off: whether checks the model writes on items may run (they also need pi's bash tool)",
	doneCheck: "A shell command that exits 0 when the whole list is really done (the done-check)",
	planFile:
		"A plan file (a Markdown task list) the list follows: loaded when the session has none, written after every change",
	startPaused: "Start with auto-continue off",
	panel: "Show the todo panel above the editor",
	notify: "Ring the terminal and raise a desktop notification when a chain ends or needs you (TUI)",
	checkpoints: "Snapshot the git work tree when an item starts and completes (/todos diff, /todos revert)",
	judge:
		"on|off|<provider>/<model>: an independent model judges a finished list against what you asked (on: the session's model)",
	goal: "A goal the judge decides after every run, as /goal <condition> sets one (pi -p works until it is met)",
	remote:
		"A git remote (name or URL) whose sessions work one plan together: each item claimed there, landed on the branch",
	leaseSeconds: "Seconds a claim on an item may go unrenewed before another session takes it over",
} as const;

/** A setting's value as help shows it: a number, `on`, `off`, `none` or the text (on one line). */
export function settingValue(value: string | number | boolean | undefined): string {
	return value === undefined ? "none" : typeof value === "boolean" ? (value ? "on" : "off") : oneLine(String(value));
}

/** A flag's line in `pi --help`: what it does, its default (a number, `on`, `off` or `none`) and its variable. */
export function flagHelpLine(description: string, value: string | number | boolean | undefined, env: string): string {
	return `${description} [default ${settingValue(value)}, ${env}]`;
}

/** What a setting takes, as a warning says it. */
export const SETTING_EXPECTED = {
	/** A switch: one of its `words`. */
	switch: (words: string) => `one of ${words}`,
	command: "a command of 1 to 500 characters",
	file: "a file name",
	judge: (words: string) => `one of ${words}, or <provider>/<model>`,
	goal: (max: number) => `a condition of 1 to ${max} characters`,
	remote: (max: number) => `a remote's name or URL of 1 to ${max} characters, one word not starting with -`,
	range: (integer: boolean, min: number, max: number) =>
		`${integer ? "a whole number" : "a number"} from ${min} to ${max}`,
} as const;

/**
 * Why a setting's value was not taken; the value comes as shown (on one line, cut, quoted where it must be). "Refused"
 * is true in every mode: with a UI the next source applies, and `pi -p` runs nothing (NOTICES.runRefused follows).
 */
export const SETTING_WARNINGS = {
	refused: (source: string, value: string, expected: string) => `${source}=${value} is refused: expected ${expected}`,
	switchRefused: (flag: string, value: string, words: string) =>
		`--${flag}=${value} is refused: a switch takes one of ${words}`,
	/** The model the judge setting names cannot be called (`why`: pi knows no such model, or has no credentials). */
	judgeUnusable: (model: string, why: string) =>
		`the judge ${model} (--til-done-judge, TIL_DONE_JUDGE) cannot be asked: ${why}; name a model pi --list-models shows and has credentials for, or on for the session's model`,
	/** pi gave a switch flag the word after it: most likely the prompt. */
	switchTookWord: (flag: string, word: string) =>
		`--${flag} took ${word} as its value (pi gives a switch the word after it), which is no switch's word: it is refused, and that word was not sent; write --${flag}=on, or put the prompt before the switch`,
} as const;

// ── The tools as the TUI shows them: their labels, their calls and results ─────────────────────────────

/** The tools' calls and results as pi's TUI shows them to the user (the model reads core/texts/model.ts). */
export const TOOL_DISPLAY = {
	labels: { write: "Write Todos", list: "List Todos", edit: "Edit Todos", pause: "Pause Todos" },
	/** A `write_todos` call: how many items, and the index an insert puts them at. */
	written: (count: number, at: string | undefined) => `(${count} items${at === undefined ? "" : ` @${at}`})`,
	/** A result that says what went wrong: its short detail. */
	error: (detail: string) => `Error: ${detail}`,
	empty: NO_TODOS,
	/** An edit's partial result while an item's check runs. */
	runningCheck: (index: number, command: string) => `Running ${CHECK_NAMES.item(index)}: ${oneLine(command)}`,
} as const;

/** Said when code reads or writes the store outside any session: a listener the host calls that was never bound. */
export const STORE_OUTSIDE_SESSIONS =
	"pi-til-done: the store was used outside any session (a callback not bound with bindToSession)";
