import { StringEnum } from "@earendil-works/pi-ai";
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import { PARAM_DESCRIPTIONS } from "../../src/core/texts/model.ts";
import { getChain, getTodos, setTodos, updateTodoStatus } from "../../src/state.ts";
import {
	createEditTodosTool,
	createListTodosTool,
	createPauseTodosTool,
	createWriteTodosTool,
	EditTodosParams,
	ListTodosParams,
	PauseTodosParams,
	WriteTodosParams,
} from "../../src/tools.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { createFakeCtx, type FakeUi } from "../helpers/fake-ctx.ts";
import { must } from "../helpers/must.ts";
import { freshStore } from "../helpers/store.ts";
import { taggingTheme, textOf } from "../helpers/theme.ts";
import { callTool, expectToolError } from "../helpers/tool-calls.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });
const items = (...texts: string[]) => texts.map((text) => ({ text }));

const writeTool = createWriteTodosTool();
const pauseTool = createPauseTodosTool();
const listTool = createListTodosTool();
const editTool = createEditTodosTool();

/** The three items of the seed's examples. */
const SEED_TEXTS = ["Write database schema", "Implement migration script", "Add API endpoints"] as const;
const seedList = () => SEED_TEXTS.map((text) => todo(text));

let ctx: ExtensionContext;
let ui: FakeUi;

beforeEach(() => {
	({ ctx, ui } = createFakeCtx());
	freshStore(ctx);
});

const call = (tool: typeof writeTool | typeof listTool | typeof editTool, params: unknown) =>
	callTool(tool, params, ctx);
const write = (params: unknown) => call(writeTool, params);
const list = () => call(listTool, {});
const edit = (params: unknown) => call(editTool, params);

/** Asserts an error row: exact text, exact details, list and status bar untouched. */
const expectError = (
	run: Promise<{ text: string; details: unknown }>,
	action: "write" | "edit",
	text: string,
	error: string,
) => expectToolError(run, { action, text, error }, ui);

/** The renderers under test ignore their context. */
const renderContext = undefined as never;
type ToolRenderContext = Parameters<NonNullable<ToolDefinition["renderResult"]>>[3];
const renderOptions = { expanded: false, isPartial: false };

describe("tool definitions", () => {
	const tools = { write_todos: writeTool, list_todos: listTool, edit_todos: editTool };

	it.each([
		["write_todos", "Write Todos"],
		["list_todos", "List Todos"],
		["edit_todos", "Edit Todos"],
	] as const)("%s is labelled %s, runs sequentially and shares the prompt snippet", (name, label) => {
		const tool = tools[name];
		expect(tool.name).toBe(name);
		expect(tool.label).toBe(label);
		expect(tool.executionMode).toBe("sequential");
		expect(tool.promptSnippet).toBe(
			"Manage a todo list: write (replace/append/insert), list, edit (start/complete/abandon by indices)",
		);
		expect(tool.description.length).toBeGreaterThan(0);
	});

	it("gives write_todos the eight guidelines, verbatim and in order", () => {
		expect(writeTool.promptGuidelines).toEqual([
			"Use `write_todos` with mode `'replace'` to create or replace the full todo list at the start of a task.",
			"Use `write_todos` with mode `'append'` to add new items to the end of the existing list.",
			"Use `write_todos` with mode `'insert'` and an `'index'` parameter to insert items at a specific position.",
			"Use `edit_todos` with action `'start'` and an array of 0-based indices to begin work on specific items.",
			"Use `edit_todos` with action `'complete'` and an array of 0-based indices to mark items as done.",
			"Use `edit_todos` with action `'abandon'` and an array of 0-based indices when items are no longer needed.",
			"Use `list_todos` to review the current todo list.",
			"Always call `edit_todos` with action `'start'` on the next item before working on it, then `'complete'` when done.",
		]);
	});

	it("gives the guidelines to write_todos only, so they appear once in the prompt", () => {
		expect(listTool.promptGuidelines).toBeUndefined();
		expect(editTool.promptGuidelines).toBeUndefined();
	});

	it("gives each tool a fresh guidelines array", () => {
		expect(createWriteTodosTool().promptGuidelines).not.toBe(writeTool.promptGuidelines);
	});

	it("keeps every description short: each model call carries them", () => {
		expect([writeTool, listTool, editTool, pauseTool].map((tool) => tool.description)).toEqual([
			"Write the todo list; list order is the plan.",
			"Show the todo list.",
			"Start, complete or abandon todos by index; atomic.",
			"Pause when blocked or waiting for the user.",
		]);
		expect(pauseTool.promptSnippet).toBeUndefined();
		expect(pauseTool.promptGuidelines).toBeUndefined();
	});

	it("carries fewer definition characters than the original design's three tools (1,496): 1,484", () => {
		const chars = [writeTool, listTool, editTool, pauseTool].reduce(
			(sum, tool) => sum + tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length,
			0,
		);
		expect(chars).toBe(1484);
	});
});

