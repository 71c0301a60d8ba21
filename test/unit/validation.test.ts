import { describe, expect, it } from "vitest";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import {
	checkEditParams,
	checkWriteParams,
	cloneTodo,
	cloneTodos,
	findBlankItem,
	findOversizedItem,
	isFinished,
	isIncomplete,
	isTooLong,
	isValidCheck,
	isValidTodoItem,
} from "../../src/validation.ts";
import { must } from "../helpers/must.ts";

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
		must(copy[0], "item 0").status = "abandoned";
		must(copy[1], "item 1").text = "changed";
		copy.push({ text: "C", status: "not_started" });
		expect(original).toEqual([
			{ text: "A", status: "not_started" },
			{ text: "B", status: "completed" },
		]);
	});

	it("drops extra keys an item may carry", () => {
		const withExtra = [{ text: "A", status: "not_started", extra: 1 }] as unknown as TodoItem[];
		expect(Object.keys(must(cloneTodos(withExtra)[0], "the copied item"))).toEqual(["text", "status"]);
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

describe("isValidCheck accepts a non-blank command of at most 500 characters", () => {
	it.each([
		["a short command", "npm test"],
		["a command of exactly 500 characters", "x".repeat(500)],
		["500 emoji (1,000 UTF-16 units)", "😀".repeat(500)],
		["a multi-line command", "npm test\nnpm run lint"],
		["a command with surrounding spaces", "  true  "],
	])("accepts %s", (_name, value) => {
		expect(isValidCheck(value)).toBe(true);
	});

	it.each<[string, unknown]>([
		["an empty string", ""],
		["a blank string", " \t\n "],
		["501 characters", "x".repeat(501)],
		["501 emoji", "😀".repeat(501)],
		["a number", 0],
		["null", null],
		["undefined", undefined],
		["an array", ["npm", "test"]],
		["an object", { command: "npm test" }],
		["a boolean", true],
	])("rejects %s", (_name, value) => {
		expect(isValidCheck(value)).toBe(false);
	});
});

describe("isValidTodoItem accepts at most a valid check and a boolean review besides text and status", () => {
	it.each<[string, unknown]>([
		["a check", { text: "a", status: "not_started", check: "npm test" }],
		["a review mark true", { text: "a", status: "in_progress", review: true }],
		["a review mark false", { text: "a", status: "completed", review: false }],
		["a check and a review mark", { text: "a", status: "abandoned", check: "true", review: true }],
		["the fields in another key order", { review: true, check: "true", status: "not_started", text: "a" }],
		["a check of exactly 500 characters", { text: "a", status: "not_started", check: "x".repeat(500) }],
	])("accepts an item with %s", (_name, value) => {
		expect(isValidTodoItem(value)).toBe(true);
	});

	it.each<[string, unknown]>([
		["an empty check", { text: "a", status: "not_started", check: "" }],
		["a blank check", { text: "a", status: "not_started", check: "   " }],
		["a check of 501 characters", { text: "a", status: "not_started", check: "x".repeat(501) }],
		["a number check", { text: "a", status: "not_started", check: 1 }],
		["a null check", { text: "a", status: "not_started", check: null }],
		["an undefined check that is present as a key", { text: "a", status: "not_started", check: undefined }],
		["a string review", { text: "a", status: "not_started", review: "true" }],
		["a number review", { text: "a", status: "not_started", review: 1 }],
		["a null review", { text: "a", status: "not_started", review: null }],
		["an unknown key next to a valid check", { text: "a", status: "not_started", check: "true", reviewer: "me" }],
		["a check but no status", { text: "a", check: "true" }],
		["a valid check and review but an empty text", { text: "", status: "not_started", check: "true", review: true }],
	])("rejects an item with %s", (_name, value) => {
		expect(isValidTodoItem(value)).toBe(false);
	});
});

describe("cloneTodo keeps a check and a true review mark, and nothing else", () => {
	it("keeps items without the new fields exactly { text, status }", () => {
		const copy = cloneTodos([
			{ text: "A", status: "not_started" },
			{ text: "B", status: "completed" },
		]);
		expect(copy.map((item) => Object.keys(item))).toEqual([
			["text", "status"],
			["text", "status"],
		]);
	});

	it("keeps a check and a review mark", () => {
		const item: TodoItem = { text: "A", status: "in_progress", check: "npm test", review: true };
		const copy = cloneTodo(item);
		expect(copy).toEqual({ text: "A", status: "in_progress", check: "npm test", review: true });
		expect(copy).not.toBe(item);
		expect(Object.keys(copy)).toEqual(["text", "status", "check", "review"]);
	});

	it("drops a review mark of false, so the item stays { text, status }", () => {
		expect(Object.keys(cloneTodo({ text: "A", status: "not_started", review: false }))).toEqual(["text", "status"]);
	});

	it("keeps a check alone without adding a review key", () => {
		expect(Object.keys(cloneTodo({ text: "A", status: "not_started", check: "true" }))).toEqual([
			"text",
			"status",
			"check",
		]);
	});
});

describe("checkWriteParams checks the optional check and review mark of each new item", () => {
	const write = (todos: unknown[]) => checkWriteParams({ mode: "append", todos }, 0);

	it("accepts items with a check, a review mark, both or neither", () => {
		expect(
			write([
				{ text: "a", check: "npm test" },
				{ text: "b", review: true },
				{ text: "c", check: "x".repeat(500), review: false },
				{ text: "d" },
			]),
		).toBeNull();
	});

	it.each<[string, unknown[], string, string]>([
		[
			"an empty check",
			[{ text: "a" }, { text: "b", check: "" }],
			"Error: todo item at index 1 has an empty check",
			"empty check",
		],
		["a blank check", [{ text: "a", check: " \n\t" }], "Error: todo item at index 0 has an empty check", "empty check"],
		[
			"a check that is not text",
			[{ text: "a", check: 42 }],
			"Error: todo item at index 0 has an empty check",
			"empty check",
		],
		["a null check", [{ text: "a", check: null }], "Error: todo item at index 0 has an empty check", "empty check"],
		[
			"a check of 501 characters",
			[{ text: "a" }, { text: "b" }, { text: "c", check: "x".repeat(501) }],
			"Error: todo item at index 2 has a check longer than 500 characters",
			"check too long",
		],
		[
			"a check of 501 emoji",
			[{ text: "a", check: "😀".repeat(501) }],
			"Error: todo item at index 0 has a check longer than 500 characters",
			"check too long",
		],
		[
			"a review mark that is a string",
			[{ text: "a", review: "yes" }],
			"Error: todo item at index 0 has a review mark that is not true or false",
			"invalid review",
		],
		[
			"a null review mark",
			[{ text: "a" }, { text: "b", review: null }],
			"Error: todo item at index 1 has a review mark that is not true or false",
			"invalid review",
		],
	])("rejects %s with its exact message and detail", (_name, todos, message, detail) => {
		expect(write(todos)).toEqual({ message, detail });
	});

	it("reports the first item at fault, and for one item its check before its review mark", () => {
		expect(
			write([
				{ text: "a", review: 1 },
				{ text: "b", check: "" },
			])?.detail,
		).toBe("invalid review");
		expect(write([{ text: "a", check: "", review: 1 }])?.detail).toBe("empty check");
	});

	it("reports an empty or oversized text before a bad check", () => {
		expect(write([{ text: "", check: "" }])?.detail).toBe("empty text");
		expect(write([{ text: "x".repeat(1001), check: "" }])?.detail).toBe("text too long");
	});

	it("reports a bad check before the list limit or a bad insert index", () => {
		expect(checkWriteParams({ mode: "insert", index: 9, todos: [{ text: "a", check: "" }] }, 0)?.detail).toBe(
			"empty check",
		);
		const many = Array.from({ length: 101 }, () => ({ text: "a", review: "no" }));
		expect(checkWriteParams({ mode: "replace", todos: many }, 0)?.detail).toBe("invalid review");
	});
});

describe("checkEditParams accepts an optional reason of at most 500 characters", () => {
	const limit = "reason must be text of at most 500 characters";

	it.each<[string, unknown]>([
		["no reason", undefined],
		["an empty reason", ""],
		["a reason of exactly 500 characters", "r".repeat(500)],
		["a reason of 500 emoji", "😀".repeat(500)],
		["a multi-line reason", "tests pass\nlint is clean"],
	])("accepts %s", (_name, reason) => {
		expect(checkEditParams({ action: "abandon", indices: [0], reason }, 1)).toBeNull();
	});

	it.each<[string, unknown]>([
		["a reason of 501 characters", "r".repeat(501)],
		["a reason of 501 emoji", "😀".repeat(501)],
		["a number", 5],
		["null", null],
		["an array of text", ["because"]],
		["an object", { text: "because" }],
	])("rejects %s with its exact message and detail", (_name, reason) => {
		expect(checkEditParams({ action: "complete", indices: [0], reason }, 1)).toEqual({
			message: `Error: ${limit}`,
			detail: limit,
		});
	});

	it("reports a bad reason before an empty list or indices out of range", () => {
		expect(checkEditParams({ action: "start", indices: [7], reason: 1 }, 0)?.detail).toBe(limit);
		expect(checkEditParams({ action: "start", indices: [7], reason: 1 }, 2)?.detail).toBe(limit);
	});

	it("reports a bad action or missing indices before a bad reason", () => {
		expect(checkEditParams({ action: "finish", indices: [0], reason: 1 }, 1)?.detail).toBe("invalid action");
		expect(checkEditParams({ action: "start", indices: [], reason: 1 }, 1)?.detail).toBe("indices required");
	});
});
