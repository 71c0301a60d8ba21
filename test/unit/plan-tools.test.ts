import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import { linkError, RESULT_HEADERS, TOOL_ERRORS } from "../../src/core/texts/model.ts";
import { getTodos, setTodos } from "../../src/state.ts";
import { createEditTodosTool, createWriteTodosTool } from "../../src/tools.ts";
import type { TodoItem } from "../../src/types.ts";
import { scriptedChecks } from "../helpers/check-env.ts";
import {
	checkPassed,
	LINK_ERRORS,
	linkRefused,
	notReady,
	openSubtasksRefused,
	reviewRefused,
	reviewRewritten,
} from "../helpers/expected.ts";
import { createFakeCtx, type FakeUi } from "../helpers/fake-ctx.ts";
import { item, PLAN, planWith } from "../helpers/linked-lists.ts";
import { freshStore } from "../helpers/store.ts";
import { callTool, expectToolError } from "../helpers/tool-calls.ts";

let ctx: ExtensionContext;
let ui: FakeUi;
beforeEach(() => {
	({ ctx, ui } = createFakeCtx());
	freshStore(ctx);
});

const { env, ran } = scriptedChecks({ "npm run feature-tests": 1 });
const write = (params: unknown) => callTool(createWriteTodosTool(env), params, ctx);
const edit = (params: unknown) => callTool(createEditTodosTool(env), params, ctx);
const refused = (run: ReturnType<typeof write>, action: "write" | "edit", text: string, error: string) =>
	expectToolError(run, { action, text, error }, ui);

/** PLAN as the model writes it: texts and links, no statuses. */
const WRITTEN = PLAN.map(({ text, blockedBy, parent }) => ({ text, blockedBy, parent }));

describe("write_todos: items may wait for others and be subtasks of one", () => {
	it("stores the links, shows the waits as ⛓ and subtasks indented under their parent", async () => {
		const result = await write({ mode: "replace", todos: WRITTEN });
		expect(getTodos()).toEqual(PLAN);
		expect(result.text).toBe(
			[
				"Wrote 6 todo item(s)",
				"",
				"– [0] Design the schema",
				"– [1] Write the migration ⛓ [0]",
				"– [2] Ship the feature",
				"  – [3] Add the API",
				"  – [4] Add the UI ⛓ [3]",
				"– [5] Release ⛓ [1,2]",
			].join("\n"),
		);
		expect(result.details).toEqual({ action: "write", todos: PLAN });
	});

	it("an empty blockedBy is no wait: the item is stored as one written without it", async () => {
		await write({ mode: "replace", todos: [{ text: "a", blockedBy: [] }] });
		expect(getTodos()).toStrictEqual([{ text: "a", status: "not_started" }]);
	});

	it("append: the new items' links are indices of the list as the call leaves it", async () => {
		setTodos([item("a"), item("b")]);
		await write({
			mode: "append",
			todos: [
				{ text: "c", blockedBy: [0, 1] },
				{ text: "d", parent: 2, blockedBy: [1] },
			],
		});
		expect(getTodos()).toEqual([
			item("a"),
			item("b"),
			item("c", "not_started", { blockedBy: [0, 1] }),
			item("d", "not_started", { parent: 2, blockedBy: [1] }),
		]);
	});

	it("insert: the items that move down keep their links, and links to them move too", async () => {
		setTodos(PLAN);
		const result = await write({ mode: "insert", index: 1, todos: [{ text: "Review the design", blockedBy: [0] }] });
		expect(result.text.split("\n")[0]).toBe("Inserted 1 item(s) at index 1");
		expect(getTodos().map((todo) => [todo.text, todo.blockedBy, todo.parent])).toEqual([
			["Design the schema", undefined, undefined],
			["Review the design", [0], undefined],
			["Write the migration", [0], undefined],
			["Ship the feature", undefined, undefined],
			["Add the API", undefined, 3],
			["Add the UI", [4], 3],
			["Release", [2, 3], undefined],
		]);
	});
});

