/**
 * THE ORIGINAL DESIGN of pi-til-done, kept only to measure against (`bench/context.ts`); the extension does not use
 * it and nothing in src/ imports it. Built from the user's two design documents (the architecture and the tool
 * reference), defects included, because the bench compares what the model receives under each design:
 * - every tool result that changes the list carries the whole list, every text in full;
 * - `before_agent_start` injects the whole list (`[TILL-DONE ACTIVE]`) before every run while items remain;
 * - `agent_end` sends a continuation prompt listing every remaining item in full, after a 3 s countdown (a 1 s
 *   `setInterval` with a widget when `ctx.hasUI`, one `setTimeout` otherwise), at most 20 times in a row.
 * Known consequences of the design, kept: in print mode the headless `setTimeout` never fires (pi exits first);
 * every edit resets the breaker's counter; the list lives in one module-level singleton.
 *
 * Where the documents leave something open, the plain reading, noted here:
 * - tool descriptions: the documents give none in words; each tool's "Purpose" sentence is its description
 *   (markdown removed, code spans as quotes);
 * - promptSnippet on all three tools ("All three tools share the same promptSnippet"), the 8 guidelines on
 *   write_todos, both verbatim including their backticks (the text this extension also carries);
 * - the continuation is sent with `pi.sendUserMessage(prompt)` (the documents call it a prompt); "typing in the
 *   editor throws" is that call throwing while the agent is busy, caught as the documents say;
 * - "✓ Done" when every item is `completed` (the status-bar table says "All items completed"); `📋 n/m` counts
 *   completed items only;
 * - reconstruction keeps the valid items of the newest non-empty snapshot and drops invalid ones;
 * - list texts are written as given (no line folding), as in the documents' examples.
 */

import { StringEnum } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionContext, Theme, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { Type } from "typebox";

// ── Types and constants ─────────────────────────────────────────────────────

type TodoStatus = "not_started" | "in_progress" | "completed" | "abandoned";
type EditAction = "start" | "complete" | "abandon";

interface TodoItem {
	text: string;
	status: TodoStatus;
}

/** What `agent_end` needs of each message of the run. */
type RunMessage = { role: string; stopReason?: string };

interface TodoDetails {
	action: "write" | "list" | "edit";
	todos: TodoItem[];
	error?: string;
}

const MAX_TODO_TEXT_LENGTH = 1000;
const MAX_TODOS = 100;
const MAX_AUTO_CONTINUE = 20;
const COUNTDOWN_SECONDS = 3;
const INITIAL_STATUS: TodoStatus = "not_started";
const VALID_STATUSES: ReadonlySet<string> = new Set(["not_started", "in_progress", "completed", "abandoned"]);
const TOOL_NAMES: ReadonlySet<string> = new Set(["write_todos", "list_todos", "edit_todos"]);
const ACTION_TO_STATUS: Record<EditAction, TodoStatus> = {
	start: "in_progress",
	complete: "completed",
	abandon: "abandoned",
};
const ACTION_LABELS: Record<EditAction, string> = { start: "Started", complete: "Completed", abandon: "Abandoned" };
const STATUS_ICONS: Record<TodoStatus, string> = {
	not_started: "–",
	in_progress: "●",
	completed: "✓",
	abandoned: "✗",
};

const PROMPT_SNIPPET =
	"Manage a todo list: write (replace/append/insert), list, edit (start/complete/abandon by indices)";

const PROMPT_GUIDELINES = [
	"Use `write_todos` with mode `'replace'` to create or replace the full todo list at the start of a task.",
	"Use `write_todos` with mode `'append'` to add new items to the end of the existing list.",
	"Use `write_todos` with mode `'insert'` and an `'index'` parameter to insert items at a specific position.",
	"Use `edit_todos` with action `'start'` and an array of 0-based indices to begin work on specific items.",
	"Use `edit_todos` with action `'complete'` and an array of 0-based indices to mark items as done.",
	"Use `edit_todos` with action `'abandon'` and an array of 0-based indices when items are no longer needed.",
	"Use `list_todos` to review the current todo list.",
	"Always call `edit_todos` with action `'start'` on the next item before working on it, then `'complete'` when done.",
];

// ── State: a module-level singleton ─────────────────────────────────────────

