import { describe, expect, it } from "vitest";
import { formatPanelLines, panelStart } from "../../src/core/views/panel.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { panelAbove, panelMore } from "../helpers/expected.ts";
import { taggingTheme } from "../helpers/theme.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

/** `n` items named item 0 … item n−1; the first `finished` of them completed. */
const list = (n: number, finished = 0): TodoItem[] =>
	Array.from({ length: n }, (_, i) => todo(`item ${i}`, i < finished ? "completed" : "not_started"));

describe("panelStart: the window starts one finished item before the first unfinished one", () => {
	it("starts at 0 when the first item is unfinished", () => {
		expect(panelStart(list(10))).toBe(0);
	});

	it("starts at 0 when only the first item is finished", () => {
		expect(panelStart(list(10, 1))).toBe(0);
	});

	it("keeps one finished item of context before the first unfinished one", () => {
		expect(panelStart(list(10, 3))).toBe(2);
	});

	it("never starts so late that fewer than five items show", () => {
		expect(panelStart(list(10, 8))).toBe(5);
		expect(panelStart(list(6, 5))).toBe(1);
	});

	it("shows the last five items of a finished list", () => {
		expect(panelStart(list(7, 7))).toBe(2);
	});

	it("starts at 0 for a short list, finished or not", () => {
		expect(panelStart(list(3, 3))).toBe(0);
		expect(panelStart(list(3, 2))).toBe(0);
		expect(panelStart([])).toBe(0);
	});

	it("counts an item in progress and an abandoned one by their status", () => {
		const items = [todo("a", "abandoned"), todo("b", "completed"), todo("c", "in_progress"), ...list(5)];
		expect(panelStart(items)).toBe(1);
	});
});

describe("formatPanelLines: one line per shown item, the hidden ones counted where they are", () => {
	it("shows nothing for an empty list", () => {
		expect(formatPanelLines([])).toEqual([]);
	});

	it("shows every item of a short list, plainly by default, with no `more` line", () => {
		expect(
			formatPanelLines([todo("a", "completed"), todo("b", "in_progress"), todo("c"), todo("d", "abandoned")]),
		).toEqual(["✓ [0] a", "● [1] b", "– [2] c", "✗ [3] d"]);
	});

	it("shows the window with the real indices and counts the hidden items above and below it", () => {
		expect(formatPanelLines(list(10, 3))).toEqual([
			panelAbove(2),
			"✓ [2] item 2",
			"– [3] item 3",
			"– [4] item 4",
			"– [5] item 5",
			"– [6] item 6",
			panelMore(3),
		]);
	});

	it("a window at the end of the list counts only the items above it: none hides below", () => {
		expect(formatPanelLines(list(6, 6))).toEqual([
			panelAbove(1),
			"✓ [1] item 1",
			"✓ [2] item 2",
			"✓ [3] item 3",
			"✓ [4] item 4",
			"✓ [5] item 5",
		]);
	});

	it("puts each text on one line", () => {
		expect(formatPanelLines([todo("line one\nline two\u0007")])).toEqual(["– [0] line one line two "]);
	});

	it("styles with the theme: in progress bold warning, finished dimmed and struck through, `more` dimmed", () => {
		const items = [
			todo("done", "completed"),
			todo("doing", "in_progress"),
			todo("next"),
			todo("dropped", "abandoned"),
			todo("later"),
			todo("hidden"),
		];
		expect(formatPanelLines(items, taggingTheme)).toEqual([
			"<success>✓</success> <accent>[0]</accent> <dim><s>done</s></dim>",
			"<warning>●</warning> <accent>[1]</accent> <b><warning>doing</warning></b>",
			"<dim>–</dim> <accent>[2]</accent> <text>next</text>",
			"<error>✗</error> <accent>[3]</accent> <dim><s>dropped</s></dim>",
			"<dim>–</dim> <accent>[4]</accent> <text>later</text>",
			`<dim>${panelMore(1)}</dim>`,
		]);
	});

	it("flattens the text of an item in progress too", () => {
		expect(formatPanelLines([todo("a\nb", "in_progress")], taggingTheme)).toEqual([
			"<warning>●</warning> <accent>[0]</accent> <b><warning>a b</warning></b>",
		]);
	});
});
