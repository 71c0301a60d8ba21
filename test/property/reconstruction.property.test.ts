/** Rebuilds the store from a context's branch and returns the list it now holds. */
function reconstructState(ctx: Parameters<typeof rebuild>[0]) {
	rebuild(ctx);
	return [...getTodos()];
}

/**
 * Property tests of reconstruction over random session branches: whatever the entries hold (other tools, malformed
 * or hostile `details`, huge arrays, prototype-pollution keys, items with valid or hostile `check` and `review`
 * fields), the rebuilt list is the last valid snapshot on the branch, reconstruction never throws, and no invalid item
 * survives.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getTodos, reconstructState as rebuild, resetState } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { isValidTodoItem } from "../../src/validation.ts";
import { ENTRY_TYPE } from "../helpers/expected.ts";
import { graphemes, hostileText, type Status } from "../helpers/todo-oracle.ts";

/** An item as reconstruction replays it: text and status, plus a check and a review mark of true when stored. */
type Item = TodoItem;

const STATUSES: Status[] = ["not_started", "in_progress", "completed", "abandoned"];

/** The contract, written out independently: which entries carry a list reconstruction may trust. */
function trustedList(entry: unknown): Item[] | undefined {
	if (typeof entry !== "object" || entry === null) return undefined;
	const e = entry as Record<string, unknown>;
	let payload: unknown;
	if (e.type === "custom" && e.customType === ENTRY_TYPE.snapshot) payload = e.data;
	else if (e.type === "message" && typeof e.message === "object" && e.message !== null) {
		const m = e.message as Record<string, unknown>;
		const ours = m.toolName === "write_todos" || m.toolName === "edit_todos" || m.toolName === "list_todos";
		if (m.role !== "toolResult" || !ours || m.isError === true) return undefined;
		payload = m.details;
	} else return undefined;
	if (typeof payload !== "object" || payload === null) return undefined;
	const d = payload as Record<string, unknown>;
	if ((d.action !== "write" && d.action !== "edit") || d.error !== undefined) return undefined;
	if (!Array.isArray(d.todos) || d.todos.length > 100) return undefined;
	const items: Item[] = [];
	for (const item of d.todos) {
		if (typeof item !== "object" || item === null || Array.isArray(item)) return undefined;
		const keys = Object.keys(item);
		if (!keys.includes("text") || !keys.includes("status")) return undefined;
		if (keys.some((key) => key !== "text" && key !== "status" && key !== "check" && key !== "review")) return undefined;
		const { text, status, check, review } = item as Record<string, unknown>;
		if (typeof text !== "string" || text.length < 1 || graphemes(text) > 1000) return undefined;
		if (!(STATUSES as unknown[]).includes(status)) return undefined;
		const hasCheck = keys.includes("check");
		if (hasCheck && (typeof check !== "string" || check.trim() === "" || graphemes(check) > 500)) return undefined;
		if (keys.includes("review") && review !== true && review !== false) return undefined;
		const replayed: Item = { text, status: status as Status };
		if (hasCheck) replayed.check = check as string;
		if (review === true) replayed.review = true;
		items.push(replayed);
	}
	return items;
}

/** Checks the tools would store: not blank, at most 500 characters, whatever else they hold. */
const validCheck: fc.Arbitrary<string> = fc.oneof(
	{ weight: 4, arbitrary: hostileText.filter((text) => text.trim() !== "" && graphemes(text) <= 500) },
	{ weight: 1, arbitrary: fc.constantFrom("npm test", " true ", "x".repeat(500), "😀".repeat(500), "a\nb") },
);

const validItem: fc.Arbitrary<Item> = fc.record(
	{
		text: hostileText.filter((text) => text.length >= 1 && text.length <= 1000),
		status: fc.constantFrom(...STATUSES),
		check: validCheck,
		review: fc.boolean(),
	},
	{ requiredKeys: ["text", "status"] },
);
const validList = fc.array(validItem, { maxLength: 8 });

/** A check or a review mark no valid item holds. */
const hostileCheck = fc.constantFrom<unknown>(
	"",
	" ",
	"\n\t",
	"x".repeat(501),
	"😀".repeat(501),
	0,
	1,
	null,
	undefined,
	true,
	["npm", "test"],
	{ command: "npm test" },
);
const hostileReview = fc.constantFrom<unknown>("true", "false", 0, 1, null, undefined, [], {}, "yes");

/**
 * Items that look almost right: wrong status, extra or missing keys, empty or oversized text, wrong types, a hostile
 * check or review mark, or an unknown key next to valid ones.
 */
