/**
 * The list as text the model reads: its lines (whole, compact or paged), the prompts that carry it, and the tool
 * results, with what they store for replay. Pure.
 */

import { STATUS_ICONS, type TodoDetails, type TodoItem, type TodoStatus } from "../model/types.ts";
import type { ParamError } from "../texts/model.ts";
import { LONG_LIST_NOTE, MODEL_TEXTS, NEXT_TEXT_CHARS } from "../texts/model.ts";
import { oneLine, prefix } from "../texts/sanitize.ts";
import { cloneTodos } from "./items.ts";
import { finishedCount, incompleteIndices, pickNextIndex } from "./queries.ts";

/** Characters a list may take in one tool result, injection or prompt before it is shown compactly. */
export const CONTEXT_BUDGET_CHARS = 2000;
/** Shortest text prefix a compact line keeps, so every remaining item stays recognisable. */
const MIN_PREFIX_CHARS = 12;

export function getPlainIcon(status: TodoStatus): string {
	return STATUS_ICONS[status];
}

function formatLine(todo: TodoItem, index: number, text = oneLine(todo.text)): string {
	return `${indentOf(todo)}${getPlainIcon(todo.status)} [${index}] ${text}${itemMarks(todo)}`;
}

/** A subtask's line starts under its parent's text; any other line at the margin. */
export function indentOf(todo: TodoItem): string {
	return todo.parent === undefined ? "" : "  ";
}

/**
 * What an item carries besides its text, after it on its line: ` (check)`, ` (review)`, ` (check, review)`, then
 * ` ⛓ [1,2]` for the items it waits for; "" for an item with none of these.
 */
export function itemMarks(todo: TodoItem): string {
	const marks = [todo.check !== undefined ? "check" : "", todo.review ? "review" : ""].filter(Boolean);
	const waits = todo.blockedBy === undefined ? "" : ` ⛓ [${todo.blockedBy.join(",")}]`;
	return `${marks.length > 0 ? ` (${marks.join(", ")})` : ""}${waits}`;
}

/** The whole list, one `ICON [i] text` line per item, or `No todos`. */
export function formatTodoListText(todos: readonly TodoItem[]): string {
	if (todos.length === 0) return MODEL_TEXTS.noTodos;
	return todos.map((todo, index) => formatLine(todo, index)).join("\n");
}

/** The line of the item at `index`, as a list of one; none when there is no such item. */
function lineAt(todos: readonly TodoItem[], index: number): string[] {
	const todo = todos[index];
	return todo ? [formatLine(todo, index)] : [];
}

/** Only the items at `indices`, in the same line format. */
export function formatRemainingList(todos: readonly TodoItem[], indices: readonly number[]): string {
	return indices.flatMap((index) => lineAt(todos, index)).join("\n");
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
	if (finished > 0) lines.push(MODEL_TEXTS.finishedNotShown(finished));
	const footer = MODEL_TEXTS.compactFooter;
	// What the summary, the footer and the line breaks take is not left for item lines.
	const overhead = (lines[0]?.length ?? 0) + footer.length + indices.length + 2;
	const perLine = Math.floor(Math.max(0, budget - overhead) / Math.max(1, indices.length));
	for (const index of indices) {
		const todo = todos[index];
		if (!todo) continue;
		const head = `${indentOf(todo)}${getPlainIcon(todo.status)} [${index}] `;
		const marks = itemMarks(todo);
		const room = Math.max(MIN_PREFIX_CHARS, perLine - head.length - marks.length);
		lines.push(head + prefix(oneLine(todo.text), room) + marks);
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
		const [line = ""] = lineAt(todos, index);
		if (lines.length > 0 && used + line.length + 1 > pageChars) break;
		lines.push(line);
		used += line.length + 1;
	}
	if (lines.length === 0) return MODEL_TEXTS.noItemsFrom(offset, todos.length);
	return `${lines.join("\n")}\n${MODEL_TEXTS.pageFooter(offset, index - 1, todos.length)}`;
}

/**
 * The body of a tool result after a change: the whole list while it fits the budget (the seed's format), else the
 * progress and the next item, not the list again. `started` are the items this call started: naming the next item
 * again would only repeat them.
 */
export function formatChangeBody(todos: readonly TodoItem[], started: readonly number[] = []): string {
	const full = formatTodoListText(todos);
	if (full.length <= CONTEXT_BUDGET_CHARS) return full;
	const progress = MODEL_TEXTS.progress(finishedCount(todos), todos.length);
	const next = pickNextIndex(todos);
	const todo = next === undefined ? undefined : todos[next];
	if (next === undefined || todo === undefined || started.includes(next)) return progress;
	return MODEL_TEXTS.progressAndNext(progress, next, prefix(oneLine(todo.text), NEXT_TEXT_CHARS) + itemMarks(todo));
}

