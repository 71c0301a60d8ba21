import { beforeEach, describe, expect, it } from "vitest";
import { initialChain } from "../../src/continuation.ts";
import {
	appendTodos,
	getChain,
	getLoop,
	getTodos,
	incrementAutoContinue,
	insertTodos,
	isCompletionAnnounced,
	isPanelEnabled,
	markCompletionAnnounced,
	pauseAutoContinue,
	reconstructState,
	resetChain,
	resetState,
	resumeAutoContinue,
	SNAPSHOT_ENTRY_TYPE,
	setLoop,
	setPanelEnabled,
	setTodos,
	updateTodoStatus,
	updateUI,
} from "../../src/state.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

/** A session entry holding one tool result, shaped as pi stores it. */
function toolResult(toolName: string, details: unknown, isError = false): unknown {
	return { type: "message", id: `e${Math.random()}`, message: { role: "toolResult", toolName, details, isError } };
}
const write = (todos: unknown[]) => toolResult("write_todos", { action: "write", todos });
const edit = (todos: unknown[]) => toolResult("edit_todos", { action: "edit", todos });
const userMessage = { type: "message", message: { role: "user", content: "hello" } };

function rebuild(branch: readonly unknown[] | (() => readonly unknown[])): TodoItem[] {
	return reconstructState(createFakeCtx({ branch }).ctx);
}

beforeEach(() => {
	resetState();
});

describe("mutators change the list and nothing aliases it", () => {
	it("starts empty", () => {
		expect(getTodos()).toEqual([]);
	});

	it("setTodos replaces the list with copies of the items", () => {
		const items = [todo("a"), todo("b")];
		setTodos(items);
		items[0].status = "completed";
		items.push(todo("c"));
		expect(getTodos()).toEqual([todo("a"), todo("b")]);
	});

	it("appendTodos adds to the end", () => {
		setTodos([todo("a", "in_progress")]);
		appendTodos([todo("b"), todo("c")]);
		expect(getTodos()).toEqual([todo("a", "in_progress"), todo("b"), todo("c")]);
	});

	it.each([
		[0, ["x", "a", "b"]],
		[1, ["a", "x", "b"]],
		[2, ["a", "b", "x"]],
	])("insertTodos at %i puts the items there", (index, texts) => {
		setTodos([todo("a"), todo("b")]);
		insertTodos(index, [todo("x")]);
		expect(getTodos().map((item) => item.text)).toEqual(texts);
	});

	it("updateTodoStatus sets every named index and leaves the rest alone", () => {
		setTodos([todo("a"), todo("b"), todo("c")]);
		updateTodoStatus([0, 2], "completed");
		expect(getTodos()).toEqual([todo("a", "completed"), todo("b"), todo("c", "completed")]);
	});

	it("resetState empties the list and the chain", () => {
		setTodos([todo("a")]);
		incrementAutoContinue();
		resetState();
		expect(getTodos()).toEqual([]);
		expect(getChain()).toEqual(initialChain());
	});
});

