/** `/todos`: the user's controls to see and change the list and the auto-continue. */

import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { withMoved, withRemoved, withStatus } from "../../core/list/changes.ts";
import { parentsCompletedBy } from "../../core/list/ready.ts";
import { breakerReport, stopWords } from "../../core/rules/breakers.ts";
import type { ChainState } from "../../core/rules/chain.ts";
import { DONE_CHECK_ENTRY_TYPE, PAUSE_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { parseSwitch, type TilDoneConfig } from "../../core/rules/settings.ts";
import { type StatusWord, statusRefusal } from "../../core/rules/status-rules.ts";
import {
	type Parsed,
	parseFile,
	parseIndexAndText,
	parseIndices,
	parseMove,
	parseNothing,
	parseText,
	quoted,
	roomFor,
	wordsOf,
} from "../../core/rules/todo-args.ts";
import { oneLine } from "../../core/texts/sanitize.ts";
import { COUNTDOWN_IN_RUN, formatWhy, spentLine } from "../../core/texts/user.ts";
import { ListView } from "../../core/views/list-view.ts";
import { formatTodoListText } from "../../formatting.ts";
import {
	appendTodos,
	bindToSession,
	effectiveDoneCheck,
	getChain,
	getDecisions,
	getLoop,
	getTodos,
	isPanelEnabled,
	pauseAutoContinue,
	resetChain,
	resumeAutoContinue,
	setBranchDoneCheck,
	setPanelEnabled,
	setTodos,
} from "../../state.ts";
import { INITIAL_STATUS, MAX_CHECK_LENGTH, type TodoStatus } from "../../types.ts";
import { isValidCheck } from "../../validation.ts";
import { commitUserList } from "../host/commit.ts";
import { modelInputPrice, modelPriced } from "../host/model-price.ts";
import { tell } from "../host/tell.ts";
import type { Engine } from "../run/engine.ts";
import { type CheckpointCall, revertItem, showCheckpoints, showDiff } from "./checkpoints.ts";
import { DEFAULT_PLAN_FILE, exportPlan, importPlan } from "./plan-file.ts";

/** What a `/todos` subcommand needs. */
interface TodosCall {
	pi: ExtensionAPI;
	engine: Engine;
	config: TilDoneConfig;
	ctx: ExtensionCommandContext;
	/** Everything after the subcommand, trimmed. */
	rest: string;
	sub: string;
}

/** Completions for the first word after `/todos`. */
export function completeTodosArgs(prefix: string): { value: string; label: string; description: string }[] | null {
	if (prefix.includes(" ")) return null;
	const matches = TODOS_SUBCOMMANDS.filter((sub) => sub.name.startsWith(prefix.trim()));
	return matches.length > 0
		? matches.map((sub) => ({ value: sub.name, label: sub.name, description: sub.description }))
		: null;
}

/** Whether checks the model writes can run now: they need model checks on and pi's bash tool active. */
function itemChecksState(config: TilDoneConfig, activeTools: readonly string[]): string {
	if (!config.modelChecks) return "off (--til-done-model-checks off)";
	return activeTools.includes("bash") ? "on" : "off while pi's bash tool is not active";
}

/** On, paused (and why), or stopped by a breaker or a budget until the user acts. */
function autoContinueState(chain: Readonly<ChainState>): string {
	if (chain.paused) return `paused${chain.pauseReason ? ` (${oneLine(chain.pauseReason)})` : ""}`;
	return chain.stopped === undefined ? "on" : `stopped: ${stopWords(chain.stopped)} (/todos why)`;
}

/** What `/todos status` reads off the host: pi's active tools, the model's price, and whether runs go on in-run. */
export interface StatusHost {
	activeTools: readonly string[];
	inputPrice?: number;
	priced?: boolean;
	/** Print and JSON modes: no countdown, the chain goes on inside the run. */
	inRun?: boolean;
}

/** How often the model is reminded of a list gone stale, in words. */
function reminderState(every: number): string {
	if (every === 0) return "off";
	return every === 1 ? "every tool call" : `every ${every} tool calls`;
}

/** A one-paragraph account of the auto-continue for `/todos status`. */
export function formatStatusReport(
	config: TilDoneConfig,
	{ activeTools, inputPrice, priced = true, inRun = false }: StatusHost,
): string {
	const chain = getChain();
	const doneCheck = effectiveDoneCheck(config.doneCheck);
	const next = getLoop() ? "loop iteration" : "continuation";
	return [
		`Auto-continue: ${autoContinueState(chain)}`,
		spentLine(chain.spend),
		...breakerReport({ chain, inputPrice, priced, next, tail: "" }, config),
		inRun ? COUNTDOWN_IN_RUN : `Countdown: ${config.countdownSeconds}s`,
		`Stale-list reminder: ${reminderState(config.remindEvery)}`,
		`Done-check: ${doneCheck === undefined ? "none" : oneLine(doneCheck)}`,
		`Item checks: ${itemChecksState(config, activeTools)}, timeout ${config.checkTimeoutSeconds}s`,
	].join("\n");
}

export function registerTodosCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("todos", {
		description: "Show or change the todo list and the auto-continue (/todos help lists the subcommands)",
		getArgumentCompletions: completeTodosArgs,
		handler: async (args, ctx) => {
			const trimmed = args.trim();
			const sub = trimmed.split(/\s+/)[0] ?? "";
			const rest = trimmed.slice(sub.length).trim();
			return runTodosCommand({ pi, engine, config: getConfig(), ctx, rest, sub });
		},
	});
}