let todos: TodoItem[] = [];
let autoContinueCount = 0;
let activeCountdown: ReturnType<typeof setInterval> | undefined;

function setTodos(next: TodoItem[]): void {
	todos = next;
	autoContinueCount = 0;
}

/** The item at `index`, which the caller has checked is in range. */
function todoAt(list: readonly TodoItem[], index: number): TodoItem {
	const todo = list[index];
	if (todo === undefined) throw new Error(`no todo at index ${index}`);
	return todo;
}

function updateTodoStatus(indices: readonly number[], status: TodoStatus): void {
	for (const index of indices) todos[index] = { ...todoAt(todos, index), status };
	autoContinueCount = 0;
}

function appendTodos(items: readonly TodoItem[]): void {
	todos = [...todos, ...items];
	autoContinueCount = 0;
}

function insertTodos(at: number, items: readonly TodoItem[]): void {
	todos = [...todos.slice(0, at), ...items, ...todos.slice(at)];
	autoContinueCount = 0;
}

const isIncomplete = (status: TodoStatus) => status === "not_started" || status === "in_progress";
const cloneTodos = (list: readonly TodoItem[]): TodoItem[] => list.map((todo) => ({ ...todo }));

function isValidTodoItem(value: unknown): value is TodoItem {
	if (typeof value !== "object" || value === null) return false;
	const keys = Object.keys(value);
	if (keys.length !== 2 || !keys.includes("text") || !keys.includes("status")) return false;
	const { text, status } = value as Record<string, unknown>;
	if (typeof text !== "string" || typeof status !== "string" || !VALID_STATUSES.has(status)) return false;
	return text.length > 0 && text.length <= MAX_TODO_TEXT_LENGTH;
}

/** The newest non-empty snapshot in a tool result of ours on the branch, scanned from the leaf. */
function reconstructState(ctx: ExtensionContext): TodoItem[] {
	const branch = ctx.sessionManager.getBranch();
	for (const entry of branch.toReversed()) {
		if (entry.type !== "message" || entry.message.role !== "toolResult") continue;
		if (!TOOL_NAMES.has(entry.message.toolName)) continue;
		const details = entry.message.details as { todos?: unknown } | undefined;
		if (!Array.isArray(details?.todos) || details.todos.length === 0) continue;
		return details.todos.filter(isValidTodoItem).map(({ text, status }) => ({ text, status }));
	}
	return [];
}

function updateUI(ctx: ExtensionContext, list: readonly TodoItem[]): void {
	if (!ctx.hasUI) return;
	if (list.length === 0) {
		ctx.ui.setStatus("til-done", undefined);
		ctx.ui.setStatus("til-done-active", undefined);
		return;
	}
	const completed = list.filter((todo) => todo.status === "completed").length;
	if (completed === list.length) {
		ctx.ui.setStatus("til-done", `✓ Done (${list.length} items)`);
		ctx.ui.setStatus("til-done-active", undefined);
		return;
	}
	const active = list.flatMap((todo, i) => (todo.status === "in_progress" ? [`[${i}] ${todo.text}`] : []));
	ctx.ui.setStatus("til-done", `📋 ${completed}/${list.length}`);
	ctx.ui.setStatus("til-done-active", active.length > 0 ? active.join("\n") : undefined);
}

// ── Formatting: plain text for the model, themed text for the TUI ───────────

function formatTodoListText(list: readonly TodoItem[]): string {
	if (list.length === 0) return "No todos";
	return list.map((todo, i) => `${STATUS_ICONS[todo.status]} [${i}] ${todo.text}`).join("\n");
}

function formatRemainingList(list: readonly TodoItem[], indices: readonly number[]): string {
	return indices
		.map((i) => {
			const todo = todoAt(list, i);
			return `${STATUS_ICONS[todo.status]} [${i}] ${todo.text}`;
		})
		.join("\n");
}

const ICON_COLOURS = { not_started: "dim", in_progress: "warning", completed: "success", abandoned: "error" } as const;

function renderTodoList(list: readonly TodoItem[], theme: Theme): string {
	if (list.length === 0) return theme.fg("dim", "No todos");
	const label = (todo: TodoItem) =>
		isIncomplete(todo.status) ? theme.fg("text", todo.text) : theme.fg("dim", theme.strikethrough(todo.text));
	return list
		.map((todo, i) => {
			const icon = theme.fg(ICON_COLOURS[todo.status], STATUS_ICONS[todo.status]);
			return `${icon} ${theme.fg("accent", `[${i}]`)} ${label(todo)}`;
		})
		.join("\n");
}

