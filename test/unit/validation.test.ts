import { describe, expect, it } from "vitest";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import {
	checkEditParams,
	checkWriteParams,
	cloneTodos,
	findBlankItem,
	findOversizedItem,
	isFinished,
	isIncomplete,
	isTooLong,
	isValidTodoItem,
} from "../../src/validation.ts";

describe("isValidTodoItem accepts exactly { text, status } with a known status and 1 to 1000 characters", () => {
	it.each<TodoStatus>(["not_started", "in_progress", "completed", "abandoned"])("accepts status %s", (status) => {
		expect(isValidTodoItem({ text: "Write tests", status })).toBe(true);
	});

	it("accepts a text of exactly 1000 characters", () => {
		expect(isValidTodoItem({ text: "x".repeat(1000), status: "not_started" })).toBe(true);
	});

	it("accepts a single-character text", () => {
		expect(isValidTodoItem({ text: "x", status: "completed" })).toBe(true);
	});

	it("rejects a text of 1001 characters", () => {
		expect(isValidTodoItem({ text: "x".repeat(1001), status: "not_started" })).toBe(false);
	});

	it("rejects an empty text (defect 7)", () => {
		expect(isValidTodoItem({ text: "", status: "not_started" })).toBe(false);
	});

	it.each([
		["null", null],
		["undefined", undefined],
		["an array", ["text", "not_started"]],
		["an array with the right keys", Object.assign([], { text: "a", status: "not_started" })],
		["a string", "Write tests"],
		["a number", 42],
		["a boolean", true],
		["a function", () => ({ text: "a", status: "not_started" })],
	])("rejects %s", (_name, value) => {
		expect(isValidTodoItem(value)).toBe(false);
	});

	it.each([
		["no keys", {}],
		["only text", { text: "a" }],
		["only status", { status: "not_started" }],
		["an extra key", { text: "a", status: "not_started", note: "x" }],
		["two keys of the wrong names", { title: "a", state: "not_started" }],
		["text and a wrong second key", { text: "a", state: "not_started" }],
	])("rejects an object with %s", (_name, value) => {
		expect(isValidTodoItem(value)).toBe(false);
	});

	it.each([
		["a number text", { text: 1, status: "not_started" }],
		["a null text", { text: null, status: "not_started" }],
		["an object text", { text: { toString: () => "a" }, status: "not_started" }],
		["a number status", { text: "a", status: 0 }],
		["a null status", { text: "a", status: null }],
	])("rejects %s", (_name, value) => {
		expect(isValidTodoItem(value)).toBe(false);
	});

	it.each(["done", "pending", "COMPLETED", "", " not_started", "toString"])(
		"rejects the unknown status %j",
		(status) => {
			expect(isValidTodoItem({ text: "a", status })).toBe(false);
		},
	);
});

describe("isIncomplete is true only for not_started and in_progress", () => {
	it.each<[TodoStatus, boolean]>([
		["not_started", true],
		["in_progress", true],
		["completed", false],
		["abandoned", false],
	])("%s → %s", (status, expected) => {
		expect(isIncomplete(status)).toBe(expected);
		expect(isFinished(status)).toBe(!expected);
	});
});

describe("cloneTodos returns new items in a new array", () => {
	const original: TodoItem[] = [
		{ text: "A", status: "not_started" },
		{ text: "B", status: "completed" },
	];

	it("copies text and status in order", () => {
		expect(cloneTodos(original)).toEqual(original);
	});

	it("shares neither the array nor any item with the original", () => {
		const copy = cloneTodos(original);
		expect(copy).not.toBe(original);
		copy.forEach((item, i) => {
			expect(item).not.toBe(original[i]);
		});
	});

	it("leaves the original untouched when the copy is changed", () => {
		const copy = cloneTodos(original);
		copy[0].status = "abandoned";
		copy[1].text = "changed";
		copy.push({ text: "C", status: "not_started" });
		expect(original).toEqual([
			{ text: "A", status: "not_started" },
			{ text: "B", status: "completed" },
		]);
	});

	it("drops extra keys an item may carry", () => {
		const withExtra = [{ text: "A", status: "not_started", extra: 1 }] as unknown as TodoItem[];
		expect(Object.keys(cloneTodos(withExtra)[0])).toEqual(["text", "status"]);
	});

	it("returns an empty array for an empty list", () => {
		expect(cloneTodos([])).toEqual([]);
	});
});

describe("findOversizedItem returns the index of the first item over the limit, or -1", () => {
	it("returns -1 when every item fits (the limit itself fits)", () => {
		expect(findOversizedItem([{ text: "a" }, { text: "x".repeat(1000) }], 1000)).toBe(-1);
	});

	it("returns the first oversized index when several are too long", () => {
		expect(findOversizedItem([{ text: "a" }, { text: "x".repeat(1001) }, { text: "y".repeat(2000) }], 1000)).toBe(1);
	});

	it("returns -1 for an empty list", () => {
		expect(findOversizedItem([], 1000)).toBe(-1);
	});

	it("honours the limit it is given", () => {
		expect(findOversizedItem([{ text: "abc" }], 2)).toBe(0);
	});
});

describe("findBlankItem returns the index of the first item without usable text, or -1", () => {
	it.each([
		["an empty text", [{ text: "ok" }, { text: "" }], 1],
		["a whitespace-only text", [{ text: " \t\n" }], 0],
		["a missing text", [{ text: "ok" }, {}], 1],
		["a non-string text", [{ text: 5 }], 0],
		["a null item", [null], 0],
	])("finds %s", (_name, items, expected) => {
		expect(findBlankItem(items)).toBe(expected);
	});

	it("returns -1 when every item has text", () => {
		expect(findBlankItem([{ text: "a" }, { text: " b " }])).toBe(-1);
	});
});

describe("checkWriteParams and checkEditParams return null for good parameters", () => {
	it("accepts a replace with items", () => {
		expect(checkWriteParams({ mode: "replace", todos: [{ text: "a" }] }, 0)).toBeNull();
	});

	it("accepts an insert at the end of the list", () => {
		expect(checkWriteParams({ mode: "insert", index: 2, todos: [{ text: "a" }] }, 2)).toBeNull();
	});

	it("accepts an edit of valid indices", () => {
		expect(checkEditParams({ action: "complete", indices: [0, 1] }, 2)).toBeNull();
	});

	it("rejects missing parameters altogether", () => {
		expect(checkWriteParams(undefined, 0)?.detail).toBe("invalid mode");
		expect(checkEditParams(null, 0)?.detail).toBe("invalid action");
	});
});

describe("text length is counted as the schema counts it: in characters the user sees", () => {
	it("1,000 emoji pass although they take 2,000 UTF-16 units", () => {
		expect(isTooLong("😀".repeat(1000), 1000)).toBe(false);
		expect(isValidTodoItem({ text: "😀".repeat(1000), status: "not_started" })).toBe(true);
	});

	it("1,001 emoji are too long", () => {
		expect(isTooLong("😀".repeat(1001), 1000)).toBe(true);
		expect(findOversizedItem([{ text: "ok" }, { text: "😀".repeat(1001) }], 1000)).toBe(1);
	});

	it("a text of a million units is rejected without counting it", () => {
		expect(isTooLong("a".repeat(1_000_000), 1000)).toBe(true);
	});
});
