import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseWorkersAsk } from "../../src/core/rules/todo-args.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import { setWorkers, showWorkerAnswer, showWorkers } from "../../src/edges/commands/workers.ts";
import {
	addWorker,
	chooseRemote,
	getEndedWorkers,
	getWorkers,
	placeWorker,
	recordWorkerAnswer,
	recordWorkerStreaming,
	recordWorkerUsage,
	resetChain,
	setTodos,
	subscribe,
	workersAllowed,
	workersFor,
} from "../../src/state.ts";
import type { FinishedWorker } from "../../src/types.ts";
import { startEngine } from "../helpers/engine.ts";
import { maskSeconds, todosRefused, WORKERS, WORKERS_NEED_GIT, workersSharedNeedOne } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { ownTmpdir } from "../helpers/own-tmpdir.ts";
import { endedWorker, freshStore } from "../helpers/store.ts";

ownTmpdir();
let dir = "";
beforeEach(() => {
	freshStore();
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-workers-command-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("/todos workers reads its word strictly", () => {
	it.each([
		["", undefined],
		["off", { count: 0 }],
		["OFF", { count: 0 }],
		["0", { count: 0 }],
		["4", { count: 4 }],
		["16", { count: 16 }],
		["clean", "clean"],
		["Clean", "clean"],
	])("%j: %s", (rest, value) => {
		expect(parseWorkersAsk(rest, 16)).toEqual({ value });
	});

	it.each(["17", "-1", "two", "4 more", "1.5", "clean up", "[1] [2]"])("%j is refused with what it takes", (rest) => {
		expect(parseWorkersAsk(rest, 16, [1, 2])).toEqual({ error: WORKERS.notWorkersWord(rest, 16) });
	});

	it("an item in brackets: one a worker worked on in this chain, as typed; a bare number stays a count", () => {
		expect(parseWorkersAsk("[2]", 16, [0, 2])).toEqual({ value: { item: 2 } });
		expect(parseWorkersAsk("[02]", 16, [0, 2])).toEqual({ value: { item: 2 } });
		expect(parseWorkersAsk("2", 16, [0, 2])).toEqual({ value: { count: 2 } });
	});

	it.each(["[1]", "[x]", "[-1]", "[2", "[]", "[1.0]"])(
		"%j, no item a worker worked on, is refused naming those that are",
		(rest) => {
			expect(parseWorkersAsk(rest, 16, [0, 2])).toEqual({ error: WORKERS.noWorkerOn(rest, [0, 2]) });
			expect(parseWorkersAsk(rest, 16)).toEqual({ error: WORKERS.noWorkerOn(rest, []) });
		},
	);
});

describe("/todos workers shows the workers at work, and sets how many may work", () => {
	it("alone: the setting, then each worker with its item, time, tokens and tree", async () => {
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		await showWorkers(fake.ctx, 0);
		setTodos([{ text: "Write the parser", status: "in_progress" }]);
		addWorker({ index: 0, key: "0-x", startedAt: 1_000, tokens: 1234, dir: "" });
		await showWorkers(fake.ctx, 2, 31_000);
		placeWorker("0-x", "/tmp/til-done-worker-abc");
		await showWorkers(fake.ctx, 2, 31_000);
		expect(fake.ui.notifications.map((notice) => notice.message)).toEqual([
			"Workers: off",
			"Workers: up to 2 at once; 1 at work\n  [0] Write the parser: 30 s, 1,234 tokens, in (its tree is being made)\nEsc (in the TUI) or /todos pause stops them all.",
			"Workers: up to 2 at once; 1 at work\n  [0] Write the parser: 30 s, 1,234 tokens, in /tmp/til-done-worker-abc\nEsc (in the TUI) or /todos pause stops them all.",
		]);
	});

	it("<n> or off in a git work tree: taken for this session; outside one, more than 0 is refused and nothing changes", async () => {
		const refused: string[] = [];
		const outside = createFakeCtx({ mode: "rpc", cwd: dir });
		expect(await setWorkers(outside.ctx, { count: 3, remote: undefined }, (why) => refused.push(why))).toBe(false);
		expect(refused).toEqual(["workers need a git work tree, and this session's folder is not in one"]);
		expect(workersAllowed(0)).toBe(0);
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const inside = createFakeCtx({ mode: "rpc", cwd: dir });
		expect(await setWorkers(inside.ctx, { count: 3, remote: undefined }, (why) => refused.push(why))).toBe(true);
		expect(workersAllowed(0)).toBe(3);
		expect(await setWorkers(inside.ctx, { count: 0, remote: undefined }, (why) => refused.push(why))).toBe(true);
		expect(workersAllowed(4)).toBe(0);
		expect(inside.ui.notifications.map((notice) => notice.message)).toEqual([
			"Workers: up to 3 at once in this session.",
			"Workers: off for this session.",
		]);
	});

	it("on a plan shared through a remote: 0 is refused and nothing changes; at least 1 works whatever the setting says, until /todos remote off", async () => {
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const inside = createFakeCtx({ mode: "rpc", cwd: dir });
		const refused: string[] = [];
		expect(await setWorkers(inside.ctx, { count: 0, remote: "origin" }, (why) => refused.push(why))).toBe(false);
		expect(refused).toEqual([workersSharedNeedOne("origin")]);
		expect(inside.ui.notifications).toEqual([]);
		expect(workersFor({ workers: 0, remote: "origin" })).toBe(1);
		expect(workersFor({ workers: 3, remote: "origin" })).toBe(3);
		expect(workersFor({ workers: 0, remote: undefined })).toBe(0);
		chooseRemote(null);
		expect(workersFor({ workers: 0, remote: "origin" })).toBe(0);
		expect(await setWorkers(inside.ctx, { count: 2, remote: "origin" }, (why) => refused.push(why))).toBe(true);
		expect(workersFor({ workers: 0, remote: "origin" })).toBe(2);
	});
});

describe("/todos workers lists the workers that ended in this chain, and shows what one last answered", () => {
	const landed = (over: Partial<FinishedWorker> = {}): FinishedWorker => ({
		index: 1,
		text: "Write b.txt",
		end: "landed",
		why: "it landed",
		seconds: 12,
		tokens: 4_445,
		files: ["b.txt"],
		answer: "Wrote b.txt.\nAll \u001b[31mgood.",
		...over,
	});
	const back = landed({ index: 0, text: "Write a.txt", end: "given-back", why: "stopped", files: [], answer: "" });

	it("alone: the ones at work, then those that ended, in the order they ended, and how to read one's answer", async () => {
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		setTodos([{ text: "Write a.txt", status: "in_progress" }]);
		endedWorker(back);
		endedWorker(landed());
		addWorker({ index: 0, key: "0-x", startedAt: 1_000, tokens: 20, dir: "/tmp/til-done-worker-abc" });
		await showWorkers(fake.ctx, 2, 4_000);
		expect(maskSeconds(fake.ui.notifications[0]?.message ?? "").split("\n")).toEqual([
			WORKERS.listHead(2, 1),
			"  [0] Write a.txt: 3 s, 20 tokens, in /tmp/til-done-worker-abc",
			"Esc (in the TUI) or /todos pause stops them all.",
			WORKERS.endedHead,
			WORKERS.endedBack(0, "Write a.txt", 4_445, "stopped"),
			WORKERS.endedLanded(1, "Write b.txt", 4_445, ["b.txt"]),
			WORKERS.answerHint,
		]);
	});

	it("[<i>]: the worker at work on the item, else the last that ended; its answer whole, each line freed of control characters", () => {
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		setTodos([{ text: "Write a.txt", status: "in_progress" }]);
		endedWorker(landed({ answer: "An older try." }));
		endedWorker(landed());
		endedWorker(back);
		showWorkerAnswer(fake.ctx, 1);
		// An item no worker had (the command's parser refuses it first): nothing is said.
		showWorkerAnswer(fake.ctx, 7);
		showWorkerAnswer(fake.ctx, 0);
		addWorker({ index: 0, key: "0-x", startedAt: 1_000, tokens: 20, dir: "" });
		showWorkerAnswer(fake.ctx, 0, 3_000);
		recordWorkerAnswer("0-x", "Reading the spec.");
		showWorkerAnswer(fake.ctx, 0, 3_000);
		// Its next call streams: what it has spent so far counts at once, and goes into the call's usage once it ends.
		recordWorkerStreaming("0-x", 5);
		showWorkerAnswer(fake.ctx, 0, 3_000);
		recordWorkerUsage("0-x", { input: 4, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } });
		showWorkerAnswer(fake.ctx, 0, 3_000);
		expect(fake.ui.notifications.map((notice) => maskSeconds(notice.message))).toEqual([
			WORKERS.answerOfLanded(1, "Write b.txt", 4_445, ["b.txt"], "Wrote b.txt.\nAll  [31mgood."),
			WORKERS.answerOfBackSilent(0, "Write a.txt", 4_445, "stopped"),
			WORKERS.answerOfLive(0, "Write a.txt", 20),
			WORKERS.answerOfLive(0, "Write a.txt", 20, "Reading the spec."),
			WORKERS.answerOfLive(0, "Write a.txt", 25, "Reading the spec."),
			WORKERS.answerOfLive(0, "Write a.txt", 25, "Reading the spec."),
		]);
	});

	it("a stream's tokens are written only when they change: a piece of text that spends nothing new wakes nobody", () => {
		addWorker({ index: 0, key: "0-x", startedAt: 1_000, tokens: 0, dir: "" });
		let writes = 0;
		subscribe(() => writes++);
		recordWorkerStreaming("0-x", 5);
		recordWorkerStreaming("0-x", 5);
		recordWorkerStreaming("0-x", 7);
		expect(writes).toBe(2);
		expect(getWorkers()[0]?.streaming).toBe(7);
	});

	it("a new chain forgets them; the chain keeps its last 100", () => {
		for (let index = 0; index < 105; index++) endedWorker(landed({ index }));
		expect(getEndedWorkers().map((worker) => worker.index)).toEqual(Array.from({ length: 100 }, (_, i) => i + 5));
		resetChain();
		expect(getEndedWorkers()).toEqual([]);
	});

	it("through /todos: [<i>] answers for an item a worker had, and is refused for another, nothing changed", async () => {
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const base = startEngine({ mode: "rpc", cwd: dir });
		registerTodosCommand(base.pi.api, base.engine, () => base.config);
		const run = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
		await run("workers [1]");
		endedWorker(landed());
		await run("workers [1]");
		await run("workers [0]");
		expect(base.ui.notifications.map((notice) => maskSeconds(notice.message))).toEqual([
			todosRefused("workers", WORKERS.noWorkerOn("[1]", [])),
			WORKERS.answerOfLanded(1, "Write b.txt", 4_445, ["b.txt"], "Wrote b.txt.\nAll  [31mgood."),
			todosRefused("workers", WORKERS.noWorkerOn("[0]", [1])),
		]);
		expect(base.pi.entries).toEqual([]);
		expect(workersAllowed(0)).toBe(0);
	});
});

describe("/todos workers through /todos", () => {
	function todos(cwd: string) {
		const base = startEngine({ mode: "rpc", cwd });
		registerTodosCommand(base.pi.api, base.engine, () => base.config);
		const run = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
		return { run, told: () => base.ui.notifications.map((notice) => notice.message) };
	}

	it("lists, sets, and refuses what it does not understand with its usage", async () => {
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const { run, told } = todos(dir);
		await run("workers");
		await run("workers 2");
		await run("workers lots");
		expect(told()).toEqual([
			"Workers: off",
			"Workers: up to 2 at once in this session.",
			todosRefused("workers", WORKERS.notWorkersWord("lots", 16)),
		]);
	});

	it("outside a git work tree, a count is refused with the usage", async () => {
		const { run, told } = todos(dir);
		await run("workers 2");
		expect(told()).toEqual([todosRefused("workers", WORKERS_NEED_GIT)]);
	});
});