interface Subcommand {
	/** How it is written, after `/todos `. */
	usage: string;
	/** What it does, in one line. */
	help: string;
	run: (call: TodosCall) => void | Promise<void>;
}

/** Refuses what a subcommand did not understand: why, then its usage; nothing changes. */
function refuse(call: TodosCall, why: string): void {
	const usage = SUBCOMMANDS[call.sub]?.usage ?? call.sub;
	tell(call.ctx, `/todos ${call.sub}: ${why}\nusage: /todos ${usage}`, "error");
}

/** Runs `apply` with what `parsed` holds, or refuses with its error. */
function withParsed<T>(
	call: TodosCall,
	parsed: Parsed<T>,
	apply: (value: T) => void | Promise<void>,
): void | Promise<void> {
	return "error" in parsed ? refuse(call, parsed.error) : apply(parsed.value);
}

/** A change of the list by the user: stored, shown, and (for the ones that go on) carried on from. */
async function changed(call: TodosCall, answer: string, goOn: boolean): Promise<void> {
	commitUserList(call.pi);
	tell(call.ctx, answer);
	if (goOn) await call.engine.resume(call.ctx);
}

const list = (): string => formatTodoListText(getTodos());

/** Every `/todos` subcommand, in the order `/todos help` lists them ("" is `/todos` alone: the list). */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
	"": { usage: "", help: "show the list", run: showList },
	help: { usage: "help [<subcommand>]", help: "list the subcommands, or say how one is used", run: showHelp },
	add: { usage: "add <text>", help: "append an item, and go on", run: addItem },
	edit: { usage: "edit <i> <text>", help: "change the text of item i", run: editText },
	remove: { usage: "remove <i> [<i> …]", help: "delete items", run: removeItems },
	move: { usage: "move <i> <j>", help: "move item i to position j", run: moveItem },
	start: { usage: "start <i> [<i> …]", help: "mark items in progress, and go on", run: setStatus("start") },
	done: {
		usage: "done <i> [<i> …]",
		help: "mark items completed (your word: no check runs), and go on",
		run: setStatus("done"),
	},
	abandon: { usage: "abandon <i> [<i> …]", help: "mark items abandoned", run: setStatus("abandon") },
	review: {
		usage: "review <i> [<i> …]",
		help: "make items yours to close (the model may work on them)",
		run: setReview(true),
	},
	unreview: { usage: "unreview <i> [<i> …]", help: "take the review mark off items", run: setReview(false) },
	approve: {
		usage: "approve <i> [<i> …]",
		help: "complete items after your review, and go on",
		run: setStatus("approve"),
	},
	check: {
		usage: "check [<command> | off]",
		help: "show, set or turn off the done-check of the whole list",
		run: setDoneCheck,
	},
	clear: { usage: "clear", help: "empty the list", run: clearList },
	export: {
		usage: "export [<file>]",
		help: "write the list to a plan file (default: the followed one, else PLAN.md)",
		run: (call) =>
			withParsed(call, parseFile(call.rest, call.config.planFile ?? DEFAULT_PLAN_FILE), (file) =>
				exportPlan(call.ctx, file),
			),
	},
	import: {
		usage: "import <file>",
		help: "replace the list with a plan file's",
		run: (call) =>
			withParsed(call, parseFile(call.rest), async (file) => {
				const answer = await importPlan(call.ctx, file);
				if (answer !== undefined) await changed(call, answer, false);
			}),
	},
	pause: { usage: "pause [<reason>]", help: "turn the auto-continue off for this session", run: pause },
	resume: { usage: "resume", help: "turn the auto-continue back on, and go on", run: resume },
	status: { usage: "status", help: "the auto-continue's state, counters, spend and limits", run: showStatus },
	why: { usage: "why", help: "the auto-continue's last decisions, and why", run: showWhy },
	panel: {
		usage: "panel [on | off]",
		help: "show or hide the list above the editor (alone: switch it)",
		run: switchPanel,
	},
	diff: { usage: "diff <i>", help: "what item i changed, from its start to its completion", run: checkpoint(showDiff) },
	revert: {
		usage: "revert <i>",
		help: "put the files item i changed back as they were before it",
		run: checkpoint(revertItem),
	},
	checkpoints: {
		usage: "checkpoints [clean]",
		help: "list the items' git checkpoints on this branch, or delete them all",
		run: checkpoint(showCheckpoints),
	},
};