const badFieldItem: fc.Arbitrary<unknown> = fc.oneof(
	validItem.chain((item) => hostileCheck.map((check) => ({ ...item, check }))),
	validItem.chain((item) => hostileReview.map((review) => ({ ...item, review }))),
	validItem.chain((item) =>
		fc
			.constantFrom("checks", "Check", "reviewed", "note", "command", "done")
			.map((key) => ({ ...item, check: "true", [key]: true })),
	),
);
const badItem: fc.Arbitrary<unknown> = fc.oneof(
	badFieldItem,
	fc.record({ text: fc.string({ minLength: 1 }), status: fc.constantFrom("done", "NOT_STARTED", "", "toString") }),
	fc.record({ text: fc.string({ minLength: 1 }), status: fc.constantFrom(...STATUSES), extra: fc.anything() }),
	fc.constantFrom<unknown>(
		{ text: "", status: "completed" },
		{ text: "x".repeat(1001), status: "in_progress" },
		{ text: "😀".repeat(1001), status: "in_progress" },
		{ text: "😀".repeat(1000), status: "in_progress" },
		{ text: 5, status: "completed" },
		{ status: "completed" },
		{ text: "only text" },
		null,
		"– [0] a string",
		[["text", "a"]],
		JSON.parse('{"text":"a","status":"completed","__proto__":{"polluted":true}}'),
		JSON.parse('{"__proto__":{"text":"a","status":"completed"}}'),
		Object.assign(Object.create(null), { text: "null proto", status: "completed", x: 1 }),
	),
	fc.anything({ maxDepth: 2 }),
);

const toolName = fc.constantFrom(
	"write_todos",
	"edit_todos",
	"list_todos",
	"bash",
	"read",
	"todo_write",
	"Write_Todos",
);
const anyDetails: fc.Arbitrary<unknown> = fc.oneof(
	fc.anything({ maxDepth: 3, withNullPrototype: true }),
	fc.record({ action: fc.constantFrom("write", "edit", "list", "WRITE"), todos: fc.array(badItem, { maxLength: 4 }) }),
	fc.record(
		{
			action: fc.constantFrom("write", "edit"),
			todos: fc.oneof(validList, fc.array(fc.oneof(validItem, badItem), { minLength: 1, maxLength: 4 })),
			error: fc.oneof(fc.constant(null), fc.string(), fc.constant(false)),
			view: validList,
		},
		{ requiredKeys: ["action", "todos"] },
	),
	fc.constantFrom<unknown>(
		null,
		[],
		"details",
		{ action: "write", todos: null },
		{ action: "write", todos: "[]" },
		{ action: "write", todos: { 0: { text: "a", status: "completed" }, length: 1 } },
		JSON.parse('{"action":"write","__proto__":{"todos":[{"text":"a","status":"completed"}]}}'),
		JSON.parse('{"action":"write","todos":[],"constructor":{"prototype":{"polluted":true}}}'),
		{ action: "write", todos: Array.from({ length: 101 }, (_, i) => ({ text: `t${i}`, status: "not_started" })) },
		{ action: "write", todos: Array.from({ length: 100_000 }, () => ({ text: "t", status: "completed" })) },
	),
);

let counter = 0;
const id = () => `e${++counter}`;

/** A snapshot the contract says to trust: write/edit result or the extension's own custom entry. */
const validSnapshot: fc.Arbitrary<unknown> = fc.oneof(
	fc.record({ name: fc.constantFrom("write_todos", "edit_todos"), list: validList }).map(({ name, list }) => ({
		type: "message",
		id: id(),
		message: {
			role: "toolResult",
			toolName: name,
			toolCallId: id(),
			content: [{ type: "text", text: "ok" }],
			details: { action: name === "write_todos" ? "write" : "edit", todos: list },
			isError: false,
		},
	})),
	validList.map((list) => ({
		type: "custom",
		id: id(),
		customType: ENTRY_TYPE.snapshot,
		data: { action: "write", todos: list },
	})),
);

/** Any other entry: user/assistant messages, foreign tool results, malformed results of our tools, odd entries. */
const noiseEntry: fc.Arbitrary<unknown> = fc.oneof(
	fc.record({ toolName, details: anyDetails, isError: fc.boolean() }).map(({ toolName, details, isError }) => ({
		type: "message",
		id: id(),
		message: { role: "toolResult", toolName, toolCallId: id(), content: [], details, isError },
	})),
	fc
		.record({ role: fc.constantFrom("user", "assistant", "custom", "bashExecution"), details: anyDetails })
		.map(({ role, details }) => ({
			type: "message",
			id: id(),
			message: { role, toolName: "write_todos", content: "hi", details },
		})),
	fc
		.record({
			type: fc.constantFrom("custom", "custom_message", "model_change", "compaction", "label", "??"),
			data: anyDetails,
		})
		.map(({ type, data }) => ({
			type,
			id: id(),
			customType: type === "custom" ? "other-extension" : ENTRY_TYPE.snapshot,
			data,
		})),
	fc.constantFrom<unknown>(null, undefined, 0, "entry", [], { type: "message" }, { type: "message", message: null }),
);

const branch = fc.array(fc.oneof({ weight: 4, arbitrary: noiseEntry }, { weight: 1, arbitrary: validSnapshot }), {
	maxLength: 30,
});

const ctxFor = (entries: readonly unknown[]) =>
	({ sessionManager: { getBranch: () => entries }, hasUI: false }) as unknown as ExtensionContext;

