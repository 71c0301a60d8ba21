/**
 * Reading lists and the done-check back from a session branch: items with a check or a review mark are replayed as
 * stored, one malformed item makes its whole snapshot untrusted, sessions recorded before these fields existed still
 * reconstruct, and the last well-formed `til-done-check` entry (leaf first) says which done-check the user set; the
 * user's own requests, which the judge and the workers are told.
 */

import { describe, expect, it } from "vitest";
import {
	lastDecisions,
	lastDoneCheck,
	lastEndedWorkers,
	lastPause,
	lastSnapshot,
	lastVerdict,
	snapshotFromEntry,
	userRequests,
} from "../../src/core/rules/branch.ts";
import type { TodoItem } from "../../src/types.ts";
import { ENTRY_TYPE } from "../helpers/expected.ts";
import { PLAN } from "../helpers/linked-lists.ts";
import { must } from "../helpers/must.ts";

/** A result of one of our tools, as pi stores it on the branch. */
const toolResult = (todos: unknown, toolName = "edit_todos", action = "edit") => ({
	type: "message",
	id: `m-${toolName}`,
	message: {
		role: "toolResult",
		toolName,
		toolCallId: "call-1",
		content: [{ type: "text", text: "ok" }],
		details: { action, todos },
		isError: false,
	},
});

/** A list the user changed with `/todos`, stored as the extension's own custom entry. */
const snapshotEntry = (todos: unknown) => ({
	type: "custom",
	id: "c-1",
	customType: ENTRY_TYPE.snapshot,
	data: { action: "write", todos },
});

/** The done-check the user set with `/todos check`. */
const doneCheckEntry = (data: unknown) => ({ type: "custom", id: "d-1", customType: ENTRY_TYPE.doneCheck, data });

const withFields: TodoItem[] = [
	{ text: "Write the parser", status: "completed", check: "npm test -- parser" },
	{ text: "Check the screenshots", status: "in_progress", review: true },
	{ text: "Ship", status: "not_started", check: "make release-check", review: true },
	{ text: "Plain", status: "abandoned" },
];

const earlier: TodoItem[] = [{ text: "Earlier list", status: "in_progress" }];

describe("items with a check or a review mark are replayed exactly", () => {
	it("from a tool result", () => {
		expect(snapshotFromEntry(toolResult(withFields))).toEqual(withFields);
	});

	it("from the extension's own snapshot entry", () => {
		expect(snapshotFromEntry(snapshotEntry(withFields))).toEqual(withFields);
	});

	it("keeps each item's keys: a check, a review mark, both, or only text and status", () => {
		const replayed = lastSnapshot([toolResult(withFields, "write_todos", "write")]);
		expect(replayed.map((item) => Object.keys(item))).toEqual([
			["text", "status", "check"],
			["text", "status", "review"],
			["text", "status", "check", "review"],
			["text", "status"],
		]);
	});

	it("replays a stored review mark of false as a plain item", () => {
		const replayed = lastSnapshot([toolResult([{ text: "a", status: "not_started", review: false }])]);
		expect(replayed).toEqual([{ text: "a", status: "not_started" }]);
		expect(Object.keys(must(replayed[0], "the replayed item"))).toEqual(["text", "status"]);
	});

	it("keeps a check as written, line breaks and quotes included", () => {
		const check = "cd web &&\n  npm test -- --grep 'it \"works\"'";
		expect(lastSnapshot([snapshotEntry([{ text: "a", status: "not_started", check }])])).toEqual([
			{ text: "a", status: "not_started", check },
		]);
	});

	it("returns copies that share nothing with the session entry", () => {
		const stored = withFields.map((item) => ({ ...item }));
		const replayed = lastSnapshot([toolResult(stored)]);
		must(replayed[0], "item 0").check = "changed";
		must(replayed[1], "item 1").review = false;
		expect(stored).toEqual(withFields);
	});
});

