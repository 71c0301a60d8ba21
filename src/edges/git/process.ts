/**
 * How the git edge runs a program: in a process group of its own, so a time limit, an abort or output past its bound
 * ends the whole group (a shell's `git add -A` with it), never the shell alone with an orphan left writing into the
 * user's repository.
 */

import { spawn } from "node:child_process";
import { signalGroup } from "../host/processes.ts";

/** How a grouped program is run. */
export interface GroupedRun {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Written to its stdin, which is then closed. */
	input?: string;
	timeoutMs: number;
	/** The most bytes of stdout kept: past it the group is ended and the run fails. */
	maxBytes: number;
	/** A file (opened for writing) that takes stdout instead, whatever its size: a blob of any size, streamed. */
	stdoutTo?: number;
	signal?: AbortSignal;
}

/** How it ended: its exit code (127: it could not start; 124: its time ran out or it was ended), its output. */
export interface GroupedEnd {
	code: number;
	stdout: Buffer;
	stderr: string;
}

/** Exit code of a run whose group was ended (its time ran out, it was aborted, its output overflowed), as `timeout` says. */
export const ENDED_CODE = 124;

/** The groups of this process's git at work: ended with the process, so none is left writing after it. */
const live = new Set<number>();

function endLive(): void {
	for (const pid of live) signalGroup(pid, "SIGKILL");
}

/** Runs `file` with `args` in a group of its own; never throws. */
export function runGrouped(file: string, args: readonly string[], run: GroupedRun): Promise<GroupedEnd> {
	return new Promise((resolve) => {
		const stdio = ["pipe", run.stdoutTo ?? "pipe", "pipe"] as const;
		const child = spawn(file, [...args], { cwd: run.cwd, env: run.env, detached: true, stdio: [...stdio] });
		if (child.pid !== undefined) {
			if (live.size === 0) process.once("exit", endLive);
			live.add(child.pid);
		}
		const stdout: Buffer[] = [];
		let bytes = 0;
		let stderr = "";
		let ended = false;
		const end = () => {
			if (ended) return;
			ended = true;
			if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
		};
		const timer = setTimeout(end, run.timeoutMs);
		run.signal?.addEventListener("abort", end, { once: true });
		if (run.signal?.aborted) end();
		child.stdout?.on("data", (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes > run.maxBytes) end();
			else stdout.push(chunk);
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			stderr = (stderr + chunk.toString("utf8")).slice(-4_000);
		});
		child.stdin?.on("error", () => {});
		child.stdin?.end(run.input ?? "");
		let finished = false;
		const finish = (code: number, why = stderr) => {
			if (finished) return;
			finished = true;
			clearTimeout(timer);
			if (child.pid !== undefined) live.delete(child.pid);
			if (live.size === 0) process.off("exit", endLive);
			run.signal?.removeEventListener("abort", end);
			resolve({ code, stdout: Buffer.concat(stdout), stderr: why });
		};
		// What the program left running in its group ends with it, its hold on the output pipes too.
		child.on("exit", () => {
			if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
		});
		child.on("error", (error) => finish(127, error.message));
		child.on("close", (code) => finish(ended ? ENDED_CODE : (code ?? ENDED_CODE)));
	});
}