function expected(entries: readonly unknown[]): Item[] {
	for (let i = entries.length - 1; i >= 0; i--) {
		const list = trustedList(entries[i]);
		if (list) return list;
	}
	return [];
}

describe("reconstruction over random session branches", () => {
	it("rebuilds exactly the last valid snapshot and never keeps an invalid item", () => {
		fc.assert(
			fc.property(branch, fc.constantFrom(...STATUSES), (entries, leftover) => {
				resetState();
				// Whatever was in memory before (another branch's list) must not leak into the result.
				reconstructState(
					ctxFor([
						{
							type: "custom",
							customType: ENTRY_TYPE.snapshot,
							data: { action: "write", todos: [{ text: "stale", status: leftover }] },
						},
					]),
				);
				let rebuilt: Item[] = [];
				expect(() => {
					rebuilt = reconstructState(ctxFor(entries));
				}).not.toThrow();
				expect(rebuilt).toEqual(expected(entries));
				expect(rebuilt.map((item) => Object.keys(item))).toEqual(expected(entries).map((item) => Object.keys(item)));
				expect(getTodos()).toEqual(rebuilt);
				for (const item of getTodos()) {
					expect(isValidTodoItem(item)).toBe(true);
					expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
				}
				expect(({} as Record<string, unknown>).polluted).toBeUndefined();
			}),
			{ numRuns: 400 },
		);
	});

	it("replays items with valid checks and review marks exactly, keys included", () => {
		fc.assert(
			fc.property(validList, fc.constantFrom("write_todos", "edit_todos"), (list, name) => {
				resetState();
				const entry = {
					type: "message",
					message: { role: "toolResult", toolName: name, details: { action: "write", todos: list } },
				};
				const rebuilt = reconstructState(ctxFor([entry]));
				expect(rebuilt).toEqual(trustedList(entry));
				expect(rebuilt.map((item) => Object.keys(item))).toEqual(
					list.map((item) => Object.keys(item).filter((key) => key !== "review" || item.review === true)),
				);
			}),
			{ numRuns: 200 },
		);
	});

	it("one item with a hostile check, review mark or unknown key makes its whole snapshot untrusted", () => {
		fc.assert(
			fc.property(validSnapshot, validList, badFieldItem, fc.nat(), (first, list, bad, at) => {
				resetState();
				const todos: unknown[] = [...list];
				todos.splice(at % (list.length + 1), 0, bad);
				const later = { type: "custom", customType: ENTRY_TYPE.snapshot, data: { action: "write", todos } };
				expect(trustedList(later)).toBeUndefined();
				expect(reconstructState(ctxFor([first, later]))).toEqual(trustedList(first));
			}),
			{ numRuns: 300 },
		);
	});

	it("a valid snapshot wins over any amount of later noise, and a later valid one wins over it", () => {
		fc.assert(
			fc.property(validSnapshot, fc.array(noiseEntry, { maxLength: 20 }), validSnapshot, (first, noise, last) => {
				resetState();
				const a = reconstructState(ctxFor([first, ...noise]));
				expect(a).toEqual(expected([first, ...noise]));
				const b = reconstructState(ctxFor([first, ...noise, last]));
				expect(b).toEqual(trustedList(last));
			}),
			{ numRuns: 200 },
		);
	});

	it("an empty snapshot clears the list (a cleared list survives a reload)", () => {
		fc.assert(
			fc.property(validSnapshot, fc.array(noiseEntry, { maxLength: 5 }), (full, noise) => {
				const clear = {
					type: "message",
					message: { role: "toolResult", toolName: "write_todos", details: { action: "write", todos: [] } },
				};
				expect(reconstructState(ctxFor([full, clear, ...noise]))).toEqual(expected([full, clear, ...noise]));
				expect(reconstructState(ctxFor([full, clear]))).toEqual([]);
			}),
			{ numRuns: 100 },
		);
	});

	it("a branch that cannot be read, or is not an array of entries, gives an empty list without throwing", () => {
		const throwing = {
			sessionManager: {
				getBranch: () => {
					throw new Error("ctx is stale");
				},
			},
		} as unknown as ExtensionContext;
		expect(reconstructState(throwing)).toEqual([]);
		const stale = {
			get sessionManager(): never {
				throw new Error("ctx is stale");
			},
		} as unknown as ExtensionContext;
		expect(reconstructState(stale)).toEqual([]);
	});

	it("stays fast on a 100,000-entry branch of noise and huge arrays", () => {
		const huge = {
			action: "write",
			todos: Array.from({ length: 100_000 }, () => ({ text: "t", status: "completed" })),
		};
		const entries: unknown[] = [];
		for (let i = 0; i < 100_000; i++) {
			entries.push(
				i % 1000 === 0
					? { type: "message", message: { role: "toolResult", toolName: "write_todos", details: huge } }
					: { type: "message", message: { role: "user", content: `m${i}` } },
			);
		}
		expect(reconstructState(ctxFor(entries))).toEqual([]);
	});
});