describe("parameter schemas", () => {
	it("write_todos: mode enum, optional integer index, at most 100 items of at most 1000 characters", () => {
		expect(writeTool.parameters).toBe(WriteTodosParams);
		const { properties, required } = WriteTodosParams;
		expect(properties.mode).toMatchObject({ type: "string", enum: ["replace", "append", "insert"] });
		expect(properties.index).toMatchObject({ type: "integer" });
		expect(required).toEqual(["mode", "todos"]);
		expect(properties.todos).toMatchObject({ type: "array", maxItems: 100 });
		expect(properties.todos.items.properties.text).toMatchObject({ type: "string", maxLength: 1000 });
		expect(properties.todos.items.required).toEqual(["text"]);
	});

	it("edit_todos: action enum, 1 to 50 integer indices", () => {
		expect(editTool.parameters).toBe(EditTodosParams);
		const { properties, required } = EditTodosParams;
		expect(properties.action).toMatchObject({ type: "string", enum: ["start", "complete", "abandon"] });
		expect(properties.indices).toMatchObject({ type: "array", minItems: 1, maxItems: 50, items: { type: "integer" } });
		expect(required).toEqual(["action", "indices"]);
	});

	it("the enums are the schemas pi-ai's StringEnum makes (providers without anyOf take them), without importing pi-ai", () => {
		expect(WriteTodosParams.properties.mode).toEqual(
			StringEnum(["replace", "append", "insert"], { description: PARAM_DESCRIPTIONS.mode }),
		);
		expect(EditTodosParams.properties.action).toEqual(
			StringEnum(["start", "complete", "abandon"], { description: PARAM_DESCRIPTIONS.action }),
		);
	});

	it("list_todos: no required parameters, an optional page offset of at least 0", () => {
		expect(listTool.parameters).toBe(ListTodosParams);
		expect(ListTodosParams.required ?? []).toEqual([]);
		expect(Object.keys(ListTodosParams.properties)).toEqual(["offset"]);
		expect(ListTodosParams.properties.offset).toMatchObject({ type: "integer", minimum: 0 });
	});
});

describe("write_todos replace", () => {
	it("writes the list and answers as in the tool reference", async () => {
		const result = await write({ mode: "replace", todos: items(...SEED_TEXTS) });
		expect(result.text).toBe(
			"Wrote 3 todo item(s)\n\n– [0] Write database schema\n– [1] Implement migration script\n– [2] Add API endpoints",
		);
		expect(result.details).toStrictEqual({ action: "write", todos: seedList() });
		expect(getTodos()).toEqual(seedList());
	});

	it("replaces an existing list, statuses included", async () => {
		setTodos([todo("old", "in_progress"), todo("older", "completed")]);
		await write({ mode: "replace", todos: items("new") });
		expect(getTodos()).toEqual([todo("new")]);
	});

	it("clears the list with an empty replace, a real snapshot (defect 5)", async () => {
		setTodos(seedList());
		const result = await write({ mode: "replace", todos: [] });
		expect(result.text).toBe("Wrote 0 todo item(s)\n\nNo todos");
		expect(result.details).toStrictEqual({ action: "write", todos: [] });
		expect(getTodos()).toEqual([]);
	});

	it("shows the status bar progress", async () => {
		await write({ mode: "replace", todos: items(...SEED_TEXTS) });
		expect(ui.status.get("til-done")).toBe("📋 0/3 [░░░░░░░░░░]");
		expect(ui.status.has("til-done-active")).toBe(false);
	});

	it("clears the status bar when the list is emptied", async () => {
		await write({ mode: "replace", todos: items("a") });
		await write({ mode: "replace", todos: [] });
		expect(ui.status.has("til-done")).toBe(false);
		expect(ui.status.has("til-done-active")).toBe(false);
	});

	it("stores a snapshot that is a copy of the list", async () => {
		const { details } = await write({ mode: "replace", todos: items("a") });
		updateTodoStatus([0], "completed");
		expect(details).toStrictEqual({ action: "write", todos: [todo("a")] });
	});

	it("ignores extra keys on the input items", async () => {
		await write({ mode: "replace", todos: [{ text: "a", status: "completed", extra: 1 }] });
		expect(getTodos()).toStrictEqual([todo("a")]);
	});

	it("accepts exactly 100 items of exactly 1000 characters", async () => {
		const texts = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(1000, "x"));
		const result = await write({ mode: "replace", todos: items(...texts) });
		expect(getTodos()).toHaveLength(100);
		expect((result.details as { todos: TodoItem[] }).todos.map((t) => t.text)).toEqual(texts);
	});

	it("flattens line breaks in the answer (defect 12)", async () => {
		const { text } = await write({ mode: "replace", todos: items("a\nNext action: x", "b") });
		expect(text).toBe("Wrote 2 todo item(s)\n\n– [0] a Next action: x\n– [1] b");
	});
});

