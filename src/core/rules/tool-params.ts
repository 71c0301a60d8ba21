/** The parameters of `write_todos` and `edit_todos`, checked against the list they change. Pure. */

import { findBlankItem, findOversizedItem, isTooLong } from "../list/items.ts";
import {
	EDIT_ACTIONS,
	MAX_CHECK_LENGTH,
	MAX_EDIT_REASON_LENGTH,
	MAX_INDICES,
	MAX_TODO_TEXT_LENGTH,
	MAX_TODOS,
	WRITE_MODES,
	type WriteMode,
} from "../model/types.ts";
import { PARAM_ERRORS, type ParamError } from "../texts/model.ts";
import { oneLine } from "../texts/sanitize.ts";

export type { ParamError };

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
