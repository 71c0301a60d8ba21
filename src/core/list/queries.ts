/** Questions about a todo list that the decisions, the texts and the UI all ask. Pure. */

import type { TodoItem } from "../model/types.ts";
import { isFinished, isIncomplete } from "./items.ts";
import { nextWorkable } from "./ready.ts";

/** Indices of unfinished items, in list order. */
export function incompleteIndices(todos: readonly TodoItem[]): number[] {
	return todos.flatMap((todo, index) => (isIncomplete(todo.status) ? [index] : []));
}

/** Whether some item is still to be done. */
export function hasIncomplete(todos: readonly TodoItem[]): boolean {
	return todos.some((todo) => isIncomplete(todo.status));
}

/** Completed plus abandoned items. */
export function finishedCount(todos: readonly TodoItem[]): number {
	return todos.filter((todo) => isFinished(todo.status)).length;
}

/** A list with items, every one of them finished. */
export function isAllFinished(todos: readonly TodoItem[]): boolean {
	return todos.length > 0 && !hasIncomplete(todos);
}

/**
 * Which item to continue with: the first in progress, else the first not started, among the items that can be worked
 * on now (core/list/ready.ts: nothing they wait for is open, no open subtasks). Without links, every open item can.
 */
export function pickNextIndex(todos: readonly TodoItem[], except: readonly number[] = []): number | undefined {
	return nextWorkable(todos, except);
}

/** How many completed items carry each text. */
export function countCompletedByText(todos: readonly TodoItem[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const todo of todos) if (todo.status === "completed") counts.set(todo.text, (counts.get(todo.text) ?? 0) + 1);
	return counts;
}

/** The open items (not started, in progress) among `indices`, with their indices: what an abandon would drop. */
export function openItemsAt(todos: readonly TodoItem[], indices: readonly number[]): [number, TodoItem][] {
	const unique = [...new Set(indices)].sort((a, b) => a - b);
	return unique.flatMap((index) => {
		const todo = todos[index];
		return todo && isIncomplete(todo.status) ? [[index, todo] as [number, TodoItem]] : [];
	});
}

/** Open items of `before` whose text no item of `after` still carries: what a rewrite of the list dropped. */
export function droppedOpenItems(before: readonly TodoItem[], after: readonly TodoItem[]): [number, TodoItem][] {
	const kept = new Set(after.map((todo) => todo.text));
	return before.flatMap((todo, index) =>
		isIncomplete(todo.status) && !kept.has(todo.text) ? [[index, todo] as [number, TodoItem]] : [],
	);
}

/** The item in progress that only the user may complete, when the auto-continue would name it next. */
export function reviewWaitIndex(todos: readonly TodoItem[]): number | undefined {
	const next = pickNextIndex(todos);
	const todo = next === undefined ? undefined : todos[next];
	return todo?.review && todo.status === "in_progress" ? next : undefined;
}
