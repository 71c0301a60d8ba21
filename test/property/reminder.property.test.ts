/**
 * Whatever the model calls, a reminder comes at most once per `every` tool calls that are not todo tools, exactly
 * when the count since the last todo tool call reaches a multiple of `every`, and never with `every` 0. Whatever the
 * item texts hold, the reminder keeps its lines: each item's text stays on its own list line.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countStaleCalls, staleReminder, type TranscriptMessage } from "../../src/core/rules/reminder.ts";
import type { TodoItem } from "../../src/types.ts";
import { REMINDER_HEAD } from "../helpers/expected.ts";
import { hostileText } from "../helpers/todo-oracle.ts";

const TODO_TOOLS = ["write_todos", "list_todos", "edit_todos", "pause_todos"];
const tool = fc.oneof(
	{ weight: 8, arbitrary: fc.constantFrom("bash", "read", "edit", "write") },
	{ weight: 1, arbitrary: fc.constantFrom(...TODO_TOOLS) },
);
/** What the model does in one call: call some tools (none is a plain answer). */
const turns = fc.array(fc.array(tool, { maxLength: 6 }), { maxLength: 40 });
const every = fc.integer({ min: 1, max: 7 });
const WORKING: TodoItem[] = [
	{ text: "a", status: "in_progress" },
	{ text: "b", status: "not_started" },
];

/** The transcript after the first `upTo` turns: each assistant message followed by its tool results. */
function transcript(calls: readonly string[][], upTo: number): TranscriptMessage[] {
	return [
		{ role: "user", content: "Go" },
		...calls
			.slice(0, upTo)
			.flatMap((names) => [
				{ role: "assistant", content: names.map((name) => ({ type: "toolCall", id: "x", name, arguments: {} })) },
				...names.map((name) => ({ role: "toolResult", toolName: name, content: [] })),
			]),
	];
}

/** After which turns a reminder is due, by the decision. */
const remindedTurns = (calls: readonly string[][], step: number, todos = WORKING): number[] =>
	calls.flatMap((_, turn) => (staleReminder(transcript(calls, turn + 1), todos, step) === undefined ? [] : [turn]));

/**
 * The same by counting call by call: a turn reminds when one of its calls takes the count to a multiple of `step`
 * after its last todo tool call (one before it touched the list in the same turn).
 */
function oracleTurns(calls: readonly string[][], step: number): number[] {
	let count = 0;
	return calls.flatMap((names, turn) => {
		let hit = false;
		for (const name of names) {
			const todoTool = TODO_TOOLS.includes(name);
			count = todoTool ? 0 : count + 1;
			hit = todoTool ? false : hit || count % step === 0;
		}
		return hit ? [turn] : [];
	});
}

describe("reminders come once per `every` calls that are not todo tools", () => {
	it("exactly when a turn's calls take the count since the last todo tool call to a multiple of `every`", () => {
		fc.assert(
			fc.property(turns, every, (calls, step) => {
				expect(remindedTurns(calls, step)).toEqual(oracleTurns(calls, step));
			}),
		);
	});

	it("at most once per `every` calls: since the last todo tool call, never more reminders than count / every", () => {
		fc.assert(
			fc.property(turns, every, (calls, step) => {
				let sinceReset = 0;
				calls.forEach((names, turn) => {
					const messages = transcript(calls, turn + 1);
					if (names.some((name) => TODO_TOOLS.includes(name))) sinceReset = 0;
					if (staleReminder(messages, WORKING, step) !== undefined) sinceReset += 1;
					expect(sinceReset).toBeLessThanOrEqual(Math.floor(countStaleCalls(messages).calls / step));
				});
			}),
		);
	});

	it("never with `every` 0, nor while no item is in progress", () => {
		const idle: TodoItem[] = [{ text: "a", status: "not_started" }];
		fc.assert(
			fc.property(turns, every, (calls, step) => {
				expect(remindedTurns(calls, 0)).toEqual([]);
				expect(remindedTurns(calls, step, idle)).toEqual([]);
			}),
		);
	});
});

describe("the reminder keeps its lines whatever the item texts hold", () => {
	it("the head, the item in progress on one line, the next ready one on one line, the ask", () => {
		const twelve = transcript([["bash"]], 1);
		fc.assert(
			fc.property(hostileText, hostileText, (current, next) => {
				const todos: TodoItem[] = [
					{ text: current, status: "in_progress" },
					{ text: next, status: "not_started" },
				];
				const lines = (staleReminder(twelve, todos, 1) ?? "").split("\n");
				expect(lines).toHaveLength(6);
				expect(lines[0]).toBe(`${REMINDER_HEAD} 1 tool call(s) since you last used the todo tools.`);
				expect([lines[1], lines[3]]).toEqual(["In progress:", "Next ready:"]);
				expect(lines[2]).toMatch(/^● \[0\] /);
				expect(lines[4]).toMatch(/^– \[1\] /);
			}),
		);
	});
});
