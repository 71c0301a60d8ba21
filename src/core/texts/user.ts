/**
 * Every text the user reads: notices, the sentence of each decision, `/todos why` and `/todos status`, a `/loop`'s
 * end, the status bar's words, plan files' problems and notices, the checkpoints' answers, the breakers' texts, the
 * settings' help and warnings, the help, answers and refusals of `/todos` and `/loop`, the tools as the TUI shows
 * them. Pure; figures come in as plain numbers and words.
 */

import {
	type BranchMiss,
	type ChainSpend,
	type CheckEnd,
	type Checkpoint,
	type Counters,
	DEFAULT_LOOP_MARKER,
	DEFAULT_LOOP_MAX,
	type Decision,
	type FinishedWorker,
	MAX_CHECK_LENGTH,
	MAX_INDICES,
	MAX_LOOP_ITERATIONS,
	MAX_TODO_TEXT_LENGTH,
	MAX_TODOS,
	type SideSpend,
	type StopTally,
	type TodoItem,
	type WorkerOutcome,
	type WritableRefusal,
} from "../model/types.ts";
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

/** The stop of a shared plan whose remote has not answered for a lease's time: nothing is claimed or landed meanwhile. */
export const REMOTE_DOWN_STOP =
	"Auto-continue stopped: the remote of the shared plan has not answered for the lease's time, so nothing is claimed or landed. Work that did not land stays under its ref; run again once the remote answers (pi -p --continue, or /todos resume).";

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
/** How a goal ends, as the user reads it. */
export const GOAL_ENDS = {
	met: (runs: number, reason: string) =>
		`🎯 Goal met after ${runs} run(s), by the judge's word: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`,
	limit: (runs: number) => `Goal stopped: ${runs} run(s) and the judge has not found it met.`,
	failures: (failures: number) => `Goal stopped after ${failures} failed runs in a row.`,
	aborted: `Goal stopped: the run was aborted.`,
	unjudged: (why: string) => `Goal stopped: the judge gave no verdict (${why}).`,
	/** `/goal off`, or a key during a countdown. */
	byUser: `Goal stopped by you.`,
	/** The goal of a list the judge passed, with the list. */
	listMet: "🎯 Goal met: the judge found it held with the list.",
	/** `/goal off` with no goal in progress. */
	none: "No goal is in progress.",
} as const;

// ── /goal: its usage and what it answers ───────────────────────────────────────────────────────────────

/** `/goal` in pi's list of commands. */
export const GOAL_DESCRIPTION =
	"Work until an independent judge finds a condition met: /goal <condition>, /goal off, /goal (what is in progress)";

/** What `/goal` alone answers (the goal in progress, or that there is none), and the usage its refusals end with. */
export const GOAL_ANSWERS = {
	current: (condition: string, runs: number) => `🎯 Goal in progress (run ${runs + 1}): ${oneLine(condition)}`,
	none: "No goal is in progress: /goal <condition> starts one.",
	usage: (max: number) =>
		`usage: /goal <condition> | /goal off  (the condition: 1 to ${max} characters; after every run the judge decides whether it holds, and the goal ends when it does, at a breaker or budget, on /goal off or a key)`,
	tooLong: (length: number, max: number) => `/goal: the condition has ${length} characters, more than ${max}`,
} as const;

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

/** What follows a change made in the `/todos` view: the chain goes on once the user is back at the editor. */
const GOES_ON_AFTER_VIEW = "the auto-continue goes on when you close this view";

/** An empty list, as the TUI shows it: in the `/todos` view, and as a tool's result. */
const NO_TODOS = "No todos";

