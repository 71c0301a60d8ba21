/**
 * The store's parts, as a pi process has them (src/store/scope.ts): most processes only ever have one session of the
 * extension, which needs no async context; from the second on, each session's work reads its own part, the work the
 * first began before the second existed included. Each test takes a fresh store module, as a new process has: the
 * suite's other tests tell the sessions apart from the first (test/store-outside-sessions.ts).
 */

import { setTimeout as later } from "node:timers/promises";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { TodoItem } from "../../src/types.ts";
import { STORE_OUTSIDE_SESSIONS } from "../helpers/expected.ts";

type Store = typeof import("../../src/state.ts");
let store: Store;

beforeEach(async () => {
	vi.resetModules();
	store = await import("../../src/state.ts");
});

const item = (text: string): TodoItem => ({ text, status: "not_started" });
const texts = () => store.getTodos().map((todo) => todo.text);

/** A promise and the function that settles it, for a test to settle at the moment it means. */
function settledLater(): { promise: Promise<void>; settle: () => void } {
	let settle: () => void = () => {};
	const promise = new Promise<void>((resolve) => {
		settle = resolve;
	});
	return { promise, settle };
}

describe("a process with one session reads and writes its part without an async context", () => {
	it("in its callbacks, in what they left for later, and outside them", async () => {
		const only = store.sessionOf({});
		store.inSession(only, () => store.setTodos([item("only")]));
		const read = store.inSession(only, () => later(1).then(texts));
		await expect(read).resolves.toEqual(["only"]);
		expect(texts()).toEqual(["only"]);
	});

	it("before its part is made, the store is nobody's: a read is an error", () => {
		expect(() => store.getTodos()).toThrow(STORE_OUTSIDE_SESSIONS);
	});
});

describe("from a second session on, each session's work reads its own part", () => {
	it("the first's work begun before the second existed stays the first's; each later callback reads its own", async () => {
		const first = store.sessionOf({ name: "first" });
		store.inSession(first, () => store.setTodos([item("first")]));
		const begunAlone = store.inSession(first, () => later(5).then(texts));
		const boundAlone = store.inSession(first, () => store.bindToSession(texts));

		const second = store.sessionOf({ name: "second" });
		store.inSession(second, () => store.setTodos([item("second")]));
		const begunBeside = store.inSession(second, () => later(1).then(texts));

		await expect(begunBeside).resolves.toEqual(["second"]);
		await expect(begunAlone).resolves.toEqual(["first"]);
		expect(store.inSession(second, boundAlone)).toEqual(["first"]);
		expect(store.inSession(first, texts)).toEqual(["first"]);
		expect(store.inSession(second, () => store.bindToSession(texts))()).toEqual(["second"]);
	});

	it("a session's part is made once per instance: the same API object is the same part", () => {
		const api = {};
		const part = store.sessionOf(api);
		expect(store.sessionOf(api)).toBe(part);
		store.inSession(part, () => store.setTodos([item("kept")]));
		store.sessionOf({});
		expect(store.inSession(store.sessionOf(api), texts)).toEqual(["kept"]);
	});
});

describe("a session made while the first's work is under way leaves that work the first's", () => {
	it("a child session built inside the first's callback, after it awaited, keeps its own list; the first's goes on reading its own", async () => {
		const parent = store.sessionOf({ name: "parent" });
		store.inSession(parent, () => store.setTodos([item("parent")]));
		const run = store.inSession(parent, async () => {
			await later(1);
			const child = store.sessionOf({ name: "child" });
			const childRead = store.inSession(child, () => {
				store.setTodos([item("child")]);
				return later(1).then(texts);
			});
			const parentNow = texts();
			await later(1);
			return { parentNow, parentLater: texts(), child: await childRead };
		});
		await expect(run).resolves.toEqual({ parentNow: ["parent"], parentLater: ["parent"], child: ["child"] });
	});

	it("a promise the first began alone, settled from inside the second's callback, goes on in the first's part", async () => {
		const first = store.sessionOf({ name: "first" });
		store.inSession(first, () => store.setTodos([item("first")]));
		const { promise: settled, settle } = settledLater();
		const written = store.inSession(first, () =>
			settled.then(() => store.setTodos([...store.getTodos(), item("first, later")])),
		);
		const second = store.sessionOf({ name: "second" });
		store.inSession(second, () => {
			store.setTodos([item("second")]);
			settle();
		});
		await written;
		expect(store.inSession(first, texts)).toEqual(["first", "first, later"]);
		expect(store.inSession(second, texts)).toEqual(["second"]);
	});

	it("work the first began alone binds a callback to the first's part, and its new timers read the first's, after the second exists", async () => {
		const first = store.sessionOf({ name: "first" });
		store.inSession(first, () => store.setTodos([item("first")]));
		const { promise: secondMade, settle: madeSecond } = settledLater();
		const leftover = store.inSession(first, async () => {
			await secondMade;
			const bound = store.bindToSession(texts);
			return { bound, timed: await later(1).then(texts) };
		});
		const second = store.sessionOf({ name: "second" });
		store.inSession(second, () => store.setTodos([item("second")]));
		madeSecond();
		const { bound, timed } = await leftover;
		expect(timed).toEqual(["first"]);
		expect(store.inSession(second, bound)).toEqual(["first"]);
	});

	it("a listener the first subscribed alone hears a change the second's work makes to the first's part only", () => {
		const first = store.sessionOf({ name: "first" });
		const heard: string[][] = [];
		store.inSession(first, () => store.subscribe(() => heard.push(texts())));
		const second = store.sessionOf({ name: "second" });
		store.inSession(second, () => store.setTodos([item("second")]));
		store.inSession(second, () => store.inSession(first, () => store.setTodos([item("first")])));
		expect(heard).toEqual([["first"]]);
	});
});
