/**
 * The session's workers against a real repository, with a small Node script standing in for each worker's pi: it reads its item
 * off its prompt and writes that item's file in its tree. What lands, what is given back and why, and that a stopped
 * workers leaves no tree and no claim.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { execCommand } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/exec.js";
import { itemKey } from "../../src/core/list/items.ts";
import { claimRef } from "../../src/core/rules/leases.ts";
import { extensionFlags } from "../../src/edges/workers/extensions.ts";
import { startWorkers, stopWorkers, workersInterrupted } from "../../src/edges/workers/session-workers.ts";
import {
	getChain,
	getClaimedElsewhere,
	getEndedWorkers,
	getTodos,
	getWorkers,
	recordRun,
	setTodos,
	subscribe,
	workersAllowed,
} from "../../src/state.ts";
import type { TodoItem, WorkerEnd } from "../../src/types.ts";
import { bwrapWorks } from "../helpers/bwrap.ts";
import { waitForValue } from "../helpers/cli.ts";
import { maskSeconds, WORKERS } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi, type FakePi } from "../helpers/fake-pi.ts";
import { runnerEnded } from "../helpers/fake-runner.ts";
import { freshStore } from "../helpers/store.ts";
import { STAND_IN_CALL_TOKENS, WORKER } from "../helpers/worker-stand-in.ts";

let dir = "";
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });

let script = "";

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-workers-")));
	git("init", "-q", "-b", "main");
	writeFileSync(join(dir, "a.txt"), "the user's line\n");
	git("add", ".");
	git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "start");
	script = join(dir, "..", `${dir.split("/").pop()}-worker.js`);
	writeFileSync(script, WORKER);
	freshStore();
});
afterEach(() => {
	if (process.env.WORKER_GO) rmSync(process.env.WORKER_GO, { force: true });
	delete process.env.WORKER_MODE;
	delete process.env.WORKER_GO;
	rmSync(dir, { recursive: true, force: true });
	rmSync(script, { force: true });
});

/** The workers' refs that keep work: `kept` for a try's own (`worker-kept-<commit>`), `result` for a live one's. */
const workRefs = (): string[] =>
	git("for-each-ref", "--format=%(refname)", "refs/til-done/")
		.split("\n")
		.flatMap((ref) =>
			/\/worker-kept-[0-9a-f]{12}$/.test(ref) ? ["kept"] : ref.endsWith("/worker-result") ? ["result"] : [],
		);

const items = (...texts: string[]): TodoItem[] => texts.map((text) => ({ text, status: "not_started" }));

/** A session whose workers are the stand-in script: its fake pi, its run, and what it told the user. */
function sessionWith(options: { check?: number } = {}) {
	const pi = createFakePi();
	pi.onExec = async (call) => runnerEnded(call.args, options.check ?? 0);
	// A session with a model: the worker is started on it.
	const fake = createFakeCtx({ mode: "rpc", cwd: dir, complete: async () => ({}) });
	const run = {
		pi: pi.api,
		ctx: fake.ctx,
		request: "Write the files.",
		checkTimeoutSeconds: 5,
		spendFactor: 5,
		command: { command: process.execPath, args: [script] },
		planFile: undefined,
		remote: undefined,
		leaseSeconds: 120,
	};
	/** The lines that stay in the transcript, the workers' seconds masked; the notices apart. */
	const told = () => pi.reports().map((line) => maskSeconds(line.text));
	const notices = () => fake.ui.notifications.map((notice) => notice.message);
	return { pi, run, told, notices };
}

/** Waits until no worker is at work. */
async function allEnded(): Promise<void> {
	await waitForValue(() => (getWorkers().length === 0 ? true : undefined), 10_000, "every worker's end");
}

/** The folders of every worker's tree, as the store names them while they work. */
function treesSeen(): Set<string> {
	const seen = new Set<string>();
	subscribe(() => {
		for (const worker of getWorkers()) if (worker.dir !== "") seen.add(worker.dir);
	});
	return seen;
}

