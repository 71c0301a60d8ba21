/**
 * The rules a change of statuses by the user keeps, in `/todos` and in its view alike: the model's wait rules hold for
 * the user's starts and completions too (core/list/ready.ts), and only an open review item is approved. Pure.
 */

import { isIncomplete } from "../list/items.ts";
import { unready } from "../list/ready.ts";
import type { TodoItem, TodoStatus } from "../model/types.ts";
import { STATUS_REFUSALS } from "../texts/user.ts";

/** The subcommands that set a status. */
export type StatusWord = "start" | "done" | "abandon" | "approve";

/** Why the approval of the items at `indices` is refused: one that is not a review item, or not open. */
function approvalRefusal(todos: readonly TodoItem[], indices: readonly number[]): string | undefined {
	for (const index of indices) {
		const todo = todos[index];
		if (todo && !todo.review) return STATUS_REFUSALS.notReview(index);
		if (todo && !isIncomplete(todo.status)) return STATUS_REFUSALS.notOpen(index, todo.status);
	}
	return undefined;
}

/** Why the user's `word` may not change the items at `indices`; undefined when every item may go. */
export function statusRefusal(
	todos: readonly TodoItem[],
	word: StatusWord,
	indices: readonly number[],
): string | undefined {
	if (word === "abandon") return undefined;
	const approval = word === "approve" ? approvalRefusal(todos, indices) : undefined;
	if (approval !== undefined) return approval;
	const why = unready(todos, word !== "start", indices);
	if (why === undefined) return undefined;
	if (why.kind === "subtasks") return STATUS_REFUSALS.subtasks(why.parent, why.open);
	const states = why.waiting.map(([index, waits]): [number, [number, TodoStatus][]] => [
		index,
		waits.map((at): [number, TodoStatus] => [at, todos[at]?.status ?? "abandoned"]),
	]);
	return STATUS_REFUSALS.waiting(states);
}
