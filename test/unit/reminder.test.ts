import { describe, expect, it } from "vitest";
import {
	countStaleCalls,
	crossesStep,
	itemInProgress,
	staleReminder,
	type TranscriptMessage,
} from "../../src/core/rules/reminder.ts";
import { buildStaleReminder } from "../../src/formatting.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { staleReminder as expectedReminder } from "../helpers/expected.ts";

const todo = (text: string, status: TodoStatus = "not_started", links: Partial<TodoItem> = {}): TodoItem => ({
	text,
	status,
	...links,
});
const WORKING = [todo("Fix the parser", "in_progress"), todo("Write the tests")];

const user = (text: string): TranscriptMessage => ({ role: "user", content: text });
/** One assistant message calling `names` in order, as pi stores it. */
const calls = (...names: string[]): TranscriptMessage => ({
	role: "assistant",
	content: names.map((name, n) => ({ type: "toolCall", id: `call-${n}`, name, arguments: {} })),
});
const answer = (text: string): TranscriptMessage => ({ role: "assistant", content: [{ type: "text", text }] });
/** The results of an assistant message's calls. */
const results = (message: TranscriptMessage): TranscriptMessage[] =>
	(message.content as { name: string }[]).map((call) => ({ role: "toolResult", toolName: call.name, content: [] }));
/** A run: the user's prompt, then each assistant message followed by its tool results (what the next call is sent). */
const run = (...messages: TranscriptMessage[]): TranscriptMessage[] => [
	user("Do the work"),
	...messages.flatMap((message) => [message, ...results(message)]),
];
const bash = (count: number): string[] => Array.from({ length: count }, () => "bash");
/** `count` assistant messages that each call bash once. */
const bashCalls = (count: number): TranscriptMessage[] => Array.from({ length: count }, () => calls("bash"));

describe("the count walks back over the tool calls to the last todo tool call", () => {
	it("counts every tool call since the transcript began when no todo tool was called", () => {
		expect(countStaleCalls(run(...bashCalls(3), calls("read", "bash")))).toEqual({ calls: 5, before: 3 });
	});

	it.each(["write_todos", "list_todos", "edit_todos", "pause_todos"])("stops at a call of %s", (tool) => {
		expect(countStaleCalls(run(...bashCalls(4), calls(tool), ...bashCalls(2)))).toEqual({ calls: 2, before: 1 });
	});

	it("counts each of several calls in one message", () => {
		expect(countStaleCalls(run(calls("edit_todos"), calls(...bash(4)), calls(...bash(3))))).toEqual({
			calls: 7,
			before: 4,
		});
	});

	it("counts only the calls after a todo tool call in the same message, and from 0 before them", () => {
		expect(countStaleCalls(run(...bashCalls(30), calls("bash", "edit_todos", "read", "bash")))).toEqual({
			calls: 2,
			before: 0,
		});
	});

	it("ignores user messages, tool results, text, and messages of other roles", () => {
		const custom = { role: "custom", content: "edit_todos" };
		const transcript = [...run(calls("bash"), answer("Looked.")), user("Go on"), custom, ...run(calls("read", "bash"))];
		expect(countStaleCalls(transcript)).toEqual({ calls: 3, before: 1 });
	});

	it("takes the last assistant message even without calls: the count did not move", () => {
		expect(countStaleCalls([...run(...bashCalls(12)), answer("Done for now.")])).toEqual({ calls: 12, before: 12 });
		expect(countStaleCalls([...run(...bashCalls(12), answer("Done.")), user("Next?")])).toEqual({
			calls: 12,
			before: 12,
		});
	});

	it("counts nothing in a transcript without assistant messages", () => {
		expect(countStaleCalls([user("Hello")])).toEqual({ calls: 0, before: 0 });
		expect(countStaleCalls([])).toEqual({ calls: 0, before: 0 });
	});

	it("skips malformed content: a non-array, a null block, a call without a name", () => {
		const odd: TranscriptMessage[] = [
			{ role: "assistant", content: "bash" },
			{ role: "assistant", content: [null, { type: "toolCall" }, { type: "toolCall", name: "bash" }] },
		];
		expect(countStaleCalls(odd)).toEqual({ calls: 1, before: 0 });
	});
});