describe("write_todos: links that do not hold are refused with the items named, and nothing changes", () => {
	beforeEach(() => setTodos([item("kept")]));

	it.each([
		["an index not in the list", [{ text: "a", blockedBy: [4] }], LINK_ERRORS.unknownWait(0, 4, 0)],
		["a parent not in the list", [{ text: "a" }, { text: "b", parent: 7 }], LINK_ERRORS.unknownParent(1, 7, 1)],
		["an item waiting for itself", [{ text: "a" }, { text: "b", blockedBy: [1] }], LINK_ERRORS.waitsForItself(1)],
		["an item its own parent", [{ text: "a", parent: 0 }], LINK_ERRORS.ownParent(0)],
		["an item waiting twice for one", [{ text: "a" }, { text: "b", blockedBy: [0, 0] }], LINK_ERRORS.twice(1, 0)],
		[
			"a parent that is itself a subtask",
			[{ text: "a" }, { text: "b", parent: 0 }, { text: "c", parent: 1 }],
			LINK_ERRORS.nested(2, 1, 0),
		],
		[
			"a parent waiting for its own subtask",
			[
				{ text: "a", blockedBy: [1] },
				{ text: "b", parent: 0 },
			],
			LINK_ERRORS.waitsForSubtask(0, 1),
		],
		[
			"a cycle of waits",
			[
				{ text: "a", blockedBy: [1] },
				{ text: "b", blockedBy: [0] },
			],
			LINK_ERRORS.cycle("[0] waits for [1], [1] waits for [0]"),
		],
		[
			"a subtask waiting for its parent",
			[{ text: "a" }, { text: "b", parent: 0, blockedBy: [0] }],
			LINK_ERRORS.cycle("[0] completes with its subtask [1], [1] waits for [0]"),
		],
	])("replace: %s", async (_name, todos, text) => {
		const error = text.includes("cycle") ? "cycle" : "invalid links";
		await refused(write({ mode: "replace", todos }), "write", text, error);
	});

	it("append and insert name the items by their place in the list the call would leave", async () => {
		await refused(
			write({ mode: "append", todos: [{ text: "x", blockedBy: [5] }] }),
			"write",
			LINK_ERRORS.unknownWait(1, 5, 1),
			"invalid links",
		);
		await refused(
			write({ mode: "insert", index: 0, todos: [{ text: "x", parent: 0 }] }),
			"write",
			LINK_ERRORS.ownParent(0),
			"invalid links",
		);
	});

	it("links that are not whole numbers are refused before anything is looked at", async () => {
		await refused(
			write({ mode: "replace", todos: [{ text: "a", blockedBy: ["0"] }] }),
			"write",
			"Error: todo item at index 0 has a blockedBy that is not a list of indices",
			"invalid links",
		);
		await refused(
			write({ mode: "replace", todos: [{ text: "a", parent: 0.5 }] }),
			"write",
			"Error: todo item at index 0 has a parent that is not an index",
			"invalid links",
		);
	});
});

describe("edit_todos: only ready items may be started or completed", () => {
	beforeEach(() => setTodos(PLAN));

	it("refuses to start an item whose blocker is open, naming the blockers and the next ready item", async () => {
		await refused(edit({ action: "start", indices: [1] }), "edit", notReady("[1] waits for [0]", 0), "not ready");
		await refused(
			edit({ action: "complete", indices: [5, 4] }),
			"edit",
			notReady("[4] waits for [3]; [5] waits for [1, 2]", 0),
			"not ready",
		);
	});

	it("a subtask waits for what its parent waits for", async () => {
		setTodos([item("x"), item("p", "not_started", { blockedBy: [0] }), item("c", "not_started", { parent: 1 })]);
		await refused(edit({ action: "start", indices: [2] }), "edit", notReady("[2] waits for [0]", 0), "not ready");
	});

	it("names no next item when none is ready", async () => {
		setTodos(planWith({ 0: "abandoned", 3: "abandoned" }));
		await refused(
			edit({ action: "start", indices: [1] }),
			"edit",
			notReady("[1] waits for [0]", undefined),
			"not ready",
		);
	});

	it("starts an item once its blocker is completed; abandoning never waits", async () => {
		await edit({ action: "complete", indices: [0] });
		const started = await edit({ action: "start", indices: [1] });
		expect(started.text.split("\n")[0]).toBe("Started [1]");
		const abandoned = await edit({ action: "abandon", indices: [5] });
		expect(abandoned.text.split("\n")[0]).toBe("Abandoned [5]");
	});
});

