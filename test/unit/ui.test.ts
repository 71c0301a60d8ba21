import { describe, expect, it } from "vitest";
import { type ChainState, initialChain } from "../../src/core/rules/chain.ts";
import type { UiView } from "../../src/core/views/status-entries.ts";
import { createPainter } from "../../src/edges/host/painter.ts";
import type { LoopState, TodoItem, TodoStatus } from "../../src/types.ts";
import { createFakeCtx, type FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { planWith } from "../helpers/linked-lists.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

/** A painter over a view the test changes between paints. */
function painter(options: FakeCtxOptions = {}) {
	const fake = createFakeCtx(options);
	let view: UiView = {
		todos: [],
		chain: initialChain(),
		loop: undefined,
		panelEnabled: false,
		checking: undefined,
		verification: undefined,
		toVerify: false,
	};
	const paint = createPainter(fake.ctx, () => view);
	const show = (fields: Partial<UiView>) => {
		view = { ...view, ...fields };
		paint();
	};
	return { ...fake, show };
}
const paused = (reason?: string): ChainState => ({ ...initialChain(), paused: true, pauseReason: reason });
const loop: LoopState = { prompt: "p", max: 7, marker: "M", iteration: 3 };

describe("the status bar shows the list, its progress, the pause and the loop", () => {
	it("shows progress, the bar and the items in progress", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a", "completed"), todo("b", "in_progress"), todo("c")] });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 1/3 [███░░░░░░░]",
			"til-done-active": "[1] b",
		});
	});

	it("shows ✓ Done and clears the active line when every item is finished", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a", "in_progress")] });
		show({ todos: [todo("a", "completed"), todo("b", "abandoned")] });
		expect(ui.status.get("til-done")).toBe("✓ Done (2 items)");
		expect(ui.status.has("til-done-active")).toBe(false);
	});

	it("clears every key for an empty list", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a", "in_progress")] });
		show({ todos: [] });
		expect(ui.status.size).toBe(0);
	});

	it("shows a pause with its reason on one line, and `🔁 loop i/N` while a loop runs", () => {
		const { ui, show } = painter();
		show({ chain: paused("lunch\nbreak"), loop });
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: lunch break");
		expect(ui.status.get("til-done-loop")).toBe("🔁 loop 3/7");
		show({ chain: paused(), loop: undefined });
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused");
		expect(ui.status.has("til-done-loop")).toBe(false);
	});

	it("draws nothing without a UI", () => {
		const { ui, show } = painter({ hasUI: false });
		show({ todos: [todo("a", "in_progress")], panelEnabled: true });
		expect(ui.statusCalls).toEqual([]);
		expect(ui.widgetCalls).toEqual([]);
	});
});