/** A worker's tree and the folders the session makes beside it (our git folder, its TMPDIR): those there. */
const besideTree = (tree: string): string[] =>
	[tree, `${tree}-meta`, `${tree}-tmp`].filter((folder) => existsSync(folder));

describe("the session's workers work ready items and land them", () => {
	it("two items at once: both files land, both items complete, their usage counts, no claim is left", async () => {
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		const { pi, run } = sessionWith();
		const trees = treesSeen();
		expect(await startWorkers([0, 1], run)).toBe(true);
		await allEnded();
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "completed"]);
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
		expect(readFileSync(join(dir, "item-1.txt"), "utf8")).toBe("item-1.txt by its worker\n");
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the user's line\n");
		expect(getChain().spend.calls).toBe(2);
		expect(git("for-each-ref", "refs/til-done/claims/")).toBe("");
		expect(trees.size).toBe(2);
		expect([...trees].flatMap(besideTree)).toEqual([]);
		expect(pi.entries.filter((entry) => entry.customType === "til-done-snapshot")).toHaveLength(4);
	});

	it("a worker leaves the ones at work as it joins those that ended, kept with the session: never listed as both or neither", async () => {
		setTodos(items("Write item-0.txt"));
		const { pi, run } = sessionWith();
		const seen: string[] = [];
		const unsubscribe = subscribe(() => {
			const live = getWorkers().length;
			const ended = getEndedWorkers().length;
			if (seen.at(-1) !== `${live}/${ended}`) seen.push(`${live}/${ended}`);
		});
		await startWorkers([0], run);
		await allEnded();
		unsubscribe();
		expect(seen).toEqual(["1/0", "0/1"]);
		const kept = pi.entries.filter((entry) => entry.customType === "til-done-worker");
		expect(kept.map((entry) => (entry.data as { end: string }).end)).toEqual(["landed"]);
	});

	it("each start and each landing is a line that stays (its files, time, tokens and answer), never a notice", async () => {
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		const { run, told, notices } = sessionWith();
		await startWorkers([0, 1], run);
		await allEnded();
		const landed = (index: number) => WORKERS.landed(index, STAND_IN_CALL_TOKENS, [`item-${index}.txt`], "done");
		expect(told().slice(0, 2)).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			WORKERS.started(1, "Write item-1.txt"),
		]);
		// The two land in the order their processes end.
		expect(told().slice(2).toSorted()).toEqual([landed(0), landed(1)]);
		expect(notices()).toEqual([]);
		// The chain remembers both for /todos workers: how each ended, its tokens, files and last answer.
		const ended = getEndedWorkers().map(({ index, end, tokens, files, answer }) => ({
			index,
			end,
			tokens,
			files,
			answer,
		}));
		expect(ended.toSorted((a, b) => a.index - b.index)).toEqual(
			[0, 1].map((index) => ({
				index,
				end: "landed",
				tokens: STAND_IN_CALL_TOKENS,
				files: [`item-${index}.txt`],
				answer: "done",
			})),
		);
	});

	it("a conflict gives the item back, naming the file, and the user's file is as it was", async () => {
		process.env.WORKER_MODE = "conflict";
		setTodos(items("Write a.txt"));
		const { run, told } = sessionWith();
		process.env.WORKER_GO = join(dir, "..", `${dir.split("/").pop()}-go`);
		await startWorkers([0], run);
		writeFileSync(join(dir, "a.txt"), "the user's line, changed meanwhile\n");
		writeFileSync(process.env.WORKER_GO, "");
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the user's line, changed meanwhile\n");
		expect(told()).toEqual([
			WORKERS.started(0, "Write a.txt"),
			'Worker on [0]: its work conflicts with the work tree in "a.txt"; the item is ready again.',
		]);
		expect(getChain().failures).toBe(1);
	});

	it("a change inside the user's submodules gives the item back, naming them; nothing of it lands", async () => {
		process.env.WORKER_MODE = "submodules";
		const library = realpathSync(mkdtempSync(join(tmpdir(), "til-done-library-")));
		execFileSync("git", ["init", "-q", "-b", "main"], { cwd: library });
		execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "lib"], {
			cwd: library,
		});
		for (const folder of ["ext", "lib"])
			git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library, folder);
		rmSync(library, { recursive: true, force: true });
		setTodos(items("Write item-0.txt"));
		const { run, told } = sessionWith();
		await startWorkers([0], run);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(existsSync(join(dir, "item-0.txt"))).toBe(false);
		expect(told()).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			WORKERS.givenBack(0, WORKERS.submodules("ext", "lib")),
		]);
		expect(getChain().failures).toBe(1);
	});

	it.each([
		["a failed check", { check: 1 }, "write", "its check failed in its tree (exit code 1)"],
		["a check killed by a signal", { check: 137 }, "write", "its check failed in its tree (killed by signal 9)"],
		["a worker that exits 1", {}, "fail", "it ended with exit code 1"],
	])("%s gives the item back", async (_name, options, mode, why) => {
		process.env.WORKER_MODE = mode;
		setTodos([{ text: "Write a.txt", status: "not_started", check: "test -f a.txt" }]);
		const { run, told } = sessionWith(options);
		const trees = treesSeen();
		await startWorkers([0], run);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(told()).toEqual([WORKERS.started(0, "Write a.txt"), `Worker on [0]: ${why}; the item is ready again.`]);
		expect(trees.size).toBe(1);
		expect([...trees].flatMap(besideTree)).toEqual([]);
	});

	it("stopped in a model call: the tokens the call had spent are the ended worker's, as the list showed them", async () => {
		process.env.WORKER_MODE = "streaming";
		setTodos(items("Write a.txt"));
		const { pi, run } = sessionWith();
		await startWorkers([0], run);
		await waitForValue(
			() => ((getWorkers()[0]?.streaming ?? 0) > 0 ? true : undefined),
			10_000,
			"its call in progress",
		);
		await stopWorkers(pi.api);
		expect(getEndedWorkers().map((worker) => [worker.end, worker.tokens])).toEqual([["given-back", 700]]);
	});

	it("each stopped try keeps its own work: the item's next try never takes the place of the one before", async () => {
		process.env.WORKER_MODE = "half";
		setTodos(items("Write a.txt"));
		const { pi, run } = sessionWith();
		const trees = treesSeen();
		const halfDone = (text: string) => () =>
			[...trees].some(
				(tree) => existsSync(join(tree, "half.txt")) && readFileSync(join(tree, "half.txt"), "utf8") === text,
			)
				? true
				: undefined;
		for (const text of ["the first try\n", "the second try\n"]) {
			process.env.WORKER_HALF = text;
			await startWorkers([0], run);
			await waitForValue(halfDone(text), 10_000, text);
			expect(await stopWorkers(pi.api)).toEqual([{ outcome: { kind: "stopped" }, work: "kept" }]);
		}
		delete process.env.WORKER_HALF;
		const kept = git("for-each-ref", "--format=%(refname)", "refs/til-done/").trim().split("\n");
		expect(workRefs()).toEqual(["kept", "kept"]);
		expect(kept.map((ref) => git("show", `${ref}:half.txt`)).sort()).toEqual(["the first try\n", "the second try\n"]);
	});

	it("stopped before it changed anything: nothing is kept, no ref at all", async () => {
		process.env.WORKER_MODE = "hang";
		setTodos(items("Write a.txt"));
		const { pi, run } = sessionWith();
		await startWorkers([0], run);
		expect(await stopWorkers(pi.api)).toEqual([{ outcome: { kind: "stopped" }, work: "unchanged" }]);
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe("");
	});

	it("stopped: its work is kept under a ref, its tree removed, the item ready again, no failure counted", async () => {
		process.env.WORKER_MODE = "half";
		setTodos(items("Write a.txt"));
		const { pi, run } = sessionWith();
		const trees = treesSeen();
		await startWorkers([0], run);
		const halfDone = () => ([...trees].some((tree) => existsSync(join(tree, "half.txt"))) ? true : undefined);
		await waitForValue(halfDone, 10_000, "half of its work");
		const [tree = ""] = trees;
		expect(besideTree(tree)).toEqual([tree, `${tree}-meta`, `${tree}-tmp`]);
		expect(await stopWorkers(pi.api)).toEqual([{ outcome: { kind: "stopped" }, work: "kept" }]);
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(getChain().failures).toBe(0);
		expect(workRefs()).toEqual(["kept"]);
		expect(trees.size).toBe(1);
		expect(besideTree(tree)).toEqual([]);
		expect(getWorkers()).toEqual([]);
	});

	it("workers whose pi cannot start: said once, no failure counted, workers off for the session, each item ready again", async () => {
		process.env.WORKER_MODE = "no-start";
		setTodos(items("Write item-0.txt", "Write item-1.txt"));
		const { run, told, notices } = sessionWith();
		await startWorkers([0, 1], run);
		await allEnded();
		// Each start stays; their end, the same for both, is one notice.
		expect(told()).toEqual([WORKERS.started(0, "Write item-0.txt"), WORKERS.started(1, "Write item-1.txt")]);
		expect(notices()).toEqual([
			"pi-til-done: a worker could not start (exit code 1 before any model call: Error: no such model): workers are off for this session, and the session's model works the list.",
		]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started"]);
		expect([getChain().failures, workersAllowed(4)]).toEqual([0, 0]);
	});

	it("git that cannot compare the work with the work tree (the user's index broken meanwhile): the item back, nothing landed", async () => {
		process.env.WORKER_MODE = "conflict";
		setTodos(items("Write a.txt"));
		const { run, told } = sessionWith();
		process.env.WORKER_GO = join(dir, "..", `${dir.split("/").pop()}-go`);
		await startWorkers([0], run);
		writeFileSync(join(dir, ".git", "index"), "not an index");
		writeFileSync(process.env.WORKER_GO, "");
		await allEnded();
		expect(told()).toEqual([
			WORKERS.started(0, "Write a.txt"),
			"Worker on [0]: git could not compare its work with the work tree (its work is kept under its ref); the item is ready again.",
		]);
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the user's line\n");
		expect(readFileSync(join(dir, ".git", "index"), "utf8")).toBe("not an index");
	});

	it("a tree that cannot be made gives the item back, its claim let go", async () => {
		setTodos(items("Write item-0.txt"));
		const { run, told } = sessionWith();
		// A file where the folder of a new file's object must go: the snapshot the tree is made from cannot be kept.
		writeFileSync(join(dir, "new.txt"), "cannot be stored\n");
		const blob = git("hash-object", "new.txt").trim();
		rmSync(join(dir, ".git/objects", blob.slice(0, 2)), { recursive: true, force: true });
		writeFileSync(join(dir, ".git/objects", blob.slice(0, 2)), "");
		await startWorkers([0], run);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(told()).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			"Worker on [0]: its tree could not be made from a snapshot of the work tree; the item is ready again.",
		]);
		expect(git("for-each-ref", "refs/til-done/claims/")).toBe("");
	});

	it("an item whose check passes in the worker's tree lands, the check run there", async () => {
		setTodos([{ text: "Write item-0.txt", status: "not_started", check: "test -f item-0.txt" }]);
		const { pi, run } = sessionWith();
		const trees = treesSeen();
		await startWorkers([0], run);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("completed");
		// Through the one check runner, in the worker's tree: the command is the runner's first argument.
		expect(pi.execCalls.map((call) => [call.command, call.options?.cwd])).toEqual([["bash", [...trees][0]]]);
		expect(pi.execCalls[0]?.args[3]).toContain("test -f item-0.txt");
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
	});

	it.skipIf(!bwrapWorks)(
		"its check is confined as its bash is: it cannot write outside the worker's tree",
		async () => {
			setTodos([
				{ text: "Write item-0.txt", status: "not_started", check: "touch ../outside.txt; test -f item-0.txt" },
			]);
			const { pi, run } = sessionWith();
			pi.onExec = (call) => execCommand(call.command, call.args, call.options?.cwd ?? dir, call.options);
			await startWorkers([0], run);
			await allEnded();
			expect(getTodos()[0]?.status).toBe("completed");
			expect(existsSync(join(dir, "..", "outside.txt"))).toBe(false);
		},
	);

	it("a list changed under a worker: its work does not land on another item, and is kept under its ref", async () => {
		process.env.WORKER_MODE = "conflict";
		setTodos(items("Write a.txt"));
		const { run, told } = sessionWith();
		process.env.WORKER_GO = join(dir, "..", `${dir.split("/").pop()}-go`);
		await startWorkers([0], run);
		setTodos([{ text: "Another item", status: "in_progress" }]);
		writeFileSync(process.env.WORKER_GO, "");
		await allEnded();
		expect(getTodos()).toEqual([{ text: "Another item", status: "in_progress" }]);
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("the user's line\n");
		expect(told()).toEqual([
			WORKERS.started(0, "Write a.txt"),
			"Worker on [0]: the list changed while it worked: its item is no longer where it was; nothing of it landed, and its work is kept under its ref.",
		]);
		expect(workRefs()).toEqual(["kept"]);
	});

	it("an index no longer in the list starts nothing", async () => {
		setTodos(items("Write item-0.txt"));
		const { run } = sessionWith();
		expect(await startWorkers([3], run)).toBe(true);
		expect(getWorkers()).toEqual([]);
		expect(git("for-each-ref", "refs/til-done/claims/")).toBe("");
	});

	it("an item another worker has claimed is not started; outside a git work tree nothing starts", async () => {
		setTodos(items("Write item-0.txt"));
		const { run } = sessionWith();
		const key = itemKey(0, "Write item-0.txt");
		git("update-ref", claimRef("main--list", key), git("rev-parse", "HEAD").trim());
		expect(await startWorkers([0], run)).toBe(true);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(existsSync(join(dir, "item-0.txt"))).toBe(false);
		expect(getClaimedElsewhere()).toEqual([key]);
		expect(getWorkers()).toEqual([]);
		const outside = sessionWith();
		const fake = createFakeCtx({ mode: "rpc", cwd: realpathSync(tmpdir()) });
		expect(await startWorkers([0], { ...outside.run, ctx: fake.ctx })).toBe(false);
		expect(fake.ui.notifications.map((notice) => notice.message)).toEqual([
			"pi-til-done: workers need a git work tree: the session's model works the list alone.",
		]);
	});
});

