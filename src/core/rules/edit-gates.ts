/**
 * What the model's change of the list may not do, as pure rules: close an item the user must review, drop or unmark
 * one in a rewrite, drop or reword a followed plan file's open items, start or complete an item that is not ready.
 * Each answers the error the tool returns, or null when the change may go.
 */

import { isIncomplete } from "../list/items.ts";
import { pickNextIndex } from "../list/queries.ts";
import { unready } from "../list/ready.ts";
import type { CheckRun, EditAction, TodoItem } from "../model/types.ts";
import type { ParamError } from "../texts/model.ts";
import { TOOL_ERRORS } from "../texts/model.ts";

/** Items of `todos` the model may not close because the user must review them; null when there are none. */
export function reviewError(
	todos: readonly TodoItem[],
	action: EditAction,
	indices: readonly number[],
): ParamError | null {
	if (action === "start") return null;
	const review = [...new Set(indices)].sort((a, b) => a - b).filter((index) => todos[index]?.review);
	if (review.length === 0) return null;
	return TOOL_ERRORS.reviewItems(review);
}

/**
 * The open items of `before` that `keeps` counts that a rewrite to `after` loses: each needs an item of its own in
 * the new list with its text (and whatever `keeps` asks of it). New items start not started, so a rewrite cannot
 * complete one.
 */
function lostInRewrite(
	before: readonly TodoItem[],
	after: readonly TodoItem[],
	keeps: (todo: TodoItem) => boolean,
): [number, TodoItem][] {
	const kept = new Map<string, number>();
	for (const todo of after) if (keeps(todo)) kept.set(todo.text, (kept.get(todo.text) ?? 0) + 1);
	return before.flatMap((todo, index): [number, TodoItem][] => {
		if (!keeps(todo) || !isIncomplete(todo.status)) return [];
		const left = kept.get(todo.text) ?? 0;
		kept.set(todo.text, left - 1);
		return left > 0 ? [] : [[index, todo]];
	});
}

/** A rewrite may not drop or unmark an open item the user must review. Null when every one is kept. */
export function rewriteReviewError(before: readonly TodoItem[], after: readonly TodoItem[]): ParamError | null {
	const lost = lostInRewrite(before, after, (todo) => todo.review === true);
	return lost.length === 0 ? null : TOOL_ERRORS.reviewRewritten(lost);
}

/** The open items of a followed plan file's list that a rewrite to `after` drops or rewords (they would be gone from the file). */
export function planItemsLost(before: readonly TodoItem[], after: readonly TodoItem[]): [number, TodoItem][] {
	return lostInRewrite(before, after, () => true);
}

/** Items the model may not start or complete yet (core/list/ready.ts's rule); null when every item may go. */
export function readinessError(
	todos: readonly TodoItem[],
	action: EditAction,
	indices: readonly number[],
): ParamError | null {
	if (action === "abandon") return null;
	const why = unready(todos, action === "complete", indices);
	if (why === undefined) return null;
	if (why.kind === "waiting") return TOOL_ERRORS.notReady(why.waiting, pickNextIndex(todos));
	return TOOL_ERRORS.openSubtasks(why.parent, why.open);
}

/** The error of item checks that did not all pass: the failed ones, with the time limit a timed-out one hit. */
export function checkFailureError(runs: readonly [number, CheckRun][], timeoutSeconds: number): ParamError {
	return TOOL_ERRORS.checksFailed(
		runs.filter(([, run]) => !run.passed),
		timeoutSeconds,
	);
}