describe("a long list's results say what changed and what comes next, not the list again (defect 11)", () => {
	/** 100 items of 1,000 characters: `0xxx…`, `1xxx…`, … */
	const LONG = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(1000, "x"));
	const NOTE = "(A long list: results name what changed and what comes next; list_todos shows it all.)";
	/** The first 59 characters of an item's text and an ellipsis: 60 in all. */
	const quoted = (index: number) => `${must(LONG[index], "an item").slice(0, 59)}…`;

	it("a write names the progress and the next item, says where the list is, and keeps every item in the snapshot", async () => {
		const { text, details } = await write({ mode: "replace", todos: items(...LONG) });
		expect(text).toBe(`Wrote 100 todo item(s)\n\n0/100 finished; next: [0] ${quoted(0)}\n${NOTE}`);
		expect(details).toStrictEqual({ action: "write", todos: LONG.map((text) => todo(text)) });
	});

	it("starting the next item names only the progress: the call just named it", async () => {
		setTodos(LONG.map((text) => todo(text)));
		expect((await edit({ action: "start", indices: [0] })).text).toBe("Started [0]\n\n0/100 finished");
	});

	it("completing an item names the next one, with its marks", async () => {
		setTodos([
			todo(must(LONG[0], "an item"), "in_progress"),
			{ ...todo(must(LONG[1], "an item")), review: true },
			...LONG.slice(2).map((text) => todo(text)),
		]);
		expect((await edit({ action: "complete", indices: [0] })).text).toBe(
			`Completed [0]\n\n1/100 finished; next: [1] ${quoted(1)} (review)`,
		);
	});

	it("the last completion says all are finished", async () => {
		setTodos([
			...LONG.slice(0, 99).map((text) => todo(text, "completed")),
			todo(must(LONG[99], "an item"), "in_progress"),
		]);
		expect((await edit({ action: "complete", indices: [99] })).text).toBe("Completed [99]\n\n100/100 finished");
	});

	it("a list that fits keeps the seed's format in full", async () => {
		const { text } = await write({ mode: "replace", todos: items("a", "b") });
		expect(text).toBe("Wrote 2 todo item(s)\n\n– [0] a\n– [1] b");
	});
});

describe("write_todos append", () => {
	it("appends and answers as in the tool reference", async () => {
		setTodos(seedList());
		const result = await write({ mode: "append", todos: items("Write unit tests", "Update documentation") });
		expect(result.text).toBe(
			"Appended 2 item(s)\n\n– [0] Write database schema\n– [1] Implement migration script\n– [2] Add API endpoints\n– [3] Write unit tests\n– [4] Update documentation",
		);
		expect(result.details).toStrictEqual({
			action: "write",
			todos: [...seedList(), todo("Write unit tests"), todo("Update documentation")],
		});
	});

	it("keeps the statuses of existing items", async () => {
		setTodos([todo("a", "completed"), todo("b", "in_progress")]);
		await write({ mode: "append", todos: items("c") });
		expect(getTodos()).toEqual([todo("a", "completed"), todo("b", "in_progress"), todo("c")]);
		expect(ui.status.get("til-done")).toBe("📋 1/3 [███░░░░░░░]");
		expect(ui.status.get("til-done-active")).toBe("[1] b");
	});

	it("appends to an empty list", async () => {
		const result = await write({ mode: "append", todos: items("a") });
		expect(result.text).toBe("Appended 1 item(s)\n\n– [0] a");
	});

	it("may fill the list to exactly 100 items", async () => {
		setTodos(Array.from({ length: 99 }, (_, i) => todo(`t${i}`)));
		await write({ mode: "append", todos: items("last") });
		expect(getTodos()).toHaveLength(100);
	});
});

