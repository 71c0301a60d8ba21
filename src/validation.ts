/** Pure checks on todo data and tool parameters. Nothing here mutates or touches the host. */

import { PARAM_ERRORS, type ParamError } from "./core/texts/model.ts";
import { graphemesOf, oneLine } from "./core/texts/sanitize.ts";

export type { ParamError };

import {
	EDIT_ACTIONS,
	MAX_CHECK_LENGTH,
	MAX_EDIT_REASON_LENGTH,
	MAX_INDICES,
	MAX_TODO_TEXT_LENGTH,
	MAX_TODOS,
	type TodoItem,
	type TodoStatus,
	VALID_STATUSES,
	WRITE_MODES,
	type WriteMode,
} from "./types.ts";

/** Beyond this many UTF-16 units per allowed character a text is too long whatever its graphemes. */
const MAX_UNITS_PER_GRAPHEME = 16;

/**
 * Whether `text` is longer than `max` characters, counted as the schema counts them (grapheme clusters), so that
 * what the schema lets through the runtime check lets through too.
 */
export function isTooLong(text: string, max: number): boolean {
	if (text.length <= max) return false;
	if (text.length > max * MAX_UNITS_PER_GRAPHEME) return true;
	let count = 0;
	for (const _ of graphemesOf(text)) if (++count > max) return true;
	return false;
}

const ITEM_KEYS: ReadonlySet<string> = new Set(["text", "status", "check", "review", "blockedBy", "parent"]);

const isIndex = (value: unknown): value is number =>
	typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** Links as they may be stored on an item: a non-empty list of distinct indices, an index. */
function hasValidLinkShapes(blockedBy: unknown, parent: unknown, keys: readonly string[]): boolean {
	if (keys.includes("blockedBy")) {
		if (!Array.isArray(blockedBy) || blockedBy.length === 0 || !blockedBy.every(isIndex)) return false;
		if (new Set(blockedBy).size !== blockedBy.length) return false;
	}
	return !keys.includes("parent") || isIndex(parent);
}

/** A check as it may be stored: a non-blank command within the limit. */
export function isValidCheck(value: unknown): value is string {
	return typeof value === "string" && value.trim().length > 0 && !isTooLong(value, MAX_CHECK_LENGTH);
}

/**
 * True for `{ text, status }` with a non-empty text within the limit and a known status, plus at most a valid `check`,
 * a boolean `review` and links of the right shape (whether they point into the list is the list's question:
 * core/list/links.ts); any other key, or a field of the wrong shape, makes the item untrustworthy.
 */
export function isValidTodoItem(value: unknown): value is TodoItem {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const keys = Object.keys(value);
	if (!keys.includes("text") || !keys.includes("status") || !keys.every((key) => ITEM_KEYS.has(key))) return false;
	const { text, status, check, review, blockedBy, parent } = value as Record<string, unknown>;
	if (typeof text !== "string" || typeof status !== "string") return false;
	if (!VALID_STATUSES.has(status)) return false;
	if (keys.includes("check") && !isValidCheck(check)) return false;
	if (keys.includes("review") && typeof review !== "boolean") return false;
	if (!hasValidLinkShapes(blockedBy, parent, keys)) return false;
	return text.length > 0 && !isTooLong(text, MAX_TODO_TEXT_LENGTH);
}

/** Not yet finished: still something for the agent to do. */
export function isIncomplete(status: TodoStatus): boolean {
	return status === "not_started" || status === "in_progress";
}

/** Completed or abandoned: counts as done in the status bar and for progress. */
export function isFinished(status: TodoStatus): boolean {
	return !isIncomplete(status);
}

/** One item's copy: an item without a check, a review mark or links stays exactly `{ text, status }`. */
export function cloneTodo(todo: TodoItem): TodoItem {
	const copy: TodoItem = { text: todo.text, status: todo.status };
	if (todo.check !== undefined) copy.check = todo.check;
	if (todo.review) copy.review = true;
	if (todo.blockedBy !== undefined && todo.blockedBy.length > 0) copy.blockedBy = [...todo.blockedBy];
	if (todo.parent !== undefined) copy.parent = todo.parent;
	return copy;
}

/** New array of new items, so a stored snapshot never aliases the live list. */
export function cloneTodos(todos: readonly TodoItem[]): TodoItem[] {
	return todos.map(cloneTodo);
}

/** Index of the first item whose text is longer than `maxLength` characters, or -1. */
export function findOversizedItem(items: readonly { text: string }[], maxLength: number): number {
	return items.findIndex((item) => isTooLong(item.text, maxLength));
}

/** Index of the first item whose text is missing or blank, or -1. */
export function findBlankItem(items: readonly unknown[]): number {
	return items.findIndex((item) => {
		const text = (item as { text?: unknown } | null)?.text;
		return typeof text !== "string" || text.trim().length === 0;
	});
}

