/**
 * Texts the user reads: notices, the sentence of each decision, `/todos why` and `/todos status`, a `/loop`'s end.
 * The status bar's are in status.ts, a breaker's stop text in its row (core/rules/breakers.ts), a command's usage in
 * its table. Pure.
 */

import type { ChainSpend, Counters, Decision, TodoItem } from "../../types.ts";
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

/** The one notice a finished list gets: verified when a verification passed (`checks` of them). */
export function completionNotice(items: number, checks?: number): string {
	if (checks === undefined) return `✓ All ${items} todos are done.`;
	return `✓ All ${items} todos are done and verified (${checks} check(s) passed).`;
}

export function reviewWaitText(index: number): string {
	return `👁 [${index}] waits for your review`;
}

const STATUS_WORDS: Record<TodoItem["status"], string> = {
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

/** The sentence of each decision that is not a stop (a stop's sentence is its stop text): what follows, and why. */
export const SENTENCES = {
	verify: (checks: number) => `Every todo is finished: ${checks} check(s) verify the list.`,
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

/** Decisions `/todos why` shows, the newest last. */
export const WHY_SHOWN = 10;

/** `/todos why`: the last decisions, the newest last. */
export function formatWhy(decisions: readonly Decision[]): string {
	if (decisions.length === 0) return "No decision yet in this session: the auto-continue has not acted.";
	const shown = decisions.slice(-WHY_SHOWN);
	return [`The auto-continue's last ${shown.length} decision(s), the newest last:`, ...shown.map(formatDecision)].join(
		"\n",
	);
}

/** `/todos status` in print and JSON modes, which never count down: the next continuation goes out inside the run. */
export const COUNTDOWN_IN_RUN = "Countdown: none in print and JSON modes (the chain goes on inside the run)";

/** What the user reads when a `/loop` ends (a budget's end is that budget's stop text). */
export const LOOP_ENDS = {
	done: (marker: string, iterations: number) => `Loop finished: ${marker} found after ${iterations} iteration(s).`,
	limit: (max: number, marker: string) => `Loop stopped: ${max} iteration(s) without ${marker}.`,
	failures: (failures: number) => `Loop stopped after ${failures} failed runs in a row.`,
	aborted: "Loop stopped: the run was aborted.",
	/** A key during its countdown, or a prompt. */
	byUser: "Loop stopped by the user.",
} as const;

export function spentLine(spend: ChainSpend): string {
	const cost = spend.cost > 0 ? `, cost ${formatCost(spend.cost)}` : "";
	return `Spent this chain: ${formatTokens(spend.tokens)} tokens in ${spend.calls} call(s)${cost}`;
}

/** Longest item text a notice quotes. */
const NOTICE_TEXT_CHARS = 60;

function describeItems(items: readonly [number, TodoItem][]): string {
	return items.map(([index, todo]) => `[${index}] ${prefix(oneLine(todo.text), NOTICE_TEXT_CHARS)}`).join(", ");
}

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

/** What follows a change made in the `/todos` view: the chain goes on once the user is back at the editor. */
const GOES_ON_AFTER_VIEW = "the auto-continue goes on when you close this view";

/** The `/todos` view's texts: its title, its keys, what a key did, and why a key did nothing. */
export const LIST_VIEW = {
	title: (finished: number, total: number) => `Todos ${finished}/${total}`,
	empty: "No todos",
	keys: "↑↓ select · a approve · d done · o open again · esc close",
	above: (count: number) => `↑ ${count} more`,
	below: (count: number) => `↓ ${count} more`,
	approved: (index: number) => `[${index}] approved: ${GOES_ON_AFTER_VIEW}`,
	done: (index: number) => `[${index}] completed: ${GOES_ON_AFTER_VIEW}`,
	reopened: (index: number) => `[${index}] in progress again: ${GOES_ON_AFTER_VIEW}`,
	noItem: "The list is empty: there is no item to change",
	notReview: (index: number) => `[${index}] is not a review item: a approves review items only`,
	completed: (index: number) => `[${index}] is completed already`,
	open: (index: number) => `[${index}] is not finished: o opens a finished item again`,
} as const;