/** A checkpoint subcommand (edges/commands/checkpoints.ts) with this call's refusal. */
function checkpoint(run: (call: CheckpointCall) => Promise<void>): Subcommand["run"] {
	return (call) => run({ ctx: call.ctx, rest: call.rest, refuse: (why) => refuse(call, why) });
}

/** Subcommands of `/todos`, with the help text argument completion shows. */
export const TODOS_SUBCOMMANDS: readonly { name: string; description: string }[] = Object.entries(SUBCOMMANDS)
	.filter(([name]) => name !== "")
	.map(([name, { usage, help }]) => ({ name, description: `${usage}: ${help}` }));

async function runTodosCommand(call: TodosCall): Promise<void> {
	const subcommand = Object.hasOwn(SUBCOMMANDS, call.sub) ? SUBCOMMANDS[call.sub] : undefined;
	if (subcommand) return subcommand.run(call);
	tell(call.ctx, `/todos: ${quoted(call.sub)} is not a subcommand\n${helpText()}`, "error");
}

/** One line per subcommand: how it is written, and what it does. */
function helpText(): string {
	return ["/todos subcommands:", ...TODOS_SUBCOMMANDS.map((sub) => `  /todos ${sub.description}`)].join("\n");
}

function showHelp(call: TodosCall): void {
	const [word, extra] = wordsOf(call.rest);
	const sub = word !== undefined && Object.hasOwn(SUBCOMMANDS, word) && word !== "" ? SUBCOMMANDS[word] : undefined;
	if (word === undefined) tell(call.ctx, helpText());
	else if (!sub || extra !== undefined) refuse(call, `${quoted(call.rest)} is not a subcommand`);
	else tell(call.ctx, `usage: /todos ${sub.usage}\n${sub.help}`);
}

/** The view in the TUI; elsewhere (RPC, print, JSON) the list as text. */
function showList(call: TodosCall): void | Promise<void> {
	if (call.ctx.mode === "tui") return openListView(call);
	tell(call.ctx, formatTodoListText(getTodos()));
}

/**
 * The interactive list until the user closes it. Its keys make the changes of `/todos approve|done|start`, each stored
 * at once; the chain goes on once the view is closed, so that the view's own keys never interrupt a countdown.
 */
async function openListView(call: TodosCall): Promise<void> {
	let goOn = false;
	await call.ctx.ui.custom<void>(
		(tui, theme, _keybindings, done) =>
			// The view's keys arrive from the TUI, outside the session: its callbacks are bound to it.
			new ListView({
				todos: bindToSession(getTodos),
				change: bindToSession((word: StatusWord, index: number) => {
					applyStatus(word, [index]);
					commitUserList(call.pi);
					goOn ||= STATUS_WORDS[word].goOn;
				}),
				close: () => done(),
				style: theme,
				rows: () => tui.terminal.rows,
			}),
	);
	if (goOn) await call.engine.resume(call.ctx);
}

function addItem(call: TodosCall): void | Promise<void> {
	const room = roomFor(getTodos().length);
	if ("error" in room) return refuse(call, room.error);
	return withParsed(call, parseText(call.rest), (text) => {
		appendTodos([{ text, status: INITIAL_STATUS }]);
		return changed(call, `Added [${getTodos().length - 1}] ${oneLine(text)}`, true);
	});
}

function editText(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseIndexAndText(call.rest, getTodos().length), ({ index, text }) => {
		setTodos(getTodos().map((todo, at) => (at === index ? { ...todo, text } : todo)));
		return changed(call, list(), false);
	});
}