/** The `/todos` view's texts: its title, its keys, what a key did, and why a key did nothing. */
export const LIST_VIEW = {
	title: (finished: number, total: number) => `Todos ${finished}/${total}`,
	empty: NO_TODOS,
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

const whole = (text: string, ...shorter: string[]): StatusText => ({ parts: [text], shorter });

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

/** What the user reads of the workers. */
export const WORKER_TEXTS = {
	noRepo: "pi-til-done: workers need a git work tree: the session's model works the list alone.",
	givenBack: (index: number, why: string) => `Worker on [${index}]: ${why}; the item is ready again.`,
	/** A worker stopped with work of its own: the item is ready again, and its work stays under its ref. */
	stoppedWithWork: (index: number) =>
		`Worker on [${index}]: stopped; the item is ready again, and its work is kept under its ref (/todos workers names it).`,
	/** A worker whose item the list no longer holds: nothing of it landed, and its work stays under its ref. */
	workKept: (index: number, why: string) =>
		`Worker on [${index}]: ${why}; nothing of it landed, and its work is kept under its ref.`,
	/** The commit a worker's item lands as on a shared plan's branch: the item's text, and where it comes from. */
	landingCommit: (index: number, text: string, key: string) =>
		`${prefix(oneLine(text), 72)}\n\nLanded by pi-til-done: item [${index}] of the plan, worked by a worker.\n\n${LANDED_ITEM_TRAILER}: ${key}\n`,
	/** A worker's item landed on a shared plan's branch, as `commit`. */
	onBranch: (index: number, branch: string, remote: string, commit: string) =>
		`Worker on [${index}]: landed on ${oneLine(branch)} of ${remoteShown(remote)} as ${commit.slice(0, 12)}.`,
	/** Landed on the branch, but the person's work tree did not take it (`why`): it is theirs to pull. */
	notInWorkTree: (index: number, branch: string, why: string) =>
		`Worker on [${index}]: your work tree did not take it (${why}): it is on ${oneLine(branch)} for you to pull.`,
	/** A stop that came once the landing had begun writing: a landing is all or nothing, so it landed whole. */
	landedOnStop: (index: number) =>
		`Worker on [${index}]: its landing had begun writing when you stopped it: it landed whole, and the item is completed.`,
	/** A worker started on its item. */
	started: (index: number, text: string) => `Worker on [${index}] started: ${itemWords(text)}`,
	/** A worker's work landed: its time and tokens, the files it changed, and its last answer cut. */
	landed: (worker: FinishedWorker) =>
		`Worker on [${worker.index}] landed in ${spentWords(worker)}: ${changedWords(worker.files)}${answerWords(worker)}`,
	/**
	 * `/todos workers` alone: the setting, one line per worker at work, then those that ended in this chain (`ended`,
	 * each as {@link WORKER_TEXTS.ended} words it) and how to read one's answer.
	 */
	list: (max: number, lines: readonly string[], ended: readonly string[] = []) =>
		[
			max === 0 ? "Workers: off" : `Workers: up to ${max} at once; ${lines.length} at work`,
			...lines,
			...(lines.length === 0 ? [] : ["Esc (in the TUI) or /todos pause stops them all."]),
			...(ended.length === 0
				? []
				: ["Ended in this chain:", ...ended, "/todos workers [<i>] shows what the last worker of item i answered."]),
		].join("\n"),
	/** A worker that ended, as `/todos workers` lists it: its item, its end, time and tokens, its files or why. */
	ended: (worker: FinishedWorker) => `  [${worker.index}] ${itemWords(worker.text)}: ${endedWords(worker)}`,
	/** `/todos workers [<i>]` for a worker that ended: what it did, then its last answer whole. */
	answerOfEnded: (worker: FinishedWorker) =>
		`Worker on [${worker.index}] (${itemWords(worker.text)}) ${endedWords(worker)}. ${answerBlock(worker.answer, false)}`,
	/** `/todos workers [<i>]` for a worker at work: its time and tokens so far, then its last answer so far. */
	answerOfLive: (worker: { index: number; text: string; seconds: number; tokens: number; answer?: string }) =>
		`Worker on [${worker.index}] (${itemWords(worker.text)}) at work for ${worker.seconds} s, ${formatTokens(worker.tokens)} tokens so far. ${answerBlock(worker.answer, true)}`,
	line: (index: number, text: string, seconds: number, tokens: number, dir: string) =>
		`  [${index}] ${itemWords(text)}: ${seconds} s, ${tokens.toLocaleString("en-US")} tokens, in ${dir || "(its tree is being made)"}`,
	set: (max: number) =>
		max === 0 ? "Workers: off for this session." : `Workers: up to ${max} at once in this session.`,
	noRepoRefused: "workers need a git work tree, and this session's folder is not in one",
	/** Where an item's claim should be, a ref holds no claim: the item is left alone until it is freed by hand. */
	malformedClaim: (index: number) =>
		`pi-til-done: the claim ref of [${index}] holds no claim of ours: no worker takes the item until /todos remote release ${index} frees it.`,
	/** The claims could not be read (the remote did not answer): nothing started, tried again shortly. */
	claimsUnreachable: (remote: string | undefined) =>
		`pi-til-done: the claims ${remote === undefined ? "of this repository" : `on the remote ${remoteShown(remote)}`} cannot be read now: no worker started; the claims are tried again shortly.`,
	/** A worker's pi could not start: workers are off for the session, said once. */
	cannotStart: (code: number, stderr: string) =>
		`pi-til-done: a worker could not start (${startFailure(code, stderr)}): workers are off for this session, and the session's model works the list.`,
	/** `/todos workers` alone, after the workers at work: what earlier runs left, when they left anything. */
	leftovers: (left: LeftoverCounts, keptRefs: readonly string[]) => {
		const parts = leftoverParts(left, keptRefs);
		if (parts.length === 0) return undefined;
		return `Left by earlier runs: ${parts.join(", ")}. /todos workers clean removes them.`;
	},
	/** `/todos workers clean`: what it removed. */
	cleaned: (left: LeftoverCounts) => {
		const parts = leftoverParts(left);
		return parts.length === 0
			? "Nothing was left by earlier runs."
			: `Removed what earlier runs left: ${parts.join(", ")}.`;
	},
	/** `/todos workers`: the stages of landings cut short, which hold backups of the user's files until put back. */
	cutLandings: (stages: readonly string[]) =>
		`A landing cut short (its pi was killed while it wrote) left backups of your files in ${stages.join(", ")}: the next workers or /todos workers clean put back each file that is as the landing left it, and never remove a backup they cannot put back.`,
	/** The files of the user's a landing cut short left half written, put back from their backups. */
	putBack: (files: readonly string[]) =>
		`Put back as they were before a landing cut short (its pi was killed while it wrote): ${files.map((file) => `"${file}"`).join(", ")}.`,
	/** Backups kept: a file changed since the landing was cut short, so it was not put back. */
	backupsKept: (stages: readonly string[]) =>
		`Backups of your files from a landing cut short are kept in ${stages.join(", ")}: a file changed since, so it was not put back; nothing of pi-til-done removes them.`,
	/** Said once per session that starts workers where bubblewrap is not installed: their bash is not confined. */
	bwrapMissing:
		"pi-til-done: workers are not confined to their trees: bubblewrap (bwrap) is not installed, so a worker (its tools, the extensions it loads) can write outside its tree.",
	/** Said once per session: an entry of `TIL_DONE_WORKER_WRITABLE` workers are not let write, and why. */
	writableLeftOut: (entry: string, why: WritableRefusal) =>
		`pi-til-done: workers may not write ${JSON.stringify(oneLine(entry))} (TIL_DONE_WORKER_WRITABLE): ${WRITABLE_WHY[why]}.`,
	/** How bubblewrap's trial run failed when it said nothing: it ran past `timeoutMs`, a signal ended it, or its code. */
	bwrapSilent: (end: { timeoutMs?: number; signal?: string; code?: number | string }) =>
		end.timeoutMs !== undefined
			? `it did not end within ${end.timeoutMs / 1000} s`
			: end.signal
				? `it was ended by ${end.signal}`
				: `exit code ${end.code}`,
	/** The same where bubblewrap cannot make its namespaces here: `detail` is its first line, or how it failed. */
	bwrapFailed: (detail: string) =>
		`pi-til-done: workers are not confined to their trees: bubblewrap (bwrap) cannot run here (${prefix(oneLine(detail), 120)}), so a worker (its tools, the extensions it loads) can write outside its tree.`,
	/**
	 * Esc while workers are at work: the items given back, what became of their workers' work, and those whose landing
	 * had begun writing and landed.
	 */
	stoppedByKey: (tally: StopTally) =>
		[
			"Workers stopped by you:",
			...(tally.givenBack > 0 || tally.landed === 0
				? [`${tally.givenBack} item(s) are ready again${workOf(tally)}.`]
				: []),
			...(tally.landed > 0
				? [`${tally.landed} item(s) had begun landing when you stopped them, and landed whole.`]
				: []),
		].join(" "),
} as const;

/** What became of the work of the workers of the items a stop gave back, as the end of the sentence that counts them. */
function workOf({ givenBack, kept, notKept }: StopTally): string {
	const unchanged = givenBack - kept - notKept;
	if (givenBack === 0) return "";
	if (kept === givenBack) return ", each worker's work kept under a ref of pi-til-done";
	if (unchanged === givenBack) return "; no worker of theirs had changed anything, so nothing is kept";
	const parts = [
		...(kept > 0 ? [`the work of ${kept} kept under a ref of pi-til-done`] : []),
		...(unchanged > 0 ? [`${unchanged} had changed nothing`] : []),
		...(notKept > 0 ? [`the work of ${notKept} could not be kept`] : []),
	];
	return `; of their workers, ${parts.join(", ")}`;
}

/** An item's text in a worker's line: on one line, cut to 60 characters. */
const itemWords = (text: string): string => prefix(oneLine(text), 60);

/** The most files a worker's line names (the rest are counted), and the characters of its answer a landing line shows. */
export const WORKER_LINE_LIMITS = { files: 5, answer: 100 } as const;

const spentWords = ({ seconds, tokens }: FinishedWorker): string => `${seconds} s, ${formatTokens(tokens)} tokens`;

/** The files a worker's landing changed, as data: some named, the rest counted. */
function changedWords(files: readonly string[]): string {
	if (files.length === 0) return "changed no file";
	const named = files.slice(0, WORKER_LINE_LIMITS.files).map((file) => JSON.stringify(oneLine(file)));
	const more = files.length - named.length;
	return `changed ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** How a worker ended, as `/todos workers` says it. */
const END_WORDS: Record<FinishedWorker["end"], string> = {
	landed: "landed",
	"given-back": "given back",
	kept: "kept aside",
	"cannot-start": "ended",
};

/** What a worker that ended did: `landed after 2 s, 4,445 tokens; changed "b.txt"`, or its end, figures and why. */
function endedWords(worker: FinishedWorker): string {
	const spent = `${END_WORDS[worker.end]} after ${worker.seconds} s, ${formatTokens(worker.tokens)} tokens`;
	return worker.end === "landed" ? `${spent}; ${changedWords(worker.files)}` : `${spent}: ${worker.why}`;
}

/** A worker's last answer whole, each of its lines indented and freed of control characters (so far, when `live`). */
function answerBlock(answer: string | undefined, live: boolean): string {
	if (answer === undefined || answer.trim() === "")
		return live ? "It has written no answer yet." : "It wrote no answer.";
	const lines = answer.replace(/\r\n?/g, "\n").split("\n");
	return [`Its last answer${live ? " so far" : ""}:`, ...lines.map((line) => `  ${oneLine(line)}`)].join("\n");
}

/** A worker's last answer on one line, cut. */
function answerWords({ answer }: FinishedWorker): string {
	const flat = oneLine(answer).trim();
	return flat === "" ? "" : `; it answered «${prefix(flat, WORKER_LINE_LIMITS.answer)}»`;
}

/** How many of each thing earlier runs of workers left. */
export interface LeftoverCounts {
	folders: number;
	bases: number;
	kept: number;
}

/**
 * The counts of what earlier runs left, as parts of a sentence (none for what they left none of); the work kept named
 * by its refs when they are given (a stopped worker's line sends the user to them).
 */
function leftoverParts({ folders, bases, kept }: LeftoverCounts, keptRefs: readonly string[] = []): string[] {
	return [
		...(folders > 0
			? [
					`${folders} folder(s) of gone pi processes (workers' trees and their TMPDIRs, private git folders, copies of compiled extensions)`,
				]
			: []),
		...(bases > 0 ? [`${bases} snapshot ref(s) of gone workers`] : []),
		...(kept > 0
			? [
					`${kept} item(s)' work not landed, kept under ${keptRefs.length > 0 ? keptRefs.join(", ") : "refs/til-done/…"}`,
				]
			: []),
	];
}

