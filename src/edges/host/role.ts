/**
 * Whose session this is. The user's own session drives its list, follows the user's settings and sets the process's
 * exit status. Any other is a guest: a child, whose process another session of ours started (pi's `subagent`
 * example, pi-subagents' runner, a `pi -p` the model runs), or a nested one, another session inside a process whose
 * own session is someone else's (pi-subagents' in-process sessions, a session built on pi's SDK).
 */

import type { SessionRole } from "../../core/model/types.ts";

/** The marker a session of ours puts in its process's environment: the processes it starts are its children. */
export const PARENT_MARKER = "TIL_DONE_PARENT_PID";

/** The marker a session of ours puts in a worker's environment: the pid of the process the worker works for. */
export const WORKER_MARKER = "TIL_DONE_WORKER_OF";

/**
 * In a worker's environment, set by bubblewrap: its whole pi runs confined, so its tools need no bwrap of their own
 * and it watches no parent (one out of its sight). Here, beside the worker's marker, so the watchdog reads it without
 * waiting on a module the worker loads at the same time.
 */
export const WORKER_CONFINED_VAR = "TIL_DONE_WORKER_CONFINED";

/** The mark every process of a worker carries (edges/host/processes.ts), named to the worker's own pi for its watchdog. */
export const WORKER_MARK = "TIL_DONE_WORKER_MARK";

/** What every copy of the extension in the process shares (copies may be separate module instances). */
interface ProcessOwnership {
	/** The instance whose session is the process's own, while it has one. */
	owner?: object;
	/** The marker the process found when it started: which process started it, if a session of ours did. */
	startedBy?: string;
	/** Whether the marker was read yet. */
	read?: boolean;
}

const OWNERSHIP_KEY = Symbol.for("pi-til-done.process-ownership");

function processOwnership(): ProcessOwnership {
	const shared = globalThis as { [OWNERSHIP_KEY]?: ProcessOwnership };
	shared[OWNERSHIP_KEY] ??= {};
	return shared[OWNERSHIP_KEY];
}

/**
 * A session of `instance` starts: its role. The first instance to start a session holds the process until its session
 * ends; any other is nested. The process's own session marks the environment for the processes it starts.
 */
export function takeRole(instance: object): SessionRole {
	const ownership = processOwnership();
	if (ownership.owner !== undefined && ownership.owner !== instance) return "nested";
	ownership.owner = instance;
	if (!ownership.read) {
		ownership.startedBy = process.env[PARENT_MARKER];
		ownership.read = true;
	}
	process.env[PARENT_MARKER] = String(process.pid);
	return ownership.startedBy !== undefined && ownership.startedBy !== String(process.pid) ? "child" : "own";
}

/** The session of `instance` ended (a reload, a new session, the process's end): it no longer holds the process. */
export function releaseRole(instance: object): void {
	const ownership = processOwnership();
	if (ownership.owner === instance) ownership.owner = undefined;
}

/** Whether a session in `role` is a guest: it drives no list it inherited and ignores the user's own settings. */
export const isGuest = (role: SessionRole): boolean => role !== "own";
