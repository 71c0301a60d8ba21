/**
 * Workers through the engine, with a fake pi and a Node script standing in for each worker's pi, against a real
 * repository: what the chain decides and does when workers are on, outside a git work tree, and when the user takes
 * the wheel.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { claimMessage, claimRef } from "../../src/core/rules/leases.ts";
import { beginSession, getDecisions, getTodos, getWorkers, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startEngine } from "../helpers/engine.ts";
import { allDone, HELD_ELSEWHERE, maskSeconds, WORKERS } from "../helpers/expected.ts";
import { STAND_IN_CALL_TOKENS, WORKER } from "../helpers/worker-stand-in.ts";

const stand = vi.hoisted(() => ({ script: "" }));
vi.mock("../../src/edges/workers/worker-process.ts", async (load) => ({
	...(await load<typeof import("../../src/edges/workers/worker-process.ts")>()),
	piCommand: () => ({ command: process.execPath, args: [stand.script] }),
}));

let dir = "";
beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-workers-engine-")));
	execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
	stand.script = `${dir}-worker.js`;
	writeFileSync(stand.script, WORKER);
});
afterEach(() => {
	delete process.env.WORKER_MODE;
	delete process.env.WORKER_HANG;
	rmSync(dir, { recursive: true, force: true });
	rmSync(stand.script, { force: true });
});

const items = (...texts: string[]): TodoItem[] => texts.map((text) => ({ text, status: "not_started" }));

function setup(cwd = dir) {
	const s = startEngine({ mode: "rpc", cwd }, { workers: 2, countdownSeconds: 0 });
	beginSession("own", s.config);
	const told = () => s.ui.notifications.map((notice) => notice.message);
	/** The lines that stay in the transcript, the workers' seconds masked. */
	const stayed = () => s.pi.reports().map((line) => maskSeconds(line.text));
	return { ...s, told, stayed };
}

/** Resolves once `done()` holds (the workers are real processes); fails, naming `what`, after 10 s. */
const until = (done: () => boolean, what: string) => waitForValue(() => (done() ? true : undefined), 10_000, what);

describe("with workers on, the chain hands ready items to workers and goes on as each lands", () => {
	it("three items, two workers: all land, then the list is done; the transcript keeps each start and landing", async () => {
		const s = setup();
		setTodos(items("Write item-0.txt", "Write item-1.txt", "Write item-2.txt"));
		s.endRun();
		await until(() => s.stayed().includes(allDone(3)), "the list done");
		const landed = (index: number) => WORKERS.landed(index, STAND_IN_CALL_TOKENS, [`item-${index}.txt`], "done");
		// [0] and [1] start together; [2] starts once one of them landed: their order is the processes'.
		expect(s.stayed().slice(0, 2)).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			WORKERS.started(1, "Write item-1.txt"),
		]);
		expect(s.stayed().toSorted()).toEqual(
			[0, 1, 2]
				.flatMap((index) => [WORKERS.started(index, `Write item-${index}.txt`), landed(index)])
				.concat(allDone(3))
				.toSorted(),
		);
		expect(s.stayed().at(-1)).toBe(allDone(3));
		expect(s.stayed().indexOf(WORKERS.started(2, "Write item-2.txt"))).toBeGreaterThan(
			Math.min(s.stayed().indexOf(landed(0)), s.stayed().indexOf(landed(1))),
		);
		expect(s.told()).toEqual([]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "completed", "completed"]);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("item-2.txt by its worker\n");
		expect(getDecisions().map((decision) => decision.text)[0]).toBe("Workers start on [0] [1]: 2 at work.");
		expect(s.pi.sent).toEqual([]);
	});

	it("each worker's end frees its place: the next item starts while another still works", async () => {
		process.env.WORKER_HANG = "2";
		const s = setup();
		setTodos(items("Write item-0.txt", "Write item-1.txt", "Write item-2.txt", "Write item-3.txt"));
		s.endRun();
		await until(() => getTodos()[3]?.status === "completed", "the fourth item landed");
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "completed", "in_progress", "completed"]);
		s.engine.pause(s.ctx);
		await until(() => getWorkers().length === 0, "the workers stopped");
	});

	it("an item another session holds is left to it: the other item goes to a worker, nothing is sent for the held one, and the session waits until its claim is gone", async () => {
		const s = setup();
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		const key = itemKey(0, "Write item-0.txt");
		const record = {
			plan: "main--list",
			key,
			session: "other",
			host: hostname(),
			nonce: "n",
			fence: 1,
			renewals: 0,
			since: 1,
		};
		const tree = execFileSync("git", ["mktree"], { cwd: dir, input: "", encoding: "utf8" }).trim();
		const commit = execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree], {
			cwd: dir,
			input: claimMessage(record),
			encoding: "utf8",
		}).trim();
		execFileSync("git", ["update-ref", claimRef("main--list", key), commit], { cwd: dir });
		s.endRun();
		await until(() => getTodos()[1]?.status === "completed", "the second item landed");
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(readFileSync(join(dir, "item-1.txt"), "utf8")).toBe("item-1.txt by its worker\n");
		await until(() => getDecisions().at(-1)?.code === "held-elsewhere", "the wait");
		// The default lease of 120 s: tried in full after a renewal's 40 s; its claim read meanwhile, every 2 s.
		expect(getDecisions().at(-1)?.text).toBe(HELD_ELSEWHERE([0], 40));
		expect(s.pi.sent).toEqual([]);
		// The other session lets it go: the wait ends at the next read, and the item goes to a worker here.
		execFileSync("git", ["update-ref", "-d", claimRef("main--list", key)], { cwd: dir });
		await until(() => getDecisions().at(-1)?.code === "all-done", "the list done");
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
		expect(getDecisions().filter((decision) => decision.code === "held-elsewhere")).toHaveLength(1);
	});

	it("outside a git work tree: one notice, and the session's model works the list, run after run", async () => {
		const outside = realpathSync(mkdtempSync(join(tmpdir(), "til-done-no-git-")));
		try {
			const s = setup(outside);
			setTodos(items("Write item-0.txt"));
			s.endRun();
			await until(() => s.pi.sent.length === 1, "the continuation");
			s.endRun();
			await until(() => s.pi.sent.length === 2, "the second continuation");
			expect(s.told()).toEqual([
				"pi-til-done: workers need a git work tree: the session's model works the list alone.",
			]);
			expect(getDecisions().map((decision) => decision.code)).toEqual(["work", "continue", "continue"]);
		} finally {
			rmSync(outside, { recursive: true, force: true });
		}
	});

	it("the user's pause stops every worker: the items are ready again", async () => {
		process.env.WORKER_MODE = "hang";
		const s = setup();
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		s.endRun();
		await until(() => getWorkers().filter((worker) => worker.dir !== "").length === 2, "two workers at work");
		s.engine.pause(s.ctx);
		await until(() => getWorkers().length === 0, "the workers stopped");
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started"]);
	});
});

