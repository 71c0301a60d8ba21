/**
 * The wait for workers through the engine, the session's workers stood in for: each worker's end, as the store records
 * it (the worker leaves those at work), wakes the next decision exactly once, an end while others start among them;
 * a claim another process won frees the worker's place at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { planToMarkdown } from "../../src/core/rules/plan-file.ts";
import type { TilDoneConfig } from "../../src/core/rules/settings.ts";
import {
	addWorker,
	beginSession,
	getDecisions,
	getTodos,
	getWorkers,
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
	/** Catches an interrupt as the session's workers would: what waits on one is told, with their stop. */
	interrupt: (_stop: { stopped: Promise<void> }): void => {},
	stopped: 0,
}));
vi.mock("../../src/edges/workers/session-workers.ts", () => ({
	startWorkers: async (items: readonly number[]) => {
		workers.starts.push([...items]);
		workers.onStart(items);
		return true;
	},
	stopWorkers: async () => {
		workers.stopped += 1;
		return [];
	},
	// A wait on others' claims ends at its time here: the stand-in never sees one move.
	othersMoved: () => new Promise(() => {}),
	workersInterrupted: () =>
		new Promise((resolve) => {
			workers.interrupt = resolve;
		}),
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

/** The engine of the test under way: its chain is ended with the test, so no wait of it decides in the next test. */
let running: ReturnType<typeof startEngine> | undefined;
afterEach(() => {
	running?.engine.onUserInput(running.ctx);
	running = undefined;
});

function setup(onStart: (items: readonly number[]) => void, overrides: Partial<TilDoneConfig> = {}) {
	workers.starts = [];
	workers.onStart = onStart;
	workers.stopped = 0;
	const s = startEngine({ mode: "rpc" }, { workers: 2, countdownSeconds: 0, ...overrides });
	running = s;
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

	it("a claim another session won frees its place at once: the next ready item starts while the other worker is still at work", async () => {
		const s = setup((items) => {
			for (const index of items) start(index);
			if (items.includes(1)) markClaimedElsewhere(keyOf(1), 60_000);
		});
		s.endRun();
		await until(() => workers.starts.length === 2, "the start of the next ready item");
		expect(workers.starts).toEqual([[0, 1], [2]]);
		expect(getWorkers().map((worker) => worker.index)).toEqual([0, 2]);
		expect(codes()).toEqual(["work", "work"]);
		land(0);
		await until(() => codes().length === 3, "the decision after the first end");
		land(2);
		await until(() => codes().length === 4, "the decision after the last end");
		expect(codes()).toEqual(["work", "work", "workers-busy", "held-elsewhere"]);
		expect(workers.starts).toEqual([[0, 1], [2]]);
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

describe("a wait on items other sessions hold ends at its time, at Esc, or at an interrupt", () => {
	/** Presses a key as the TUI would: every live input handler sees it; whether one consumed it. */
	const press = (s: ReturnType<typeof setup>, data: string) =>
		[...s.ui.inputHandlers].map((handler) => handler(data)?.consume === true).includes(true);

	it("at its end the plan file is read again: the item another session completed there is completed here, no worker started", async () => {
		const dir = mkdtempSync(join(tmpdir(), "til-done-wait-"));
		try {
			const planFile = join(dir, "PLAN.md");
			const one = ITEMS.slice(0, 1);
			const s = setup(
				() => {
					markClaimedElsewhere(keyOf(0), 50);
					// The other session lands the item and checks it in the plan file while this one waits.
					writeFileSync(planFile, planToMarkdown([{ ...(one[0] as TodoItem), status: "completed" }]));
				},
				{ planFile },
			);
			setTodos(one);
			s.endRun();
			await until(() => codes().at(-1) === "all-done", "the list done");
			expect(codes()).toEqual(["work", "held-elsewhere", "all-done"]);
			expect(workers.starts).toEqual([[0]]);
			expect(getTodos()).toEqual([{ ...one[0], status: "completed" }]);
			expect(readFileSync(planFile, "utf8")).toBe(planToMarkdown(getTodos()));
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("Esc during the wait ends it: the chain is interrupted, and nothing is tried again", async () => {
		const s = setup(() => markClaimedElsewhere(keyOf(0), 3_600_000));
		setTodos(ITEMS.slice(0, 1));
		s.endRun();
		await until(() => codes().at(-1) === "held-elsewhere", "the wait");
		await until(() => s.ui.inputHandlers.size === 1, "the Esc handler");
		expect(press(s, "\x1b")).toBe(true);
		await until(() => codes().at(-1) === "interrupted", "the interruption");
		expect(codes()).toEqual(["work", "held-elsewhere", "interrupted"]);
		expect(s.ui.inputHandlers.size).toBe(0);
		expect(workers.starts).toEqual([[0]]);
	});
});

describe("an interrupt caught while workers are at work ends the wait once they have stopped", () => {
	it("the chain is interrupted after the workers' stop, and starts nothing more", async () => {
		let stop = () => {};
		const s = setup((items) => {
			for (const index of items) start(index);
		});
		s.endRun();
		await until(() => workers.starts.length === 1, "the start");
		workers.interrupt({ stopped: new Promise<void>((resolve) => (stop = resolve)) });
		await until(() => s.ui.inputHandlers.size === 0, "the wait ended");
		expect(codes()).toEqual(["work"]);
		stop();
		await until(() => codes().at(-1) === "interrupted", "the interruption");
		expect(codes()).toEqual(["work", "interrupted"]);
		expect(workers.starts).toEqual([[0, 1]]);
	});
});