describe("write_todos insert", () => {
	it("inserts at the index and answers as in the tool reference", async () => {
		setTodos(seedList());
		const result = await write({ mode: "insert", index: 1, todos: items("Critical fix") });
		expect(result.text).toBe(
			"Inserted 1 item(s) at index 1\n\n– [0] Write database schema\n– [1] Critical fix\n– [2] Implement migration script\n– [3] Add API endpoints",
		);
		expect(result.details).toStrictEqual({
			action: "write",
			todos: [todo("Write database schema"), todo("Critical fix"), ...seedList().slice(1)],
		});
	});

	it.each([
		[0, ["x", "y", "a", "b"]],
		[2, ["a", "b", "x", "y"]],
	])("accepts index %i (0 to N inclusive)", async (index, texts) => {
		setTodos([todo("a"), todo("b")]);
		const result = await write({ mode: "insert", index, todos: items("x", "y") });
		expect(result.text.split("\n")[0]).toBe(`Inserted 2 item(s) at index ${index}`);
		expect(getTodos().map((t) => t.text)).toEqual(texts);
	});

	it("inserts at index 0 of an empty list", async () => {
		await write({ mode: "insert", index: 0, todos: items("a") });
		expect(getTodos()).toEqual([todo("a")]);
	});

	it("keeps the statuses of existing items", async () => {
		setTodos([todo("a", "completed"), todo("b", "in_progress")]);
		await write({ mode: "insert", index: 1, todos: items("x") });
		expect(getTodos()).toEqual([todo("a", "completed"), todo("x"), todo("b", "in_progress")]);
		expect(ui.status.get("til-done-active")).toBe("[2] b");
	});
});

describe("write_todos errors: exact text, details.error, empty details.todos, nothing changed", () => {
	beforeEach(() => {
		setTodos([todo("a", "completed"), todo("b", "in_progress"), todo("c")]);
	});

	it.each(["replace", "append"])("rejects text over 1000 characters in %s mode, naming the first such item", (mode) =>
		expectError(
			write({ mode, todos: items("ok", "x".repeat(1001), "y".repeat(2000)) }),
			"write",
			"Error: todo item at index 1 exceeds maximum text length (1000 characters)",
			"text too long",
		),
	);

	it("rejects text over 1000 characters in insert mode", () =>
		expectError(
			write({ mode: "insert", index: 0, todos: items("x".repeat(1001)) }),
			"write",
			"Error: todo item at index 0 exceeds maximum text length (1000 characters)",
			"text too long",
		));

	it.each([
		["an empty text", ""],
		["a blank text", "  \n\t"],
	])("rejects %s (defect 7)", (_name, text) =>
		expectError(
			write({ mode: "replace", todos: items("ok", text) }),
			"write",
			"Error: todo item at index 1 has empty text",
			"empty text",
		),
	);

	it.each([
		["a missing", {}],
		["a number", { text: 5 }],
		["a null", null],
	])("rejects an item with %s text (schema bypassed)", (_name, item) =>
		expectError(
			write({ mode: "append", todos: [{ text: "ok" }, item] }),
			"write",
			"Error: todo item at index 1 has empty text",
			"empty text",
		),
	);

	it.each([undefined, null])("requires an index in insert mode (index %s)", (index) =>
		expectError(
			write({ mode: "insert", index, todos: items("x") }),
			"write",
			"Error: 'index' is required for the 'insert' mode",
			"index required for insert",
		),
	);

	it.each([
		[4, "4"],
		[-1, "-1"],
		[1.5, "1.5"],
		[2 ** 53, "9007199254740992"],
		[Number.NaN, "NaN"],
		["1", "1"],
	])("rejects the insert index %j, naming the range 0 to N", (index, shown) =>
		expectError(
			write({ mode: "insert", index, todos: items("x") }),
			"write",
			`Error: index ${shown} out of range (0 to 3)`,
			`index ${shown} out of range (0 to 3)`,
		),
	);

	it("rejects an append past 100 items", async () => {
		setTodos(Array.from({ length: 99 }, (_, i) => todo(`t${i}`)));
		await expectError(
			write({ mode: "append", todos: items("x", "y") }),
			"write",
			"Error: appending 2 item(s) would exceed maximum of 100 todos (currently 99)",
			"max todos exceeded",
		);
	});

	it("rejects an insert past 100 items", async () => {
		setTodos(Array.from({ length: 100 }, (_, i) => todo(`t${i}`)));
		await expectError(
			write({ mode: "insert", index: 0, todos: items("x") }),
			"write",
			"Error: inserting 1 item(s) would exceed maximum of 100 todos (currently 100)",
			"max todos exceeded",
		);
	});

	it("rejects a replace of more than 100 items (schema bypassed)", () =>
		expectError(
			write({ mode: "replace", todos: items(...Array.from({ length: 101 }, (_, i) => `t${i}`)) }),
			"write",
			"Error: writing 101 item(s) would exceed maximum of 100 todos",
			"max todos exceeded",
		));

	it.each(["delete", undefined, 3])("rejects the unknown mode %j", (mode) =>
		expectError(
			write({ mode, todos: items("x") }),
			"write",
			`Error: unknown mode '${String(mode)}' (expected replace, append or insert)`,
			"invalid mode",
		),
	);

	it.each([undefined, "a, b", { text: "a" }])("rejects todos that are not an array (%j)", (todos) =>
		expectError(
			write({ mode: "replace", todos }),
			"write",
			"Error: 'todos' must be an array of { text }",
			"invalid todos",
		),
	);
});