describe("reconstructState rebuilds the list from the last trustworthy snapshot on the branch", () => {
	it("returns [] for an empty branch", () => {
		setTodos([todo("stale")]);
		expect(rebuild([])).toEqual([]);
		expect(getTodos()).toEqual([]);
	});

	it("takes the last snapshot when there are several", () => {
		const branch = [write([todo("old")]), userMessage, edit([todo("new", "in_progress")]), userMessage];
		expect(rebuild(branch)).toEqual([todo("new", "in_progress")]);
		expect(getTodos()).toEqual([todo("new", "in_progress")]);
	});

	it("skips list results, even one that claims a non-empty list", () => {
		const branch = [
			write([todo("real")]),
			toolResult("list_todos", { action: "list", todos: [], view: [todo("view")] }),
			toolResult("list_todos", { action: "list", todos: [todo("forged")] }),
		];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("skips error results, even one that carries todos", () => {
		const branch = [
			write([todo("real")]),
			toolResult("write_todos", { action: "write", todos: [], error: "text too long" }),
			toolResult("edit_todos", { action: "edit", todos: [todo("forged")], error: "no todos exist" }),
		];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("skips results pi marked isError", () => {
		const branch = [write([todo("real")]), toolResult("write_todos", { action: "write", todos: [todo("x")] }, true)];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("keeps an empty replace snapshot: a cleared list stays cleared (defect 5)", () => {
		expect(rebuild([write([todo("old")]), write([])])).toEqual([]);
	});

	it("skips a snapshot with one invalid item as a whole", () => {
		const branch = [write([todo("good")]), edit([todo("fine"), { text: "", status: "completed" }])];
		expect(rebuild(branch)).toEqual([todo("good")]);
	});

	it.each([
		["an unknown status", { text: "a", status: "done" }],
		["an extra key", { text: "a", status: "not_started", x: 1 }],
		["an oversized text", { text: "x".repeat(1001), status: "not_started" }],
		["a null item", null],
	])("skips a snapshot holding %s", (_name, item) => {
		expect(rebuild([write([todo("good")]), write([todo("fine"), item])])).toEqual([todo("good")]);
	});

	it("skips a snapshot of more than 100 items", () => {
		const tooMany = Array.from({ length: 101 }, (_, i) => todo(`t${i}`));
		expect(rebuild([write([todo("good")]), write(tooMany)])).toEqual([todo("good")]);
	});

	it("skips details that are not a snapshot", () => {
		const branch = [
			write([todo("good")]),
			toolResult("write_todos", undefined),
			toolResult("write_todos", "text"),
			toolResult("write_todos", { action: "write", todos: "not an array" }),
			toolResult("edit_todos", { action: "other", todos: [todo("x")] }),
		];
		expect(rebuild(branch)).toEqual([todo("good")]);
	});

	it("accepts a custom entry of type til-done-snapshot", () => {
		const custom = { type: "custom", customType: SNAPSHOT_ENTRY_TYPE, data: { action: "edit", todos: [todo("mine")] } };
		expect(rebuild([write([todo("tool")]), custom])).toEqual([todo("mine")]);
	});

	it("ignores custom entries of other types", () => {
		const other = { type: "custom", customType: "someone-else", data: { action: "write", todos: [todo("x")] } };
		expect(rebuild([write([todo("tool")]), other])).toEqual([todo("tool")]);
	});

	it("ignores results of other tools with the same shape", () => {
		const branch = [write([todo("mine")]), toolResult("bash", { action: "write", todos: [todo("theirs")] })];
		expect(rebuild(branch)).toEqual([todo("mine")]);
	});

	it("ignores entries that are not tool results", () => {
		const branch = [
			write([todo("mine")]),
			null,
			"junk",
			{ type: "message", message: null },
			{ type: "message", message: { role: "assistant", details: { action: "write", todos: [todo("x")] } } },
			{ type: "compaction", details: { action: "write", todos: [todo("x")] } },
		];
		expect(rebuild(branch)).toEqual([todo("mine")]);
	});

	it("returns [] for an unreadable branch", () => {
		setTodos([todo("stale")]);
		const unreadable = () => {
			throw new Error("session file gone");
		};
		expect(rebuild(unreadable)).toEqual([]);
		expect(getTodos()).toEqual([]);
	});

	it("returns a copy: changing it does not change the list", () => {
		const rebuilt = rebuild([write([todo("a")])]);
		rebuilt[0].status = "completed";
		expect(getTodos()).toEqual([todo("a")]);
	});

	it("starts a fresh chain", () => {
		setTodos([todo("a")]);
		incrementAutoContinue();
		rebuild([write([todo("a")])]);
		expect(getChain()).toEqual(initialChain());
	});
});

describe("chain counters", () => {
	it("incrementAutoContinue counts continuations and marks the next run as one", () => {
		expect(incrementAutoContinue()).toBe(1);
		expect(incrementAutoContinue()).toBe(2);
		expect(getChain()).toMatchObject({ continuations: 2, runIsContinuation: true, progressed: false });
	});

	it("resetChain starts every counter again", () => {
		incrementAutoContinue();
		incrementAutoContinue();
		resetChain();
		expect(getChain()).toEqual(initialChain());
	});

	it("a write or edit does not reset the continuation count (defect 9: churn is not progress)", () => {
		setTodos([todo("a"), todo("b")]);
		incrementAutoContinue();
		updateTodoStatus([0], "in_progress");
		appendTodos([todo("c")]);
		insertTodos(0, [todo("d")]);
		setTodos([todo("e")]);
		expect(getChain().continuations).toBe(1);
	});

	it("completing an item sets progressed", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		incrementAutoContinue();
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(true);
	});

	it("abandoning an item sets progressed", () => {
		setTodos([todo("a")]);
		resetChain();
		incrementAutoContinue();
		updateTodoStatus([0], "abandoned");
		expect(getChain().progressed).toBe(true);
	});

	it("starting an item, appending or rewriting the list is not progress", () => {
		setTodos([todo("a")]);
		resetChain();
		incrementAutoContinue();
		updateTodoStatus([0], "in_progress");
		appendTodos([todo("b")]);
		insertTodos(0, [todo("c")]);
		setTodos([todo("d")]);
		expect(getChain().progressed).toBe(false);
	});

	it("re-completing the same text in the same chain is not progress", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		updateTodoStatus([0], "completed");
		incrementAutoContinue();
		updateTodoStatus([0], "in_progress");
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});

	it("rewriting the list with a finished text and finishing it again is not progress", () => {
		setTodos([todo("a")]);
		resetChain();
		updateTodoStatus([0], "completed");
		incrementAutoContinue();
		setTodos([todo("a")]);
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});

	it("items already finished when the chain starts are not progress", () => {
		setTodos([todo("a"), todo("b")]);
		updateTodoStatus([0], "completed");
		resetChain();
		incrementAutoContinue();
		setTodos([todo("a", "completed"), todo("b")]);
		expect(getChain().progressed).toBe(false);
	});

	it("resetChain keeps a pause the user asked for and ends one the model asked for", () => {
		pauseAutoContinue("user", "busy");
		resetChain();
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "busy" });
		pauseAutoContinue("model", "question");
		resetChain();
		expect(getChain().paused).toBe(false);
	});
});

describe("updateUI writes the status bar", () => {
	it("does nothing without a UI", () => {
		const { ctx, ui } = createFakeCtx({ hasUI: false });
		updateUI(ctx, [todo("a", "in_progress")]);
		expect(ui.statusCalls).toEqual([]);
		expect(ui.widgetCalls).toEqual([]);
	});

	it("shows progress and the in-progress items", () => {
		const { ctx, ui } = createFakeCtx();
		updateUI(ctx, [todo("a", "completed"), todo("b", "in_progress"), todo("c")]);
		expect(ui.status.get("til-done")).toBe("📋 1/3");
		expect(ui.status.get("til-done-active")).toBe("[1] b");
	});

	it("shows ✓ Done and clears the active line when every item is finished", () => {
		const { ctx, ui } = createFakeCtx();
		updateUI(ctx, [todo("a", "in_progress")]);
		updateUI(ctx, [todo("a", "completed"), todo("b", "abandoned")]);
		expect(ui.status.get("til-done")).toBe("✓ Done (2 items)");
		expect(ui.status.has("til-done-active")).toBe(false);
	});

	it("clears both keys for an empty list", () => {
		const { ctx, ui } = createFakeCtx();
		updateUI(ctx, [todo("a", "in_progress")]);
		updateUI(ctx, []);
		expect(ui.status.has("til-done")).toBe(false);
		expect(ui.status.has("til-done-active")).toBe(false);
		expect(ui.statusCalls).toContainEqual({ key: "til-done", text: undefined });
	});
});

describe("pause and completion notice (beyond the seed)", () => {
	it("pauseAutoContinue records who paused and why; resumeAutoContinue clears it", () => {
		pauseAutoContinue("model", "need an API key");
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "model", pauseReason: "need an API key" });
		resumeAutoContinue();
		expect(getChain()).toMatchObject({ paused: false, pausedBy: undefined, pauseReason: undefined });
	});

	it("shows the pause on the status bar and clears it on resume", () => {
		const { ctx, ui } = createFakeCtx();
		pauseAutoContinue("user", "lunch");
		updateUI(ctx, [todo("a")]);
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: lunch");
		resumeAutoContinue();
		updateUI(ctx, [todo("a")]);
		expect(ui.status.has("til-done-paused")).toBe(false);
	});

	it("forgets the completion notice once the list has work again", () => {
		setTodos([todo("a")]);
		markCompletionAnnounced();
		expect(isCompletionAnnounced()).toBe(true);
		appendTodos([todo("b")]);
		expect(isCompletionAnnounced()).toBe(false);
	});

	it("treats a list that was already finished when the session opened as announced", () => {
		rebuild([write([todo("a", "completed")])]);
		expect(isCompletionAnnounced()).toBe(true);
		rebuild([write([todo("a")])]);
		expect(isCompletionAnnounced()).toBe(false);
	});
});

