/** Questions about a todo list that the decisions, the texts and the UI all ask. Pure. */

import type { TodoItem } from "./types.ts";
import { isFinished, isIncomplete } from "./validation.ts";

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

/** Which item to continue with: the first in progress, else the first not started. */
export function pickNextIndex(todos: readonly TodoItem[]): number | undefined {
	const inProgress = todos.findIndex((todo) => todo.status === "in_progress");
	if (inProgress !== -1) return inProgress;
	const notStarted = todos.findIndex((todo) => todo.status === "not_started");
	return notStarted === -1 ? undefined : notStarted;
}

/** How many finished items carry each text. */
export function countFinishedByText(todos: readonly TodoItem[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const todo of todos) if (isFinished(todo.status)) counts.set(todo.text, (counts.get(todo.text) ?? 0) + 1);
	return counts;
}