function renderToolResult(result: { content: { type: string; text?: string }[]; details?: unknown }, theme: Theme) {
	const details = result.details as TodoDetails | undefined;
	if (!details) return new Text(result.content[0]?.text ?? "", 0, 0);
	if (details.error) return new Text(theme.fg("error", `Error: ${details.error}`), 0, 0);
	return new Text(renderTodoList(details.todos, theme), 0, 0);
}

const toolTitle = (name: string, theme: Theme) => theme.fg("toolTitle", theme.bold(name));

// ── Tools ───────────────────────────────────────────────────────────────────

const WriteTodosParams = Type.Object({
	mode: StringEnum(["replace", "append", "insert"] as const, {
		description:
			"Mode: 'replace' clears and replaces the entire list, 'append' adds to the end, 'insert' inserts at a specific index",
	}),
	index: Type.Optional(Type.Integer({ description: "0-based index to insert at (required for 'insert' mode)" })),
	todos: Type.Array(
		Type.Object({ text: Type.String({ description: "Description of the task", maxLength: MAX_TODO_TEXT_LENGTH }) }),
		{ description: "Ordered list of todo items", maxItems: MAX_TODOS },
	),
});

const ListTodosParams = Type.Object({});

const EditTodosParams = Type.Object({
	action: StringEnum(["start", "complete", "abandon"] as const, { description: "Action to apply to the todo items" }),
	indices: Type.Array(Type.Integer(), {
		description: "0-based indices to apply the action to",
		minItems: 1,
		maxItems: 50,
	}),
});

type Result = { content: { type: "text"; text: string }[]; details: TodoDetails };

const result = (text: string, details: TodoDetails): Result => ({ content: [{ type: "text", text }], details });
const failure = (action: TodoDetails["action"], text: string, error: string) =>
	result(text, { action, todos: [], error });

/** A successful change: the header and the whole list, every text in full, with a snapshot for replay. */
function changed(action: "write" | "edit", header: string, ctx: ExtensionContext): Result {
	updateUI(ctx, todos);
	return result(`${header}\n\n${formatTodoListText(todos)}`, { action, todos: cloneTodos(todos) });
}

function writeTodos(params: { mode: string; index?: number; todos: { text: string }[] }, ctx: ExtensionContext) {
	const tooLong = params.todos.findIndex((todo) => todo.text.length > MAX_TODO_TEXT_LENGTH);
	if (tooLong !== -1) {
		const text = `Error: todo item at index ${tooLong} exceeds maximum text length (${MAX_TODO_TEXT_LENGTH} characters)`;
		return failure("write", text, "text too long");
	}
	const items = params.todos.map((todo): TodoItem => ({ text: todo.text, status: INITIAL_STATUS }));
	if (params.mode === "replace") {
		setTodos(items);
		return changed("write", `Wrote ${items.length} todo item(s)`, ctx);
	}
	if (params.mode === "insert") {
		if (params.index === undefined || params.index === null)
			return failure("write", "Error: 'index' is required for the 'insert' mode", "index required for insert");
		if (params.index < 0 || params.index > todos.length) {
			const error = `index ${params.index} out of range (0 to ${todos.length})`;
			return failure("write", `Error: ${error}`, error);
		}
	}
	if (todos.length + items.length > MAX_TODOS) {
		const verb = params.mode === "append" ? "appending" : "inserting";
		const text = `Error: ${verb} ${items.length} item(s) would exceed maximum of ${MAX_TODOS} todos (currently ${todos.length})`;
		return failure("write", text, "max todos exceeded");
	}
	if (params.mode === "append") {
		appendTodos(items);
		return changed("write", `Appended ${items.length} item(s)`, ctx);
	}
	insertTodos(params.index as number, items);
	return changed("write", `Inserted ${items.length} item(s) at index ${params.index}`, ctx);
}