/** Whether tool results show this list in full. */
export function fitsInResults(todos: readonly TodoItem[]): boolean {
	return formatTodoListText(todos).length <= CONTEXT_BUDGET_CHARS;
}

/**
 * The continuation prompt: static instructions, todo text only inside the `Remaining items:` block. After a failed
 * verification, `report` (what failed, and the end of each output as data) comes before the next action, which is
 * never an item of `heldElsewhere` (another session holds its claim).
 */
export function buildContinuationPrompt(
	todos: readonly TodoItem[],
	budget = CONTEXT_BUDGET_CHARS,
	report?: string,
	heldElsewhere: readonly number[] = [],
): string {
	const remaining = incompleteIndices(todos);
	if (remaining.length === 0 && report !== undefined) {
		return [MODEL_TEXTS.unverifiedHead, report, "", MODEL_TEXTS.unverifiedAsk].join("\n");
	}
	const next = pickNextIndex(todos, heldElsewhere);
	const full = formatRemainingList(todos, remaining);
	const list = full.length <= budget ? full : formatCompactList(todos, remaining, budget);
	const action = next !== undefined && todos[next]?.status === "in_progress" ? "complete" : "start";
	const verification =
		report === undefined ? [] : ["", MODEL_TEXTS.verificationFailed, report, MODEL_TEXTS.unverifiedAsk];
	return [
		MODEL_TEXTS.continuationHead,
		"",
		MODEL_TEXTS.remainingItems,
		list,
		...verification,
		"",
		MODEL_TEXTS.nextAction(action, next),
	].join("\n");
}

/** An item's line with its text cut to a prefix: enough to know the item where the whole list is not wanted. */
function shortLineAt(todos: readonly TodoItem[], index: number): string[] {
	const todo = todos[index];
	return todo ? [formatLine(todo, index, prefix(oneLine(todo.text), NEXT_TEXT_CHARS))] : [];
}

/**
 * The reminder of a list gone stale: how many tool calls since a todo tool, the item in progress and the next ready
 * one (if any) as list lines, then the fixed ask. Short, as every reminder costs tokens.
 */
export function buildStaleReminder(
	todos: readonly TodoItem[],
	calls: number,
	current: number,
	next: number | undefined,
): string {
	const nextLines = next === undefined ? [] : [MODEL_TEXTS.reminderNextReady, ...shortLineAt(todos, next)];
	return [
		MODEL_TEXTS.reminderHead(calls),
		MODEL_TEXTS.reminderInProgress,
		...shortLineAt(todos, current),
		...nextLines,
		MODEL_TEXTS.reminderAsk,
	].join("\n");
}

/** The hidden context message sent before a run while items remain. */
export function buildContextInjection(todos: readonly TodoItem[], budget = CONTEXT_BUDGET_CHARS): string {
	const remaining = incompleteIndices(todos).length;
	return [
		MODEL_TEXTS.injectionHead,
		"",
		MODEL_TEXTS.currentList,
		formatTodoListForModel(todos, budget),
		"",
		MODEL_TEXTS.injectionAsk(remaining),
	].join("\n");
}

// ── Tool results: the text the model reads and the details stored for replay ───────────────────────────────────────

export type ToolResult<D> = { content: { type: "text"; text: string }[]; details: D };

/** A tool result of `text`, with `details` stored for replay and rendering. */
export function textResult<D>(text: string, details: D): ToolResult<D> {
	return { content: [{ type: "text", text }], details };
}

/** A refused call: its message for the model, its short reason in `details.error`, and no list to replay. */
export function errorResult(action: TodoDetails["action"], error: ParamError): ToolResult<TodoDetails> {
	return textResult(error.message, { action, todos: [], error: error.detail });
}

/**
 * A successful change of `todos`: the header, then the list while it is short, else what changed and what comes next
 * (a write also says where the whole list is), and a full snapshot for replay.
 */
export function changeResult(
	action: "write" | "edit",
	header: string,
	todos: readonly TodoItem[],
	extra: object = {},
	started: readonly number[] = [],
): ToolResult<TodoDetails> {
	const note = action === "write" && !fitsInResults(todos) ? `\n${LONG_LIST_NOTE}` : "";
	const text = `${header}\n\n${formatChangeBody(todos, started)}${note}`;
	return textResult(text, { action, todos: cloneTodos(todos), ...extra });
}