describe("one malformed item makes the whole snapshot untrusted", () => {
	const hostile: [string, unknown][] = [
		["an unknown key", { text: "a", status: "not_started", check: "true", owner: "me" }],
		["an empty check", { text: "a", status: "not_started", check: "" }],
		["a blank check", { text: "a", status: "not_started", check: " \n\t " }],
		["a check of 501 characters", { text: "a", status: "not_started", check: "x".repeat(501) }],
		["a number check", { text: "a", status: "not_started", check: 0 }],
		["a null check", { text: "a", status: "not_started", check: null }],
		["an array check", { text: "a", status: "not_started", check: ["npm", "test"] }],
		["a string review mark", { text: "a", status: "not_started", review: "true" }],
		["a number review mark", { text: "a", status: "not_started", review: 1 }],
		["a null review mark", { text: "a", status: "not_started", review: null }],
	];

	it.each(hostile)("an item with %s: no snapshot from that entry", (_name, item) => {
		expect(snapshotFromEntry(toolResult([...withFields, item]))).toBeUndefined();
		expect(snapshotFromEntry(snapshotEntry([item, ...withFields]))).toBeUndefined();
	});

	it.each(hostile)("an item with %s: the earlier trusted list is rebuilt instead", (_name, item) => {
		expect(lastSnapshot([toolResult(earlier), toolResult([withFields[0], item])])).toEqual(earlier);
		expect(lastSnapshot([snapshotEntry(earlier), snapshotEntry([item])])).toEqual(earlier);
	});

	it("a check of exactly 500 characters is still trusted", () => {
		const item = { text: "a", status: "not_started", check: "x".repeat(500) };
		expect(lastSnapshot([toolResult(earlier), toolResult([item])])).toEqual([item]);
	});
});

describe("a plan's links are replayed as stored, and a list whose links do not hold is not trusted", () => {
	it("replays the waits and subtasks exactly", () => {
		expect(lastSnapshot([toolResult(PLAN)])).toEqual(PLAN);
	});

	const broken: [string, unknown[]][] = [
		["an empty blockedBy", [{ text: "a", status: "not_started", blockedBy: [] }]],
		[
			"a blockedBy of strings",
			[
				{ text: "a", status: "not_started" },
				{ text: "b", status: "not_started", blockedBy: ["0"] },
			],
		],
		[
			"a wait twice",
			[
				{ text: "a", status: "not_started" },
				{ text: "b", status: "not_started", blockedBy: [0, 0] },
			],
		],
		["a negative parent", [{ text: "a", status: "not_started", parent: -1 }]],
		["a wait out of the list", [{ text: "a", status: "not_started", blockedBy: [4] }]],
		[
			"a cycle",
			[
				{ text: "a", status: "not_started", blockedBy: [1] },
				{ text: "b", status: "not_started", blockedBy: [0] },
			],
		],
		[
			"subtasks two levels deep",
			[
				{ text: "a", status: "not_started" },
				{ text: "b", status: "not_started", parent: 0 },
				{ text: "c", status: "not_started", parent: 1 },
			],
		],
	];

	it.each(broken)("a list with %s: the earlier trusted list is rebuilt instead", (_name, list) => {
		expect(snapshotFromEntry(toolResult(list))).toBeUndefined();
		expect(lastSnapshot([toolResult(earlier), toolResult(list)])).toEqual(earlier);
	});
});

describe("sessions recorded before checks and review marks still reconstruct", () => {
	const plain = [
		{ text: "Write database schema", status: "completed" },
		{ text: "Implement migration script", status: "in_progress" },
		{ text: "Add API endpoints", status: "not_started" },
	];

	it("plain { text, status } items of a tool result come back exactly", () => {
		const replayed = lastSnapshot([toolResult(plain, "write_todos", "write")]);
		expect(replayed).toEqual(plain);
		expect(replayed.map((item) => Object.keys(item))).toEqual([
			["text", "status"],
			["text", "status"],
			["text", "status"],
		]);
	});

	it("an old til-done-snapshot custom entry comes back exactly", () => {
		const old = { type: "custom", customType: "til-done-snapshot", data: { action: "write", todos: plain } };
		expect(lastSnapshot([toolResult(earlier), old])).toEqual(plain);
	});

	it("an old branch without any done-check entry has no done-check", () => {
		expect(lastDoneCheck([toolResult(plain), snapshotEntry(plain)])).toBeUndefined();
	});
});

