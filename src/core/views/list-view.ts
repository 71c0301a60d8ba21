/**
 * `/todos` in the TUI: the list as a tree with one item selected, moved through with ↑↓ (or k/j), where a key approves
 * (a), completes (d) or reopens (o) the selected item. What a key does and what the view shows are decided here,
 * purely; the change itself is the one `/todos approve|done|start <i>` makes, carried out by edges/commands/todos.ts.
 */

import { type Component, type KeyId, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";
import { isIncomplete } from "../list/items.ts";
import { finishedCount } from "../list/queries.ts";
import type { TodoItem } from "../model/types.ts";
import { statusRefusal } from "../rules/status-rules.ts";
import { LIST_VIEW } from "../texts/user/list-view.ts";
import { fittedItemLine, getTodoLabel, PLAIN_STYLE, type Styler } from "./themed-list.ts";

/** The keys the view knows, by what they do. */
export type ViewKey = "up" | "down" | "approve" | "done" | "open" | "close";

/** The `/todos` subcommand a key's change is, applied to the selected item. */
export type ViewWord = "approve" | "done" | "start";

/** What a key does: select another item, change the selected one as `/todos <word> <index>`, refuse, or close. */
export type ViewAction =
	| { kind: "select"; index: number }
	| { kind: "change"; word: ViewWord; index: number }
	| { kind: "refuse"; why: string }
	| { kind: "close" };

/** The line under the list: what the last key did, or why it did nothing. */
export interface ViewNote {
	text: string;
	refused: boolean;
}

/** What the view keeps between keys. */
export interface ViewState {
	selected: number;
	note?: ViewNote;
}

/** Each key by the terminal keys that press it. */
const KEYS: readonly (readonly [ViewKey, readonly KeyId[]])[] = [
	["up", ["up", "k"]],
	["down", ["down", "j"]],
	["approve", ["a"]],
	["done", ["d"]],
	["open", ["o"]],
	["close", ["escape", "ctrl+c"]],
];

/** The view's key in a terminal's input, if it is one. */
export function keyOf(data: string): ViewKey | undefined {
	return KEYS.find(([, ids]) => ids.some((id) => matchesKey(data, id)))?.[0];
}

/** A selection kept within a list that may have changed under it (the model may write while the view is open). */
export function clampSelection(selected: number, length: number): number {
	return Math.max(0, Math.min(selected, length - 1));
}

const refuse = (why: string): ViewAction => ({ kind: "refuse", why });
const change = (word: ViewWord, index: number): ViewAction => ({ kind: "change", word, index });

/** When each changing key applies to the selected item, and which subcommand it then is. */
const CHANGES: Readonly<Record<"approve" | "done" | "open", (todo: TodoItem, index: number) => ViewAction>> = {
	approve: (todo, index) => {
		if (!todo.review) return refuse(LIST_VIEW.notReview(index));
		return todo.status === "completed" ? refuse(LIST_VIEW.completed(index)) : change("approve", index);
	},
	done: (todo, index) => (todo.status === "completed" ? refuse(LIST_VIEW.completed(index)) : change("done", index)),
	open: (todo, index) => (isIncomplete(todo.status) ? refuse(LIST_VIEW.open(index)) : change("start", index)),
};

/** What `key` does on `todos` with the item at `selected` chosen. */
export function decideKey(key: ViewKey, todos: readonly TodoItem[], selected: number): ViewAction {
	const at = clampSelection(selected, todos.length);
	if (key === "close") return { kind: "close" };
	if (key === "up") return { kind: "select", index: Math.max(0, at - 1) };
	if (key === "down") return { kind: "select", index: clampSelection(at + 1, todos.length) };
	const todo = todos[at];
	if (!todo) return refuse(LIST_VIEW.noItem);
	const action = CHANGES[key](todo, at);
	// A key is the user's change, as the subcommand is: the same wait and review rules hold.
	const refused = action.kind === "change" ? statusRefusal(todos, action.word, [at]) : undefined;
	return refused === undefined ? action : refuse(refused);
}

/** What a change says on the view's note line. */
const CHANGE_NOTES: Readonly<Record<ViewWord, (index: number) => string>> = {
	approve: LIST_VIEW.approved,
	done: LIST_VIEW.done,
	start: LIST_VIEW.reopened,
};

/** The view after `action`: a move clears the note, a change or a refusal says what happened. */
export function nextState(state: ViewState, action: ViewAction): ViewState {
	switch (action.kind) {
		case "select":
			return { selected: action.index };
		case "change":
			return { selected: action.index, note: { text: CHANGE_NOTES[action.word](action.index), refused: false } };
		case "refuse":
			return { ...state, note: { text: action.why, refused: true } };
		case "close":
			return state;
	}
}

/** The items shown: at most `max` (at least one), the selected one among them, near the middle where the list allows. */
export function windowAround(selected: number, length: number, max: number): { start: number; end: number } {
	const size = Math.max(1, Math.min(length, max));
	const start = Math.max(0, Math.min(selected - Math.floor(size / 2), length - size));
	return { start, end: start + size };
}

const SELECTED = "› ";
const UNSELECTED = "  ";

/** One item's line: its text cut so that the marks stay on the line; the selected one marked and bold. */
function itemLine(todo: TodoItem, index: number, selected: boolean, width: number, style: Styler): string {
	if (!selected) return fittedItemLine(todo, index, width, style, { lead: { plain: UNSELECTED, styled: UNSELECTED } });
	return fittedItemLine(todo, index, width, style, {
		lead: { plain: SELECTED, styled: style.fg("accent", SELECTED) },
		label: (text) => style.bold(getTodoLabel(text, todo.status, style)),
	});
}

/** The item lines in the window around the selection, with how many are above and below it. */
function itemLines(todos: readonly TodoItem[], selected: number, width: number, style: Styler, max: number): string[] {
	const { start, end } = windowAround(selected, todos.length, max);
	const shown = todos
		.slice(start, end)
		.map((todo, at) => itemLine(todo, start + at, start + at === selected, width, style));
	const above = start > 0 ? [style.fg("dim", `${UNSELECTED}${LIST_VIEW.above(start)}`)] : [];
	const below = end < todos.length ? [style.fg("dim", `${UNSELECTED}${LIST_VIEW.below(todos.length - end)}`)] : [];
	return [...above, ...shown, ...below];
}

/**
 * The view's lines, each within `width` cells (never wrapped): the title with the progress, the items as a tree (at
 * most `maxItems` of them, around the selection), the note of the last key if any, and the keys.
 */
export function listViewLines(
	todos: readonly TodoItem[],
	state: ViewState,
	width: number,
	style: Styler = PLAIN_STYLE,
	maxItems = Number.POSITIVE_INFINITY,
): string[] {
	const selected = clampSelection(state.selected, todos.length);
	const title = style.bold(style.fg("accent", LIST_VIEW.title(finishedCount(todos), todos.length)));
	const items =
		todos.length === 0 ? [style.fg("dim", LIST_VIEW.empty)] : itemLines(todos, selected, width, style, maxItems);
	const note = state.note ? [style.fg(state.note.refused ? "warning" : "success", state.note.text)] : [];
	return [title, ...items, ...note, style.fg("dim", LIST_VIEW.keys)].map((line) => truncateToWidth(line, width, "…"));
}

/** Rows the view leaves to the rest of the screen (pi's footer, widgets, a little chat) and to its own other lines. */
const ROWS_KEPT = 10;

/** How many item lines fit a terminal of `rows` rows. */
export function itemsThatFit(rows: number): number {
	return Math.max(3, rows - ROWS_KEPT);
}

/** What the view is given: the live list, the change of a subcommand, and how to close and to style. */
export interface ListViewHost {
	/** The list as it is now. */
	todos: () => readonly TodoItem[];
	/** Makes the change `/todos <word> <index>` makes. */
	change: (word: ViewWord, index: number) => void;
	close: () => void;
	style: Styler;
	/** The terminal's height. */
	rows: () => number;
}

/** The component pi shows in place of the editor: keys in, lines out; every decision is one of the functions above. */
export class ListView implements Component {
	#state: ViewState = { selected: 0 };
	readonly #host: ListViewHost;

	constructor(host: ListViewHost) {
		this.#host = host;
	}

	handleInput(data: string): void {
		const key = keyOf(data);
		if (key === undefined) return;
		const action = decideKey(key, this.#host.todos(), this.#state.selected);
		if (action.kind === "change") this.#host.change(action.word, action.index);
		if (action.kind === "close") this.#host.close();
		this.#state = nextState(this.#state, action);
	}

	render(width: number): string[] {
		return listViewLines(this.#host.todos(), this.#state, width, this.#host.style, itemsThatFit(this.#host.rows()));
	}

	/** Nothing is cached: every render reads the list as it is. */
	invalidate(): void {}
}
