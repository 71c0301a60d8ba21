/** The one reducer every UI recorder folds its calls into (test/helpers/ui-state.ts). */

import { describe, expect, it } from "vitest";
import { applyUiCall, EMPTY_UI, type UiCall, type UiState } from "../helpers/ui-state.ts";

const fold = (...calls: UiCall[]): UiState => calls.reduce(applyUiCall, EMPTY_UI);

describe("setStatus sets a key's text, the latest wins, and undefined clears the key", () => {
	it("keeps one text per key", () => {
		const state = fold(
			{ method: "setStatus", key: "a", text: "one" },
			{ method: "setStatus", key: "b", text: "two" },
			{ method: "setStatus", key: "a", text: "three" },
		);
		expect([...state.statuses]).toEqual([
			["a", "three"],
			["b", "two"],
		]);
	});

	it("removes a cleared key and leaves the others", () => {
		const state = fold(
			{ method: "setStatus", key: "a", text: "one" },
			{ method: "setStatus", key: "b", text: "two" },
			{ method: "setStatus", key: "a", text: undefined },
		);
		expect([...state.statuses]).toEqual([["b", "two"]]);
	});

	it("keeps an empty text: only undefined clears", () => {
		expect(fold({ method: "setStatus", key: "a", text: "" }).statuses.get("a")).toBe("");
	});
});

describe("setWidget keeps a widget's lines and placement, the latest wins, and undefined lines clear it", () => {
	it("keeps the lines and where the widget stands", () => {
		const state = fold(
			{ method: "setWidget", key: "w", lines: ["old"], placement: "belowEditor" },
			{ method: "setWidget", key: "w", lines: ["x", "y"], placement: "aboveEditor" },
			{ method: "setWidget", key: "v", lines: [] },
		);
		expect([...state.widgets]).toEqual([
			["w", { lines: ["x", "y"], placement: "aboveEditor" }],
			["v", { lines: [], placement: undefined }],
		]);
	});

	it("removes a cleared widget", () => {
		const state = fold(
			{ method: "setWidget", key: "w", lines: ["x"] },
			{ method: "setWidget", key: "w", lines: undefined },
		);
		expect(state.widgets.has("w")).toBe(false);
	});

	it("copies the lines: the caller changing its array later changes nothing shown", () => {
		const lines = ["x"];
		const state = fold({ method: "setWidget", key: "w", lines });
		lines.push("y");
		expect(state.widgets.get("w")?.lines).toEqual(["x"]);
	});
});

describe("notify adds a notice, in order, with its type as given", () => {
	it("keeps every notice, repeats included", () => {
		const state = fold(
			{ method: "notify", message: "a", type: "warning" },
			{ method: "notify", message: "b" },
			{ method: "notify", message: "a", type: "warning" },
		);
		expect(state.notifications).toEqual([
			{ message: "a", type: "warning" },
			{ message: "b", type: undefined },
			{ message: "a", type: "warning" },
		]);
	});
});

describe("setTitle sets the title, the latest wins", () => {
	it("has no title until one is set", () => {
		expect(EMPTY_UI.title).toBeUndefined();
		expect(fold({ method: "setTitle", title: "one" }, { method: "setTitle", title: "two" }).title).toBe("two");
	});
});

describe("a call changes only what it is about", () => {
	it("a notice leaves the statuses, the widgets and the title as they were", () => {
		const before = fold(
			{ method: "setStatus", key: "a", text: "one" },
			{ method: "setWidget", key: "w", lines: ["x"] },
			{ method: "setTitle", title: "t" },
		);
		const after = applyUiCall(before, { method: "notify", message: "n" });
		expect(after.statuses).toBe(before.statuses);
		expect(after.widgets).toBe(before.widgets);
		expect(after.title).toBe("t");
	});
});

describe("the reducer is pure: the state it is given never changes", () => {
	it("leaves the empty state and every earlier state as they were", () => {
		const first = fold({ method: "setStatus", key: "a", text: "one" }, { method: "setWidget", key: "w", lines: ["x"] });
		applyUiCall(first, { method: "setStatus", key: "a", text: undefined });
		applyUiCall(first, { method: "setWidget", key: "w", lines: undefined });
		applyUiCall(first, { method: "notify", message: "n" });
		expect([...first.statuses]).toEqual([["a", "one"]]);
		expect([...first.widgets.keys()]).toEqual(["w"]);
		expect(first.notifications).toEqual([]);
		expect(EMPTY_UI.statuses.size + EMPTY_UI.widgets.size + EMPTY_UI.notifications.length).toBe(0);
	});
});