describe("list_todos", () => {
	it("says `No todos` for an empty list", async () => {
		const result = await list();
		expect(result.text).toBe("No todos");
		expect(result.details).toStrictEqual({ action: "list", todos: [], view: [] });
	});

	it("lists every item with its icon, as in the tool reference", async () => {
		setTodos([todo(SEED_TEXTS[0]), todo(SEED_TEXTS[1], "in_progress"), todo(SEED_TEXTS[2], "completed")]);
		const result = await list();
		expect(result.text).toBe("– [0] Write database schema\n● [1] Implement migration script\n✓ [2] Add API endpoints");
	});

	it("keeps details.todos empty, for reconstruction, and carries the list in `view` (defect 6)", async () => {
		setTodos([todo("a", "abandoned"), todo("b")]);
		const { details } = await list();
		expect(details).toStrictEqual({ action: "list", todos: [], view: [todo("a", "abandoned"), todo("b")] });
	});

	it("stores a copy in `view`", async () => {
		setTodos([todo("a")]);
		const { details } = await list();
		updateTodoStatus([0], "completed");
		expect((details as { view: TodoItem[] }).view).toEqual([todo("a")]);
	});

	it("is read-only: no state change and no status bar update", async () => {
		setTodos([todo("a", "in_progress")]);
		const paintedBefore = ui.statusCalls.length;
		await list();
		expect(getTodos()).toEqual([todo("a", "in_progress")]);
		expect(ui.statusCalls).toHaveLength(paintedBefore);
	});

	it("shows a list that fits one page in full, without a page note", async () => {
		setTodos([todo("a"), todo("b", "completed")]);
		expect((await list()).text).toBe("– [0] a\n✓ [1] b");
	});
});

describe("list_todos pages a list too long for one page (10,000 characters)", () => {
	const long = () => Array.from({ length: 100 }, (_, i) => todo(`${i}`.padEnd(1000, "x")));

	it("shows the first page with a pointer to the next offset", async () => {
		setTodos(long());
		const { text, details } = await list();
		const lines = text.split("\n");
		expect(text.length).toBeLessThanOrEqual(10_000 + lines.at(-1)!.length);
		expect(lines).toHaveLength(10);
		expect(lines[8]).toBe(`– [8] ${"8".padEnd(1000, "x")}`);
		expect(lines.at(-1)).toBe("(items 0 to 8 of 100; call list_todos with offset 9 for more)");
		expect((details as { view: TodoItem[] }).view).toHaveLength(100);
	});

	it("continues from the offset", async () => {
		setTodos(long());
		const lines = (await call(listTool, { offset: 9 })).text.split("\n");
		expect(lines[0]).toBe(`– [9] ${"9".padEnd(1000, "x")}`);
		expect(lines.at(-1)).toBe("(items 9 to 17 of 100; call list_todos with offset 18 for more)");
	});

	it("ends the last page without a pointer", async () => {
		setTodos(long());
		const { text } = await call(listTool, { offset: 99 });
		expect(text).toBe(`– [99] ${"99".padEnd(1000, "x")}\n(items 99 to 99 of 100)`);
	});

	it("pages a short list too when an offset is given", async () => {
		setTodos([todo("a"), todo("b")]);
		expect((await call(listTool, { offset: 1 })).text).toBe("– [1] b\n(items 1 to 1 of 2)");
	});

	it("says there is nothing at an offset equal to the length", async () => {
		setTodos([todo("a"), todo("b")]);
		expect((await call(listTool, { offset: 2 })).text).toBe("No todos from index 2 (the list has 2)");
	});

	it.each([
		[3, "3"],
		[-1, "-1"],
		[1.5, "1.5"],
		["1", "1"],
	])("rejects the offset %j", async (offset, shown) => {
		setTodos([todo("a"), todo("b")]);
		const result = await call(listTool, { offset });
		expect(result.text).toBe(`Error: offset ${shown} out of range (0 to 2)`);
		expect(result.details).toStrictEqual({ action: "list", todos: [], error: `offset ${shown} out of range (0 to 2)` });
	});
});