function editTodos(params: { action: EditAction; indices: number[] }, ctx: ExtensionContext) {
	if (!params.indices || params.indices.length === 0)
		return failure("edit", "Error: 'indices' is required for start/complete/abandon actions", "indices required");
	if (todos.length === 0) return failure("edit", "Error: no todos exist", "no todos exist");
	const invalid = params.indices.filter((i) => i < 0 || i >= todos.length);
	if (invalid.length > 0) {
		const error = `indices [${invalid.join(", ")}] out of range (0 to ${todos.length - 1})`;
		return failure("edit", `Error: ${error}`, error);
	}
	updateTodoStatus(params.indices, ACTION_TO_STATUS[params.action]);
	return changed("edit", `${ACTION_LABELS[params.action]} [${params.indices.join(", ")}]`, ctx);
}

function writeTodosTool(): ToolDefinition<typeof WriteTodosParams, TodoDetails> {
	return {
		name: "write_todos",
		label: "Write Todos",
		description:
			"Manage the todo list with three modes: 'replace' (clears and replaces the entire list), 'append' (adds items to the end), and 'insert' (inserts items at a specific index). All new items start as 'not_started'. Append and insert modes do not change existing item statuses.",
		promptSnippet: PROMPT_SNIPPET,
		promptGuidelines: [...PROMPT_GUIDELINES],
		parameters: WriteTodosParams,
		execute: async (_id, params, _signal, _onUpdate, ctx) => writeTodos(params, ctx),
		renderCall(args, theme) {
			const where = args.mode === "insert" ? ` @${args.index}` : "";
			const count = args.todos?.length ?? 0;
			const text = `${toolTitle("write_todos", theme)} ${theme.fg("warning", args.mode)} ${theme.fg("muted", `(${count} items${where})`)}`;
			return new Text(text, 0, 0);
		},
		renderResult: (toolResult, _options, theme) => renderToolResult(toolResult, theme),
	};
}

function listTodosTool(): ToolDefinition<typeof ListTodosParams, TodoDetails> {
	return {
		name: "list_todos",
		label: "List Todos",
		description: "View the current todo list. Read-only — does not modify state or trigger UI updates.",
		promptSnippet: PROMPT_SNIPPET,
		parameters: ListTodosParams,
		execute: async () => result(formatTodoListText(todos), { action: "list", todos: [] }),
		renderCall: (_args, theme) => new Text(toolTitle("list_todos", theme), 0, 0),
		renderResult: (toolResult, _options, theme) => renderToolResult(toolResult, theme),
	};
}

function editTodosTool(): ToolDefinition<typeof EditTodosParams, TodoDetails> {
	return {
		name: "edit_todos",
		label: "Edit Todos",
		description:
			"Apply a status action ('start'/'complete'/'abandon') to one or more todo items by their 0-based indices. Batch operations are atomic — if any index is invalid, no changes are applied.",
		promptSnippet: PROMPT_SNIPPET,
		parameters: EditTodosParams,
		execute: async (_id, params, _signal, _onUpdate, ctx) => editTodos(params, ctx),
		renderCall(args, theme) {
			const indices = `[${(args.indices ?? []).join(", ")}]`;
			const text = `${toolTitle("edit_todos", theme)} ${theme.fg("warning", args.action)} ${theme.fg("accent", indices)}`;
			return new Text(text, 0, 0);
		},
		renderResult: (toolResult, _options, theme) => renderToolResult(toolResult, theme),
	};
}

// ── Events: reconstruction, injection, auto-continue ────────────────────────

function clearCountdown(ctx: ExtensionContext): void {
	if (activeCountdown === undefined) return;
	clearInterval(activeCountdown);
	activeCountdown = undefined;
	if (ctx.hasUI) ctx.ui.setWidget("til-done-countdown", undefined);
}

function wasAborted(messages: readonly RunMessage[]): boolean {
	const last = messages.findLast((message) => message.role === "assistant");
	return last?.stopReason === "aborted";
}

