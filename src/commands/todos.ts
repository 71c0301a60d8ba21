/** `/todos`: the user's controls to see and change the list and the auto-continue. */

import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { breakerReport, stopWords } from "../continue/breakers.ts";
import type { ChainState } from "../continue/chain.ts";
import type { Engine } from "../continue/engine.ts";
import { formatTodoListText, renderTodoList } from "../formatting.ts";
import { DONE_CHECK_ENTRY_TYPE, SNAPSHOT_ENTRY_TYPE } from "../session/keys.ts";
import type { TilDoneConfig } from "../settings/config.ts";
import { modelInputPrice, modelPriced } from "../spend/report.ts";
import {
	appendTodos,
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
	updateTodoStatus,
} from "../state.ts";
import { oneLine } from "../texts/data.ts";
import { formatWhy, spentLine } from "../texts/user.ts";
import { ACTION_TO_STATUS, type EditAction, INITIAL_STATUS, MAX_CHECK_LENGTH, type TodoDetails } from "../types.ts";
import { tell } from "../ui/tell.ts";
import { checkEditParams, checkWriteParams, cloneTodos, isValidCheck } from "../validation.ts";

const SUBCOMMAND_TO_ACTION: Readonly<Record<string, EditAction>> = {
	start: "start",
	done: "complete",
	abandon: "abandon",
	approve: "complete",
};

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

/** A one-paragraph account of the auto-continue for `/todos status`. */
export function formatStatusReport(
	config: TilDoneConfig,
	activeTools: readonly string[],
	inputPrice?: number,
	priced = true,
): string {
	const chain = getChain();
	const doneCheck = effectiveDoneCheck(config.doneCheck);
	const next = getLoop() ? "loop iteration" : "continuation";
	return [
		`Auto-continue: ${autoContinueState(chain)}`,
		spentLine(chain.spend),
		...breakerReport({ chain, inputPrice, priced, next, tail: "" }, config),
		`Countdown: ${config.countdownSeconds}s`,
		`Done-check: ${doneCheck === undefined ? "none" : oneLine(doneCheck)}`,
		`Item checks: ${itemChecksState(config, activeTools)}, timeout ${config.checkTimeoutSeconds}s`,
	].join("\n");
}

export function registerTodosCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("todos", {
		description:
			"Show or change the todo list and the auto-continue (add, start, done, abandon, review, approve, check, ...)",
		getArgumentCompletions: completeTodosArgs,
		handler: async (args, ctx) => {
			const trimmed = args.trim();
			const sub = trimmed.split(/\s+/)[0] ?? "";
			const rest = trimmed.slice(sub.length).trim();
			return runTodosCommand({ pi, engine, config: getConfig(), ctx, rest, sub });
		},
	});
}

/** Stores a list the user changed on the branch, so reload and tree moves replay it like a tool result. */
function commit(pi: ExtensionAPI): void {
	const details: TodoDetails = { action: "write", todos: cloneTodos(getTodos()) };
	pi.appendEntry(SNAPSHOT_ENTRY_TYPE, details);
	resetChain();
}

interface Subcommand {
	/** What argument completion shows for it. */
	help: string;
	run: (call: TodosCall) => void;
}

/** Every `/todos` subcommand: its help and what it does ("" is `/todos` alone: the list). */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
	"": { help: "", run: ({ ctx }) => showList(ctx) },
	add: { help: "add <text>: append an item", run: addItem },
	start: { help: "start <i>: mark item i in progress", run: editItems },
	done: { help: "done <i>: mark item i completed", run: editItems },
	abandon: { help: "abandon <i>: mark item i abandoned", run: editItems },
	review: { help: "review <i>: only you may complete item i (the model may work on it)", run: markForReview },
	approve: {
		help: "approve <i>: complete item i after your review, and go on",
		run(call) {
			if (editItems(call)) call.engine.resume(call.ctx);
		},
	},
	check: { help: "check [<command>|off]: the done-check that verifies the finished list", run: setDoneCheck },
	clear: {
		help: "empty the list",
		run({ pi, ctx }) {
			setTodos([]);
			commit(pi);
			tell(ctx, "Todo list cleared.");
		},
	},
	pause: {
		help: "pause [reason]: turn auto-continue off for this session",
		run({ engine, ctx, rest }) {
			engine.pause(ctx);
			pauseAutoContinue("user", rest || undefined);
			tell(ctx, "Auto-continue paused for this session. /todos resume turns it back on.");
		},
	},
	resume: {
		help: "turn auto-continue back on",
		run({ engine, ctx }) {
			resumeAutoContinue();
			resetChain();
			tell(ctx, "Auto-continue is on.");
			engine.resume(ctx);
		},
	},
	status: {
		help: "auto-continue state, counters, spend and limits",
		run: ({ pi, ctx, config }) =>
			tell(ctx, formatStatusReport(config, pi.getActiveTools(), modelInputPrice(ctx), modelPriced(ctx))),
	},
	why: {
		help: "why the auto-continue went on or stopped: its last decisions",
		run: ({ ctx }) => tell(ctx, formatWhy(getDecisions())),
	},
	panel: {
		help: "panel [on|off]: show the list above the editor",
		run({ ctx, rest }) {
			const enabled = rest === "on" ? true : rest === "off" ? false : !isPanelEnabled();
			setPanelEnabled(enabled);
			tell(ctx, `Todo panel ${enabled ? "on" : "off"}.`);
		},
	},
};