describe("a stop holds at every moment before the landing writes", () => {
	/** Stops the session's workers the first time the store shows `moment` (stopping aborts each worker at once, in the call). */
	function stopAt(pi: FakePi, moment: () => boolean): Promise<WorkerEnd[]> {
		return new Promise((resolve) => {
			const unsubscribe = subscribe(() => {
				if (!moment()) return;
				unsubscribe();
				void stopWorkers(pi.api).then(resolve);
			});
		});
	}

	it("marked landing, its checkpoint under way: nothing is written, the item is ready again, its work kept", async () => {
		setTodos(items("Write item-0.txt"));
		const { pi, run, told } = sessionWith();
		const stopped = stopAt(pi, () => getWorkers()[0]?.landing === true);
		await startWorkers([0], run);
		expect(await stopped).toEqual([{ outcome: { kind: "stopped" }, work: "kept" }]);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(existsSync(join(dir, "item-0.txt"))).toBe(false);
		expect(told()).toEqual([WORKERS.started(0, "Write item-0.txt"), WORKERS.stoppedWithWork(0)]);
		expect(getChain().failures).toBe(0);
		expect(workRefs()).toEqual(["kept"]);
	});

	it("once the landing has written: it lands whole, the item completes, and the words say so", async () => {
		setTodos(items("Write item-0.txt"));
		const { pi, run, told, notices } = sessionWith();
		const stopped = stopAt(pi, () => getTodos()[0]?.status === "completed");
		await startWorkers([0], run);
		expect(await stopped).toEqual([
			{ outcome: { kind: "landed", files: ["item-0.txt"], throughStop: true }, work: "landed" },
		]);
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
		expect(told()).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			WORKERS.landed(0, STAND_IN_CALL_TOKENS, ["item-0.txt"], "done"),
		]);
		expect(notices()).toEqual([
			"Worker on [0]: its landing had begun writing when you stopped it: it landed whole, and the item is completed.",
		]);
	});

	it("while its tree is being made: no tree, no ref, no claim; the item ready again, nothing kept", async () => {
		setTodos(items("Write item-0.txt"));
		const { pi, run, told } = sessionWith();
		// Set in progress as its life begins: the stop comes once the session's workers holds it, as its snapshot is being taken.
		const stopped = new Promise<WorkerEnd[]>((resolve) => {
			const unsubscribe = subscribe(() => {
				if (getTodos()[0]?.status !== "in_progress") return;
				unsubscribe();
				queueMicrotask(() => void stopWorkers(pi.api).then(resolve));
			});
		});
		await startWorkers([0], run);
		expect(await stopped).toEqual([{ outcome: { kind: "stopped" }, work: "unchanged" }]);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(told()).toEqual([WORKERS.started(0, "Write item-0.txt"), WORKERS.givenBack(0, WORKERS.stopped)]);
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe("");
	});

	it("while its check runs: the check is killed at once, with what it started, and nothing lands", async () => {
		setTodos([{ text: "Write item-0.txt", status: "not_started", check: "touch started; sleep 600 & wait" }]);
		const { pi, run } = sessionWith();
		pi.onExec = (call) => execCommand(call.command, call.args, call.options?.cwd ?? dir, call.options);
		const trees = treesSeen();
		await startWorkers([0], { ...run, checkTimeoutSeconds: 600 });
		const started = () => ([...trees].some((tree) => existsSync(join(tree, "started"))) ? true : undefined);
		await waitForValue(started, 10_000, "the check");
		const [tree = ""] = trees;
		expect(besideTree(tree)).toEqual([tree, `${tree}-meta`, `${tree}-tmp`]);
		expect(await stopWorkers(pi.api)).toEqual([{ outcome: { kind: "stopped" }, work: "kept" }]);
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(existsSync(join(dir, "item-0.txt"))).toBe(false);
		expect(besideTree(tree)).toEqual([]);
	});
});

