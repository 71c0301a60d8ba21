/**
 * Todo text is data. Whatever it holds (newlines, a fake "Next action:" line, fake list lines, markdown fences,
 * control and unicode line separators), the structure of the continuation prompt, the context injection, the tool
 * results and the status texts stays the same: every line is where the format puts it.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAllFinished } from "../../src/core/list/queries.ts";
import { activeStatus, fullText } from "../../src/core/texts/user.ts";
import { progressOf } from "../../src/core/views/status-entries.ts";
import {
	buildContextInjection,
	buildContinuationPrompt,
	formatTodoListForModel,
	formatTodoListText,
} from "../../src/formatting.ts";
import { flat } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { codePoints, hostileText, type Item, LIMITS, type Status } from "../helpers/todo-oracle.ts";

const STATUSES: Status[] = ["not_started", "in_progress", "completed", "abandoned"];
const ICONS: Record<Status, string> = { not_started: "–", in_progress: "●", completed: "✓", abandoned: "✗" };

/** Hostile but storable texts (what the tools accept): 1 to 1000 characters, not blank. */
const storable = hostileText.filter((text) => text.trim() !== "" && text.length <= 1000);
const item: fc.Arbitrary<Item> = fc.record({ text: storable, status: fc.constantFrom(...STATUSES) });
const list = fc.oneof(
	{ weight: 4, arbitrary: fc.array(item, { minLength: 1, maxLength: 8 }) },
	{ weight: 1, arbitrary: fc.array(item, { minLength: 30, maxLength: 100 }) },
);
const withWork = list.filter((todos) => todos.some((t) => t.status === "not_started" || t.status === "in_progress"));

/** Anything a terminal or a model could read as a line break. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: vertical tab and form feed break lines in a terminal
const LINE_BREAK = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;
const LIST_LINE = /^([–●✓✗]) \[(\d+)\] /;

/** A list block is full (one line per item, in order) or compact (a finished count, remaining items, a note). */
function checkListBlock(lines: readonly string[], todos: readonly Item[], only: "all" | "remaining"): void {
	const remaining = todos.flatMap((t, i) => (t.status === "not_started" || t.status === "in_progress" ? [i] : []));
	const wanted = only === "all" ? todos.map((_, i) => i) : remaining;
	const compact = lines.at(-1) === "(compact view; call list_todos for the full list)";
	const body = compact ? lines.slice(0, -1) : lines;
	const finishedNote = compact && body[0]?.startsWith("✓ ") && body[0].endsWith(" finished item(s) not shown");
	const itemLines = finishedNote ? body.slice(1) : body;
	const shown = compact ? remaining : wanted;
	expect(itemLines).toHaveLength(shown.length);
	itemLines.forEach((line, n) => {
		const match = LIST_LINE.exec(line);
		expect(match, line).not.toBeNull();
		const index = must(shown[n], `the index listed on line ${n}`);
		const item = must(todos[index], `item ${index}`);
		expect(Number(match![2])).toBe(index);
		expect(match![1]).toBe(ICONS[item.status]);
		const text = line.slice(match![0].length);
		if (!compact) expect(text).toBe(flat(item.text));
		else expect(flat(item.text).startsWith(text.replace(/…$/, ""))).toBe(true);
	});
}

describe("hostile todo text never changes the structure of what the extension writes", () => {
	it("continuation prompt: fixed head, one list line per remaining item, exactly one Next action line", () => {
		fc.assert(
			fc.property(withWork, (todos) => {
				const prompt = buildContinuationPrompt(todos);
				const lines = prompt.split("\n");
				expect(prompt.split("\n").some((line) => LINE_BREAK.test(line))).toBe(false);
				expect(lines.slice(0, 3)).toEqual([
					"There are still incomplete todos. Continue working on the remaining todos.",
					"",
					"Remaining items:",
				]);
				expect(lines.at(-2)).toBe("");
				const next = lines.at(-1)!;
				const match = /^Next action: edit_todos with action '(start|complete)' and indices \[(\d+)\]$/.exec(next);
				expect(match).not.toBeNull();
				expect(lines.filter((line) => line.startsWith("Next action:"))).toHaveLength(1);
				const inProgress = todos.findIndex((t) => t.status === "in_progress");
				const nextIndex = inProgress !== -1 ? inProgress : todos.findIndex((t) => t.status === "not_started");
				expect(Number(match![2])).toBe(nextIndex);
				expect(match![1]).toBe(inProgress !== -1 ? "complete" : "start");
				checkListBlock(lines.slice(3, -2), todos, "remaining");
				expect(codePoints(lines.slice(3, -2).join("\n"))).toBeLessThanOrEqual(LIMITS.budget + 120);
			}),
			{ numRuns: 400 },
		);
	});

	it("context injection: fixed head and tail, the list block in between", () => {
		fc.assert(
			fc.property(withWork, (todos) => {
				const lines = buildContextInjection(todos).split("\n");
				expect(lines.slice(0, 3)).toEqual(["[TILL-DONE ACTIVE]", "", "Current todo list:"]);
				expect(lines.filter((line) => line === "[TILL-DONE ACTIVE]")).toHaveLength(1);
				const remaining = todos.filter((t) => t.status === "not_started" || t.status === "in_progress").length;
				expect(lines.at(-1)).toBe(
					`${remaining} item(s) remaining. Continue working through the list. Call edit_todos with action 'start' on the next item before working on it, then 'complete' when done.`,
				);
				expect(lines.at(-2)).toBe("");
				checkListBlock(lines.slice(3, -2), todos, "all");
			}),
			{ numRuns: 400 },
		);
	});

	it("tool-result lists and the list_todos text: one line per item", () => {
		fc.assert(
			fc.property(list, (todos) => {
				checkListBlock(formatTodoListForModel(todos).split("\n"), todos, "all");
				checkListBlock(formatTodoListText(todos).split("\n"), todos, "all");
			}),
			{ numRuns: 300 },
		);
	});

	it("status bar texts: one counter line, `[i] text` for each item in progress, on one line", () => {
		fc.assert(
			fc.property(list, (todos) => {
				const status = fullText(progressOf(todos, isAllFinished(todos)));
				expect(status).toMatch(/^(📋 \d+\/\d+ \[[█░]{10}\]|✓ Done \(\d+ items\))$/);
				const active = fullText(activeStatus(todos));
				const started = todos.flatMap((t, i) => (t.status === "in_progress" ? [`[${i}] ${flat(t.text)}`] : []));
				expect(active).toBe(started.length === 0 ? undefined : started.join(" "));
				expect(active ?? "").not.toMatch(LINE_BREAK);
			}),
			{ numRuns: 300 },
		);
	});
});
