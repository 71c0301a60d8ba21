/** A worker's pi ends with the session that started it: it watches its parent's pid. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isAlive, markedEnv, newMark } from "../../src/edges/host/processes.ts";
import { endWorker, PARENT_WATCH_MS, watchParent, watchParentOnce } from "../../src/edges/workers/watchdog.ts";
import { must } from "../helpers/must.ts";

/** A pid no process of this machine has now: a child that has exited. */
const gonePid = (): number => must(spawnSync(process.execPath, ["-e", ""]).pid, "a pid");

afterEach(() => {
	vi.useRealTimers();
});

describe("a worker ends once its parent is gone", () => {
	it("a parent that is gone ends the worker at the next look, once", () => {
		vi.useFakeTimers();
		const end = vi.fn();
		watchParent(gonePid(), end);
		expect(end).not.toHaveBeenCalled();
		vi.advanceTimersByTime(PARENT_WATCH_MS);
		expect(end).toHaveBeenCalledTimes(1);
		vi.advanceTimersByTime(PARENT_WATCH_MS * 5);
		expect(end).toHaveBeenCalledTimes(1);
	});

	it("while the parent is there, nothing ends; stopping the watch stops it", () => {
		vi.useFakeTimers();
		const end = vi.fn();
		const stop = watchParent(process.pid, end);
		vi.advanceTimersByTime(PARENT_WATCH_MS * 10);
		expect(end).not.toHaveBeenCalled();
		stop();
		expect(vi.getTimerCount()).toBe(0);
	});

	it("a process is alive while it runs, and not once it has exited", () => {
		expect(isAlive(process.pid)).toBe(true);
		expect(isAlive(gonePid())).toBe(false);
	});
});

describe("a worker's pi watches the parent its environment names, once per process", () => {
	it("no marker, or one that is no pid, watches nothing; a marker starts one watch, and a second session adds none", () => {
		vi.useFakeTimers();
		// This test process is no worker: its environment names no parent.
		watchParentOnce();
		watchParentOnce({});
		watchParentOnce({ TIL_DONE_WORKER_OF: "not a pid" });
		watchParentOnce({ TIL_DONE_WORKER_OF: "-3" });
		expect(vi.getTimerCount()).toBe(0);
		watchParentOnce({ TIL_DONE_WORKER_OF: String(process.pid) });
		watchParentOnce({ TIL_DONE_WORKER_OF: String(process.pid) });
		expect(vi.getTimerCount()).toBe(1);
		vi.clearAllTimers();
	});
});

describe("a worker whose parent is gone ends whole", () => {
	/** A process that runs until it is ended: `leads` puts it in a group of its own. */
	const idle = (leads: boolean, env: NodeJS.ProcessEnv = process.env): ChildProcess =>
		spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: leads, env, stdio: "ignore" });
	/** The signal that ended `child`. */
	const endedBy = async (child: ChildProcess) => (await once(child, "exit"))[1] as NodeJS.Signals | null;

	it("its process group is ended, and what carries its mark in another group is killed", async () => {
		const mark = newMark();
		const worker = idle(true);
		const marked = idle(true, markedEnv(process.env, mark));
		const ends = [endedBy(worker), endedBy(marked)];
		endWorker(mark, must(worker.pid, "the worker"));
		expect(await Promise.all(ends)).toEqual(["SIGTERM", "SIGKILL"]);
	});

	it("a worker that leads no group, and carries no mark, is ended alone", async () => {
		const worker = idle(false);
		const ended = endedBy(worker);
		endWorker(undefined, must(worker.pid, "the worker"));
		expect(await ended).toBe("SIGTERM");
	});
});