/** Subcommands of `/todos`, with the help text argument completion shows. */
export const TODOS_SUBCOMMANDS: readonly { name: string; description: string }[] = Object.entries(SUBCOMMANDS)
	.filter(([name]) => name !== "")
	.map(([name, { help }]) => ({ name, description: help }));

async function runTodosCommand(call: TodosCall): Promise<void> {
	const subcommand = Object.hasOwn(SUBCOMMANDS, call.sub) ? SUBCOMMANDS[call.sub] : undefined;
	if (subcommand) return subcommand.run(call);
	const names = TODOS_SUBCOMMANDS.map((s) => s.name).join(", ");
	tell(call.ctx, `/todos: unknown subcommand '${call.sub}'. Try: ${names}`, "error");
}

function showList(ctx: ExtensionCommandContext): void {
	const todos = getTodos();
	if (ctx.mode === "tui") tell(ctx, todos.length === 0 ? "No todos" : renderTodoList(todos, ctx.ui.theme));
	else tell(ctx, formatTodoListText(todos));
}

function addItem({ pi, ctx, rest: text }: TodosCall): void {
	const error = checkWriteParams({ mode: "append", todos: [{ text }] }, getTodos().length);
	if (error) {
		tell(ctx, `/todos add: ${error.message.replace(/^Error: /, "")}`, "error");
		return;
	}
	appendTodos([{ text, status: INITIAL_STATUS }]);
	commit(pi);
	tell(ctx, `Added [${getTodos().length - 1}] ${text}`);
}

/** An argument as an error message quotes it: on one line, at most 20 characters. */
function quoteArgument(word: string): string {
	const text = JSON.stringify(oneLine(word));
	return text.length > 22 ? `${text.slice(0, 20)}…"` : text;
}

/** Why `words` do not name items: none given, or some are not whole numbers; undefined when all are. */
export function nonIndexError(sub: string, words: readonly string[], listLength: number): string | undefined {
	const range = listLength > 0 ? ` from 0 to ${listLength - 1}` : "";
	if (words.length === 0) {
		return listLength > 0
			? `/todos ${sub}: which item? Give its index, a whole number${range}`
			: `/todos ${sub}: no todos exist`;
	}
	const bad = words.filter((word) => !/^\d+$/.test(word));
	if (bad.length === 0) return undefined;
	const what = bad.length === 1 ? "is not an index" : "are not indices";
	return `/todos ${sub}: ${bad.map(quoteArgument).join(", ")} ${what}; indices are whole numbers${range}`;
}

/** The tool's own check of an edit, worded for `/todos`. */
function editError(sub: string, action: EditAction, words: readonly string[]): string | undefined {
	const error = checkEditParams({ action, indices: words.map(Number) }, getTodos().length);
	return error ? `/todos ${sub}: ${error.message.replace(/^Error: /, "")}` : undefined;
}

/** Sets the status of the items named; returns whether it did. The user's word needs no check to pass. */
function editItems({ pi, ctx, sub, rest }: TodosCall): boolean {
	const action = SUBCOMMAND_TO_ACTION[sub] as EditAction;
	const words = rest === "" ? [] : rest.split(/\s+/);
	const notIndices = nonIndexError(sub, words, getTodos().length);
	const error = notIndices ?? editError(sub, action, words);
	if (error) {
		tell(ctx, error, "error");
		return false;
	}
	const indices = words.map(Number);
	updateTodoStatus(indices, ACTION_TO_STATUS[action]);
	commit(pi);
	tell(ctx, formatTodoListText(getTodos()));
	return true;
}

/** `/todos review <i…>`: the items become the user's to complete; the model may still work on them. */
function markForReview({ pi, ctx, sub, rest }: TodosCall): void {
	const words = rest === "" ? [] : rest.split(/\s+/);
	const error = nonIndexError(sub, words, getTodos().length) ?? editError(sub, "start", words);
	if (error) {
		tell(ctx, error, "error");
		return;
	}
	const indices = new Set(words.map(Number));
	setTodos(getTodos().map((todo, index) => (indices.has(index) ? { ...todo, review: true } : todo)));
	commit(pi);
	tell(ctx, formatTodoListText(getTodos()));
}

/** `/todos check [<command>|off]`: shows, sets or turns off the done-check, stored on the branch. */
function setDoneCheck({ pi, ctx, config, rest }: TodosCall): void {
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
		tell(ctx, `/todos check: the command must be 1 to ${MAX_CHECK_LENGTH} characters`, "error");
		return;
	}
	pi.appendEntry(DONE_CHECK_ENTRY_TYPE, { command });
	setBranchDoneCheck(command);
	tell(
		ctx,
		command === null ? "Done-check off." : `Done-check set: ${oneLine(command)}. It runs when every item is finished.`,
	);
}
