/** The optional todo panel above the editor: a short window onto the list, one line per item. Pure; painter.ts draws it. */

import { isIncomplete } from "../list/items.ts";
import type { TodoItem } from "../model/types.ts";
import { PANEL } from "../texts/user.ts";
import { fittedItemLine, PLAIN_STYLE, type Styler } from "./themed-list.ts";

/** Most items the panel shows; the hidden ones are counted above and below the window (`↑ K more`, `↓ N more`). */
export const PANEL_MAX_ITEMS = 5;

/** First index of the window: one finished item of context before the first unfinished one. */
export function panelStart(todos: readonly TodoItem[]): number {
	const firstOpen = todos.findIndex((todo) => isIncomplete(todo.status));
	if (firstOpen === -1) return Math.max(0, todos.length - PANEL_MAX_ITEMS);
	return Math.max(0, Math.min(firstOpen - 1, todos.length - PANEL_MAX_ITEMS));
}

/**
 * The panel's lines, each within `width` cells (an item's text is cut to fit): the in-progress item highlighted,
 * finished ones dimmed and struck through, with the items hidden above the window and below it counted where they are.
 */
export function formatPanelLines(
	todos: readonly TodoItem[],
	style: Styler = PLAIN_STYLE,
	width = Number.POSITIVE_INFINITY,
): string[] {
	if (todos.length === 0) return [];
	const start = panelStart(todos);
	const shown = todos.slice(start, start + PANEL_MAX_ITEMS);
	// The item in progress is highlighted; the others are labelled as everywhere.
	const highlight = (text: string) => style.bold(style.fg("warning", text));
	const lines = shown.map((todo, offset) =>
		fittedItemLine(todo, start + offset, width, style, todo.status === "in_progress" ? { label: highlight } : {}),
	);
	const below = todos.length - start - shown.length;
	if (start > 0) lines.unshift(style.fg("dim", PANEL.above(start)));
	if (below > 0) lines.push(style.fg("dim", PANEL.below(below)));
	return lines;
}