describe("lastDoneCheck: the last well-formed til-done-check entry on the branch, leaf first", () => {
	it("reads only the entry type til-done-check: a list's snapshot entry is no done-check", () => {
		expect(
			lastDoneCheck([{ type: "custom", id: "s-1", customType: ENTRY_TYPE.snapshot, data: { command: "x" } }]),
		).toBeUndefined();
	});

	it("returns the command the user set", () => {
		expect(lastDoneCheck([doneCheckEntry({ command: "npm test && npm run lint" })])).toBe("npm test && npm run lint");
	});

	it("returns null when the user turned it off", () => {
		expect(lastDoneCheck([doneCheckEntry({ command: "npm test" }), doneCheckEntry({ command: null })])).toBeNull();
	});

	it("returns undefined when the branch holds none", () => {
		expect(lastDoneCheck([])).toBeUndefined();
		expect(
			lastDoneCheck([toolResult(withFields), { type: "custom", customType: "other", data: { command: "x" } }]),
		).toBe(undefined);
	});

	it("prefers the entry nearest the leaf", () => {
		const branch = [doneCheckEntry({ command: null }), doneCheckEntry({ command: "first" }), toolResult(earlier)];
		expect(lastDoneCheck(branch)).toBe("first");
		expect(lastDoneCheck([...branch, doneCheckEntry({ command: "second" })])).toBe("second");
		expect(lastDoneCheck([...branch, doneCheckEntry({ command: null })])).toBeNull();
	});

	it.each<[string, unknown]>([
		["no data", undefined],
		["null data", null],
		["data that is a string", "npm test"],
		["data without a command", {}],
		["an undefined command", { command: undefined }],
		["an empty command", { command: "" }],
		["a blank command", { command: "  \n " }],
		["a command of 501 characters", { command: "x".repeat(501) }],
		["a number command", { command: 7 }],
		["a boolean command", { command: false }],
		["an array command", { command: ["npm", "test"] }],
	])("skips an entry with %s, falling back to the one before", (_name, data) => {
		expect(lastDoneCheck([doneCheckEntry({ command: "npm test" }), doneCheckEntry(data)])).toBe("npm test");
		expect(lastDoneCheck([doneCheckEntry({ command: null }), doneCheckEntry(data)])).toBeNull();
		expect(lastDoneCheck([doneCheckEntry(data)])).toBeUndefined();
	});

	it("skips entries that only look like a done-check, and odd entries", () => {
		const branch = [
			doneCheckEntry({ command: "real" }),
			{ type: "message", customType: ENTRY_TYPE.doneCheck, data: { command: "forged" } },
			{ type: "custom_message", customType: ENTRY_TYPE.doneCheck, data: { command: "forged" } },
			{ type: "custom", customType: "til-done-check ", data: { command: "forged" } },
			null,
			undefined,
			"til-done-check",
			42,
		];
		expect(lastDoneCheck(branch)).toBe("real");
	});

	it("accepts a command of exactly 500 characters", () => {
		expect(lastDoneCheck([doneCheckEntry({ command: "x".repeat(500) })])).toBe("x".repeat(500));
	});
});

describe("lastVerdict: the verdict of the list as the branch leaves it", () => {
	const verdict = (data: unknown) => ({ type: "custom", id: "v-1", customType: ENTRY_TYPE.verdict, data });
	const failed = { passed: false, failed: ["the done-check (exit code 1)"], checks: 1 };
	const passed = { passed: true, failed: [], checks: 2 };
	const list = toolResult([{ text: "a", status: "completed" }]);

	it("is the last verdict after the last list", () => {
		expect(lastVerdict([list, verdict(failed)])).toEqual(failed);
		expect(lastVerdict([list, verdict(failed), verdict(passed)])).toEqual(passed);
	});

	it("is none once the list or the done-check changed after it", () => {
		expect(lastVerdict([verdict(passed), list])).toBeUndefined();
		expect(lastVerdict([list, verdict(passed), snapshotEntry([{ text: "a", status: "completed" }])])).toBeUndefined();
		expect(lastVerdict([list, verdict(passed), doneCheckEntry({ command: "make check" })])).toBeUndefined();
		expect(lastVerdict([])).toBeUndefined();
	});

	it.each([
		["no passed", { failed: [], checks: 1 }],
		["a pass with failures", { passed: true, failed: ["x"], checks: 1 }],
		["a failure without any", { passed: false, failed: [], checks: 1 }],
		["failures that are not text", { passed: false, failed: [1], checks: 1 }],
		["a negative count", { passed: true, failed: [], checks: -1 }],
		["no data", undefined],
		["a judge that is null", { passed: true, failed: [], checks: 1, judge: null }],
		["a judge's item that is null", { passed: true, failed: [], checks: 1, judge: { judged: true, items: [null] } }],
		[
			"a judge's goal that is no finding",
			{ passed: true, failed: [], checks: 1, judge: { judged: true, items: [], goal: null } },
		],
	])("skips a malformed entry (%s) for the one before it", (_name, data) => {
		expect(lastVerdict([list, verdict(failed), verdict(data)])).toEqual(failed);
	});
});