describe("the optional panel above the editor (beyond the seed)", () => {
	it("is not drawn unless enabled", () => {
		const { ctx, ui } = createFakeCtx();
		updateUI(ctx, [todo("a")]);
		expect(ui.widgetCalls).toEqual([]);
		expect(isPanelEnabled()).toBe(false);
	});

	it("draws plain lines above the editor outside the terminal UI, and clears them for an empty list", () => {
		const { ctx, ui } = createFakeCtx({ mode: "rpc" });
		setPanelEnabled(true);
		updateUI(ctx, [todo("a", "completed"), todo("b", "in_progress")]);
		expect(ui.widgetCalls).toEqual([
			{ key: "til-done-panel", content: ["✓ [0] a", "● [1] b"], options: { placement: "aboveEditor" } },
		]);
		updateUI(ctx, []);
		expect(ui.widgets.has("til-done-panel")).toBe(false);
		updateUI(ctx, []);
		expect(ui.widgetCalls).toHaveLength(2);
	});

	it("uses the UI theme in the terminal", () => {
		const { ctx, ui } = createFakeCtx({ mode: "tui" });
		setPanelEnabled(true);
		updateUI(ctx, [todo("a")]);
		expect(ui.widgets.get("til-done-panel")).toEqual(["– [0] a"]);
	});
});

describe("the /loop in progress (beyond the seed)", () => {
	it("stores a copy, clears with undefined and is forgotten by resetState", () => {
		const loop = { prompt: "tidy up", max: 5, marker: "DONE", iteration: 1, failures: 0 };
		setLoop(loop);
		loop.iteration = 99;
		expect(getLoop()).toEqual({ prompt: "tidy up", max: 5, marker: "DONE", iteration: 1, failures: 0 });
		setLoop(undefined);
		expect(getLoop()).toBeUndefined();
		setLoop(loop);
		resetState();
		expect(getLoop()).toBeUndefined();
	});
});

describe("progress counts items, not just texts", () => {
	beforeEach(() => resetState());

	it("finishing a second item with the same text as one already finished is progress", () => {
		setTodos([
			{ text: "run the tests", status: "completed" },
			{ text: "run the tests", status: "not_started" },
		]);
		resetChain();
		incrementAutoContinue();
		updateTodoStatus([1], "completed");
		expect(getChain().progressed).toBe(true);
	});

	it("re-finishing the same single item after reopening it is not progress", () => {
		setTodos([{ text: "run the tests", status: "completed" }]);
		resetChain();
		updateTodoStatus([0], "in_progress");
		incrementAutoContinue();
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});
});