describe("edit_todos actions", () => {
	beforeEach(() => {
		setTodos(seedList());
	});

	it("starts items and answers as in the tool reference", async () => {
		const result = await edit({ action: "start", indices: [0, 1] });
		expect(result.text).toBe(
			"Started [0, 1]\n\n● [0] Write database schema\n● [1] Implement migration script\n– [2] Add API endpoints",
		);
		expect(result.details).toStrictEqual({
			action: "edit",
			todos: [todo(SEED_TEXTS[0], "in_progress"), todo(SEED_TEXTS[1], "in_progress"), todo(SEED_TEXTS[2])],
		});
		expect(ui.status.get("til-done")).toBe("📋 0/3 [░░░░░░░░░░]");
		expect(ui.status.get("til-done-active")).toBe("[0] Write database schema [1] Implement migration script");
	});

	it("completes items with the label Completed", async () => {
		const result = await edit({ action: "complete", indices: [2] });
		expect(result.text).toBe(
			"Completed [2]\n\n– [0] Write database schema\n– [1] Implement migration script\n✓ [2] Add API endpoints",
		);
		expect(must(getTodos()[2], "item 2").status).toBe("completed");
		expect(ui.status.get("til-done")).toBe("📋 1/3 [███░░░░░░░]");
	});

	it("abandons items with the label Abandoned", async () => {
		const result = await edit({ action: "abandon", indices: [0] });
		expect(result.text).toBe(
			"Abandoned [0]\n\n✗ [0] Write database schema\n– [1] Implement migration script\n– [2] Add API endpoints",
		);
		expect(result.details).toStrictEqual({
			action: "edit",
			todos: [todo(SEED_TEXTS[0], "abandoned"), todo(SEED_TEXTS[1]), todo(SEED_TEXTS[2])],
		});
	});

	it("shows ✓ Done when every item is completed or abandoned, and clears the active line", async () => {
		await edit({ action: "start", indices: [0] });
		await edit({ action: "complete", indices: [0, 1] });
		await edit({ action: "abandon", indices: [2] });
		expect(ui.status.get("til-done")).toBe("✓ Done (3 items)");
		expect(ui.status.has("til-done-active")).toBe(false);
	});

	it("can move a finished item back to in progress", async () => {
		await edit({ action: "complete", indices: [0] });
		await edit({ action: "start", indices: [0] });
		expect(must(getTodos()[0], "item 0").status).toBe("in_progress");
	});

	it("accepts 50 indices, repeats included", async () => {
		const result = await edit({ action: "complete", indices: Array.from({ length: 50 }, (_, i) => i % 3) });
		expect(result.text.startsWith("Completed [0, 1, 2, 0, 1, 2,")).toBe(true);
		expect(getTodos().every((t) => t.status === "completed")).toBe(true);
	});
});

