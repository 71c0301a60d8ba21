/**
 * What the `/todos` subcommands answer: their help, refusals, answers, `/todos status` and `/todos why`. Loaded with
 * the command's run (its description is in ../user.ts, registered at every start).
 */

import {
	type ChainSpend,
	type Decision,
	MAX_CHECK_LENGTH,
	MAX_INDICES,
	MAX_TODO_TEXT_LENGTH,
	MAX_TODOS,
	type SideSpend,
} from "../../model/types.ts";
import { oneLine } from "../sanitize.ts";
import { formatCost, formatDecision, formatTokens, settingValue } from "../user.ts";

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

export function spentLine(spend: ChainSpend): string {
	const cost = spend.cost > 0 ? `, cost ${formatCost(spend.cost)}` : "";
	return `Spent this chain: ${formatTokens(spend.tokens)} tokens in ${spend.calls} call(s)${cost}`;
}

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