/** How a worker's pi ended before any model call: its exit code, and the end of what it wrote to stderr. */
function startFailure(code: number, stderr: string): string {
	const said = stderr.trim() ? `: ${prefix(oneLine(stderr.trim()), 120)}` : "";
	return `exit code ${code} before any model call${said}`;
}

/** How a check that did not pass ended, as the user reads it. */
function checkEndText(end: CheckEnd): string {
	if (end.kind === "exit") return `exit code ${end.code}`;
	if (end.kind === "signal") return `killed by signal ${end.signal}`;
	return `timed out after ${end.seconds} s`;
}

/** Why a worker's item went back to ready (or, landed, that it landed), in the words the user and its next try read. */
/** ` in "a", "b"`: the files named, or nothing when none is. */
const inFiles = (files: readonly string[]): string =>
	files.length === 0 ? "" : ` in ${files.map((file) => JSON.stringify(oneLine(file))).join(", ")}`;

export function workerWhy(outcome: WorkerOutcome): string {
	switch (outcome.kind) {
		case "landed":
			return "it landed";
		case "stopped":
			return "stopped";
		case "overspent":
			return `it spent ${formatTokens(outcome.tokens)} tokens on its item, more than ${outcome.factor} × the median of ${formatTokens(outcome.median)} tokens per todo a worker landed`;
		case "timed-out":
			return `it ran past its ${outcome.minutes}-minute limit`;
		case "failed": {
			const { code, stderr, error } = outcome;
			if (error !== undefined)
				return `its model call failed${error.trim() ? `: «${prefix(oneLine(error.trim()), 120)}»` : ""}`;
			const said = stderr.trim() ? `: ${prefix(oneLine(stderr.trim()), 120)}` : "";
			return `it ended with ${code === null ? "a signal" : `exit code ${code}`}${said}`;
		}
		case "unfinished":
			if (outcome.said === undefined) return "its answer was cut at the model's output limit before it ended its item";
			return outcome.said === ""
				? "it said it could not do its item"
				: `it said it could not do its item: «${outcome.said}»`;
		case "check-failed":
			return `its check failed in its tree (${checkEndText(outcome.end)})`;
		case "no-tree":
			return "its tree could not be made from a snapshot of the work tree";
		case "no-result":
			return "its work could not be kept";
		case "list-changed":
			return "the list changed while it worked: its item is no longer where it was";
		case "conflict":
			return `its work conflicts with ${outcome.on === undefined ? "the work tree" : `${oneLine(outcome.on.branch)} of ${remoteShown(outcome.on.remote)}`}${inFiles(outcome.files)}`;
		case "unwritable":
			return `its work cannot be written${inFiles(outcome.files)} (the work tree does not let this pi write there): nothing of it landed`;
		case "git-busy":
			return `git is busy in the work tree (${outcome.why}): nothing of its work landed`;
		case "not-compared":
			return "git could not compare its work with the work tree (its work is kept under its ref)";
		case "submodules": {
			const { paths } = outcome;
			const named = paths.map((path) => JSON.stringify(oneLine(path))).join(", ");
			const which =
				paths.length === 0 ? "a submodule" : `the ${paths.length === 1 ? "submodule" : "submodules"} ${named}`;
			return `its work changes ${which}, and a worker's change to a submodule never lands (its work is kept under its ref)`;
		}
		case "cannot-start":
			return `it could not start (${startFailure(outcome.code, outcome.stderr)})`;
		case "claim-lost":
			return "another session took its claim over (this one did not renew it within the lease): its work is kept under its ref and does not land";
		case "landed-elsewhere":
			return "another session landed its item first (the plan's branch has it checked)";
		case "not-on-branch":
			return `its work could not land on ${oneLine(outcome.branch)} of ${remoteShown(outcome.remote)}: ${BRANCH_MISSES[outcome.why]}`;
	}
}