describe("edit_todos errors: atomic, exact text, details.error, empty details.todos", () => {
	it("fails atomically when one index is out of range (0 to N-1)", async () => {
		setTodos(seedList());
		await expectError(
			edit({ action: "complete", indices: [0, 5] }),
			"edit",
			"Error: indices [5] out of range (0 to 2)",
			"indices [5] out of range (0 to 2)",
		);
		expect(must(getTodos()[0], "item 0").status).toBe("not_started");
	});

	it("names every bad index", async () => {
		setTodos(seedList());
		await expectError(
			edit({ action: "start", indices: [-1, 1, 3, 7] }),
			"edit",
			"Error: indices [-1, 3, 7] out of range (0 to 2)",
			"indices [-1, 3, 7] out of range (0 to 2)",
		);
	});

	it.each([
		[1.5, "1.5"],
		[1e21, "1e+21"],
		[2 ** 53, "9007199254740992"],
		[Number.NaN, "NaN"],
		["1", '"1"'],
		[null, "null"],
		[true, "true"],
		["x".repeat(100), `"${"x".repeat(19)}…`],
	])("rejects the index %j (schema bypassed), shown as %s", async (index, shown) => {
		setTodos(seedList());
		await expectError(
			edit({ action: "complete", indices: [0, index] }),
			"edit",
			`Error: indices [${shown}] out of range (0 to 2)`,
			`indices [${shown}] out of range (0 to 2)`,
		);
	});

	it("says no todos exist for an empty list", () =>
		expectError(edit({ action: "start", indices: [0] }), "edit", "Error: no todos exist", "no todos exist"));

	it.each([
		["empty", []],
		["missing", undefined],
		["not an array", 0],
	])("requires indices (%s), before looking at the list", (_name, indices) =>
		expectError(
			edit({ action: "complete", indices }),
			"edit",
			"Error: 'indices' is required for start/complete/abandon actions",
			"indices required",
		),
	);

	it("rejects 51 indices", async () => {
		setTodos(seedList());
		await expectError(
			edit({ action: "complete", indices: Array.from({ length: 51 }, () => 0) }),
			"edit",
			"Error: at most 50 indices per call (got 51)",
			"too many indices",
		);
	});

	it.each(["finish", "", undefined, "toString"])("rejects the unknown action %j", async (action) => {
		setTodos(seedList());
		await expectError(
			edit({ action, indices: [0] }),
			"edit",
			`Error: unknown action '${String(action)}' (expected start, complete or abandon)`,
			"invalid action",
		);
	});
});

describe("renderCall", () => {
	const title = (name: string) => `<toolTitle><b>${name}</b></toolTitle>`;

	it.each(["replace", "append"] as const)("shows `write_todos %s (N items)`", (mode) => {
		const rendered = writeTool.renderCall!({ mode, todos: items("a", "b", "c") }, taggingTheme, renderContext);
		expect(textOf(rendered)).toBe(`${title("write_todos")} <warning>${mode}</warning> <muted>(3 items)</muted>`);
	});

	it("shows `write_todos insert (N items @INDEX)`", () => {
		const rendered = writeTool.renderCall!(
			{ mode: "insert", index: 4, todos: items("a") },
			taggingTheme,
			renderContext,
		);
		expect(textOf(rendered)).toBe(`${title("write_todos")} <warning>insert</warning> <muted>(1 items @4)</muted>`);
	});

	it("copes with partial arguments while the call streams in", () => {
		const partial = {} as Parameters<NonNullable<typeof writeTool.renderCall>>[0];
		expect(textOf(writeTool.renderCall!(partial, taggingTheme, renderContext))).toBe(
			`${title("write_todos")} <warning></warning> <muted>(0 items)</muted>`,
		);
		const partialEdit = {} as Parameters<NonNullable<typeof editTool.renderCall>>[0];
		expect(textOf(editTool.renderCall!(partialEdit, taggingTheme, renderContext))).toBe(
			`${title("edit_todos")} <warning></warning> <accent>[]</accent>`,
		);
	});

	it("shows `list_todos`", () => {
		expect(textOf(listTool.renderCall!({}, taggingTheme, renderContext))).toBe(title("list_todos"));
	});

	it("shows `edit_todos action [indices]`", () => {
		const rendered = editTool.renderCall!({ action: "start", indices: [0, 1] }, taggingTheme, renderContext);
		expect(textOf(rendered)).toBe(`${title("edit_todos")} <warning>start</warning> <accent>[0, 1]</accent>`);
	});
});

describe("renderResult", () => {
	const render = (tool: typeof writeTool | typeof listTool | typeof editTool, result: unknown) => {
		const renderResult = tool.renderResult as (
			result: unknown,
			options: typeof renderOptions,
			theme: typeof taggingTheme,
			context: ToolRenderContext,
		) => Parameters<typeof textOf>[0];
		return textOf(renderResult(result, renderOptions, taggingTheme, renderContext));
	};

	it("shows the raw text when there are no details", () => {
		expect(render(writeTool, { content: [{ type: "text", text: "plain answer" }] })).toBe("plain answer");
	});

	it("shows a themed error", async () => {
		const result = await write({ mode: "insert", todos: items("a") });
		expect(render(writeTool, { content: [{ type: "text", text: result.text }], details: result.details })).toBe(
			"<error>Error: index required for insert</error>",
		);
	});

	it("shows the themed list of a write or edit", async () => {
		await write({ mode: "replace", todos: items("a", "b") });
		const result = await edit({ action: "complete", indices: [1] });
		expect(render(editTool, { content: [{ type: "text", text: result.text }], details: result.details })).toBe(
			"<dim>–</dim> <accent>[0]</accent> <text>a</text>\n<success>✓</success> <accent>[1]</accent> <dim><s>b</s></dim>",
		);
	});

	it("shows the real list of a list result, from `view` (defect 6)", async () => {
		setTodos([todo("a", "in_progress"), todo("b", "abandoned")]);
		const result = await list();
		expect(render(listTool, { content: [{ type: "text", text: result.text }], details: result.details })).toBe(
			"<warning>●</warning> <accent>[0]</accent> <text>a</text>\n<error>✗</error> <accent>[1]</accent> <dim><s>b</s></dim>",
		);
	});
});

