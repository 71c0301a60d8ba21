/**
 * When the list has gone stale: after every `every` tool calls in a row that are not todo tools, while an item is in
 * progress, the next model call carries one reminder. A pure function of the transcript and the list: nothing is
 * counted in memory, so a restart or a reload decides the same.
 */

import { buildStaleReminder } from "../list/list-text.ts";
import { pickNextIndex } from "../list/queries.ts";
import { nextToStart } from "../list/ready.ts";
import { TOOL_NAMES, type TodoItem } from "../model/types.ts";

/** The tools that read or change the list: a call to any of them means the model has looked at it. */
export const TODO_TOOLS: ReadonlySet<string> = new Set([...TOOL_NAMES, "pause_todos"]);

/** What the decision reads of a message of the transcript (pi's messages of any role fit). */
export interface TranscriptMessage {
	role: string;
	content?: unknown;
}

/** The names of an assistant message's tool calls, in order; none for any other message. */
function toolCallNames(message: TranscriptMessage): string[] {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
	return message.content.flatMap((block: { type?: unknown; name?: unknown } | null) =>
		block?.type === "toolCall" && typeof block.name === "string" ? [block.name] : [],
	);
}

export interface StaleCount {
	/** Tool calls that are not todo tools since the last todo tool call, or since the transcript began (K). */
	calls: number;
	/** The same count before the last assistant message's calls (K'); 0 when that message called a todo tool. */
	before: number;
}

/** Walks back over the assistant messages' tool calls, counting those that are not todo tools until one is. */
export function countStaleCalls(messages: readonly TranscriptMessage[]): StaleCount {
	let calls = 0;
	let lastCounted: number | undefined;
	for (let at = messages.length - 1; at >= 0; at--) {
		const message = messages[at];
		if (message?.role !== "assistant") continue;
		const names = toolCallNames(message);
		const todoCall = names.findLastIndex((name) => TODO_TOOLS.has(name));
		const counted = names.length - 1 - todoCall;
		calls += counted;
		lastCounted ??= counted;
		if (todoCall >= 0) break;
	}
	return { calls, before: calls - (lastCounted ?? 0) };
}

/** Whether the last assistant message's calls took the count past a multiple of `every`: once per `every` calls. */
export function crossesStep({ calls, before }: StaleCount, every: number): boolean {
	return every > 0 && calls >= every && Math.floor(calls / every) > Math.floor(before / every);
}

/** The item the reminder names as in progress: the one the chain works on, else the first in progress; none if none. */
export function itemInProgress(todos: readonly TodoItem[]): number | undefined {
	const next = pickNextIndex(todos);
	if (next !== undefined && todos[next]?.status === "in_progress") return next;
	const first = todos.findIndex((todo) => todo.status === "in_progress");
	return first < 0 ? undefined : first;
}

/** The reminder the next model call carries, or undefined when none is due. `every` 0 turns reminders off. */
export function staleReminder(
	messages: readonly TranscriptMessage[],
	todos: readonly TodoItem[],
	every: number,
): string | undefined {
	if (every <= 0) return undefined;
	const current = itemInProgress(todos);
	if (current === undefined) return undefined;
	const count = countStaleCalls(messages);
	if (!crossesStep(count, every)) return undefined;
	return buildStaleReminder(todos, count.calls, current, nextToStart(todos));
}
