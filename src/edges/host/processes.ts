/**
 * The processes of this machine, as the checks and the workers need them: whether one is still there, signalling a
 * process group, and the one way to find and kill everything a check or a worker started. A process group is not
 * enough for that: `setsid` and `nohup … &` leave it. An environment variable is: every process inherits it.
 */

import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";

/** Whether a process of this machine is still there (one we may not signal is there too). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Sends `signal` to the process group `leader` leads; false when there is no such group (it is gone already). */
export function signalGroup(leader: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-leader, signal);
		return true;
	} catch {
		return false;
	}
}

/**
 * The start of the variable that marks a run's processes: one variable per mark (`TIL_DONE_MARK_<mark>=1`), so a
 * check a worker runs keeps the worker's mark beside its own and a sweep of either finds it.
 */
const MARK_PREFIX = "TIL_DONE_MARK_";

let marks = 0;

/** A mark no other run of any process shares (letters, digits and `_`: it is part of a variable's name). */
export function newMark(): string {
	return `${process.pid}_${++marks}_${Math.random().toString(36).slice(2, 10)}`;
}

/** The variable that carries `mark`, to add to the environment of the run's first process. */
export function markVariable(mark: string): { name: string; value: "1" } {
	return { name: `${MARK_PREFIX}${mark}`, value: "1" };
}

/** A shell command that marks the rest of a script, and all it starts, with the mark in the shell's `parameter` ("$2"). */
export const shellMark = (parameter: string): string => `export "${MARK_PREFIX}${parameter}=1"`;

/** The environment `env` with `mark` added. */
export function markedEnv(env: NodeJS.ProcessEnv, mark: string): NodeJS.ProcessEnv {
	const { name, value } = markVariable(mark);
	return { ...env, [name]: value };
}

/** How often a sweep looks again: a process may start a child while the sweep kills it. */
const SWEEP_ROUNDS = 3;

/**
 * Kills every process of a shell script that carries the mark "$1" (Linux: `/proc/<pid>/environ`), for a script that
 * has to sweep before it ends (one whose output pipe a leftover would hold open). The same sweep as
 * {@link killMarked}; defines the shell function `sweep`.
 */
export const SWEEP_FUNCTION = [
	"sweep() {",
	"  local files file round",
	`  for round in ${Array.from({ length: SWEEP_ROUNDS }, (_, i) => i + 1).join(" ")}; do`,
	`    files=$(grep -lzx "${MARK_PREFIX}$1=1" /proc/[0-9]*/environ 2>/dev/null)`,
	'    [ -n "$files" ] || return 0',
	"    for file in $files; do",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	"      file=${file#/proc/}",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	'      kill -KILL "${file%/environ}" 2>/dev/null',
	"    done",
	"  done",
	"}",
].join("\n");

/** Kills every process that carries `mark`, whatever group or session it is in; how many it killed. Linux only. */
export function killMarked(mark: string): number {
	const { name, value } = markVariable(mark);
	const needle = `${name}=${value}`;
	return killRounds(() => markedPids(needle));
}

/**
 * Kills every process whose folder is `dir` or inside it, whatever its environment: one that cleared it (`env -i`)
 * and left its session carries no mark, but still runs where it was started. How many it killed. Linux only.
 */
export function killInside(dir: string): number {
	let real = dir;
	try {
		real = realpathSync(dir);
	} catch {
		// Gone: its name as given.
	}
	return killRounds(() =>
		procEntries().flatMap((pid) => {
			try {
				const cwd = readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, "");
				return cwd === real || cwd.startsWith(`${real}/`) ? [pid] : [];
			} catch {
				return [];
			}
		}),
	);
}

/** Kills what `find` finds, again while it finds any, at most {@link SWEEP_ROUNDS} times; how many it killed. */
function killRounds(find: () => number[]): number {
	let killed = 0;
	for (let round = 0; round < SWEEP_ROUNDS; round++) {
		const pids = find();
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

/** The pids of `/proc` but this process's own; none where there is no `/proc`. */
function procEntries(): number[] {
	try {
		return readdirSync("/proc").flatMap((entry) =>
			/^\d+$/.test(entry) && Number(entry) !== process.pid ? [Number(entry)] : [],
		);
	} catch {
		return [];
	}
}

function markedPids(needle: string): number[] {
	return procEntries().filter((pid) => {
		try {
			return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle);
		} catch {
			return false;
		}
	});
}