function removeItems(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
		setTodos(withRemoved(getTodos(), indices));
		return changed(call, list(), false);
	});
}

function moveItem(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseMove(call.rest, getTodos().length), ({ from, to }) => {
		setTodos(withMoved(getTodos(), from, to));
		return changed(call, list(), false);
	});
}

/** What each status subcommand sets, and whether the chain goes on after it. */
const STATUS_WORDS: Readonly<Record<StatusWord, { status: TodoStatus; goOn: boolean }>> = {
	start: { status: "in_progress", goOn: true },
	done: { status: "completed", goOn: true },
	abandon: { status: "abandoned", goOn: false },
	approve: { status: "completed", goOn: true },
};

/** The user's word sets the status of the items at `indices`; no check needs to pass. */
function applyStatus(word: StatusWord, indices: readonly number[]): void {
	const { status } = STATUS_WORDS[word];
	// The user's word closes a parent whose last open subtask it finishes, review mark or not.
	setTodos(withStatus(getTodos(), indices, status, parentsCompletedBy(getTodos(), indices, status)));
}

/** start, done, abandon, approve: the status of every item given, where the rules let it change. */
function setStatus(word: StatusWord): Subcommand["run"] {
	return (call) =>
		withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
			const refused = statusRefusal(getTodos(), word, indices);
			if (refused !== undefined) return refuse(call, refused);
			applyStatus(word, indices);
			return changed(call, list(), STATUS_WORDS[word].goOn);
		});
}

/** review and unreview: only the user marks an item theirs to close, or takes the mark off. */
function setReview(review: boolean): Subcommand["run"] {
	return (call) =>
		withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
			setTodos(
				getTodos().map((todo, index) => {
					if (!indices.includes(index)) return todo;
					const { review: _, ...rest } = todo;
					return review ? { ...rest, review: true } : rest;
				}),
			);
			return changed(call, list(), false);
		});
}

function clearList(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), () => {
		setTodos([]);
		return changed(call, "Todo list cleared.", false);
	});
}

function pause({ pi, engine, ctx, rest }: TodosCall): void {
	engine.pause(ctx);
	pauseAutoContinue("user", rest || undefined);
	pi.appendEntry(PAUSE_ENTRY_TYPE, rest ? { paused: true, reason: rest } : { paused: true });
	tell(ctx, "Auto-continue paused for this session. /todos resume turns it back on.");
}

function resume(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), async () => {
		resumeAutoContinue();
		call.pi.appendEntry(PAUSE_ENTRY_TYPE, { paused: false });
		resetChain();
		tell(call.ctx, "Auto-continue is on.");
		await call.engine.resume(call.ctx);
	});
}

function showStatus(call: TodosCall): void | Promise<void> {
	const { pi, ctx, config } = call;
	return withParsed(call, parseNothing(call.rest), () =>
		tell(
			ctx,
			formatStatusReport(config, {
				activeTools: pi.getActiveTools(),
				inputPrice: modelInputPrice(ctx),
				priced: modelPriced(ctx),
				inRun: call.engine.actsBeforeSettle,
			}),
		),
	);
}

function showWhy(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), () => tell(call.ctx, formatWhy(getDecisions())));
}

function switchPanel(call: TodosCall): void {
	const word = call.rest.trim();
	const enabled = word === "" ? !isPanelEnabled() : parseSwitch(word);
	if (enabled === undefined) {
		refuse(call, `${quoted(word)} is neither on nor off`);
		return;
	}
	setPanelEnabled(enabled);
	tell(call.ctx, `Todo panel ${enabled ? "on" : "off"}.`);
}

/** `/todos check [<command>|off]`: shows, sets or turns off the done-check, stored on the branch. */
function setDoneCheck(call: TodosCall): void {
	const { pi, ctx, config, rest } = call;
	if (rest === "") {
		const command = effectiveDoneCheck(config.doneCheck);
		tell(
			ctx,
			command === undefined ? "No done-check. /todos check <command> sets one." : `Done-check: ${oneLine(command)}`,
		);
		return;
	}
	const command = rest === "off" ? null : rest;
	if (command !== null && !isValidCheck(command)) {
		refuse(call, `the command is longer than ${MAX_CHECK_LENGTH} characters`);
		return;
	}
	pi.appendEntry(DONE_CHECK_ENTRY_TYPE, { command });
	setBranchDoneCheck(command);
	tell(
		ctx,
		command === null ? "Done-check off." : `Done-check set: ${oneLine(command)}. It runs when every item is finished.`,
	);
}