describe("the status bar shows checks and the review wait", () => {
	it("shows a check while it runs, the command on one line and cut to 60 characters", () => {
		const { ui, show } = painter();
		show({ checking: { what: "[2]", command: `npm test -- auth\n${"x".repeat(80)}` } });
		expect(ui.status.get("til-done-check")).toBe(`🔎 checking [2]: npm test -- auth ${"x".repeat(42)}…`);
	});

	const FINISHED = [todo("a", "completed"), todo("b", "abandoned"), todo("c", "completed")];

	it("a finished list that fails its verification is not Done: the bar, then what failed", () => {
		const { ui, show } = painter();
		const failed = ["the done-check (exit code 1)", "the check of [2] (timed out after 120 s)"];
		show({ todos: FINISHED, toVerify: true, verification: { passed: false, failed, checks: 3, of: FINISHED } });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 3/3 [██████████]",
			// Cut to fit the 80 columns assumed outside a terminal: the words "not verified" stay whole.
			"til-done-check": "✗ not verified: the done-check (exit code 1); the check of…",
		});
	});

	it("nor while its verification runs, or before it ran", () => {
		const { ui, show } = painter();
		show({ todos: FINISHED, toVerify: true, checking: { what: "the done-check", command: "npm test" } });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 3/3 [██████████]",
			"til-done-check": "🔎 checking the done-check: npm test",
		});
		show({ checking: undefined });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 3/3 [██████████]",
			"til-done-check": "🔎 not verified yet",
		});
	});

	it("is Done and verified once a pass holds for this very list", () => {
		const { ui, show } = painter();
		show({ todos: FINISHED, toVerify: true, verification: { passed: true, failed: [], checks: 3, of: FINISHED } });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "✓ Done (3 items)",
			"til-done-check": "✓ verified (3 check(s) passed)",
		});
	});

	it("never shows a pass for another list, or with an item open", () => {
		const { ui, show } = painter();
		const open = [todo("a", "completed"), todo("b")];
		show({ todos: open, toVerify: true, verification: { passed: true, failed: [], checks: 1, of: open } });
		expect(Object.fromEntries(ui.status)).toEqual({ "til-done": "📋 1/2 [█████░░░░░]" });
		show({ todos: [...FINISHED], verification: { passed: true, failed: [], checks: 1, of: FINISHED } });
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 3/3 [██████████]",
			"til-done-check": "🔎 not verified yet",
		});
	});

	it("a finished list with nothing to verify is Done", () => {
		const { ui, show } = painter();
		show({ todos: FINISHED, toVerify: false });
		expect(Object.fromEntries(ui.status)).toEqual({ "til-done": "✓ Done (3 items)" });
	});

	it("shows the item the auto-continue waits on for the user's review", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a", "completed"), { text: "b", status: "in_progress", review: true }, todo("c")] });
		expect(ui.status.get("til-done-review")).toBe("👁 [1] waits for your review");
		show({ todos: [todo("a", "completed"), { text: "b", status: "not_started", review: true }] });
		expect(ui.status.has("til-done-review")).toBe(false);
	});
});

describe("the status bar says why the chain stopped until the user acts", () => {
	it.each([
		["hard-cap", "continuation limit reached"],
		["no-progress", "no todo completed"],
		["failures", "failed runs"],
		["repeated-answer", "the same answer again and again"],
		["spend", "spending without progress"],
		["budget-tokens", "token budget"],
		["budget-cost", "cost budget"],
	] as const)("%s: %s", (code, words) => {
		const { ui, show } = painter();
		show({ todos: [todo("a")], chain: { ...initialChain(), stopped: code } });
		expect(ui.status.get("til-done-stop")).toBe(`⏹ auto-continue stopped: ${words} (/todos why)`);
		show({ chain: initialChain() });
		expect(ui.status.has("til-done-stop")).toBe(false);
	});
});

describe("the painter sets every key once, then only what changed", () => {
	it("its first paint clears what an earlier session left on the status bar", () => {
		const { ui, show } = painter();
		show({});
		expect(ui.statusCalls.map((call) => call.key)).toEqual([
			"til-done",
			"til-done-active",
			"til-done-check",
			"til-done-goal",
			"til-done-loop",
			"til-done-paused",
			"til-done-next",
			"til-done-review",
			"til-done-stop",
			"til-done-workers",
		]);
		expect(ui.statusCalls.every((call) => call.text === undefined)).toBe(true);
	});

	it("a later paint writes only the keys whose text changed", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a"), todo("b")] });
		const before = ui.statusCalls.length;
		show({ todos: [todo("a"), todo("b")] });
		expect(ui.statusCalls).toHaveLength(before);
		show({ todos: [todo("a", "in_progress"), todo("b")] });
		expect(ui.statusCalls.slice(before)).toEqual([{ key: "til-done-active", text: "[0] a" }]);
	});

	it("a stale context after the session is gone is ignored", () => {
		const { ui, show, makeStale } = painter();
		makeStale();
		expect(() => show({ todos: [todo("a")] })).not.toThrow();
		expect(ui.statusCalls).toEqual([]);
	});
});