describe("Esc while workers are at work stops them all", () => {
	/** Presses a key as the TUI would: every live input handler sees it; whether one consumed it. */
	const press = (s: ReturnType<typeof setup>, data: string) =>
		[...s.ui.inputHandlers].map((handler) => handler(data)?.consume === true).includes(true);

	it("Esc stops every worker, is consumed, and the chain stops until the next prompt; another key does nothing; workers that changed nothing are said to have kept nothing", async () => {
		process.env.WORKER_MODE = "hang";
		const s = setup();
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		s.endRun();
		await until(() => getWorkers().filter((worker) => worker.dir !== "").length === 2, "two workers at work");
		await until(() => s.ui.inputHandlers.size === 1, "the Esc handler");
		expect(press(s, "x")).toBe(false);
		expect(getWorkers()).toHaveLength(2);
		expect(press(s, "\x1b")).toBe(true);
		await until(() => s.told().some((line) => line.startsWith("Workers stopped by you")), "the stop notice");
		expect(getWorkers()).toEqual([]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started"]);
		expect(s.told().filter((line) => line.startsWith("Workers stopped"))).toEqual([
			"Workers stopped by you: 2 item(s) are ready again; no worker of theirs had changed anything, so nothing is kept.",
		]);
		expect(getDecisions().at(-1)?.code).toBe("interrupted");
		expect(s.ui.inputHandlers.size).toBe(0);
		expect(s.pi.sent).toEqual([]);
	});

	it.each([
		["text is being typed", { editorText: "half a prompt" }],
		["the completion popup is open", { editorText: "/", popup: true }],
		["the popup Tab opened on an empty line is open", { popup: true }],
		["a dialog or a selector has the focus", { focus: "other" as const }],
	])("Esc while %s is not theirs: it is left to pi, and every worker goes on", async (_name, screen) => {
		process.env.WORKER_MODE = "hang";
		const s = setup();
		setTodos(items("Write item-0.txt"));
		s.endRun();
		await until(() => getWorkers().some((worker) => worker.dir !== ""), "the worker at work");
		await until(() => s.ui.inputHandlers.size === 1, "the Esc handler");
		Object.assign(s.screen, screen);
		expect(press(s, "\x1b")).toBe(false);
		expect(getWorkers()).toHaveLength(1);
		Object.assign(s.screen, { editorText: "", popup: false, focus: "editor" });
		expect(press(s, "\x1b")).toBe(true);
		await until(() => getWorkers().length === 0, "the worker stopped");
	});

	it("where pi gives no TUI to ask, the editor's text alone decides", async () => {
		process.env.WORKER_MODE = "hang";
		const s = setup();
		s.screen.tui = false;
		setTodos(items("Write item-0.txt"));
		s.endRun();
		await until(() => getWorkers().some((worker) => worker.dir !== ""), "the worker at work");
		await until(() => s.ui.inputHandlers.size === 1, "the Esc handler");
		s.screen.editorText = "typed";
		expect(press(s, "\x1b")).toBe(false);
		s.screen.editorText = "  ";
		expect(press(s, "\x1b")).toBe(true);
		await until(() => getWorkers().length === 0, "the worker stopped");
	});

	it("once the workers are done, Esc is pi's again: no handler is left", async () => {
		const s = setup();
		setTodos(items("Write item-0.txt"));
		s.endRun();
		await until(() => s.stayed().includes(allDone(1)), "the list done");
		expect(s.ui.inputHandlers.size).toBe(0);
		expect(s.ui.widgets.has("til-done-escape-watch")).toBe(false);
	});
});