/** The trailer of a landing commit naming its item's key: how another machine finds the commit that landed an item. */
export const LANDED_ITEM_TRAILER = "Til-done-item";

/** Why a worker's work did not land on the plan's branch, in words. */
const BRANCH_MISSES: Record<BranchMiss, string> = {
	unreachable: "the remote was not reached",
	"tip-kept-moving": "other sessions kept landing on it while it merged",
	"no-branch": "the remote no longer has that branch",
	rejected: "the remote refused the push",
	"git-failed": "git could not write its commit in this repository",
};

/**
 * `⚙ 3 worker(s): [1] text [2] text [4] text` while workers are at work: each worker's item once, in the order given
 * (by index); shorter, `⚙ 3 worker(s): [1] [2] [4]`, then `⚙ 3`.
 */
export function workersStatus(items: readonly (readonly [index: number, text: string | undefined])[]): StatusText {
	const head = `⚙ ${items.length} worker(s):`;
	// An item the list no longer holds (its worker is ending) is named by its index alone.
	const parts = items.flatMap(([index, text]): StatusPart[] =>
		text === undefined ? [` [${index}]`] : [` [${index}] `, { cut: oneLine(text) }],
	);
	const indices = items.map(([index]) => `[${index}]`).join(" ");
	return { parts: [head, ...parts], shorter: [`${head} ${indices}`, `⚙ ${items.length}`] };
}

/** Characters of the judge's reason the status bar and `/todos why` repeat; the whole reason goes to the model. */
const JUDGE_REASON_SHOWN = 120;

/** What the user reads of the judge: how its verdict failed a list, and why it gave none. */
export const JUDGE_TEXTS = {
	name: "the judge",
	itemFailed: (index: number, verdict: string, reason: string) =>
		failedCheck("the judge", `[${index}] ${verdict}: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`),
	goalFailed: ({ verdict, reason }: { verdict: string; reason: string }) =>
		failedCheck("the judge", `goal ${verdict}: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`),
	notJudged: (why: string) => failedCheck("the judge", `not judged: ${why}`),
	/** Said once, when a call of the judge gives no verdict. */
	notJudgedNotice: (why: string) => `pi-til-done: the judge gave no verdict (${why}): the list is not verified.`,
	unknownModel: (name: string) => `pi knows no model ${name}`,
	noModel: "the session has no model",
	noAuth: (name: string) => `pi has no credentials for ${name}`,
	overTokens: (forecast: number, budget: number) =>
		`its call would bring the chain to ${formatTokens(forecast)} tokens, over the budget of ${formatTokens(budget)}`,
	overCost: (forecast: number, budget: number) =>
		`its call would bring the chain's cost to ${formatCost(forecast)}, over the budget of ${formatCost(budget)}`,
	timedOut: (seconds: number) => `no answer within ${seconds} s`,
	failed: (message: string) => `the call failed: ${prefix(oneLine(message), JUDGE_REASON_SHOWN)}`,
	/** The check status while the judge is asked. */
	asking: (model: string) => ({ what: "the judge", command: model }),
} as const;

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

// ── Plan files: what is wrong with a line of one, and what the user reads about one ─────────────────────

/** Why a plan file's line is refused; the parser adds the line's number. */
export const PLAN_FILE_PROBLEMS = {
	notAnItem: "not a task item (`- [ ] text` or `- [x] text`) or an annotation under one",
	proseAfterItems: "text after the first item that is neither a task item nor an annotation under one",
	itemDepth: "a task item indented neither 0 spaces (an item) nor 2 (a subtask: items nest one level)",
	subtaskWithoutItem: "a subtask with no item above it",
	annotationWithoutItem: "an annotation with no item above it",
	annotationDepth: "an annotation not indented two spaces under its item",
	unknownAnnotation: (what: string) =>
		`unknown annotation ${what} (expected ● in progress, ✗ abandoned, 👁 review, ⛓ waits for <i>, …, check: \`<command>\` or ↳ subtask of <i>)`,
	twice: (what: string) => `the item's ${what} is given twice`,
	checkedNotOpen: (status: TodoItem["status"]) => `a checked item ([x]) cannot be ${STATUS_WORDS[status]}`,
	nestedWithParent: "a nested subtask cannot name another parent",
	badEscape: "a backslash that starts no escape (\\\\, \\n, \\r, \\t or \\uXXXX)",
} as const;

/**
 * The annotations under a plan file's item that the user reads there: its open status, its review mark, what it waits
 * for and its parent (core/rules/plan-file.ts writes them, and its patterns read them back).
 */
