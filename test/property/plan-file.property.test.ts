/**
 * Plan files round-trip: any list `write_todos` would keep (hostile texts and checks, every status, review marks,
 * waits and subtasks, nested or not) written as a plan file and read back is the very same list, and the file's text
 * has one line per item or annotation whatever the texts hold.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linkProblem } from "../../src/core/list/links.ts";
import { parsePlanMarkdown, planToMarkdown } from "../../src/core/rules/plan-file.ts";
import type { TodoItem } from "../../src/types.ts";
import { hostileText, type Status } from "../helpers/todo-oracle.ts";

const STATUSES: Status[] = ["not_started", "in_progress", "completed", "abandoned"];
/** Hostile but storable texts: not blank, within the limits. */
const storable = (max: number) => hostileText.filter((text) => text.trim() !== "" && text.length <= max);

interface Raw {
	text: string;
	status: Status;
	check: string | undefined;
	review: boolean;
	waits: number[];
	parent: number | undefined;
}

const raw: fc.Arbitrary<Raw> = fc.record({
	text: storable(1000),
	status: fc.constantFrom(...STATUSES),
	check: fc.option(storable(500), { nil: undefined }),
	review: fc.boolean(),
	waits: fc.oneof(fc.constant<number[]>([]), fc.uniqueArray(fc.nat(100), { minLength: 1, maxLength: 3 })),
	parent: fc.option(fc.nat(100), { nil: undefined, freq: 2 }),
});

/** Links point at earlier items (a pick taken modulo the item's index); lists whose links do not hold are dropped. */
function item(entry: Raw, index: number): TodoItem {
	const todo: TodoItem = { text: entry.text, status: entry.status };
	if (entry.check !== undefined) todo.check = entry.check;
	if (entry.review) todo.review = true;
	const waits = index === 0 ? [] : [...new Set(entry.waits.map((pick) => pick % index))];
	if (waits.length > 0) todo.blockedBy = waits;
	if (index > 0 && entry.parent !== undefined) todo.parent = entry.parent % index;
	return todo;
}

const plan: fc.Arbitrary<TodoItem[]> = fc
	.array(raw, { maxLength: 20 })
	.map((entries) => entries.map(item))
	.filter((todos) => linkProblem(todos) === undefined);

describe("a list written as a plan file and read back is the same list", () => {
	it("holds for any list write_todos would keep", () => {
		fc.assert(
			fc.property(plan, (todos) => {
				expect(parsePlanMarkdown(planToMarkdown(todos))).toEqual({ ok: true, todos });
			}),
			{ numRuns: 300 },
		);
	});

	it("writes one line per item and annotation, whatever the texts hold", () => {
		fc.assert(
			fc.property(plan, (todos) => {
				const lines = planToMarkdown(todos).split("\n");
				const items = lines.filter((line) => /^( {2})?- \[[ x]\] /.test(line));
				expect(items).toHaveLength(todos.length);
				expect(lines.slice(2, -1).every((line) => /^( {2}| {4})?- /.test(line))).toBe(true);
			}),
			{ numRuns: 200 },
		);
	});
});
