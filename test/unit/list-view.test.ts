import type { Theme } from "@earendil-works/pi-coding-agent";
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it, vi } from "vitest";
import {
	clampSelection,
	decideKey,
	itemsThatFit,
	keyOf,
	listViewLines,
	nextState,
	type ViewKey,
	windowAround,
} from "../../src/core/views/list-view.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import { getTodos, setTodos } from "../../src/state.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { startEngine } from "../helpers/engine.ts";
import { LIST_VIEW, STATUS_REFUSED, stderrLine } from "../helpers/expected.ts";
import type { FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { must } from "../helpers/must.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
import { taggingTheme } from "../helpers/theme.ts";

const todo = (text: string, status: TodoStatus = "not_started", extra: Partial<TodoItem> = {}): TodoItem => ({
	text,
	status,
	...extra,
});

/** A plan with every kind of line: a check, a review item that waits, a parent with a subtask, an abandoned item. */
const PLAN: TodoItem[] = [
	todo("Write the schema", "completed", { check: "test -f schema.sql" }),
	todo("Review the migration", "in_progress", { review: true, blockedBy: [0] }),
	todo("Run the migration", "not_started", { blockedBy: [1] }),
	todo("Announce it", "not_started", { parent: 2 }),
	todo("Old idea", "abandoned"),
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape codes a cut line may carry are the point
const plain = (line: string): string => line.replace(/\x1b\[[0-9;]*m/g, "");

describe("the view's lines: the title with the progress, the list as a tree, the selection, the keys", () => {
	it("shows finished/total, one line per item with its status, marks and waits, subtasks indented, one selected", () => {
		expect(listViewLines(PLAN, { selected: 1 }, 100)).toEqual([
			LIST_VIEW.title(2, 5),
			"  ✓ [0] Write the schema (check)",
			"› ● [1] Review the migration (review) ⛓ [0]",
			"  – [2] Run the migration ⛓ [1]",
			"    – [3] Announce it",
			"  ✗ [4] Old idea",
			LIST_VIEW.keys,
		]);
	});

	it("styles the title, the marker and the selected item, and dims what is finished and the keys", () => {
		// The tags take cells of their own: a wide screen keeps them whole.
		const lines = listViewLines(PLAN, { selected: 1 }, 300, taggingTheme);
		expect(lines[0]).toBe(`<b><accent>${LIST_VIEW.title(2, 5)}</accent></b>`);
		expect(lines[1]).toBe(
			"  <success>✓</success> <accent>[0]</accent> <dim><s>Write the schema</s></dim><muted> (check)</muted>",
		);
		expect(lines[2]).toBe(
			"<accent>› </accent><warning>●</warning> <accent>[1]</accent> <b><text>Review the migration</text></b><muted> (review) ⛓ [0]</muted>",
		);
		expect(lines.at(-1)).toBe(`<dim>${LIST_VIEW.keys}</dim>`);
	});

	it("cuts an item's text so that its line fits the width with its marks; nothing wraps", () => {
		const long = [todo("rework the session store and its tests ".repeat(5), "in_progress", { review: true })];
		const lines = listViewLines(long, { selected: 0 }, 40);
		expect(lines[1]).toBe("› ● [0] rework the session sto… (review)");
		expect(lines.map(visibleWidth)).toEqual([9, 40, 40]);
	});

	it("cuts a line whose marks alone are wider than the screen", () => {
		const waits = Array.from({ length: 60 }, (_, i) => i);
		const lines = listViewLines(
			[...Array.from(waits, () => todo("x")), todo("y", "not_started", { blockedBy: waits })],
			{
				selected: 60,
			},
			30,
		);
		expect(lines.every((line) => visibleWidth(line) <= 30)).toBe(true);
		expect(plain(must(lines.at(-2), "the last item"))).toBe("› – [60] y ⛓ [0,1,2,3,4,5,6,7…");
	});

	it("shows todo text as data, on one line: a line break in it is a space", () => {
		expect(listViewLines([todo("first\nNext action: rm -rf")], { selected: 0 }, 100)[1]).toBe(
			"› – [0] first Next action: rm -rf",
		);
	});

	it("an empty list: the title 0/0, No todos, the keys", () => {
		expect(listViewLines([], { selected: 0 }, 100)).toEqual([LIST_VIEW.title(0, 0), LIST_VIEW.empty, LIST_VIEW.keys]);
	});

	it("the note of the last key stands between the list and the keys: a change in success, a refusal in warning", () => {
		const changed = listViewLines(
			[todo("a")],
			{ selected: 0, note: { text: "done", refused: false } },
			100,
			taggingTheme,
		);
		const refused = listViewLines([todo("a")], { selected: 0, note: { text: "no", refused: true } }, 100, taggingTheme);
		expect(changed.slice(-2)).toEqual(["<success>done</success>", `<dim>${LIST_VIEW.keys}</dim>`]);
		expect(refused.slice(-2)).toEqual(["<warning>no</warning>", `<dim>${LIST_VIEW.keys}</dim>`]);
	});

	it("a selection past the end of a list that shrank marks the last item", () => {
		expect(listViewLines([todo("a"), todo("b")], { selected: 7 }, 100)[2]).toBe("› – [1] b");
	});
});

describe("a list taller than the screen shows the items around the selection, and how many are above and below", () => {
	const ten = Array.from({ length: 10 }, (_, i) => todo(`item ${i}`));
	const items = (selected: number) => listViewLines(ten, { selected }, 100, undefined, 3).slice(1, -1);

	it("the selection in the middle: the items around it, with the counts on both sides", () => {
		expect(items(5)).toEqual([
			LIST_VIEW.above(4),
			"  – [4] item 4",
			"› – [5] item 5",
			"  – [6] item 6",
			LIST_VIEW.below(3),
		]);
	});

	it("at either end the window stops at the end of the list", () => {
		expect(items(0)).toEqual(["› – [0] item 0", "  – [1] item 1", "  – [2] item 2", LIST_VIEW.below(7)]);
		expect(items(9)).toEqual([LIST_VIEW.above(7), "  – [7] item 7", "  – [8] item 8", "› – [9] item 9"]);
	});

	it("the window holds at least one item and at most the list", () => {
		expect(windowAround(4, 10, 0)).toEqual({ start: 4, end: 5 });
		expect(windowAround(1, 2, 5)).toEqual({ start: 0, end: 2 });
	});

	it("the items that fit leave ten rows to the rest of the screen, and show at least three", () => {
		expect(itemsThatFit(30)).toBe(20);
		expect(itemsThatFit(8)).toBe(3);
	});
});

describe("what a key does is decided from the key, the list and the selection", () => {
	const change = (word: string, index: number) => ({ kind: "change", word, index });
	const refusal = (why: string) => ({ kind: "refuse", why });

	it("up and down move by one item and stop at the ends", () => {
		const list = [todo("a"), todo("b"), todo("c")];
		expect(decideKey("down", list, 0)).toEqual({ kind: "select", index: 1 });
		expect(decideKey("down", list, 2)).toEqual({ kind: "select", index: 2 });
		expect(decideKey("up", list, 1)).toEqual({ kind: "select", index: 0 });
		expect(decideKey("up", list, 0)).toEqual({ kind: "select", index: 0 });
	});

	it("a approves an open review item, not started or in progress", () => {
		for (const status of ["not_started", "in_progress"] as const)
			expect(decideKey("approve", [todo("a"), todo("r", status, { review: true })], 1)).toEqual(change("approve", 1));
	});

	it("a refuses an abandoned review item: approving never turns abandoned work into completed", () => {
		expect(decideKey("approve", [todo("r", "abandoned", { review: true })], 0)).toEqual(
			refusal(STATUS_REFUSED.notOpen(0, "abandoned")),
		);
	});

	it("d keeps the waits, as /todos done does: an item waiting for an open one is refused, naming it", () => {
		const waiting = [todo("a", "in_progress"), todo("b", "not_started", { blockedBy: [0] }), todo("c", "completed")];
		expect(decideKey("done", waiting, 1)).toEqual(refusal(STATUS_REFUSED.waiting("[1] waits for [0] (in progress)")));
	});

	it("a refuses an item without the review mark, and a review item completed already", () => {
		expect(decideKey("approve", PLAN, 2)).toEqual(refusal(LIST_VIEW.notReview(2)));
		expect(decideKey("approve", [todo("r", "completed", { review: true })], 0)).toEqual(
			refusal(LIST_VIEW.completed(0)),
		);
	});

	it("d completes any item not completed (as /todos done), and refuses one that is", () => {
		expect(decideKey("done", PLAN, 1)).toEqual(change("done", 1));
		expect(decideKey("done", PLAN, 4)).toEqual(change("done", 4));
		expect(decideKey("done", PLAN, 0)).toEqual(refusal(LIST_VIEW.completed(0)));
	});

	it("o puts a finished item back in progress (as /todos start), and refuses an open one", () => {
		expect(decideKey("open", PLAN, 0)).toEqual(change("start", 0));
		expect(decideKey("open", PLAN, 4)).toEqual(change("start", 4));
		expect(decideKey("open", PLAN, 1)).toEqual(refusal(LIST_VIEW.open(1)));
		expect(decideKey("open", PLAN, 2)).toEqual(refusal(LIST_VIEW.open(2)));
	});

	it("escape closes, whatever the list", () => {
		expect(decideKey("close", [], 0)).toEqual({ kind: "close" });
		expect(decideKey("close", PLAN, 3)).toEqual({ kind: "close" });
	});

	it("on an empty list a, d and o change nothing and say why; up and down stay", () => {
		for (const key of ["approve", "done", "open"] as const)
			expect(decideKey(key, [], 0)).toEqual(refusal(LIST_VIEW.noItem));
		expect(decideKey("down", [], 0)).toEqual({ kind: "select", index: 0 });
		expect(decideKey("up", [], 0)).toEqual({ kind: "select", index: 0 });
	});

	it("a selection past the end of a list that shrank acts on the last item", () => {
		expect(clampSelection(7, 2)).toBe(1);
		expect(decideKey("done", [todo("a"), todo("b")], 7)).toEqual(change("done", 1));
		expect(decideKey("up", [todo("a"), todo("b")], 7)).toEqual({ kind: "select", index: 0 });
	});
});

describe("the view after a key: a move clears the note, a change or a refusal says what happened", () => {
	const noted = { selected: 2, note: { text: "old", refused: true } };

	it("a move selects the item and clears the note", () => {
		expect(nextState(noted, { kind: "select", index: 3 })).toEqual({ selected: 3 });
	});

	it("a change selects its item and says what it did, by its subcommand", () => {
		expect(nextState(noted, { kind: "change", word: "approve", index: 1 })).toEqual({
			selected: 1,
			note: { text: LIST_VIEW.approved(1), refused: false },
		});
		expect(nextState(noted, { kind: "change", word: "done", index: 2 }).note?.text).toBe(LIST_VIEW.done(2));
		expect(nextState(noted, { kind: "change", word: "start", index: 0 }).note?.text).toBe(LIST_VIEW.reopened(0));
	});

	it("a refusal keeps the selection and says why; closing changes nothing", () => {
		expect(nextState({ selected: 2 }, { kind: "refuse", why: "no" })).toEqual({
			selected: 2,
			note: { text: "no", refused: true },
		});
		expect(nextState(noted, { kind: "close" })).toBe(noted);
	});
});

describe("terminal keys: arrows or k/j move, a/d/o change, escape or ctrl+c close, anything else is no key", () => {
	it.each<[string, ViewKey | undefined]>([
		["\x1b[A", "up"],
		["k", "up"],
		["\x1b[B", "down"],
		["j", "down"],
		["a", "approve"],
		["d", "done"],
		["o", "open"],
		["\x1b", "close"],
		["\x03", "close"],
		["x", undefined],
		["\r", undefined],
	])("%j is %s", (data, key) => {
		expect(keyOf(data)).toBe(key);
	});
});

// ── /todos in the TUI: the command opens the view, and its keys make the subcommands' changes ────────────────────

const UP = "\x1b[A";
const DOWN = "\x1b[B";
const ESCAPE = "\x1b";

const stderr = fakeTimersQuietStderr();

function setup(options: FakeCtxOptions = {}) {
	const base = startEngine(options);
	registerTodosCommand(base.pi.api, base.engine, () => base.config);
	const todos = (args: string) => must(base.pi.commands.get("todos"), "/todos").handler(args, base.commandCtx);
	/** The view /todos shows; fails the test when none is open. */
	const view = () => must(base.ui.view, "the /todos view");
	/** Runs `/todos <args>` and waits for its view, loaded on first use; `closed` settles when the view closes. */
	const openView = async (args = "") => {
		const closed = todos(args);
		await vi.waitFor(() => view());
		return { closed };
	};
	/** Presses terminal keys in the view, in order. */
	const press = (...keys: string[]) => {
		for (const key of keys) view().handleInput?.(key);
	};
	const snapshots = () => base.pi.entries.filter((entry) => entry.customType === "til-done-snapshot");
	return { ...base, todos, openView, view, press, snapshots, told: () => base.ui.notifications.map((n) => n.message) };
}

describe("/todos in the TUI opens the view of the list instead of printing it", () => {
	it("opens the view with the first item selected, in the theme, and tells nothing", async () => {
		const { ctx, openView, view, told } = setup({ mode: "tui" });
		(ctx.ui as { theme: Theme }).theme = taggingTheme;
		setTodos(PLAN);
		await openView("");
		const lines = view().render(300);
		expect(lines[0]).toBe(`<b><accent>${LIST_VIEW.title(2, 5)}</accent></b>`);
		expect(lines[1]).toBe(
			"<accent>› </accent><success>✓</success> <accent>[0]</accent> <b><dim><s>Write the schema</s></dim></b><muted> (check)</muted>",
		);
		expect(lines).toHaveLength(PLAN.length + 2);
		expect(told()).toEqual([]);
	});

	it("opens on an empty list too, and shows what the model writes while it is open", async () => {
		const { openView, view } = setup({ mode: "tui" });
		await openView("  ");
		expect(view().render(100)).toEqual([LIST_VIEW.title(0, 0), LIST_VIEW.empty, LIST_VIEW.keys]);
		setTodos([todo("a", "in_progress")]);
		expect(view().render(100)).toEqual([LIST_VIEW.title(0, 1), "› ● [0] a", LIST_VIEW.keys]);
	});

	it("shows as many items as the terminal's rows leave room for", async () => {
		const { openView, view } = setup({ mode: "tui", rows: 13 });
		setTodos(Array.from({ length: 10 }, (_, i) => todo(`item ${i}`)));
		await openView("");
		expect(view().render(100).slice(1, -1)).toEqual([
			"› – [0] item 0",
			"  – [1] item 1",
			"  – [2] item 2",
			LIST_VIEW.below(7),
		]);
	});

	it("escape closes it and ctrl+c does too; nothing changed, nothing stored, nothing goes on", async () => {
		const { openView, press, ui, pi, counting } = setup({ mode: "tui" });
		setTodos(PLAN);
		for (const key of [ESCAPE, "\x03"]) {
			const { closed: shown } = await openView("");
			press(DOWN, "x");
			press(key);
			await shown;
			expect(ui.view).toBeUndefined();
		}
		expect(pi.entries).toEqual([]);
		expect(counting()).toBe(false);
	});
});

describe("a key of the view makes the change of its /todos subcommand: the same list, stored on the branch the same way", () => {
	/** The list and the stored entries after `/todos <command>` on `list`, in a session of its own. */
	async function bySubcommand(list: TodoItem[], command: string) {
		const { todos, snapshots } = setup({ mode: "tui" });
		setTodos(list);
		await todos(command);
		return { todos: getTodos(), entries: snapshots() };
	}

	/** The list and the stored entries after `keys` in the view on `list`, in a session of its own. */
	async function byKeys(list: TodoItem[], ...keys: string[]) {
		const { openView, press, snapshots } = setup({ mode: "tui" });
		setTodos(list);
		await openView("");
		press(...keys);
		return { todos: getTodos(), entries: snapshots() };
	}

	it("a on the review item is /todos approve", async () => {
		expect(await byKeys(PLAN, DOWN, "a")).toEqual(await bySubcommand(PLAN, "approve 1"));
		expect(getTodos()[1]?.status).toBe("completed");
	});

	it("d is /todos done: on a parent's last open subtask it completes the parent too", async () => {
		const family = [
			todo("parent", "in_progress"),
			todo("one", "completed", { parent: 0 }),
			todo("two", "in_progress", { parent: 0 }),
		];
		const keyed = await byKeys(family, DOWN, DOWN, "d");
		expect(keyed).toEqual(await bySubcommand(family, "done 2"));
		expect(keyed.todos.map((item) => item.status)).toEqual(["completed", "completed", "completed"]);
	});

	it("o on a finished item is /todos start", async () => {
		expect(await byKeys(PLAN, "o")).toEqual(await bySubcommand(PLAN, "start 0"));
		expect(getTodos()[0]?.status).toBe("in_progress");
	});

	it("the view shows the list as it now is, and the note of what the key did", async () => {
		const { openView, press, view } = setup({ mode: "tui" });
		setTodos(PLAN);
		await openView("");
		press("j", "a");
		expect(view().render(100)).toEqual([
			LIST_VIEW.title(3, 5),
			"  ✓ [0] Write the schema (check)",
			"› ✓ [1] Review the migration (review) ⛓ [0]",
			"  – [2] Run the migration ⛓ [1]",
			"    – [3] Announce it",
			"  ✗ [4] Old idea",
			LIST_VIEW.approved(1),
			LIST_VIEW.keys,
		]);
	});

	it("a key that does not apply changes nothing, stores nothing and says why in the view", async () => {
		const { openView, press, view, pi, told } = setup({ mode: "tui" });
		setTodos(PLAN);
		await openView("");
		press("a", DOWN, DOWN, "o", UP, UP, "d");
		expect(getTodos()).toEqual(PLAN);
		expect(pi.entries).toEqual([]);
		expect(view().render(100).at(-2)).toBe(LIST_VIEW.completed(0));
		// A move clears the note: the last item's line is back above the keys.
		press("k");
		expect(view().render(100).at(-2)).toBe("  ✗ [4] Old idea");
		expect(told()).toEqual([]);
	});
});

describe("after a change in the view the chain goes on once the view is closed, never while it is open", () => {
	it("no countdown while the view is open; closing it starts the countdown", async () => {
		const { openView, press, counting } = setup({ mode: "tui" });
		setTodos(PLAN);
		const { closed: shown } = await openView("");
		press(DOWN, "a");
		await vi.advanceTimersByTimeAsync(5000);
		expect(counting()).toBe(false);
		press(ESCAPE);
		await shown;
		expect(counting()).toBe(true);
	});

	it("a refusal alone leaves nothing to go on with when the view closes", async () => {
		const { openView, press, counting } = setup({ mode: "tui" });
		setTodos([todo("a"), todo("b")]);
		const { closed: shown } = await openView("");
		press("a", "o", ESCAPE);
		await shown;
		expect(counting()).toBe(false);
	});
});

describe("/todos outside the TUI prints the list as text, as before, and opens no view", () => {
	it.each(["rpc"] as const)("%s: the plain list as a notice", async (mode) => {
		const { todos, told, ui } = setup({ mode });
		setTodos(PLAN);
		await todos("");
		expect(told()).toEqual([
			"✓ [0] Write the schema (check)\n● [1] Review the migration (review) ⛓ [0]\n– [2] Run the migration ⛓ [1]\n  – [3] Announce it\n✗ [4] Old idea",
		]);
		expect(ui.view).toBeUndefined();
	});

	it.each(["print", "json"] as const)("%s: the plain list on stderr", async (mode) => {
		const { todos, ui } = setup({ mode, hasUI: false });
		setTodos(PLAN);
		await todos("");
		expect(stderr()).toHaveBeenCalledWith(
			stderrLine(
				"✓ [0] Write the schema (check)\n● [1] Review the migration (review) ⛓ [0]\n– [2] Run the migration ⛓ [1]\n  – [3] Announce it\n✗ [4] Old idea",
			),
		);
		expect(ui.view).toBeUndefined();
	});
});
