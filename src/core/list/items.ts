/** An item of the list: whether it may be stored, whether it is still to do, its copy, and its key. Pure. */

import {
	MAX_CHECK_LENGTH,
	MAX_TODO_TEXT_LENGTH,
	type TodoItem,
	type TodoStatus,
	VALID_STATUSES,
} from "../model/types.ts";
import { graphemesOf } from "../texts/sanitize.ts";

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

/** FNV-1a over the UTF-16 units of a text, as 8 hex digits: short, stable, enough to tell items apart. */
function hashText(text: string): string {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(16).padStart(8, "0");
}

/** An item's key: its index and its text, so a rewrite of the list with other items at the index gets other keys. */
export function itemKey(index: number, text: string): string {
	return `${index}-${hashText(text)}`;
}