export const PLAN_FILE_ANNOTATIONS = {
	inProgress: "● in progress",
	abandoned: "✗ abandoned",
	review: "👁 review",
	waitsFor: (indices: readonly number[]) => `⛓ waits for ${indices.join(", ")}`,
	subtaskOf: (parent: number) => `↳ subtask of ${parent}`,
} as const;

/** Each kind of annotation as a problem names it: `the item's review mark is given twice`. */
export const PLAN_FILE_ANNOTATION_NAMES = {
	status: "status",
	review: "review mark",
	waits: "waits",
	check: "check",
	parent: "parent",
} as const;

/** Where a refused plan file is wrong: its name, the line's number and the problem. */
export const planFileError = (file: string, line: number, problem: string): string =>
	`${file} line ${line}: ${problem}`;

/** What the user reads about plan files. */
export const PLAN_FILE_NOTICES = {
	exported: (file: string, items: number) => `Exported ${items} item(s) to ${file}.`,
	imported: (file: string, items: number) => `Imported ${items} item(s) from ${file}.`,
	importRefused: (detail: string) => `Nothing was imported: ${detail}`,
	unreadable: (file: string, why: string) => `${file} cannot be read: ${why}`,
	missing: (file: string) => `${file} does not exist`,
	unwritable: (file: string, why: string) => `${file} cannot be written: ${why}`,
	importKept: "Nothing was imported: the list stays as it was.",
	confirmTitle: "Replace the todo list?",
	confirmBody: (open: number, file: string) => `The list has ${open} open item(s); importing ${file} replaces it.`,
	changedOnDisk: (file: string) =>
		`${file} changed on disk since the last write: it is not overwritten, and the list stays the session's. /todos import ${file} takes the file's, /todos export ${file} writes the list over it.`,
	loadRefused: (detail: string) => `The plan file is not loaded: ${detail}`,
	loaded: (file: string, items: number) => `Loaded ${items} item(s) from ${file}.`,
} as const;

// ── Per-item checkpoints: notices, and what `/todos diff`, `revert` and `checkpoints` answer ────────────

/** Longest item text a checkpoint line quotes. */
const ITEM_CHARS = 60;

const item = (index: number, text: string): string => `[${index}] ${prefix(oneLine(text), ITEM_CHARS)}`;
const short = (commit: string): string => commit.slice(0, 12);

