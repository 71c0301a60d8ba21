/**
 * Running checks, the model's item checks and the user's done-check: shell commands through `pi.exec`, in the
 * session's folder, with a timeout and the run's abort signal. The edge where commands run; nothing here decides.
 */

import { readdirSync, readFileSync } from "node:fs";
import type { ExecOptions, ExecResult } from "@earendil-works/pi-coding-agent";
import type { CheckRun } from "../../types.ts";

/** `pi.exec`, or a stand-in with its shape. */
export type Exec = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

/** Bytes of a check's output kept while it runs: a runaway command cannot fill memory. */
export const CHECK_CAPTURE_BYTES = 20_000;
/** Seconds a check gets after its timeout's TERM before it is killed. */
const KILL_GRACE_SECONDS = 5;

/** The variable every process a check starts inherits: how they are all found and killed when it ends. */
const RUN_MARKER = "TIL_DONE_CHECK_RUN";

/**
 * Runs "$1" in bash with stdout and stderr merged, keeping only the last bytes. The check's shell carries the marker
 * "$2" in its environment, and so does everything it starts (background jobs, `nohup`, `setsid`). When the shell
 * exits, whatever it left running is killed by that marker (Linux: `/proc/<pid>/environ`), so its exit code is the
 * verdict at once and no child holds the output pipe open. The runner and the tail ignore TERM so that, when
 * `timeout` stops the check's process group, the tail still prints what the check said before it died.
 */
const TAIL_SCRIPT = [
	"trap '' TERM",
	"sweep() {",
	"  local files file round",
	"  for round in 1 2 3; do",
	`    files=$(grep -lzx "${RUN_MARKER}=$1" /proc/[0-9]*/environ 2>/dev/null)`,
	'    [ -n "$files" ] || return 0',
	"    for file in $files; do",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	"      file=${file#/proc/}",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	'      kill -KILL "${file%/environ}" 2>/dev/null',
	"    done",
	"  done",
	"}",
	`{ (trap - TERM; export ${RUN_MARKER}="$2"; exec bash -c "$1") 2>&1; code=$?; sweep "$2"; exit "$code"; } 2>/dev/null | (trap '' TERM; exec tail -c ${CHECK_CAPTURE_BYTES})`,
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	'exit "${PIPESTATUS[0]}"',
].join("\n");

/**
 * Starts the check under coreutils `timeout`, which runs it in a process group of its own, kills the whole group when
 * the time is up, and passes on the TERM that `pi.exec` sends on abort. Without `timeout` (macOS without coreutils)
 * the check runs plainly and `pi.exec`'s own timeout stops it.
 */
const RUNNER_SCRIPT = [
	"if command -v timeout >/dev/null 2>&1; then",
	`  exec timeout -k ${KILL_GRACE_SECONDS} "$2" bash -c "$3" _ "$1" "$4"`,
	"fi",
	'exec bash -c "$3" _ "$1" "$4"',
].join("\n");

let runs = 0;

/** A marker no other run shares. */
function newMarker(): string {
	return `${process.pid}-${++runs}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Kills every process that still carries the run's marker: the last word after the runner ended, for a check killed
 * before its own sweep ran (a check that ignores TERM, killed with its group at the end of the grace). Linux only.
 */
export function killMarked(marker: string): number {
	const needle = `${RUN_MARKER}=${marker}`;
	let killed = 0;
	for (let round = 0; round < 3; round++) {
		const pids = markedPids(needle);
		if (pids.length === 0) break;
		for (const pid of pids) {
			try {
				process.kill(pid, "SIGKILL");
				killed++;
			} catch {
				// Gone already.
			}
		}
	}
	return killed;
}

function markedPids(needle: string): number[] {
	let entries: string[];
	try {
		entries = readdirSync("/proc");
	} catch {
		return [];
	}
	return entries.flatMap((entry) => {
		if (!/^\d+$/.test(entry)) return [];
		try {
			return readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(needle) ? [Number(entry)] : [];
		} catch {
			return [];
		}
	});
}

export interface CheckOptions {
	cwd: string;
	timeoutSeconds: number;
	signal?: AbortSignal;
}

/** Runs one check to its end, its timeout or the abort; never throws. */
export async function runCheck(exec: Exec, command: string, options: CheckOptions): Promise<CheckRun> {
	const started = performance.now();
	const timeoutMs = options.timeoutSeconds * 1000;
	const marker = newMarker();
	let result: ExecResult;
	try {
		result = await exec(
			"bash",
			["-c", RUNNER_SCRIPT, "_", command, String(options.timeoutSeconds), TAIL_SCRIPT, marker],
			{
				cwd: options.cwd,
				// A backstop in case the runner cannot stop the check: later than its own timeout and kill grace.
				timeout: timeoutMs + (KILL_GRACE_SECONDS + 5) * 1000,
				signal: options.signal,
			},
		);
	} catch (error) {
		result = { stdout: "", stderr: error instanceof Error ? error.message : String(error), code: 1, killed: false };
	}
	killMarked(marker);
	const ms = performance.now() - started;
	const aborted = options.signal?.aborted === true;
	// A check still running at its timeout was stopped, whatever code comes back: `pi.exec` reports a process killed
	// by a signal as code 0, and `timeout` kills itself with the group when it has to send KILL.
	const timedOut = !aborted && (result.killed || ms >= timeoutMs);
	const stopped = aborted || timedOut;
	return {
		command,
		passed: !stopped && result.code === 0,
		code: stopped ? null : result.code,
		timedOut,
		aborted,
		output: `${result.stdout}${result.stderr}`,
		ms,
	};
}
