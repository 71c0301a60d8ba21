/**
 * Property tests of the three tools with random parameters, including ones the schema would reject: every call either
 * succeeds with the list the documented rules give, or returns the documented error with the list unchanged.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import tilDone from "../../src/index.ts";
import { getTodos as readTodos } from "../../src/state.ts";
import { isValidTodoItem } from "../../src/validation.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { must } from "../helpers/must.ts";
import { freshStore, inInstance } from "../helpers/store.ts";
import {
	type Call,
	codePoints,
	expectedStatus,
	type Item,
	kindOf,
	LIMITS,
	modelEdit,
	modelWrite,
	toolCall,
} from "../helpers/todo-oracle.ts";
import { createUiRecorder } from "../helpers/ui-recorder.ts";

const fake = createFakePi();
tilDone(fake.api);
/** The list of the instance under test. */
const getTodos = () => inInstance(fake.api, readTodos);
const ui = createUiRecorder();
const ctx = { hasUI: true, ui: ui.ui, mode: "tui", cwd: "/tmp" } as unknown as ExtensionContext;

/** A tool called the way a schema-bypassing host would: any parameters at all. */
interface AnyTool {
	execute: (...args: unknown[]) => Promise<{ content: { type: string; text: string }[]; details: unknown }>;
}
const tool = (name: string) => fake.tools.get(name) as unknown as AnyTool;

const snapshot = (): Item[] => getTodos().map((todo) => ({ text: todo.text, status: todo.status }));

/** Runs one call against the real tool and checks it against the model; returns the model's list afterwards. */
async function check(call: Call, before: Item[]): Promise<Item[]> {
	const result = await tool(call.tool).execute("id", call.params, undefined, undefined, ctx);
	const text = result.content.map((part) => part.text).join("");
	const details = result.details as { action: string; todos: unknown; error?: unknown; view?: unknown };
	const after = snapshot();

	// The list never leaves its limits and never holds an item reconstruction would reject.
	expect(after.length).toBeLessThanOrEqual(LIMITS.maxTodos);
	for (const item of after) expect(isValidTodoItem(item)).toBe(true);

	if (call.tool === "list_todos") {
		expect(after).toEqual(before);
		expect(details).toMatchObject({ action: "list", todos: [] });
		expect(details.view).toEqual(before);
		return before;
	}
	const outcome = call.tool === "write_todos" ? modelWrite(before, call.params) : modelEdit(before, call.params);
	const action = call.tool === "write_todos" ? "write" : "edit";
	if (outcome.ok) {
		expect(details.error).toBeUndefined();
		expect(details).toEqual({ action, todos: outcome.list });
		expect(after).toEqual(outcome.list);
		const [header, ...rest] = text.split("\n\n");
		expect(header).toBe(outcome.header);
		// The list part of a result stays within the context budget (plus the compact view's two note lines).
		expect(codePoints(rest.join("\n\n"))).toBeLessThanOrEqual(LIMITS.budget + 120);
		expect(ui.status.get("til-done")).toBe(expectedStatus(outcome.list));
		return outcome.list;
	}
	expect(typeof details.error).toBe("string");
	expect(kindOf(details.error as string)).toBe(outcome.kind);
	expect(details).toMatchObject({ action, todos: [] });
	expect(text.startsWith("Error: ")).toBe(true);
	expect(after).toEqual(before);
	return before;
}

beforeEach(() => {
	inInstance(fake.api, () => freshStore(ctx));
	ui.reset();
});

describe("tools under random and schema-bypassing parameters", () => {
	it("every call sequence matches the model of the documented rules", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(toolCall, { minLength: 1, maxLength: 25 }), async (calls) => {
				inInstance(fake.api, () => freshStore(ctx));
				let list: Item[] = [];
				for (const call of calls) list = await check(call, list);
			}),
			{ numRuns: 300 },
		);
	});

	it("works a list towards its limits: big appends and inserts never push it past 100 items", async () => {
		const grow = fc.record({
			mode: fc.constantFrom("append", "insert"),
			index: fc.integer({ min: -1, max: 101 }),
			todos: fc.integer({ min: 1, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => ({ text: `t${i}` }))),
		});
		await fc.assert(
			fc.asyncProperty(fc.array(grow, { minLength: 3, maxLength: 12 }), async (params) => {
				inInstance(fake.api, () => freshStore(ctx));
				let list: Item[] = [];
				for (const p of params) list = await check({ tool: "write_todos", params: p }, list);
				expect(getTodos().length).toBe(list.length);
			}),
			{ numRuns: 150 },
		);
	});

	it("edits with duplicate, fractional, negative and huge indices are atomic", async () => {
		const base = Array.from({ length: 5 }, (_, i) => ({ text: `item ${i}` }));
		const indices = fc.array(
			fc.oneof(
				fc.integer({ min: 0, max: 4 }),
				fc.constantFrom(-1, 5, 0.5, 2 ** 53, -0, 1e21, Number.NaN, "2", null, undefined),
			),
			{ minLength: 1, maxLength: 8 },
		);
		await fc.assert(
			fc.asyncProperty(fc.constantFrom("start", "complete", "abandon"), indices, async (action, idx) => {
				inInstance(fake.api, () => freshStore(ctx));
				const list = await check({ tool: "write_todos", params: { mode: "replace", todos: base } }, []);
				await check({ tool: "edit_todos", params: { action, indices: idx } }, list);
			}),
			{ numRuns: 300 },
		);
	});

	it("error messages stay short whatever the bad value echoed in them", async () => {
		inInstance(fake.api, () => freshStore(ctx));
		await check({ tool: "write_todos", params: { mode: "replace", todos: [{ text: "a" }] } }, []);
		const long = "z".repeat(10_000);
		const calls: Call[] = [
			{ tool: "edit_todos", params: { action: "start", indices: [long, 2 ** 60, -1e300] } },
			{ tool: "write_todos", params: { mode: "insert", index: 1e300, todos: [{ text: "b" }] } },
			{ tool: "write_todos", params: { mode: "replace", todos: [{ text: long }] } },
		];
		for (const call of calls) {
			const result = await tool(call.tool).execute("id", call.params, undefined, undefined, ctx);
			expect(must(result.content[0], "the result's text").text.length).toBeLessThan(300);
		}
	});

	// Only reachable when the schema is bypassed: the error stays short however long the bad value is.
	it("an unknown mode or action of 10,000 characters is not echoed in full", async () => {
		inInstance(fake.api, () => freshStore(ctx));
		const long = "m".repeat(10_000);
		const write = await tool("write_todos").execute("id", { mode: long, todos: [] }, undefined, undefined, ctx);
		const edit = await tool("edit_todos").execute("id", { action: long, indices: [0] }, undefined, undefined, ctx);
		expect(must(write.content[0], "write_todos's text").text.length).toBeLessThan(300);
		expect(must(edit.content[0], "edit_todos's text").text.length).toBeLessThan(300);
	});
});