/** The continuation prompt: every remaining item in full, then the next action (no todo text in instructions). */
function continuationPrompt(): string | undefined {
	const incomplete: number[] = [];
	let nextInProgress = -1;
	let firstNotStarted = -1;
	todos.forEach((todo, i) => {
		if (!isIncomplete(todo.status)) return;
		incomplete.push(i);
		if (todo.status === "in_progress" && nextInProgress === -1) nextInProgress = i;
		if (todo.status === "not_started" && firstNotStarted === -1) firstNotStarted = i;
	});
	if (incomplete.length === 0) return undefined;
	const next = nextInProgress !== -1 ? nextInProgress : firstNotStarted;
	const action = todoAt(todos, next).status === "in_progress" ? "complete" : "start";
	return [
		"There are still incomplete todos. Continue working on the remaining todos.",
		"",
		"Remaining items:",
		formatRemainingList(todos, incomplete),
		"",
		`Next action: edit_todos with action '${action}' and indices [${next}]`,
	].join("\n");
}

function send(pi: ExtensionAPI, prompt: string): void {
	try {
		pi.sendUserMessage(prompt);
	} catch {
		// The agent is busy (the user typed): no auto-continue this time.
	}
}

const countdownLine = (seconds: number) => [`⏳ Auto-continuing in ${seconds}s... (type anything to interrupt)`];

/** 3 s, then the prompt: a 1 s interval with a widget in UI mode, a single timeout without a UI. */
function startCountdown(pi: ExtensionAPI, ctx: ExtensionContext, prompt: string): void {
	if (!ctx.hasUI) {
		setTimeout(() => send(pi, prompt), COUNTDOWN_SECONDS * 1000);
		return;
	}
	clearCountdown(ctx);
	let seconds = COUNTDOWN_SECONDS;
	ctx.ui.setWidget("til-done-countdown", countdownLine(seconds), { placement: "aboveEditor" });
	activeCountdown = setInterval(() => {
		try {
			seconds--;
			if (seconds > 0) {
				ctx.ui.setWidget("til-done-countdown", countdownLine(seconds), { placement: "aboveEditor" });
				return;
			}
			clearCountdown(ctx);
			send(pi, prompt);
		} catch {
			clearCountdown(ctx);
		}
	}, 1000);
}

function onAgentEnd(pi: ExtensionAPI, messages: readonly RunMessage[], ctx: ExtensionContext): void {
	if (todos.length === 0 || wasAborted(messages)) return;
	if (++autoContinueCount > MAX_AUTO_CONTINUE) {
		pi.sendMessage(
			{
				customType: "til-done-complete",
				content: `Auto-continue limit reached (${MAX_AUTO_CONTINUE} iterations). Remaining todos were not completed. Take over manually.`,
				display: true,
			},
			{ triggerTurn: false },
		);
		return;
	}
	const prompt = continuationPrompt();
	if (prompt !== undefined) startCountdown(pi, ctx, prompt);
}

function registerEvents(pi: ExtensionAPI): void {
	const restore = async (_event: unknown, ctx: ExtensionContext) => {
		clearCountdown(ctx);
		setTodos(reconstructState(ctx));
		updateUI(ctx, todos);
	};
	pi.on("session_start", restore);
	pi.on("session_tree", restore);
	pi.on("before_agent_start", async () => {
		const remaining = todos.filter((todo) => isIncomplete(todo.status)).length;
		if (remaining === 0) return;
		const content = `[TILL-DONE ACTIVE]\n\nCurrent todo list:\n${formatTodoListText(todos)}\n\n${remaining} item(s) remaining. Continue working through the list. Call edit_todos with action 'start' on the next item before working on it, then 'complete' when done.`;
		return { message: { customType: "til-done-context", content, display: false } };
	});
	pi.on("agent_end", async (event, ctx) => onAgentEnd(pi, event.messages as RunMessage[], ctx));
}

function registerRenderers(pi: ExtensionAPI): void {
	const renderers = [
		["til-done-context", "📋", "accent", "dim"],
		["til-done-complete", "✓", "success", "text"],
		["til-done-countdown", "⏳", "accent", "dim"],
	] as const;
	for (const [customType, icon, iconStyle, textStyle] of renderers)
		pi.registerMessageRenderer(
			customType,
			(message, _options, theme) =>
				new Text(theme.fg(iconStyle, `${icon} `) + theme.fg(textStyle, String(message.content)), 0, 0),
		);
}

export default function originalTilDone(pi: ExtensionAPI): void {
	pi.registerTool(writeTodosTool());
	pi.registerTool(listTodosTool());
	pi.registerTool(editTodosTool());
	registerRenderers(pi);
	registerEvents(pi);
}