describe("lastDecisions and lastPause: the decisions and the pause a branch keeps, malformed entries skipped", () => {
	const custom = (customType: string, data: unknown) => ({ type: "custom", id: "e", customType, data });
	const counters = {
		continuations: 1,
		maxContinuations: 20,
		noProgress: 0,
		maxNoProgress: 3,
		failures: 0,
		maxFailures: 3,
		finished: 1,
		total: 2,
		tokens: 100,
		cost: 0,
		calls: 1,
	};
	const decision = (at: number) => ({ at, kind: "send", code: "continue", text: "Continuing.", counters });

	it("the last well-formed decisions, oldest first; one without counters, or of no known kind, or no data, skipped", () => {
		const branch = [
			custom(ENTRY_TYPE.decision, decision(1)),
			custom(ENTRY_TYPE.decision, null),
			custom(ENTRY_TYPE.decision, { ...decision(2), kind: "dance" }),
			custom(ENTRY_TYPE.decision, { ...decision(3), counters: { ...counters, calls: "1" } }),
			custom(ENTRY_TYPE.decision, { ...decision(4), counters: undefined }),
			null,
			custom(ENTRY_TYPE.decision, decision(5)),
		];
		expect(lastDecisions(branch, 10)).toEqual([decision(1), decision(5)]);
		expect(lastDecisions(branch, 1)).toEqual([decision(5)]);
	});

	it("the last well-formed pause; one with no data, or a reason that is not text, skipped", () => {
		const branch = [
			custom(ENTRY_TYPE.pause, { paused: true, reason: "busy" }),
			custom(ENTRY_TYPE.pause, { paused: false, reason: 3 }),
			custom(ENTRY_TYPE.pause, null),
		];
		expect(lastPause(branch)).toEqual({ paused: true, reason: "busy" });
		expect(lastPause([custom(ENTRY_TYPE.pause, { paused: false })])).toEqual({ paused: false });
		expect(lastPause([custom(ENTRY_TYPE.decision, decision(1))])).toBeUndefined();
	});
});

describe("lastEndedWorkers: the workers that ended on a branch, malformed entries skipped", () => {
	const custom = (data: unknown) => ({ type: "custom", id: "e", customType: ENTRY_TYPE.worker, data });
	const worker = (index: number) => ({
		index,
		text: `Write ${index}.txt`,
		end: "landed",
		why: "it landed",
		seconds: 2,
		tokens: 40,
		files: [`${index}.txt`],
		answer: "Wrote it.",
	});

	it.each([
		["no data", null],
		["an end of no known kind", { ...worker(9), end: "vanished" }],
		["a negative index", { ...worker(9), index: -1 }],
		["tokens as text", { ...worker(9), tokens: "40" }],
		["a file that is not text", { ...worker(9), files: [3] }],
		["no answer", { ...worker(9), answer: undefined }],
	])("skips %s; keeps the well-formed ones in the order they ended, the last `max`", (_name, data) => {
		const branch = [custom(worker(0)), custom(data), custom(worker(1)), custom(worker(2))];
		expect(lastEndedWorkers(branch, 10)).toEqual([worker(0), worker(1), worker(2)]);
		expect(lastEndedWorkers(branch, 2)).toEqual([worker(1), worker(2)]);
	});

	it("only those since the user's last prompt: an earlier chain's are not listed", () => {
		const prompt = { type: "message", id: "p", message: { role: "user", content: "Thanks." } };
		const answer = { type: "message", id: "a", message: { role: "assistant", content: [] } };
		expect(lastEndedWorkers([custom(worker(0)), prompt, answer, custom(worker(1))], 10)).toEqual([worker(1)]);
		expect(lastEndedWorkers([custom(worker(0)), custom(worker(1)), prompt, answer], 10)).toEqual([]);
	});

	it("kept as the live list keeps them: the reason on one line, the answer cut to its bound", () => {
		const stored = { ...worker(0), why: "it failed\u001b[31m red\u0085 now", answer: "a".repeat(30_000) };
		const [kept] = lastEndedWorkers([custom(stored)], 10);
		expect(kept?.why).toBe("it failed [31m red  now");
		expect(kept?.answer).toBe(`${"a".repeat(19_999)}…`);
	});
});

describe("userRequests: the user's own prompts on the branch, which the judge and the workers are told", () => {
	const user = (content: unknown) => ({ type: "message", message: { role: "user", content } });

	it("the user's own prompts, as typed, and nothing else", () => {
		const branch = [
			user("Add a flag.\nDocument it."),
			{ type: "custom_message", customType: "til-done-countdown", content: "There are still…" },
			user([
				{ type: "text", text: "And test it." },
				{ type: "image", data: "…" },
			]),
			{ type: "message", message: { role: "assistant", content: [] } },
			{ type: "message", message: null },
			null,
		];
		expect(userRequests(branch)).toEqual(["Add a flag.\nDocument it.", "And test it."]);
	});
});
