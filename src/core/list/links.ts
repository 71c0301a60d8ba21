/**
 * The links between items: which items an item waits for (`blockedBy`) and which item it is a subtask of (`parent`).
 * A link is an index into the list, so every change that moves items moves the links with them, and a list is only
 * accepted when its links point at items of the list, have no cycle and go one level deep. Pure.
 */

import type { CycleStep, LinkProblem, TodoItem } from "../model/types.ts";

export type { CycleStep, LinkProblem };

/** Whether any item of the list carries a link: a list without any is shown and planned exactly as before links. */
export function hasLinks(todos: readonly TodoItem[]): boolean {
	return todos.some((todo) => todo.blockedBy !== undefined || todo.parent !== undefined);
}

/** The subtasks of the item at `index`, in list order. */
export function subtasksOf(todos: readonly TodoItem[], index: number): number[] {
	return todos.flatMap((todo, at) => (todo.parent === index ? [at] : []));
}

const isIndex = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);

/** The first problem of one item's own links against a list of `length` items; undefined when they are sound. */
function itemProblem(todo: TodoItem, index: number, length: number): LinkProblem | undefined {
	const { blockedBy, parent } = todo as { blockedBy?: unknown; parent?: unknown };
	if (blockedBy !== undefined) {
		if (!Array.isArray(blockedBy) || !blockedBy.every(isIndex))
			return { kind: "not-an-index", index, field: "blockedBy" };
		const seen = new Set<number>();
		for (const target of blockedBy) {
			if (target < 0 || target >= length) return { kind: "unknown", index, field: "blockedBy", target };
			if (target === index) return { kind: "self", index, field: "blockedBy" };
			if (seen.has(target)) return { kind: "twice", index, target };
			seen.add(target);
		}
	}
	if (parent === undefined) return undefined;
	if (!isIndex(parent)) return { kind: "not-an-index", index, field: "parent" };
	if (parent < 0 || parent >= length) return { kind: "unknown", index, field: "parent", target: parent };
	if (parent === index) return { kind: "self", index, field: "parent" };
	return undefined;
}

/** The first problem of a list's links, item by item and then across items; undefined when the list is sound. */
export function linkProblem(todos: readonly TodoItem[]): LinkProblem | undefined {
	// Most lists have no links: every session rebuild and write checks them, so they cost nothing then.
	if (!hasLinks(todos)) return undefined;
	for (const [index, todo] of todos.entries()) {
		const problem = itemProblem(todo, index, todos.length);
		if (problem) return problem;
	}
	for (const [index, todo] of todos.entries()) {
		const grandparent = todo.parent === undefined ? undefined : todos[todo.parent]?.parent;
		if (todo.parent !== undefined && grandparent !== undefined) {
			return { kind: "nested", index, parent: todo.parent, grandparent };
		}
		const subtask = todo.blockedBy?.find((target) => todos[target]?.parent === index);
		if (subtask !== undefined) return { kind: "waits-for-subtask", index, subtask };
	}
	const cycle = findCycle(todos);
	return cycle ? { kind: "cycle", steps: cycle } : undefined;
}

/** Each item's subtasks, in list order: one pass over the list. */
function subtaskIndex(todos: readonly TodoItem[]): number[][] {
	const subtasks: number[][] = todos.map(() => []);
	for (const [at, todo] of todos.entries()) if (todo.parent !== undefined) subtasks[todo.parent]?.push(at);
	return subtasks;
}

/** The edges an item's completion depends on: the items it waits for, and (for a parent) its subtasks. */
function dependencies(todos: readonly TodoItem[], subtasks: readonly number[][], index: number): CycleStep[] {
	const waits = (todos[index]?.blockedBy ?? []).map((to): CycleStep => ({ from: index, to, via: "waits" }));
	const ownSubtasks = (subtasks[index] ?? []).map((to): CycleStep => ({ from: index, to, via: "subtask" }));
	return [...waits, ...ownSubtasks];
}

/** A cycle of waits and subtasks, from its lowest index round to it again; undefined when there is none. */
function findCycle(todos: readonly TodoItem[]): CycleStep[] | undefined {
	const state = new Map<number, "open" | "done">();
	const subtasks = subtaskIndex(todos);
	const path: CycleStep[] = [];
	const visit = (index: number): CycleStep[] | undefined => {
		state.set(index, "open");
		for (const step of dependencies(todos, subtasks, index)) {
			if (state.get(step.to) === "open") {
				const start = path.findIndex((earlier) => earlier.from === step.to);
				return [...path.slice(start === -1 ? path.length : start), step];
			}
			if (state.get(step.to) === "done") continue;
			path.push(step);
			const found = visit(step.to);
			if (found) return found;
			path.pop();
		}
		state.set(index, "done");
		return undefined;
	};
	for (const index of todos.keys()) {
		if (state.has(index)) continue;
		const found = visit(index);
		if (found) return found;
	}
	return undefined;
}

/**
 * The list with every link moved as the items moved: `moved(old)` is an item's new index, or undefined when it is
 * gone (its links are dropped: what waited for it waits no more, its subtasks stand alone). An emptied `blockedBy`
 * is removed, so an item without links stays exactly as one written without them.
 */
export function moveLinks(todos: readonly TodoItem[], moved: (old: number) => number | undefined): TodoItem[] {
	return todos.map((todo) => {
		if (todo.blockedBy === undefined && todo.parent === undefined) return todo;
		const { blockedBy, parent, ...rest } = todo;
		const item: TodoItem = { ...rest };
		const waits = (blockedBy ?? []).flatMap((target) => {
			const to = moved(target);
			return to === undefined ? [] : [to];
		});
		if (waits.length > 0) item.blockedBy = waits;
		const to = parent === undefined ? undefined : moved(parent);
		if (to !== undefined) item.parent = to;
		return item;
	});
}

/** Where the items of a list go when `count` items are inserted at `at`. */
export const shiftedBy =
	(at: number, count: number) =>
	(old: number): number =>
		old < at ? old : old + count;

/** Where the items of a list go when the items at `removed` are taken out. */
export function closedUp(removed: readonly number[]): (old: number) => number | undefined {
	const gone = new Set(removed);
	return (old) => (gone.has(old) ? undefined : old - removed.filter((index) => index < old).length);
}

/** Where the items of a list go when the item at `from` is moved to `to`. */
export function movedItem(from: number, to: number): (old: number) => number {
	return (old) => {
		if (old === from) return to;
		if (from < to && old > from && old <= to) return old - 1;
		if (to < from && old >= to && old < from) return old + 1;
		return old;
	};
}
