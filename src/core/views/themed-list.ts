/** The list as the TUI draws it, themed: an item's icon, label and marks, a line fitted to a width, a tool's result. */

import type { Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { isFinished, isValidTodoItem } from "../list/items.ts";
import { getPlainIcon, indentOf, itemMarks } from "../list/list-text.ts";
import type { TodoDetails, TodoItem, TodoStatus } from "../model/types.ts";
import { cellsOf, cutToCells, oneLine, textOfContent } from "../texts/sanitize.ts";
import { TOOL_DISPLAY } from "../texts/user.ts";

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

/** An item's marks as the TUI shows them, muted. */
export function renderMarks(todo: TodoItem, theme: Styler): string {
	const marks = itemMarks(todo);
	return marks ? theme.fg("muted", marks) : "";
}

/** How a fitted item line starts (a view's selection marker) and how its cut text is styled. */
export interface FittedLineStyle {
	/** What stands before the item, as it takes cells and as it is drawn. */
	lead?: { plain: string; styled: string };
	/** The item's text, cut to fit, as it is drawn; the default is {@link getTodoLabel}'s. */
	label?: (text: string) => string;
}

/**
 * One item's line within `width` cells, as the panel and the `/todos` view show it: its text cut so that the icon, the
 * index and the marks stay on the line.
 */
export function fittedItemLine(
	todo: TodoItem,
	index: number,
	width: number,
	theme: Styler,
	{ lead = { plain: "", styled: "" }, label }: FittedLineStyle = {},
): string {
	const room =
		width - cellsOf(`${lead.plain}${indentOf(todo)}${getPlainIcon(todo.status)} [${index}] ${itemMarks(todo)}`);
	const text = cutToCells(oneLine(todo.text), Math.max(1, room));
	const styled = label ? label(text) : getTodoLabel(text, todo.status, theme);
	return `${lead.styled}${indentOf(todo)}${getStatusIcon(todo.status, theme)} ${theme.fg("accent", `[${index}]`)} ${styled}${renderMarks(todo, theme)}`;
}

export function renderTodoList(todos: readonly TodoItem[], theme: Styler): string {
	if (todos.length === 0) return theme.fg("dim", TOOL_DISPLAY.empty);
	return todos
		.map(
			(todo, index) =>
				`${indentOf(todo)}${getStatusIcon(todo.status, theme)} ${theme.fg("accent", `[${index}]`)} ${getTodoLabel(todo.text, todo.status, theme)}${renderMarks(todo, theme)}`,
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
	options: { expanded: boolean; isPartial: boolean },
	theme: Theme,
	context?: { isError?: boolean },
): Text {
	const details = result.details as ListDetails | undefined;
	// While a check runs, the partial result says which: show its text as it is.
	if (options.isPartial) return new Text(theme.fg("muted", textOfContent(result.content)), 0, 0);
	// pi's own schema check fails before `execute`: no details of ours, only its message.
	if (context?.isError && !details?.error)
		return new Text(theme.fg("error", textOfContent(result.content).trim()), 0, 0);
	if (!details || typeof details !== "object") {
		const first = result.content[0];
		return new Text(first?.type === "text" ? (first.text ?? "") : "", 0, 0);
	}
	if (details.error) return new Text(theme.fg("error", TOOL_DISPLAY.error(details.error)), 0, 0);
	const todos = details.action === "list" ? details.view : details.todos;
	// Details come from the session file: render only well-formed items.
	const valid = Array.isArray(todos) ? todos.filter(isValidTodoItem) : [];
	return new Text(renderTodoList(valid, theme), 0, 0);
}
