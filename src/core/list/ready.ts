/**
 * What can be worked on now. An item is ready when it is open and every item it waits for, and every item its parent
 * waits for, is completed (with a check, that means its check passed); a parent whose subtasks are open is worked
 * through them. The next action is the first ready item in list order, one in progress first. Pure.
 */

import type { TodoItem } from "../model/types.ts";
import { isIncomplete } from "./items.ts";
import { subtasksOf } from "./links.ts";

/** The items the item at `index` still waits for (its own waits and its parent's), in list order. */
export function openWaits(todos: readonly TodoItem[], index: number): number[] {
	const todo = todos[index];
	if (!todo) return [];
	// An item without waits, under a parent without waits (most items), waits for nothing.
	if (todo.blockedBy === undefined && (todo.parent === undefined || todos[todo.parent]?.blockedBy === undefined)) {
		return [];
	}
	const parentWaits = todo.parent === undefined ? [] : (todos[todo.parent]?.blockedBy ?? []);
	const waits = new Set([...(todo.blockedBy ?? []), ...parentWaits]);
	return [...waits].filter((target) => todos[target]?.status !== "completed").sort((a, b) => a - b);
}

/** Open, and waiting for nothing that is not completed. */
export function isReady(todos: readonly TodoItem[], index: number): boolean {
	const todo = todos[index];
	return todo !== undefined && isIncomplete(todo.status) && openWaits(todos, index).length === 0;
}

/** The open subtasks of the item at `index`: while there are any, the item is worked through them. */
export function openSubtasks(todos: readonly TodoItem[], index: number): number[] {
	return subtasksOf(todos, index).filter((at) => isIncomplete(todos[at]?.status ?? "completed"));
}

/** The items with a subtask still open, found in one pass: each is worked through its subtasks. */
function parentsWithOpenSubtasks(todos: readonly TodoItem[]): Set<number> {
	const parents = new Set<number>();
	for (const todo of todos) if (todo.parent !== undefined && isIncomplete(todo.status)) parents.add(todo.parent);
	return parents;
}

/** Ready, and not a parent with open subtasks: what the model can work on now, in list order. */
export function workableItems(todos: readonly TodoItem[]): number[] {
	const busyParents = parentsWithOpenSubtasks(todos);
	return [...todos.keys()].filter((index) => !busyParents.has(index) && isReady(todos, index));
}

/**
 * Which item to continue with: the first workable one in progress, else the first workable one not started; never one
 * of `except` (items another session holds).
 */
export function nextWorkable(todos: readonly TodoItem[], except: readonly number[] = []): number | undefined {
	const workable = workableItems(todos).filter((index) => !except.includes(index));
	return workable.find((index) => todos[index]?.status === "in_progress") ?? workable[0];
}

/** The first workable item not started yet: what comes after the work in progress, as the plan stands now. */
export function nextToStart(todos: readonly TodoItem[]): number | undefined {
	return workableItems(todos).find((index) => todos[index]?.status === "not_started");
}

/** Open items that wait for an item not completed yet. */
export function waitingItems(todos: readonly TodoItem[]): number[] {
	return [...todos.keys()].filter(
		(index) => isIncomplete(todos[index]?.status ?? "completed") && !isReady(todos, index),
	);
}

/**
 * Parents that the items at `finishing` complete: every subtask then finished (completed or abandoned) and at least
 * one completed, the parent itself still open. `status` is what the items at `finishing` become.
 */
export function parentsCompletedBy(
	todos: readonly TodoItem[],
	finishing: readonly number[],
	status: TodoItem["status"],
): number[] {
	if (status === "in_progress" || status === "not_started") return [];
	const after = todos.map((todo, index) => (finishing.includes(index) ? { ...todo, status } : todo));
	const parents = new Set(
		finishing.flatMap((index) => (after[index]?.parent === undefined ? [] : [after[index].parent])),
	);
	return [...parents]
		.filter((parent) => {
			const subtasks = subtasksOf(after, parent);
			const own = after[parent];
			return (
				own !== undefined &&
				isIncomplete(own.status) &&
				!finishing.includes(parent) &&
				subtasks.every((at) => !isIncomplete(after[at]?.status ?? "completed")) &&
				subtasks.some((at) => after[at]?.status === "completed")
			);
		})
		.sort((a, b) => a - b);
}

/** Why items may not be started or completed yet: some wait for items not completed, or a parent has open subtasks. */
export type Unready =
	| { kind: "waiting"; waiting: [number, number[]][] }
	| { kind: "subtasks"; parent: number; open: number[] };

/**
 * What stands in the way of starting (`complete` false) or completing the items at `indices`: open items waiting for
 * items not completed (by this change or before), or a parent whose subtasks (other than the ones this change
 * completes) are open. Undefined when every item may go. The same rule holds for the model's edits and the user's.
 */
export function unready(
	todos: readonly TodoItem[],
	complete: boolean,
	indices: readonly number[],
): Unready | undefined {
	const unique = [...new Set(indices)].sort((a, b) => a - b);
	const waiting = unique.flatMap((index): [number, number[]][] => {
		const todo = todos[index];
		if (!todo || !isIncomplete(todo.status)) return [];
		// Items this very change completes count as completed: one change may close a chain in order.
		const waits = openWaits(todos, index).filter((at) => !complete || !unique.includes(at));
		return waits.length > 0 ? [[index, waits]] : [];
	});
	if (waiting.length > 0) return { kind: "waiting", waiting };
	if (!complete) return undefined;
	for (const index of unique) {
		const open = openSubtasks(todos, index).filter((at) => !unique.includes(at));
		if (open.length > 0 && todos[index] && isIncomplete(todos[index].status))
			return { kind: "subtasks", parent: index, open };
	}
	return undefined;
}
