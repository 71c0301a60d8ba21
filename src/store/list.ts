import { withAppended, withInserted } from "../core/list/changes.ts";
import { cloneTodos } from "../core/list/items.ts";
import { isAllFinished } from "../core/list/queries.ts";
import type { TodoItem, TodoStatus } from "../core/model/types.ts";
import { noteCompleted } from "../core/rules/chain.ts";
import { getState, type StoreState, setState } from "./scope.ts";

export function getTodos(): readonly TodoItem[] {
	return getState().todos;
}

/**
 * A new list, with what follows from it: an item newly finished is progress, the completion notice is re-armed for a
 * list with work, and a pass no longer holds. A failure stays on the status bar while the list stays finished (until
 * the next verification); a list open again is not the list that failed.
 */
function withList(todos: readonly TodoItem[], byWorkers: readonly number[] = []): Partial<StoreState> {
	const { chain, completionAnnounced, verification } = getState();
	return {
		todos,
		chain: noteCompleted(chain, todos, byWorkers),
		completionAnnounced: isAllFinished(todos) ? completionAnnounced : false,
		verification: verification?.passed || !isAllFinished(todos) ? undefined : verification,
	};
}

/** Replaces the whole list. */
export function setTodos(newTodos: readonly TodoItem[]): void {
	setState(withList(cloneTodos(newTodos)));
}

/** Sets the status of every item at `indices`; the caller has validated them. */
export function updateTodoStatus(indices: readonly number[], newStatus: TodoStatus): void {
	setState(
		withList(getState().todos.map((todo, index) => (indices.includes(index) ? { ...todo, status: newStatus } : todo))),
	);
}

/**
 * The worker of item `key` landed its work: the item at `index` completes, and what that worker spent on it is the
 * item's spend (not a share of whatever the chain spent since the last item finished).
 */
export function completeWorkerItem(key: string, index: number): void {
	const { todos, workers } = getState();
	const spent = workers.find((worker) => worker.key === key)?.tokens ?? 0;
	const completed = todos.map((todo, at) => (at === index ? { ...todo, status: "completed" as const } : todo));
	setState(withList(completed, [spent]));
}

export function appendTodos(newItems: readonly TodoItem[]): void {
	setState(withList(withAppended(getState().todos, cloneTodos(newItems))));
}

/** Inserts items at `atIndex`; the links of the items that move down follow them. */
export function insertTodos(atIndex: number, newItems: readonly TodoItem[]): void {
	setState(withList(withInserted(getState().todos, atIndex, cloneTodos(newItems))));
}

/** Whether the "all done" notice was already shown for the current list. */
export function isCompletionAnnounced(): boolean {
	return getState().completionAnnounced;
}

export function markCompletionAnnounced(): void {
	setState({ completionAnnounced: true });
}