describe("edit_todos: a parent completes with its last subtask, after its own check", () => {
	beforeEach(() => setTodos(planWith({ 0: "completed", 1: "completed" })));

	it("refuses to complete a parent while a subtask is open", async () => {
		await refused(edit({ action: "complete", indices: [2] }), "edit", openSubtasksRefused(2, "3, 4"), "open subtasks");
		await edit({ action: "complete", indices: [3] });
		await refused(
			edit({ action: "complete", indices: [2] }),
			"edit",
			openSubtasksRefused(2, "4", "is"),
			"open subtasks",
		);
	});

	it("completing the last subtask completes the parent, and the result says so", async () => {
		await edit({ action: "complete", indices: [3] });
		const result = await edit({ action: "complete", indices: [4] });
		expect(result.text.split("\n")[0]).toBe("Completed [4]; [2] completed with its last subtask");
		expect(getTodos().map((todo) => todo.status)).toEqual([
			"completed",
			"completed",
			"completed",
			"completed",
			"completed",
			"not_started",
		]);
	});

	it("a parent and all its subtasks may be completed in one call, a wait met by an item it completes", async () => {
		const result = await edit({ action: "complete", indices: [3, 4, 2] });
		expect(result.text.split("\n")[0]).toBe("Completed [3, 4, 2]");
		expect(getTodos()[2]?.status).toBe("completed");
	});

	it("the parent's check runs before it completes; when it fails nothing changes", async () => {
		setTodos(getTodos().map((todo, index) => (index === 2 ? { ...todo, check: "npm run feature-tests" } : todo)));
		await edit({ action: "complete", indices: [3] });
		ran.length = 0;
		const before = structuredClone(getTodos());
		const result = await edit({ action: "complete", indices: [4] });
		expect(result.text.split("\n")[0]).toBe("Error: the check of item [2] failed, so nothing was changed.");
		expect(ran).toEqual(["npm run feature-tests"]);
		expect(getTodos()).toEqual(before);
	});

	it("the model's last subtask leaves a parent the user must review open for the user", async () => {
		setTodos(getTodos().map((todo, index) => (index === 2 ? { ...todo, review: true } : todo)));
		await edit({ action: "complete", indices: [3] });
		const result = await edit({ action: "complete", indices: [4] });
		expect(result.text.split("\n")[0]).toBe("Completed [4]");
		expect(getTodos()[2]?.status).toBe("not_started");
	});
});

describe("the model's words for refused links and review items, and for a completion, in each of their forms", () => {
	it("a link that is not an index, as a parent or among the waits", () => {
		expect(linkError({ kind: "not-an-index", index: 1, field: "parent" }, 3).message).toBe(
			linkRefused("[1] has a parent that is not an index"),
		);
		expect(linkError({ kind: "not-an-index", index: 0, field: "blockedBy" }, 3).message).toBe(
			linkRefused("[0] has a blockedBy that is not a list of indices"),
		);
	});

	it("review items the model may not close, or a rewrite may not drop: one, or several", () => {
		expect(TOOL_ERRORS.reviewItems([2]).message).toBe(reviewRefused(2));
		expect(TOOL_ERRORS.reviewItems([1, 3]).message).toBe(
			"Error: items [1, 3] are for the user's review: only the user closes it (/todos approve). Stop and tell the user it is ready.",
		);
		const review = (text: string): TodoItem => ({ text, status: "not_started", review: true });
		expect(TOOL_ERRORS.reviewRewritten([[1, review("Notes")]]).message).toBe(reviewRewritten(1, "Notes"));
		expect(
			TOOL_ERRORS.reviewRewritten([
				[1, review("Notes")],
				[4, review("Screens")],
			]).message,
		).toBe(
			`Error: items [1] "Notes", [4] "Screens" are for the user's review: a rewrite must keep them, with the same text and review: true. Only the user closes a review item (/todos approve 1); nothing was changed.`,
		);
	});

	it("a completion: the checks that passed, and the parents completed with their last subtask", () => {
		expect(RESULT_HEADERS.edited("Completed", [0], [0])).toBe(checkPassed(0));
		expect(RESULT_HEADERS.edited("Completed", [1, 3], [1, 3], [0])).toBe(
			"Completed [1, 3]; the checks of [1, 3] passed; [0] completed with its last subtask",
		);
		expect(RESULT_HEADERS.edited("Completed", [2, 5], [], [1, 4])).toBe(
			"Completed [2, 5]; [1, 4] completed with their last subtask",
		);
	});
});
