/**
 * A worker outlives no session: the pi a session starts as a worker is told its parent's pid, and pi-til-done in the worker (a guest)
 * watches it. When the parent is gone (killed, crashed), every process of the worker ends, its process group and what
 * carries its mark (what it put in the background with `setsid` or `nohup`): nothing works on, spending, for a session
 * that can no longer land its work.
 */

import { isAlive, killMarked, signalGroup } from "../host/processes.ts";
import { WORKER_CONFINED_VAR, WORKER_MARK, WORKER_MARKER } from "../host/role.ts";

/** How often a worker looks for its parent. */
export const PARENT_WATCH_MS = 1_000;

/** Calls `end` once the process `parent` is gone, looking every {@link PARENT_WATCH_MS}; returns how to stop looking. */
export function watchParent(parent: number, end: () => void): () => void {
	const timer = setInterval(() => {
		if (isAlive(parent)) return;
		clearInterval(timer);
		end();
	}, PARENT_WATCH_MS);
	timer.unref();
	return () => clearInterval(timer);
}

let watching = false;

/** In a worker's pi: watches the parent named by {@link WORKER_MARKER}, once per process (sessions come and go). */
export function watchParentOnce(env: NodeJS.ProcessEnv = process.env): void {
	const parent = Number(env[WORKER_MARKER]);
	// In bubblewrap its parent is out of sight (a process-id namespace of its own), and bubblewrap ends with its parent.
	if (watching || env[WORKER_CONFINED_VAR] || !Number.isInteger(parent) || parent <= 0) return;
	watching = true;
	const mark = env[WORKER_MARK];
	watchParent(parent, () => endWorker(mark, process.pid));
}

/**
 * Ends the worker whose pi is `pid` (this process): what carries its mark but this process, then the process group
 * `pid` leads (a worker leads its own), or that process alone when it leads none.
 */
export function endWorker(mark: string | undefined, pid: number): void {
	if (mark) killMarked(mark);
	if (!signalGroup(pid, "SIGTERM")) process.kill(pid, "SIGTERM");
}
