/** Lists with links (waits and subtasks) shared by the plan tests. */

import type { TodoItem, TodoStatus } from "../../src/types.ts";

/** An item with its status and, when given, its links. */
export function item(
	text: string,
	status: TodoStatus = "not_started",
	links: { blockedBy?: number[]; parent?: number } = {},
): TodoItem {
	return { text, status, ...links };
}

/**
 * A small plan: [0] design, [1] migration waiting for [0], [2] feature with subtasks [3] API and [4] UI, the UI
 * waiting for the API, [5] release waiting for [1] and [2].
 */
export const PLAN: readonly TodoItem[] = [
	item("Design the schema"),
	item("Write the migration", "not_started", { blockedBy: [0] }),
	item("Ship the feature"),
	item("Add the API", "not_started", { parent: 2 }),
	item("Add the UI", "not_started", { parent: 2, blockedBy: [3] }),
	item("Release", "not_started", { blockedBy: [1, 2] }),
];

/** PLAN with the statuses given by index. */
export function planWith(statuses: Record<number, TodoStatus>): TodoItem[] {
	return PLAN.map((todo, index) => ({ ...todo, status: statuses[index] ?? todo.status }));
}