function isWholeNumber(value: unknown): value is number {
	return typeof value === "number" && Number.isSafeInteger(value);
}

/** Checks `write_todos` parameters against the current list length; null when they are fine. */
export function checkWriteParams(params: unknown, currentLength: number): ParamError | null {
	const { mode, index, todos } = (params ?? {}) as { mode?: unknown; index?: unknown; todos?: unknown };
	if (typeof mode !== "string" || !(WRITE_MODES as readonly string[]).includes(mode)) {
		return PARAM_ERRORS.unknownMode(shortValue(mode));
	}
	if (!Array.isArray(todos)) return PARAM_ERRORS.todosNotArray;
	const blank = findBlankItem(todos);
	if (blank !== -1) return PARAM_ERRORS.emptyText(blank);
	const oversized = findOversizedItem(todos as { text: string }[], MAX_TODO_TEXT_LENGTH);
	if (oversized !== -1) return PARAM_ERRORS.textTooLong(oversized);
	return checkItemFields(todos) ?? checkWritePlacement(mode as WriteMode, index, todos.length, currentLength);
}

/**
 * The optional fields of new items: a check is a non-blank command within the limit, a review mark a boolean, links
 * whole numbers (where they point is checked on the list the call leaves: core/list/links.ts).
 */
function checkItemFields(todos: readonly unknown[]): ParamError | null {
	for (const [index, item] of todos.entries()) {
		const { check, review } = item as { check?: unknown; review?: unknown };
		if (check !== undefined && (typeof check !== "string" || check.trim().length === 0)) {
			return PARAM_ERRORS.emptyCheck(index);
		}
		if (typeof check === "string" && isTooLong(check, MAX_CHECK_LENGTH)) return PARAM_ERRORS.checkTooLong(index);
		if (review !== undefined && typeof review !== "boolean") return PARAM_ERRORS.badReview(index);
		const { blockedBy, parent } = item as { blockedBy?: unknown; parent?: unknown };
		if (blockedBy !== undefined && (!Array.isArray(blockedBy) || !blockedBy.every(isWholeNumber))) {
			return PARAM_ERRORS.badLinks(index, "blockedBy");
		}
		if (parent !== undefined && !isWholeNumber(parent)) return PARAM_ERRORS.badLinks(index, "parent");
	}
	return null;
}

function checkWritePlacement(mode: WriteMode, index: unknown, count: number, currentLength: number): ParamError | null {
	if (mode === "replace") {
		return count <= MAX_TODOS ? null : PARAM_ERRORS.tooManyWritten(count);
	}
	if (mode === "insert") {
		if (index === undefined || index === null) return PARAM_ERRORS.insertIndexRequired;
		if (!isWholeNumber(index) || index < 0 || index > currentLength) {
			return PARAM_ERRORS.insertOutOfRange(String(index), currentLength);
		}
	}
	return currentLength + count > MAX_TODOS ? PARAM_ERRORS.tooManyAdded(mode, count, currentLength) : null;
}

/** Checks `edit_todos` parameters against the current list length; null when they are fine. */
export function checkEditParams(params: unknown, currentLength: number): ParamError | null {
	const { action, indices } = (params ?? {}) as { action?: unknown; indices?: unknown };
	if (typeof action !== "string" || !(EDIT_ACTIONS as readonly string[]).includes(action)) {
		return PARAM_ERRORS.unknownAction(shortValue(action));
	}
	if (!Array.isArray(indices) || indices.length === 0) return PARAM_ERRORS.indicesRequired;
	if (indices.length > MAX_INDICES) return PARAM_ERRORS.tooManyIndices(indices.length);
	const { reason } = (params ?? {}) as { reason?: unknown };
	if (reason !== undefined && (typeof reason !== "string" || isTooLong(reason, MAX_EDIT_REASON_LENGTH))) {
		return PARAM_ERRORS.reasonTooLong;
	}
	if (currentLength === 0) return PARAM_ERRORS.noTodos;
	const invalid = indices.filter((i) => !isWholeNumber(i) || i < 0 || i >= currentLength);
	if (invalid.length > 0) return PARAM_ERRORS.indicesOutOfRange(invalid.map(formatIndexValue), currentLength);
	return null;
}

/** A bad mode or action as an error message shows it: on one line, at most 40 characters. */
function shortValue(value: unknown): string {
	const text = oneLine(String(value));
	return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** Renders a bad index without letting odd values (objects, long strings) balloon it. */
function formatIndexValue(value: unknown): string {
	const text = typeof value === "string" ? JSON.stringify(value) : String(value);
	return text.length > 20 ? `${text.slice(0, 20)}…` : text;
}