/** A file name as a message shows it: on one line, quoted when it holds a space. */
const fileName = (path: string): string => (/[\s"]/.test(path) ? JSON.stringify(path) : oneLine(path));

/** Why git is busy with the user's own operation, so a checkpoint waits (CHECKPOINT_TEXTS.busy says so). */
export const GIT_BUSY = {
	indexLock: "another git process holds the index",
	merge: "a merge is in progress",
	rebase: "a rebase is in progress",
	rebaseOrAm: "a rebase or git am is in progress",
	cherryPick: "a cherry-pick is in progress",
	revert: "a revert is in progress",
	bisect: "a bisect is in progress",
} as const;

/** A size in MB, as the bound on untracked files counts it (1 MB: 1,000,000 bytes). */
const megabytes = (bytes: number): string =>
	`${(bytes / 1_000_000).toLocaleString("en-US", { maximumFractionDigits: 1 })} MB`;

/** Files a notice names in full; the rest are counted. */
const NAMED_FILES = 5;

type SizedFile = { path: string; bytes: number };

/** `"a.bin" (60 MB), "b.bin" (55 MB) and 3 more`: the first {@link NAMED_FILES} named with their sizes. */
function namedWithSizes(files: readonly SizedFile[]): string {
	const named = files
		.slice(0, NAMED_FILES)
		.map((file) => `${JSON.stringify(oneLine(file.path))} (${megabytes(file.bytes)})`);
	const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : "";
	return `${named.join(", ")}${more}`;
}

export const CHECKPOINT_TEXTS = {
	/** The untracked files over the bound, said once: they are in no snapshot, so no worker's tree nor checkpoint has them. */
	leftOut: (files: readonly SizedFile[], maxMb: number) =>
		`pi-til-done: ${files.length} untracked file(s) over ${maxMb.toLocaleString("en-US")} MB left out of snapshots (workers' trees, checkpoints, the judge's evidence): ${namedWithSizes(files)}. --til-done-max-untracked-mb sets the bound.`,
	/** The untracked files past the bound in all, said once: the biggest, so a snapshot's time stays bounded. */
	beyondTotal: (files: readonly SizedFile[], totalMb: number) => {
		const total = totalMb.toLocaleString("en-US");
		return `pi-til-done: ${files.length} untracked file(s) left out of snapshots (workers' trees, checkpoints, the judge's evidence) beyond ${total} MB of untracked files in all, the biggest first: ${namedWithSizes(files)}. --til-done-max-untracked-mb sets the bound (${total} MB is ten times it).`;
	},
	/** Repositories nested in the tree with no commit yet: git cannot take them into a snapshot, so they are left out. */
	emptyRepositories: (paths: readonly string[]) =>
		`pi-til-done: ${paths.map((path) => JSON.stringify(oneLine(path))).join(", ")} ${paths.length === 1 ? "is a repository" : "are repositories"} with no commit yet, left out of snapshots (workers' trees, checkpoints, the judge's evidence) until ${paths.length === 1 ? "it has" : "they have"} one.`,
	/** A revert that would remove, as the item's own, files its start snapshot left out: what they were is unknown. */
	revertLeftOut: (index: number, paths: readonly string[]) =>
		`Not reverted: ${paths.map((path) => JSON.stringify(oneLine(path))).join(", ")} ${paths.length === 1 ? "was" : "were"} there when [${index}] started, but left out of its snapshot (over the bound, or a repository with no commit), so what ${paths.length === 1 ? "it was" : "they were"} before it is unknown. Nothing was changed.`,
	/** The message of a checkpoint's commit, as `git log` shows it under `refs/til-done/`. */
	commitMessage: (phase: string, index: number) => `til-done ${phase} [${index}]`,
	/** The message of the snapshot of the work tree taken as a chain starts (what the judge reads the change from). */
	chainStartMessage: "til-done chain start",
	notGitTree: (cwd: string) =>
		`Checkpoints are on, but ${oneLine(cwd)} is not in a git work tree: no checkpoint is taken.`,
	busy: (reason: string) => `Checkpoint skipped: ${reason}; git is left alone until it ends.`,
	failed: "A checkpoint failed: git refused to snapshot the work tree, so some items may have none.",
	noRepo: (cwd: string) => `${oneLine(cwd)} is not in a git work tree: there are no checkpoints here.`,
	noWork: (index: number) =>
		`No checkpoints of [${index}] on this branch: it needs a start and a completion taken with checkpoints on (/todos checkpoints lists them).`,
	gone: (index: number) => `The checkpoints of [${index}] are gone from the repository (/todos checkpoints clean?).`,
	diffHead: (index: number, text: string, start: string, done: string) =>
		`Changes of ${item(index, text)} (${short(start)} → ${short(done)}):`,
	noChanges: (index: number, text: string) => `${item(index, text)} changed no file.`,
	revertRefused: (index: number, paths: readonly string[]) =>
		`Not reverted: ${paths.map(fileName).join(", ")} changed since [${index}] was completed. Nothing was changed; commit or undo those changes first.`,
	reverted: (index: number, restored: readonly string[], removed: readonly string[]) =>
		[
			`Reverted ${restored.length + removed.length} file(s) [${index}] changed to their state before it.`,
			...(restored.length > 0 ? [`Restored: ${restored.map(fileName).join(", ")}`] : []),
			...(removed.length > 0 ? [`Removed: ${removed.map(fileName).join(", ")}`] : []),
		].join("\n"),
	revertFailed: (index: number) => `Reverting [${index}] failed: git could not write the files back.`,
	none: "No checkpoint on this branch.",
	list: (checkpoints: readonly Checkpoint[]) =>
		[
			`Checkpoints on this branch (${checkpoints.length}), the newest last:`,
			...checkpoints.map(
				(c) => `  ${formatClock(c.at)} ${c.phase.padEnd(5)} ${short(c.commit)} ${item(c.index, c.text)}`,
			),
		].join("\n"),
	cleaned: (count: number) => `Deleted ${count} checkpoint ref(s) under refs/til-done/.`,
	cleanFailed: "git refused to delete the checkpoint refs.",
} as const;

/** Most lines of a diff `/todos diff` shows; the rest is named, with the command that shows it all. */
export const MAX_DIFF_LINES = 500;

/**
 * Each line of a diff as data: control characters (but the line breaks) become spaces; past `max` lines it is cut,
 * and the last line says how many more there are and how to see them.
 */
export function diffAsData(diff: string, start: string, done: string, max = MAX_DIFF_LINES): string {
	const lines = diff
		.replace(/\n$/, "")
		.split("\n")
		.map((line) => oneLine(line));
	if (lines.length <= max) return lines.join("\n");
	const more = `… ${lines.length - max} more line(s): git diff ${short(start)} ${short(done)}`;
	return [...lines.slice(0, max), more].join("\n");
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
function settingValue(value: string | number | boolean | undefined): string {
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

// ── /todos: its subcommands' help, answers, refusals and status ─────────────────────────────────────────

const EMPTY_LIST = "the list is empty";

/** Which indices the list has, as a refusal says it. */
function indexRange(length: number): string {
	return length === 0 ? EMPTY_LIST : `the list has ${length} item(s), 0 to ${length - 1}`;
}

/** Why a `/todos` subcommand's arguments are refused (its usage follows); a word the user typed comes quoted. */
export const TODO_ARG_REFUSALS = {
	emptyList: EMPTY_LIST,
	workerCount: (word: string, max: number) =>
		`${word} is none of: a number of workers (0 to ${max}), off, clean, or an item as [<i>]`,
	noWorkerOn: (word: string, workedOn: readonly number[]) =>
		`${word} is no item a worker worked on in this chain: ${workedOn.length === 0 ? "none did yet" : workedOn.map((index) => `[${index}]`).join(", ")}`,
	whichItem: (length: number) => `which item? ${indexRange(length)}`,
	notAnIndex: (word: string, length: number) => `${word} is not an index: ${indexRange(length)}`,
	notAnItem: (word: string, length: number) => `${word} is not an item: ${indexRange(length)}`,
	tooManyIndices: (given: number) => `at most ${MAX_INDICES} indices at once (got ${given})`,
	givenTwice: (index: number) => `item ${index} is given twice`,
	emptyText: "the text is empty",
	textTooLong: `the text is longer than ${MAX_TODO_TEXT_LENGTH} characters`,
	move: (length: number) => `give the item and where it goes: two indices, ${indexRange(length)}`,
	takesNothing: (word: string) => `${word} is not understood: it takes nothing`,
	listFull: `the list holds ${MAX_TODOS} items, its most`,
	whichFile: "which file?",
	oneFile: (words: number) => `give one file (a name without spaces), not ${words} words`,
	oneIndexOnly: (rest: string) => `one index only: ${rest} is not understood`,
	oneRemote: (given: string, max: number) =>
		`${given} is not one remote: give its name or URL (one word of at most ${max.toLocaleString("en-US")} characters, not starting with -)`,
	takesNothingOr: (given: string, words: readonly string[]) =>
		`${given} is not understood: it takes nothing or ${words.join(" or ")}`,
	notASubcommand: (word: string) => `${word} is not a subcommand`,
	neitherOnNorOff: (word: string) => `${word} is neither on nor off`,
	commandTooLong: `the command is longer than ${MAX_CHECK_LENGTH} characters`,
} as const;

/** `/todos` in pi's list of commands. */
export const TODOS_DESCRIPTION =
	"Show or change the todo list and the auto-continue (/todos help lists the subcommands)";

/**
 * Each `/todos` subcommand in the order `/todos help` lists them ("" is `/todos` alone): how it is written after
 * `/todos `, and what it does in one line. edges/commands/todos.ts gives each its run.
 */
export const TODOS_HELP = {
	"": { usage: "", help: "show the list" },
	help: { usage: "help [<subcommand>]", help: "list the subcommands, or say how one is used" },
	add: { usage: "add <text>", help: "append an item, and go on" },
	edit: { usage: "edit <i> <text>", help: "change the text of item i" },
	remove: { usage: "remove <i> [<i> …]", help: "delete items" },
	move: { usage: "move <i> <j>", help: "move item i to position j" },
	start: { usage: "start <i> [<i> …]", help: "mark items in progress, and go on" },
	done: { usage: "done <i> [<i> …]", help: "mark items completed (your word: no check runs), and go on" },
	abandon: { usage: "abandon <i> [<i> …]", help: "mark items abandoned" },
	review: { usage: "review <i> [<i> …]", help: "make items yours to close (the model may work on them)" },
	unreview: { usage: "unreview <i> [<i> …]", help: "take the review mark off items" },
	approve: { usage: "approve <i> [<i> …]", help: "complete items after your review, and go on" },
	check: { usage: "check [<command> | off]", help: "show, set or turn off the done-check of the whole list" },
	clear: { usage: "clear", help: "empty the list" },
	export: { usage: "export [<file>]", help: "write the list to a plan file (default: the followed one, else PLAN.md)" },
	import: { usage: "import <file>", help: "replace the list with a plan file's" },
	pause: { usage: "pause [<reason>]", help: "turn the auto-continue off for this session" },
	resume: { usage: "resume", help: "turn the auto-continue back on, and go on" },
	status: { usage: "status", help: "the auto-continue's state, counters, spend and limits" },
	why: { usage: "why", help: "the auto-continue's last decisions, and why" },
	panel: { usage: "panel [on | off]", help: "show or hide the list above the editor (alone: switch it)" },
	diff: { usage: "diff <i>", help: "what item i changed, from its start to its completion" },
	revert: { usage: "revert <i>", help: "put the files item i changed back as they were before it" },
	checkpoints: {
		usage: "checkpoints [clean]",
		help: "list the items' git checkpoints on this branch, or delete them all",
	},
	workers: {
		usage: "workers [<n> | off | clean | [<i>]]",
		help: "the workers at work, those that ended in this chain and what earlier runs left (alone); how many may work at once in this session; clean up what earlier runs left; or what the last worker of item i answered",
	},
	remote: {
		usage: "remote [<name> | off | release <i>]",
		help: "the sessions at work on the shared plan (alone), work it with a remote's sessions or this machine's only, or free item i's claim",
	},
} as const;

/** What `/todos` answers: its help, a refusal with the subcommand's usage, and what a subcommand did. */
export const TODOS_ANSWERS = {
	/** A subcommand as the help lists it and argument completion describes it: `add <text>: append an item, …`. */
	subcommand: (usage: string, help: string) => `${usage}: ${help}`,
	help: (subcommands: readonly string[]) =>
		["/todos subcommands:", ...subcommands.map((line) => `  /todos ${line}`)].join("\n"),
	usage: (usage: string, help: string) => `usage: /todos ${usage}\n${help}`,
	/** The settings `/todos help` lists after the subcommands: each flag, its variable and its value in this session. */
	settings: (rows: readonly [flag: string, env: string, value: string | number | boolean | undefined][]) =>
		[
			"Settings (flag, variable: value in this session; pi --help says what each does):",
			...rows.map(([flag, env, value]) => `  --${flag}, ${env}: ${settingValue(value)}`),
		].join("\n"),
	refused: (sub: string, why: string, usage: string) => `/todos ${sub}: ${why}\nusage: /todos ${usage}`,
	/** A word that is no subcommand (quoted), then the help. */
	unknown: (word: string, help: string) => `/todos: ${TODO_ARG_REFUSALS.notASubcommand(word)}\n${help}`,
	added: (index: number, text: string) => `Added [${index}] ${oneLine(text)}`,
	cleared: "Todo list cleared.",
	paused: "Auto-continue paused for this session. /todos resume turns it back on.",
	resumed: "Auto-continue is on.",
	panel: (enabled: boolean) => `Todo panel ${enabled ? "on" : "off"}.`,
	noDoneCheck: "No done-check. /todos check <command> sets one.",
	doneCheckOff: "Done-check off.",
	doneCheckSet: (command: string) => `Done-check set: ${oneLine(command)}. It runs when every item is finished.`,
} as const;

/** How often the model is reminded of a list gone stale, in words. */
function reminderWords(every: number): string {
	if (every === 0) return "off";
	return every === 1 ? "every tool call" : `every ${every} tool calls`;
}

/** `1,234 tokens in 2 call(s)`, and the cost when there is one. */
const spentApart = (spent: SideSpend): string =>
	`${formatTokens(spent.tokens)} tokens in ${spent.calls} call(s)${spent.cost > 0 ? `, cost ${formatCost(spent.cost)}` : ""}`;

/** The lines of `/todos status` beside spentLine, COUNTDOWN_IN_RUN and each breaker's, and the states they name. */
export const TODOS_STATUS = {
	autoContinue: (state: string) => `Auto-continue: ${state}`,
	on: "on",
	paused: (reason: string | undefined) => `paused${reason ? ` (${oneLine(reason)})` : ""}`,
	stopped: (words: string) => `stopped: ${words} (/todos why)`,
	countdown: (seconds: number) => `Countdown: ${seconds}s`,
	reminder: (every: number) => `Stale-list reminder: ${reminderWords(every)}`,
	/** Also what `/todos check` alone answers while there is one. */
	doneCheck: (command: string | undefined) => `Done-check: ${command === undefined ? "none" : oneLine(command)}`,
	itemChecks: (state: string, timeoutSeconds: number) => `Item checks: ${state}, timeout ${timeoutSeconds}s`,
	checksOff: "off (--til-done-model-checks off)",
	checksWithoutBash: "off while pi's bash tool is not active",
	/** The judge: off, or its model and what it spent in this chain. */
	judge: (choice: string, spent: SideSpend) =>
		choice === "off"
			? "Judge: off"
			: `Judge: ${choice === "on" ? "the session's model" : choice}; spent this chain: ${spentApart(spent)}`,
	/** The workers: off, or how many may work at once and what they spent in this chain. */
	workers: (max: number, spent: SideSpend) =>
		max === 0 && spent.calls === 0
			? "Workers: off"
			: `Workers: ${max === 0 ? "off now" : `up to ${max} at once`}; spent this chain: ${spentApart(spent)}`,
} as const;

// ── /loop: its usage and refusals (its ends are LOOP_ENDS) ─────────────────────────────────────────────

/** `/loop` in pi's list of commands. */
export const LOOP_DESCRIPTION =
	"Send a prompt again after every run until the answer holds a marker: /loop [--max N] [--until M] <prompt>";

/** What `/loop --help`, and every refusal, shows. */
export const LOOP_USAGE = `usage: /loop [--max N] [--until MARKER] [--] <prompt>  (N: 1 to ${MAX_LOOP_ITERATIONS}, default ${DEFAULT_LOOP_MAX}; MARKER: what the answer holds when the task is done, default ${DEFAULT_LOOP_MARKER}, quoted when it has spaces; -- starts a prompt that holds --max or --until itself)`;

/** Why `/loop`'s arguments are refused; `option` is `--max` or `--until` as written. */
export const LOOP_ARG_REFUSALS = {
	needsValue: (option: string) => `${option} needs a value`,
	quoteNotClosed: (option: string, quote: string) => `${option}: the quote ${quote} is not closed`,
	givenTwice: (option: string) => `${option} is given twice`,
	max: `--max takes a whole number from 1 to ${MAX_LOOP_ITERATIONS}`,
	emptyMarker: "--until takes a non-empty marker",
	notAnOption: (word: string) => `${word} is not an option of /loop`,
	noPrompt: "what should the loop send? Give a prompt",
} as const;

/** A refused `/loop`: why, then its usage. */
export const loopRefused = (why: string): string => `/loop: ${why}\n${LOOP_USAGE}`;

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

// ── One plan shared through a remote (--til-done-remote, /todos remote) ───────────────────────────────────────────

/** One session at work, as `/todos remote` lists it: what another machine wrote is data, on one line, cut. */
export interface TeamClaimLine {
	/** The item's index in this session's list, when it has the item. */
	index: number | undefined;
	key: string;
	host: string;
	session: string;
	/** When its holder took it, by the holder's clock (ms since 1970). */
	since: number;
	fence: number;
}

/** The most characters of another machine's host or session name shown. */
const TEAM_NAME_CHARS = 40;

/** A remote's name or URL as a line shows it. */
const remoteShown = (remote: string) => prefix(oneLine(remote), 80);

/** What the user reads about the remote a plan is shared through. */
export const REMOTE_TEXTS = {
	/** Why the session cannot join the remote: said at its start (pi -p then runs nothing), or as `/todos remote`'s refusal. */
	cannotJoin: (remote: string, why: string) => `the remote ${remoteShown(remote)} cannot be joined: ${why}`,
	noRepo: "this folder is in no git work tree",
	unknownRemote: "it is no remote of this repository (git remote lists them) nor a URL",
	detached: "this clone is on no branch (a detached HEAD): the plan's branch is the one every session is on",
	unreachable: (why: string) => `git cannot reach it (${prefix(oneLine(why), 200)})`,
	noBranch: (branch: string) =>
		`it has no branch ${oneLine(branch)}, the one this clone is on: push it there first, then join`,
	rewritten: (branch: string) =>
		`its branch ${oneLine(branch)} no longer holds what this clone last fetched of it (rewritten by someone): fetch and set the branch right first`,
	noPush: (why: string) => `it refuses a push (${prefix(oneLine(why), 200)})`,
	planNotOnBranch: (path: string, branch: string) =>
		`its branch ${oneLine(branch)} holds no plan file ${oneLine(path)}, where each item's landing checks its line: commit and push the plan file there first, then join`,
	planOutside: (path: string) =>
		`the plan file ${oneLine(path)} is outside this repository, so no branch of it can hold the plan: follow a plan file inside the repository`,
	planNotAPlan: (path: string, branch: string) =>
		`its branch ${oneLine(branch)} holds ${oneLine(path)}, but it is no plan file: each item's landing checks its line there; set it right on the branch first, then join`,
	planDiffers: (path: string, branch: string, index: number) =>
		`its branch ${oneLine(branch)} holds ${oneLine(path)} with another item [${index}] than this clone's: pull the branch (or push this clone's plan file) first, then join`,
	joined: (remote: string, branch: string) =>
		`Working the plan with every session on ${remoteShown(remote)}, branch ${oneLine(branch)}: an item another holds is never taken.`,
	alone: "Working the plan with this machine's sessions only: claims live in this repository.",
	/** `/todos remote` alone: the remote (or none), then each session at work there. */
	list: (remote: string | undefined, branch: string, lines: readonly TeamClaimLine[]) =>
		[
			remote === undefined
				? `Plan shared by this machine's sessions (branch ${oneLine(branch)}); no remote.`
				: `Plan shared on ${remoteShown(remote)} (branch ${oneLine(branch)}).`,
			lines.length === 0
				? "No session holds an item."
				: `${lines.length} item(s) held:\n${lines.map(teamLine).join("\n")}`,
		].join("\n"),
	malformedClaim: (key: string) => `  ${key}: a ref that holds no claim (/todos remote release frees it)`,
	unreachableNow: (remote: string) => `The remote ${remoteShown(remote)} cannot be reached now: no claim listed.`,
	released: (index: number, host: string | undefined) =>
		`Freed the claim on [${index}]${host === undefined ? "" : ` (held on ${prefix(oneLine(host), TEAM_NAME_CHARS)})`}: if that session still works on it, it can no longer land it, and another session may take the item.`,
	notClaimed: (index: number) => `[${index}] is not claimed: nothing to free.`,
	releaseLost: (index: number) =>
		`The claim on [${index}] changed while it was being freed: nothing was freed; look again.`,
} as const;

/** One held item: by which machine and session, since when (the holder's clock), at which fence. */
function teamLine(line: TeamClaimLine): string {
	const item = line.index === undefined ? line.key : `[${line.index}]`;
	const host = prefix(oneLine(line.host), TEAM_NAME_CHARS);
	const session = prefix(oneLine(line.session), TEAM_NAME_CHARS);
	return `  ${item}: ${host}, session ${session}, since ${formatClock(line.since)} (fence ${line.fence})`;
}

/** Said when code reads or writes the store outside any session: a listener the host calls that was never bound. */
export const STORE_OUTSIDE_SESSIONS =
	"pi-til-done: the store was used outside any session (a callback not bound with bindToSession)";

/** Why an entry of `TIL_DONE_WORKER_WRITABLE` is left out. */
const WRITABLE_WHY: Record<WritableRefusal, string> = {
	relative: "not an absolute path",
	missing: "nothing is there",
	repository: "it holds your repository, or is in it, which workers never write",
};
