/**
 * The wait for workers through the engine, the session's workers stood in for: each worker's end, as the store records
 * it (the worker leaves those at work), wakes the next decision exactly once, an end while others start among them;
 * a claim another process holds is no end.
 */
import { describe, expect, it, vi } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import {
	addWorker,
	beginSession,
	getDecisions,
	getTodos,
	markClaimedElsewhere,
	removeWorker,
	setTodos,
	updateTodoStatus,
} from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startEngine } from "../helpers/engine.ts";

/** The stand-in's starts, and what a test has it do as it starts workers on `items`. */
const workers = vi.hoisted(() => ({
	starts: [] as number[][],
	onStart: (_items: readonly number[]): void => {},
}));
vi.mock("../../src/edges/workers/session-workers.ts", () => ({
	startWorkers: async (items: readonly number[]) => {
		workers.starts.push([...items]);
		workers.onStart(items);
		return true;
	},
	stopWorkers: async () => [],
	workersInterrupted: () => new Promise(() => {}),
}));

const ITEMS: TodoItem[] = ["Write a.txt", "Write b.txt", "Write c.txt"].map((text) => ({
	text,
	status: "not_started",
}));
const keyOf = (index: number) => itemKey(index, ITEMS[index]?.text ?? "");

/** A worker starts on item `index`, as the session's workers record it. */
const start = (index: number) => addWorker({ index, key: keyOf(index), startedAt: 0, tokens: 0, dir: "" });

/** The worker of item `index` landed: its item completes, and it leaves those at work. */
function land(index: number): void {
	updateTodoStatus([index], "completed");
	removeWorker(keyOf(index));
}

function setup(onStart: (items: readonly number[]) => void) {
	workers.starts = [];
	workers.onStart = onStart;
	const s = startEngine({ mode: "rpc" }, { workers: 2, countdownSeconds: 0 });
	beginSession("own", s.config);
	setTodos(ITEMS);
	return s;
}

const codes = () => getDecisions().map((decision) => decision.code);
/** Resolves once `done()` holds. */
const until = (done: () => boolean, what: string) => waitForValue(() => (done() ? true : undefined), 5_000, what);

describe("a worker's end wakes the next decision exactly once", () => {
	it("each end decides once, an end while others start among them: the freed place is filled, then the list is done", async () => {
		const s = setup((items) => {
			for (const index of items) start(index);
			// The first worker ends while the third starts: its end is after the decision, and wakes the wait.
			if (items.includes(2)) land(1);
		});
		s.endRun();
		await until(() => workers.starts.length === 1, "the first start");
		land(0);
		await until(() => codes().length === 3, "the decision after the start of [2]");
		expect(workers.starts).toEqual([[0, 1], [2]]);
		expect(codes()).toEqual(["work", "work", "workers-busy"]);
		land(2);
		await until(() => codes().length === 4, "the decision after the last end");
		expect(codes()).toEqual(["work", "work", "workers-busy", "all-done"]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "completed", "completed"]);
	});

	it("a claim another session holds is no end: the wait goes on until the worker at work ends", async () => {
		const s = setup((items) => {
			for (const index of items) start(index);
			markClaimedElsewhere(keyOf(1), 50);
		});
		setTodos(ITEMS.slice(0, 2));
		s.endRun();
		await until(() => workers.starts.length === 1, "the start");
		expect(codes()).toEqual(["work"]);
		land(0);
		await until(() => codes().length >= 2, "the decision after the end");
		expect(codes().slice(0, 2)).toEqual(["work", "held-elsewhere"]);
	});

	it("an item held elsewhere is no end of the chain: looked at again once its wait is over, it is worked", async () => {
		let tries = 0;
		const s = setup((items) => {
			tries += 1;
			if (tries === 1) return markClaimedElsewhere(keyOf(0), 50);
			for (const index of items) start(index);
			land(0);
		});
		setTodos(ITEMS.slice(0, 1));
		s.endRun();
		await until(() => codes().at(-1) === "all-done", "the list done");
		expect(codes()).toEqual(["work", "held-elsewhere", "work", "all-done"]);
		expect(workers.starts).toEqual([[0], [0]]);
	});
});