describe("without a UI", () => {
	it("changes the list but writes no status", async () => {
		({ ctx, ui } = createFakeCtx({ hasUI: false }));
		await write({ mode: "replace", todos: items("a") });
		await edit({ action: "start", indices: [0] });
		expect(getTodos()).toEqual([todo("a", "in_progress")]);
		expect(ui.statusCalls).toEqual([]);
	});
});

describe("pause_todos (beyond the seed): the model stops the auto-continue honestly", () => {
	const pause = (params: unknown) => call(pauseTool as unknown as typeof writeTool, params);

	it("is named pause_todos, labelled Pause Todos, runs sequentially, reason of 1 to 500 characters", () => {
		expect(pauseTool.name).toBe("pause_todos");
		expect(pauseTool.label).toBe("Pause Todos");
		expect(pauseTool.executionMode).toBe("sequential");
		// The 1-to-500 rule is checked in `execute` (below), whose error says it in this extension's words.
		expect(PauseTodosParams.properties.reason).toMatchObject({ type: "string" });
		expect(PauseTodosParams.properties.reason).not.toHaveProperty("description");
	});

	it("pauses on behalf of the model, shows it and tells the user", async () => {
		setTodos([todo("a")]);
		const result = await pause({ reason: "  need the API key  " });
		expect(result.text).toBe("Auto-continue paused until the user replies.");
		expect(result.details).toStrictEqual({ action: "pause", reason: "need the API key" });
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "model", pauseReason: "need the API key" });
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: need the API key");
		expect(ui.notifications).toEqual([
			{ message: "Auto-continue paused by the model: need the API key", type: "warning" },
		]);
	});

	it.each([
		["empty", ""],
		["blank", "   "],
		["too long", "x".repeat(501)],
		["not a string", 5],
	])("rejects a reason that is %s and does not pause", async (_name, reason) => {
		const result = await pause({ reason });
		expect(result.text).toBe("Error: reason must be 1 to 500 characters");
		expect(result.details).toStrictEqual({ action: "pause", reason: "", error: "reason must be 1 to 500 characters" });
		expect(getChain().paused).toBe(false);
	});

	it("renders the call and the result", () => {
		expect(textOf(pauseTool.renderCall!({ reason: "why" }, taggingTheme, renderContext))).toBe(
			"<toolTitle><b>pause_todos</b></toolTitle> <muted>why</muted>",
		);
		const ok = { content: [], details: { action: "pause" as const, reason: "why" } };
		expect(textOf(pauseTool.renderResult!(ok, renderOptions, taggingTheme, renderContext))).toBe(
			"<warning>⏸</warning> <text>why</text>",
		);
		const failed = { content: [], details: { action: "pause" as const, reason: "", error: "bad" } };
		expect(textOf(pauseTool.renderResult!(failed, renderOptions, taggingTheme, renderContext))).toBe(
			"<error>Error: bad</error>",
		);
	});

	it("renders a call without a reason, and a result without a string reason as a plain tool result", () => {
		const noArgs = undefined as unknown as Parameters<NonNullable<typeof pauseTool.renderCall>>[0];
		expect(textOf(pauseTool.renderCall!(noArgs, taggingTheme, renderContext))).toBe(
			"<toolTitle><b>pause_todos</b></toolTitle> <muted></muted>",
		);
		const raw = { content: [{ type: "text" as const, text: "raw" }], details: undefined as never };
		expect(textOf(pauseTool.renderResult!(raw, renderOptions, taggingTheme, renderContext))).toBe("raw");
		const odd = { content: [{ type: "text" as const, text: "raw" }], details: { action: "pause", reason: 5 } as never };
		expect(textOf(pauseTool.renderResult!(odd, renderOptions, taggingTheme, renderContext))).toBe(
			"<dim>No todos</dim>",
		);
	});
});
