/** Pure text builders: plain text for the model and the status bar, themed text for the TUI. */

import type { Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { finishedCount, incompleteIndices, pickNextIndex } from "./queries.ts";
import { oneLine, prefix, textOfContent } from "./text.ts";
import { STATUS_ICONS, type TodoDetails, type TodoItem, type TodoStatus } from "./types.ts";
import { isFinished, isValidTodoItem } from "./validation.ts";

/** Characters a list may take in one tool result, injection or prompt before it is shown compactly. */
export const CONTEXT_BUDGET_CHARS = 2000;
/** Shortest text prefix a compact line keeps, so every remaining item stays recognisable. */
const MIN_PREFIX_CHARS = 12;

export function getPlainIcon(status: TodoStatus): string {
	return STATUS_ICONS[status];
}

function formatLine(todo: TodoItem, index: number, text = oneLine(todo.text)): string {
	return `${getPlainIcon(todo.status)} [${index}] ${text}`;
}

/** The whole list, one `ICON [i] text` line per item, or `No todos`. */
export function formatTodoListText(todos: readonly TodoItem[]): string {
	if (todos.length === 0) return "No todos";
	return todos.map((todo, index) => formatLine(todo, index)).join("\n");
}

/** Only the items at `indices`, in the same line format. */
export function formatRemainingList(todos: readonly TodoItem[], indices: readonly number[]): string {
	return indices.map((index) => formatLine(todos[index], index)).join("\n");
}

/**
 * The list as the model should see it: the seed's full format while it fits the budget, else finished items
 * collapsed into a count and long texts cut to a prefix, keeping every remaining item's index visible.
 */
export function formatTodoListForModel(todos: readonly TodoItem[], budget = CONTEXT_BUDGET_CHARS): string {
	const full = formatTodoListText(todos);
	if (full.length <= budget) return full;
	return formatCompactList(todos, incompleteIndices(todos), budget);
}

/** The remaining items at `indices` within `budget`, with a note of what was left out. */
export function formatCompactList(todos: readonly TodoItem[], indices: readonly number[], budget: number): string {
	const finished = finishedCount(todos);
	const lines: string[] = [];
	if (finished > 0) lines.push(`✓ ${finished} finished item(s) not shown`);
	const footer = "(compact view; call list_todos for the full list)";
	// What the summary, the footer and the line breaks take is not left for item lines.
	const overhead = (lines[0]?.length ?? 0) + footer.length + indices.length + 2;
	const perLine = Math.floor(Math.max(0, budget - overhead) / Math.max(1, indices.length));
	for (const index of indices) {
		const todo = todos[index];
		const head = formatLine(todo, index, "");
		lines.push(head + prefix(oneLine(todo.text), Math.max(MIN_PREFIX_CHARS, perLine - head.length)));
	}
	lines.push(footer);
	return lines.join("\n");
}

/** Characters one `list_todos` page may hold; a longer list is paged. */
export const LIST_PAGE_CHARS = 10_000;

/** `list_todos` output: the whole list in the seed's format when it fits one page, else one page from `offset`. */
export function formatListPage(todos: readonly TodoItem[], offset = 0, pageChars = LIST_PAGE_CHARS): string {
	const full = formatTodoListText(todos);
	if (offset === 0 && full.length <= pageChars) return full;
	const lines: string[] = [];
	let used = 0;
	let index = offset;
	for (; index < todos.length; index++) {
		const line = formatLine(todos[index], index);
		if (lines.length > 0 && used + line.length + 1 > pageChars) break;
		lines.push(line);
		used += line.length + 1;
	}
	if (lines.length === 0) return `No todos from index ${offset} (the list has ${todos.length})`;
	const more = index < todos.length ? `; call list_todos with offset ${index} for more` : "";
	return `${lines.join("\n")}\n(items ${offset} to ${index - 1} of ${todos.length}${more})`;
}

/** The continuation prompt: static instructions, todo text only inside the `Remaining items:` block. */
export function buildContinuationPrompt(todos: readonly TodoItem[], budget = CONTEXT_BUDGET_CHARS): string {
	const remaining = incompleteIndices(todos);
	const next = pickNextIndex(todos);
	const full = formatRemainingList(todos, remaining);
	const list = full.length <= budget ? full : formatCompactList(todos, remaining, budget);
	const action = next !== undefined && todos[next].status === "in_progress" ? "complete" : "start";
	return [
		"There are still incomplete todos. Continue working on the remaining todos.",
		"",
		"Remaining items:",
		list,
		"",
		`Next action: edit_todos with action '${action}' and indices [${next ?? ""}]`,
	].join("\n");
}

/** The hidden context message sent before a run while items remain. */
export function buildContextInjection(todos: readonly TodoItem[], budget = CONTEXT_BUDGET_CHARS): string {
	const remaining = incompleteIndices(todos).length;
	return [
		"[TILL-DONE ACTIVE]",
		"",
		"Current todo list:",
		formatTodoListForModel(todos, budget),
		"",
		`${remaining} item(s) remaining. Continue working through the list. Call edit_todos with action 'start' on the next item before working on it, then 'complete' when done.`,
	].join("\n");
}

export function countdownText(seconds: number): string {
	return `⏳ Auto-continuing in ${seconds}s... (type anything to interrupt)`;
}

export function hardCapMessage(limit: number): string {
	return `Auto-continue limit reached (${limit} iterations). Remaining todos were not completed. Take over manually.`;
}

export function noProgressMessage(limit: number): string {
	return `Auto-continue stopped: no todo was completed or abandoned in the last ${limit} continuations. Remaining todos were not completed. Take over manually.`;
}

export function errorLimitMessage(limit: number): string {
	return `Auto-continue stopped after ${limit} failed runs in a row (provider error or output limit). Remaining todos were not completed. Take over manually.`;
}

export function backoffMessage(backoffMs: number): string {
	return `The last run failed; auto-continue waits ${(backoffMs / 1000).toFixed(1)}s longer before continuing.`;
}

/** `📋 done/total` while items remain, `✓ Done (N items)` when all are finished, nothing for an empty list. */
export function formatStatusText(todos: readonly TodoItem[]): string | undefined {
	if (todos.length === 0) return undefined;
	const finished = finishedCount(todos);
	if (finished === todos.length) return `✓ Done (${todos.length} items)`;
	return `📋 ${finished}/${todos.length}`;
}

/** Width of the status-bar progress bar, in cells. */
export const PROGRESS_BAR_CELLS = 10;

/** A compact bar such as `[████░░░░░░] 4/10`; nothing for an empty list. */
export function formatProgressBar(todos: readonly TodoItem[]): string | undefined {
	if (todos.length === 0) return undefined;
	const finished = finishedCount(todos);
	const filled = Math.round((finished / todos.length) * PROGRESS_BAR_CELLS);
	return `[${"█".repeat(filled)}${"░".repeat(PROGRESS_BAR_CELLS - filled)}] ${finished}/${todos.length}`;
}

/** Status text while auto-continue is paused, with the reason the user or the model gave. */
export function formatPausedText(reason: string | undefined): string {
	return reason ? `⏸ auto-continue paused: ${oneLine(reason)}` : "⏸ auto-continue paused";
}

/** One `[i] text` line per item in progress, or nothing. */
export function formatActiveText(todos: readonly TodoItem[]): string | undefined {
	const lines = todos.flatMap((todo, index) =>
		todo.status === "in_progress" ? [`[${index}] ${oneLine(todo.text)}`] : [],
	);
	return lines.length > 0 ? lines.join("\n") : undefined;
}

// ── Themed rendering for the TUI ────────────────────────────────────────────

/** The styling the renderers need; pi's Theme satisfies it, and `PLAIN_STYLE` draws without escape codes. */
export interface Styler {
	fg(color: "accent" | "dim" | "warning" | "success" | "error" | "text" | "muted", text: string): string;
	bold(text: string): string;
	strikethrough(text: string): string;
}

export const PLAIN_STYLE: Styler = { fg: (_color, text) => text, bold: (text) => text, strikethrough: (text) => text };

const ICON_COLORS = {
	not_started: "dim",
	in_progress: "warning",
	completed: "success",
	abandoned: "error",
} as const;

export function getStatusIcon(status: TodoStatus, theme: Styler): string {
	return theme.fg(ICON_COLORS[status], getPlainIcon(status));
}

/** Finished items are dimmed and struck through. */
export function getTodoLabel(text: string, status: TodoStatus, theme: Styler): string {
	const line = oneLine(text);
	return isFinished(status) ? theme.fg("dim", theme.strikethrough(line)) : theme.fg("text", line);
}

export function renderTodoList(todos: readonly TodoItem[], theme: Styler): string {
	if (todos.length === 0) return theme.fg("dim", "No todos");
	return todos
		.map(
			(todo, index) =>
				`${getStatusIcon(todo.status, theme)} ${theme.fg("accent", `[${index}]`)} ${getTodoLabel(todo.text, todo.status, theme)}`,
		)
		.join("\n");
}

/** Details of a `list_todos` result: the reconstruction payload stays empty; `view` is for rendering only. */
export interface ListDetails extends TodoDetails {
	view?: TodoItem[];
}

interface RenderableResult {
	content: readonly { type: string; text?: string }[];
	details?: unknown;
}

/** Shared tool-result renderer: raw text without details, themed error, or the themed list. */
export function renderToolResult(
	result: RenderableResult,
	_options: { expanded: boolean; isPartial: boolean },
	theme: Theme,
	context?: { isError?: boolean },
): Text {
	const details = result.details as ListDetails | undefined;
	// pi's own schema check fails before `execute`: no details of ours, only its message.
	if (context?.isError && !details?.error)
		return new Text(theme.fg("error", textOfContent(result.content).trim()), 0, 0);
	if (!details || typeof details !== "object") {
		const first = result.content[0];
		return new Text(first?.type === "text" ? (first.text ?? "") : "", 0, 0);
	}
	if (details.error) return new Text(theme.fg("error", `Error: ${details.error}`), 0, 0);
	const todos = details.action === "list" ? details.view : details.todos;
	// Details come from the session file: render only well-formed items.
	const valid = Array.isArray(todos) ? todos.filter(isValidTodoItem) : [];
	return new Text(renderTodoList(valid, theme), 0, 0);
}