describe("an interrupt (SIGINT) of the process stops the session's workers for good", () => {
	/** Catches the session's workers's raising of the interrupt again, which would end this test's process. */
	function raisedAgain(): Promise<void> {
		const original = process.kill.bind(process);
		return new Promise((resolve) => {
			const kill = vi.spyOn(process, "kill").mockImplementation((pid, signal) => {
				// The workers' groups are killed for real; only this process's own interrupt is caught.
				if (pid !== process.pid || signal !== "SIGINT") return original(pid, signal);
				kill.mockRestore();
				resolve();
				return true;
			});
		});
	}

	it("a worker's end meanwhile starts no worker: no claim, no tree is left when the interrupt is raised again", async () => {
		process.env.WORKER_MODE = "hang";
		setTodos(items("Write a.txt", "Write b.txt"));
		const { pi, run } = sessionWith();
		const listeners = process.listenerCount("SIGINT");
		await startWorkers([0, 1], run);
		// What follows a worker's end: its item, ready again, handed out at once (as the next decision would).
		const startsAgain: Promise<boolean>[] = [];
		subscribe(() => {
			if (getTodos()[0]?.status === "not_started" && startsAgain.length === 0) startsAgain.push(startWorkers([0], run));
		});
		const raised = raisedAgain();
		const told = workersInterrupted(pi.api, new AbortController().signal);
		process.emit("SIGINT", "SIGINT");
		await (await told).stopped;
		await raised;
		await Promise.all(startsAgain);
		expect(startsAgain).toHaveLength(1);
		expect(getWorkers()).toEqual([]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started"]);
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe("");
		expect(process.listenerCount("SIGINT")).toBe(listeners);
	});
});

describe("the progress breaker applies per item", () => {
	it("a worker spending more than 5 × the median per item a worker landed is stopped and its item given back, a failure", async () => {
		process.env.WORKER_MODE = "spend";
		// Two items finished at 4,000 tokens each arm the breaker: 20,000 is the most one item may take.
		recordRun({ ...getChain(), spend: { ...getChain().spend, perItem: [4_000, 4_000], workerItems: [4_000, 4_000] } });
		setTodos(items("Write item-0.txt"));
		const { run, told } = sessionWith();
		await startWorkers([0], run);
		await allEnded();
		expect(getTodos()[0]?.status).toBe("not_started");
		expect(told()).toEqual([
			WORKERS.started(0, "Write item-0.txt"),
			"Worker on [0]: it spent 50,000 tokens on its item, more than 5 × the median of 4,000 tokens per todo a worker landed; the item is ready again.",
		]);
		expect(getChain().failures).toBe(1);
		expect(getChain().spend.tokens).toBe(50_000);
	});

	it("with the breaker off (factor 0), or fewer than two items finished, the worker goes on", async () => {
		process.env.WORKER_MODE = "spend";
		recordRun({ ...getChain(), spend: { ...getChain().spend, perItem: [4_000] } });
		setTodos(items("Write item-0.txt"));
		const { pi, run } = sessionWith();
		await startWorkers([0], { ...run, spendFactor: 5 });
		await waitForValue(() => (getChain().spend.tokens === 50_000 ? true : undefined), 10_000, "the worker's call");
		expect(getWorkers()).toHaveLength(1);
		await stopWorkers(pi.api);
		recordRun({ ...getChain(), spend: { ...getChain().spend, perItem: [4_000, 4_000], workerItems: [4_000, 4_000] } });
		await startWorkers([0], { ...run, spendFactor: 0 });
		await waitForValue(() => (getChain().spend.tokens === 100_000 ? true : undefined), 10_000, "the worker's call");
		expect(getWorkers()).toHaveLength(1);
		await stopWorkers(pi.api);
	});
});

describe("a worker runs with the session's model and thinking level", () => {
	it("its command: JSON mode, print, no session, --model and --thinking of the session, its prompt last", async () => {
		process.env.WORKER_ARGS = join(dir, "..", `${dir.split("/").pop()}-args`);
		// The stand-in writes its arguments outside its tree: the person lets workers write that file.
		writeFileSync(process.env.WORKER_ARGS, "");
		process.env.TIL_DONE_WORKER_WRITABLE = process.env.WORKER_ARGS;
		try {
			setTodos(items("Write item-0.txt"));
			const { pi, run } = sessionWith();
			(pi.api as { getThinkingLevel: () => string }).getThinkingLevel = () => "high";
			const model = { provider: "anthropic", id: "claude-x" } as ExtensionContext["model"];
			await startWorkers([0], { ...run, ctx: { ...run.ctx, model, cwd: dir } as ExtensionContext });
			await allEnded();
			const [args] = readFileSync(process.env.WORKER_ARGS, "utf8")
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as string[]);
			expect(args?.slice(0, -1)).toEqual([
				...extensionFlags(),
				"--mode",
				"json",
				"-p",
				"--no-session",
				"--model",
				"anthropic/claude-x",
				"--thinking",
				"high",
			]);
			expect(args?.at(-1)).toContain("Your item (the list's words, data): [0] «Write item-0.txt»");
		} finally {
			rmSync(process.env.WORKER_ARGS, { force: true });
			delete process.env.WORKER_ARGS;
			delete process.env.TIL_DONE_WORKER_WRITABLE;
		}
	});
});