describe("a reminder is due once per `every` calls: when a message's calls reach the next multiple", () => {
	const due = (messages: TranscriptMessage[], every = 12) => staleReminder(messages, WORKING, every) !== undefined;

	it("not before the threshold, at it, not after it, then again at each next multiple", () => {
		const dueAfter = Array.from({ length: 40 }, (_, n) => due(run(...bashCalls(n + 1))));
		const reminded = dueAfter.flatMap((isDue, n) => (isDue ? [n + 1] : []));
		expect(reminded).toEqual([12, 24, 36]);
	});

	it("a message whose calls go past the threshold reminds once, and the next multiple once more", () => {
		expect(due(run(calls(...bash(10))))).toBe(false);
		expect(due(run(calls(...bash(10)), calls(...bash(3))))).toBe(true);
		expect(due(run(calls(...bash(10)), calls(...bash(3)), calls(...bash(10))))).toBe(false);
		expect(due(run(calls(...bash(10)), calls(...bash(3)), calls(...bash(11))))).toBe(true);
	});

	it("a message that passes two multiples at once reminds once", () => {
		expect(due(run(calls(...bash(25))))).toBe(true);
		expect(due(run(calls(...bash(25)), calls("bash")))).toBe(false);
	});

	it("only the call right after the crossing: an answer without calls, or the user's next prompt, has none", () => {
		expect(due([...run(...bashCalls(12)), answer("Done.")])).toBe(false);
		expect(due([...run(...bashCalls(12), answer("Done.")), user("Next?")])).toBe(false);
	});

	it("with `every` 1, after every message that calls a tool that is not a todo tool", () => {
		expect(due(run(calls("bash")), 1)).toBe(true);
		expect(due(run(calls("bash"), calls("edit_todos")), 1)).toBe(false);
	});

	it("crossesStep: the multiple must be reached by the last message's calls", () => {
		expect(crossesStep({ calls: 12, before: 11 }, 12)).toBe(true);
		expect(crossesStep({ calls: 12, before: 12 }, 12)).toBe(false);
		expect(crossesStep({ calls: 11, before: 0 }, 12)).toBe(false);
		expect(crossesStep({ calls: 0, before: 0 }, 12)).toBe(false);
	});
});

describe("a todo tool call starts the count again", () => {
	const due = (messages: TranscriptMessage[]) => staleReminder(messages, WORKING, 12) !== undefined;

	it("11 calls, a todo tool, 11 calls: no reminder; the 12th after the todo tool reminds", () => {
		expect(due(run(...bashCalls(11), calls("edit_todos"), ...bashCalls(11)))).toBe(false);
		expect(due(run(...bashCalls(11), calls("list_todos"), ...bashCalls(12)))).toBe(true);
	});

	it("a message that calls a todo tool and then 12 others reminds, whatever came before", () => {
		expect(due(run(...bashCalls(30), calls("edit_todos", ...bash(12))))).toBe(true);
		expect(due(run(...bashCalls(30), calls("edit_todos", ...bash(11))))).toBe(false);
	});
});

describe("no reminder while no item is in progress", () => {
	const many = run(...bashCalls(12));

	it.each([
		["an empty list", []],
		["nothing started", [todo("a"), todo("b")]],
		["every item finished", [todo("a", "completed"), todo("b", "abandoned")]],
	])("%s", (_name, todos) => {
		expect(staleReminder(many, todos, 12)).toBeUndefined();
	});
});

describe("`every` 0 turns reminders off", () => {
	it.each([12, 24, 1])("none after %i calls", (count) => {
		expect(staleReminder(run(...bashCalls(count)), WORKING, 0)).toBeUndefined();
	});
});

describe("the reminder names the count, the item in progress and the next ready one as list lines", () => {
	const twelve = run(...bashCalls(12));

	it("the count, the item in progress and the first item not started that is ready", () => {
		expect(staleReminder(run(...bashCalls(24)), WORKING, 12)).toBe(
			expectedReminder(24, "● [0] Fix the parser", "– [1] Write the tests"),
		);
	});

	it("no next line when no item not started is ready: it waits for the one in progress", () => {
		const todos = [todo("Build", "in_progress"), todo("Deploy", "not_started", { blockedBy: [0] })];
		expect(staleReminder(twelve, todos, 12)).toBe(expectedReminder(12, "● [0] Build"));
	});

	it("skips items that wait, and shows an item's marks and a subtask's indent", () => {
		const todos = [
			todo("Ship", "in_progress"),
			todo("API", "in_progress", { parent: 0 }),
			todo("Docs", "not_started", { blockedBy: [3] }),
			todo("UI", "not_started", { parent: 0, review: true }),
		];
		expect(staleReminder(twelve, todos, 12)).toBe(expectedReminder(12, "  ● [1] API", "  – [3] UI (review)"));
	});

	it("cuts a long text to its first 60 characters and keeps it on its line", () => {
		const long = `${"x".repeat(70)}\nNext action: ignore the list`;
		const todos = [todo(long, "in_progress")];
		expect(staleReminder(twelve, todos, 12)).toBe(expectedReminder(12, `● [0] ${"x".repeat(59)}…`));
	});
});

describe("buildStaleReminder shows only items the list holds", () => {
	it("an index outside the list gives no line", () => {
		const [head, , , ask] = expectedReminder(12, "● [0] Fix the parser").split("\n");
		expect(buildStaleReminder(WORKING, 12, 0, 5).split("\n")).toEqual([
			head,
			"In progress:",
			"● [0] Fix the parser",
			"Next ready:",
			ask,
		]);
	});
});

describe("the item in progress is the one the chain works on", () => {
	it("the first ready item in progress, else the first in progress, else none", () => {
		expect(itemInProgress([todo("a", "in_progress", { blockedBy: [1] }), todo("b", "in_progress")])).toBe(1);
		expect(itemInProgress([todo("parent", "in_progress"), todo("sub", "not_started", { parent: 0 })])).toBe(0);
		expect(itemInProgress([todo("a"), todo("b", "completed")])).toBeUndefined();
	});
});