describe("the optional panel above the editor", () => {
	it("is not drawn unless enabled", () => {
		const { ui, show } = painter();
		show({ todos: [todo("a")] });
		expect(ui.widgetCalls).toEqual([]);
	});

	it("draws plain lines outside the terminal UI, redraws on change only, and clears for an empty list", () => {
		const { ui, show } = painter({ mode: "rpc" });
		show({ todos: [todo("a", "completed"), todo("b", "in_progress")], panelEnabled: true });
		show({ todos: [todo("a", "completed"), todo("b", "in_progress")] });
		expect(ui.widgetCalls).toEqual([
			{ key: "til-done-panel", content: ["✓ [0] a", "● [1] b"], options: { placement: "aboveEditor" } },
		]);
		show({ todos: [] });
		show({ todos: [] });
		expect(ui.widgetCalls).toHaveLength(2);
		expect(ui.widgets.has("til-done-panel")).toBe(false);
	});

	it("shows each item on one line, a long text cut with … to the 80 columns assumed outside a terminal", () => {
		const { ui, show } = painter({ mode: "rpc" });
		const long = "Move the session store behind an interface so the tests can swap it ".repeat(6);
		show({
			todos: [todo(long, "in_progress"), { text: long, status: "not_started", review: true }],
			panelEnabled: true,
		});
		// 78 cells: pi draws a widget's lines with one column of padding on each side.
		expect(ui.widgets.get("til-done-panel")?.lines).toEqual([
			`● [0] ${long.slice(0, 71)}…`,
			`– [1] ${long.slice(0, 62)}… (review)`,
		]);
	});

	it("the next session's painter clears a panel an earlier session left up", () => {
		const earlier = painter({ mode: "rpc" });
		earlier.show({ todos: [todo("a")], panelEnabled: true });
		const next = painter({ mode: "rpc" });
		next.show({ todos: [], panelEnabled: true });
		expect(next.ui.widgetCalls).toEqual([{ key: "til-done-panel", content: undefined, options: undefined }]);
		next.show({ todos: [] });
		expect(next.ui.widgetCalls).toHaveLength(1);
	});

	it("is cleared when switched off", () => {
		const { ui, show } = painter({ mode: "rpc" });
		show({ todos: [todo("a")], panelEnabled: true });
		show({ panelEnabled: false });
		expect(ui.widgets.has("til-done-panel")).toBe(false);
	});

	it("uses the UI theme in the terminal", () => {
		const { ui, show } = painter({ mode: "tui" });
		show({ todos: [todo("a")], panelEnabled: true });
		expect(ui.widgets.get("til-done-panel")?.lines).toEqual(["– [0] a"]);
	});
});

describe("a plan with waits or subtasks shows what is ready next and how many items wait", () => {
	it("names the next item ready to start and counts the waiting ones; a list without links shows neither", () => {
		const { ui, show } = painter();
		show({ todos: planWith({ 0: "completed" }) });
		expect(ui.status.get("til-done-next")).toBe("▶ [1] Write the migration ⛓ 2 waiting");
		show({ todos: planWith({ 0: "completed", 1: "in_progress" }) });
		expect(ui.status.get("til-done-next")).toBe("⛓ 2 waiting");
		show({ todos: [todo("a"), todo("b")] });
		expect(ui.status.has("til-done-next")).toBe(false);
	});

	it("with nothing waiting, only the next item", () => {
		const { ui, show } = painter();
		show({ todos: planWith({ 0: "completed", 1: "completed", 3: "completed" }) });
		expect(ui.status.get("til-done-next")).toBe("▶ [4] Add the UI ⛓ 1 waiting");
		show({ todos: planWith({ 0: "completed", 1: "completed", 2: "completed", 3: "completed", 4: "completed" }) });
		expect(ui.status.get("til-done-next")).toBe("▶ [5] Release");
	});
});
