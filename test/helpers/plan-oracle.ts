/**
 * An independent model of a plan's links, by item identity rather than index, for the property tests: which items
 * each item waits for and belongs to, whether a set of links holds, and which items are ready. Written from the rules,
 * not from src/plan.
 */

import type { TodoItem } from "../../src/types.ts";

/** An item's links by the ids (texts) of the items they point at. */
export interface LinksById {
	waits: string[];
	parent?: string;
}

/** The links of a list, by id, for comparing with the oracle; waits sorted. */
export function linksById(todos: readonly TodoItem[]): Map<string, LinksById> {
	return new Map(
		todos.map((todo) => {
			const waits = (todo.blockedBy ?? []).map((at) => todos[at]?.text ?? `?${at}`).sort();
			const parent = todo.parent === undefined ? undefined : (todos[todo.parent]?.text ?? `?${todo.parent}`);
			return [todo.text, parent === undefined ? { waits } : { waits, parent }];
		}),
	);
}

/**
 * Whether links written as indices into `order` (the ids of the list the write leaves) hold: every index in the
 * list, no item waiting for itself or twice for one, no parent itself or a subtask, no parent waiting for its own
 * subtask, and no cycle through waits and subtasks.
 */
export function linksHold(
	order: readonly string[],
	links: ReadonlyMap<string, { waits: number[]; parent?: number }>,
): boolean {
	const inList = (at: number) => Number.isInteger(at) && at >= 0 && at < order.length;
	const parentOf = new Map<string, string>();
	const edges = new Map<string, string[]>(order.map((id) => [id, []]));
	for (const [id, { waits, parent }] of links) {
		if (!waits.every(inList) || new Set(waits).size !== waits.length) return false;
		if (waits.some((at) => order[at] === id)) return false;
		edges.get(id)?.push(...waits.map((at) => order[at] as string));
		if (parent === undefined) continue;
		if (!inList(parent) || order[parent] === id) return false;
		parentOf.set(id, order[parent] as string);
	}
	for (const [child, parent] of parentOf) {
		if (parentOf.has(parent)) return false;
		if (edges.get(parent)?.includes(child)) return false;
		edges.get(parent)?.push(child);
	}
	return !hasCycle(edges);
}

function hasCycle(edges: ReadonlyMap<string, readonly string[]>): boolean {
	const state = new Map<string, "open" | "done">();
	const visit = (id: string): boolean => {
		if (state.get(id) === "open") return true;
		if (state.get(id) === "done") return false;
		state.set(id, "open");
		const found = (edges.get(id) ?? []).some(visit);
		state.set(id, "done");
		return found;
	};
	return [...edges.keys()].some(visit);
}

/** Whether some open item can be worked on now: all it and its parent wait for completed, no open subtask. */
export function someItemWorkable(todos: readonly TodoItem[]): boolean {
	const open = (todo: TodoItem | undefined) => todo?.status === "not_started" || todo?.status === "in_progress";
	const completed = (at: number) => todos[at]?.status === "completed";
	return todos.some((todo, index) => {
		if (!open(todo)) return false;
		const parentWaits = todo.parent === undefined ? [] : (todos[todo.parent]?.blockedBy ?? []);
		const waitsDone = [...(todo.blockedBy ?? []), ...parentWaits].every(completed);
		const openSubtask = todos.some((other) => other.parent === index && open(other));
		return waitsDone && !openSubtask;
	});
}
