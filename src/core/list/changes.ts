/**
 * The list after a change that moves items: every link (`blockedBy`, `parent`) still points at the same item. New
 * items' links are already indices of the list as the change leaves it. Pure.
 */

import type { TodoItem } from "../model/types.ts";
import { closedUp, movedItem, moveLinks, shiftedBy } from "./links.ts";

/** `items` inserted at `at`: the items from `at` on move down, and so do the links to them. */
export function withInserted(todos: readonly TodoItem[], at: number, items: readonly TodoItem[]): TodoItem[] {
	const shifted = moveLinks(todos, shiftedBy(at, items.length));
	return [...shifted.slice(0, at), ...items, ...shifted.slice(at)];
}

/** `items` added at the end: nothing moves. */
export function withAppended(todos: readonly TodoItem[], items: readonly TodoItem[]): TodoItem[] {
	return [...todos, ...items];
}

/** The items at `indices` taken out: links to them are dropped, the others close up. */
export function withRemoved(todos: readonly TodoItem[], indices: readonly number[]): TodoItem[] {
	return moveLinks(todos, closedUp(indices)).filter((_, index) => !indices.includes(index));
}

/** The item at `from` moved to `to`, the items between closing up or making room. */
export function withMoved(todos: readonly TodoItem[], from: number, to: number): TodoItem[] {
	const relinked = moveLinks(todos, movedItem(from, to));
	const [item] = relinked.splice(from, 1);
	if (item) relinked.splice(to, 0, item);
	return relinked;
}

/** The items at `indices` given `status`, and the `parents` this finishes completed with them; nothing moves. */
export function withStatus(
	todos: readonly TodoItem[],
	indices: readonly number[],
	status: TodoItem["status"],
	parents: readonly number[] = [],
): TodoItem[] {
	return todos.map((todo, index) => {
		if (indices.includes(index)) return { ...todo, status };
		return parents.includes(index) ? { ...todo, status: "completed" } : todo;
	});
}
