/** The user's controls: `/todos` to see and change the list and the auto-continue, `/loop` to iterate a prompt. */

import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { TilDoneConfig } from "./config.ts";
import type { Engine } from "./engine.ts";
import { formatTodoListText, oneLine, renderTodoList } from "./formatting.ts";
import { parseLoopArgs } from "./loop.ts";
import {
	appendTodos,
	getChain,
	getTodos,
	isPanelEnabled,
	pauseAutoContinue,
	resetChain,
	resumeAutoContinue,
	SNAPSHOT_ENTRY_TYPE,
	setPanelEnabled,
	setTodos,
	updateTodoStatus,
	updateUI,
} from "./state.ts";
import { ACTION_TO_STATUS, type EditAction, INITIAL_STATUS, type TodoDetails } from "./types.ts";
import { checkEditParams, checkWriteParams, cloneTodos } from "./validation.ts";

/** Subcommands of `/todos`, with the help text argument completion shows. */
export const TODOS_SUBCOMMANDS: readonly { name: string; description: string }[] = [
	{ name: "add", description: "add <text>: append an item" },
	{ name: "start", description: "start <i>: mark item i in progress" },
	{ name: "done", description: "done <i>: mark item i completed" },
	{ name: "abandon", description: "abandon <i>: mark item i abandoned" },
	{ name: "clear", description: "empty the list" },
	{ name: "pause", description: "pause [reason]: turn auto-continue off for this session" },
	{ name: "resume", description: "turn auto-continue back on" },
	{ name: "status", description: "auto-continue state, counters and limits" },
	{ name: "panel", description: "panel [on|off]: show the list above the editor" },
];

const SUBCOMMAND_TO_ACTION: Readonly<Record<string, EditAction>> = {
	start: "start",
	done: "complete",
	abandon: "abandon",
};

/** Completions for the first word after `/todos`. */
export function completeTodosArgs(prefix: string): { value: string; label: string; description: string }[] | null {
	if (prefix.includes(" ")) return null;
	const matches = TODOS_SUBCOMMANDS.filter((sub) => sub.name.startsWith(prefix.trim()));
	return matches.length > 0
		? matches.map((sub) => ({ value: sub.name, label: sub.name, description: sub.description }))
		: null;
}

/** A one-paragraph account of the auto-continue for `/todos status`. */
export function formatStatusReport(config: TilDoneConfig): string {
	const chain = getChain();
	const state = chain.paused ? `paused${chain.pauseReason ? ` (${oneLine(chain.pauseReason)})` : ""}` : "on";
	const noProgress = config.maxNoProgress > 0 ? `${chain.noProgress}/${config.maxNoProgress}` : "off";
	return [
		`Auto-continue: ${state}`,
		`Continuations this prompt: ${chain.continuations}/${config.maxContinuations}`,
		`Continuations without progress: ${noProgress}`,
		`Failed runs in a row: ${chain.failures}/${config.maxFailures}`,
		`Countdown: ${config.countdownSeconds}s`,
	].join("\n");
}

export function registerCommands(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("todos", {
		description: "Show or change the todo list and the auto-continue (add, start, done, abandon, clear, pause, ...)",
		getArgumentCompletions: completeTodosArgs,
		handler: async (args, ctx) => runTodosCommand(pi, engine, getConfig, args.trim(), ctx),
	});
	pi.registerCommand("loop", {
		description:
			"Send a prompt again after every run until the answer holds a marker: /loop [--max N] [--until M] <prompt>",
		handler: async (args, ctx) => {
			const parsed = parseLoopArgs(args);
			if (!parsed.spec) return tell(ctx, `/loop: ${parsed.error}`, "error");
			engine.startLoop({ ...parsed.spec, iteration: 0, failures: 0 }, ctx);
		},
	});
}

function tell(ctx: ExtensionCommandContext, text: string, level: "info" | "warning" | "error" = "info"): void {
	if (ctx.hasUI) ctx.ui.notify(text, level);
	else process.stdout.write(`${text}\n`);
}

/** Stores a list the user changed on the branch, so reload and tree moves replay it like a tool result. */
function commit(pi: ExtensionAPI, ctx: ExtensionCommandContext): void {
	const details: TodoDetails = { action: "write", todos: cloneTodos(getTodos()) };
	pi.appendEntry(SNAPSHOT_ENTRY_TYPE, details);
	resetChain();
	updateUI(ctx, getTodos());
}

async function runTodosCommand(
	pi: ExtensionAPI,
	engine: Engine,
	getConfig: () => TilDoneConfig,
	args: string,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const [sub = "", ...restWords] = args.split(/\s+/);
	const rest = args.slice(sub.length).trim();
	if (sub === "") return showList(ctx);
	if (sub === "add") return addItem(pi, ctx, rest);
	if (Object.hasOwn(SUBCOMMAND_TO_ACTION, sub)) return editItem(pi, ctx, SUBCOMMAND_TO_ACTION[sub], restWords);
	if (sub === "clear") {
		setTodos([]);
		commit(pi, ctx);
		return tell(ctx, "Todo list cleared.");
	}
	if (sub === "pause") {
		engine.cancelCountdown();
		pauseAutoContinue("user", rest || undefined);
		updateUI(ctx, getTodos());
		return tell(ctx, "Auto-continue paused for this session. /todos resume turns it back on.");
	}
	if (sub === "resume") {
		resumeAutoContinue();
		resetChain();
		updateUI(ctx, getTodos());
		tell(ctx, "Auto-continue is on.");
		return engine.resume(ctx);
	}
	if (sub === "status") return tell(ctx, formatStatusReport(getConfig()));
	if (sub === "panel") return togglePanel(ctx, rest);
	tell(ctx, `/todos: unknown subcommand '${sub}'. Try: ${TODOS_SUBCOMMANDS.map((s) => s.name).join(", ")}`, "error");
}

async function showList(ctx: ExtensionCommandContext): Promise<void> {
	const todos = getTodos();
	if (ctx.mode === "tui") {
		tell(ctx, todos.length === 0 ? "No todos" : renderTodoList(todos, ctx.ui.theme));
		return;
	}
	tell(ctx, formatTodoListText(todos));
}

function addItem(pi: ExtensionAPI, ctx: ExtensionCommandContext, text: string): void {
	const error = checkWriteParams({ mode: "append", todos: [{ text }] }, getTodos().length);
	if (error) {
		tell(ctx, `/todos add: ${error.message.replace(/^Error: /, "")}`, "error");
		return;
	}
	appendTodos([{ text, status: INITIAL_STATUS }]);
	commit(pi, ctx);
	tell(ctx, `Added [${getTodos().length - 1}] ${text}`);
}

function editItem(pi: ExtensionAPI, ctx: ExtensionCommandContext, action: EditAction, words: string[]): void {
	const indices = words.map((word) => (/^\d+$/.test(word) ? Number(word) : word));
	const error = checkEditParams({ action, indices }, getTodos().length);
	if (error) {
		tell(ctx, `/todos: ${error.message.replace(/^Error: /, "")}`, "error");
		return;
	}
	updateTodoStatus(indices as number[], ACTION_TO_STATUS[action]);
	commit(pi, ctx);
	tell(ctx, formatTodoListText(getTodos()));
}

function togglePanel(ctx: ExtensionCommandContext, arg: string): void {
	const enabled = arg === "on" ? true : arg === "off" ? false : !isPanelEnabled();
	setPanelEnabled(enabled);
	updateUI(ctx, getTodos());
	tell(ctx, `Todo panel ${enabled ? "on" : "off"}.`);
}
