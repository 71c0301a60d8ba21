/**
 * What the workers' end-to-end tests share: the processes of a test's workers, found by what their environment
 * carries (the user's repository is test/helpers/user-repo.ts).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { type IsolatedEnv, waitForValue } from "./cli.ts";
import { maskSeconds, stderrLine, WORKERS } from "./expected.ts";

/**
 * The processes whose environment holds `mark` and whose command line (its arguments joined by spaces, one after the
 * last) holds `text` or matches it.
 */
export function markedProcesses(mark: string, text: string | RegExp): number[] {
	return readdirSync("/proc").flatMap((entry) => {
		if (!/^\d+$/.test(entry)) return [];
		try {
			if (!readFileSync(`/proc/${entry}/environ`, "utf8").includes(mark)) return [];
			const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
			return (typeof text === "string" ? command.includes(text) : text.test(command)) ? [Number(entry)] : [];
		} catch {
			// Gone meanwhile, or not ours to read.
			return [];
		}
	});
}

/** The pid of a worker of this test: its command line holds `text` (its prompt), its environment `mark`. */
export function workerPid(text: string, mark: string): number | undefined {
	return markedProcesses(mark, text)[0];
}

/** Whether a process has exited: gone from `/proc`, or a zombie its parent has not reaped yet. */
export function exited(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
	} catch {
		return true;
	}
}

/** Kills what a failed test left running, so that nothing it started outlives it. */
export function killAll(pids: readonly number[]): void {
	for (const pid of pids) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Gone already.
		}
	}
}

/** The lines of a `pi -p`'s stderr, each worker's seconds masked (wall-clock time is never asserted). */
export const stderrOf = (stderr: string): string[] =>
	maskSeconds(stderr)
		.split("\n")
		.filter((line) => line !== "");

/**
 * The `[til-done]` line of item `item`'s landing, its tokens what pi recorded of the answers of that item's last
 * worker (the fake model's usage log), its seconds masked.
 */
export function landedLine(env: IsolatedEnv, item: number, files: readonly string[], answer = ""): string {
	const tries = env.workerTries().filter((worker) => worker.item === item);
	return stderrLine(WORKERS.landed(item, tries.at(-1)?.tokens ?? 0, files, answer)).trimEnd();
}

/** The `[til-done]` line of a worker's start on item `item`. */
export const startedLine = (item: number, text: string): string => stderrLine(WORKERS.started(item, text)).trimEnd();
/** The processes whose command line is exactly `argv`: what a test started, however it left its session and folder. */
export function runningExactly(argv: readonly string[]): number[] {
	const wanted = `${argv.join("\0")}\0`;
	return readdirSync("/proc").flatMap((entry) => {
		if (!/^\d+$/.test(entry)) return [];
		try {
			return readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted ? [Number(entry)] : [];
		} catch {
			return [];
		}
	});
}

/**
 * SIGKILLs the check runner above process `pid` (the nearest ancestor whose command line holds `command -v timeout`),
 * as an OOM kill or a person's `kill -9` would; whether one was found.
 */
export function killRunnerAbove(pid: number): boolean {
	for (let at = pid; at > 1; ) {
		try {
			at = Number(/^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${at}/status`, "utf8"))?.[1] ?? 0);
			if (!readFileSync(`/proc/${at}/cmdline`, "utf8").replaceAll("\0", " ").includes("command -v timeout")) continue;
			process.kill(at, "SIGKILL");
			return true;
		} catch {
			return false;
		}
	}
	return false;
}

/** Resolves once a worker answered its first step and waits on its second (a script whose second step waits). */
export function untilWorkerWaits(env: IsolatedEnv, label = "the worker waiting"): Promise<true> {
	const waiting = () => env.readLog().some((line) => line.lastUser.includes("Your item") && line.step === 1);
	return waitForValue(() => (waiting() ? true : undefined), 60_000, label);
}

/** The refs of the repository at `cwd` that keep a worker's work that did not land. */
export const keptRefs = (cwd: string): string[] =>
	execFileSync("git", ["for-each-ref", "--format=%(refname)", "refs/til-done/"], { cwd, encoding: "utf8" })
		.split("\n")
		.filter((ref) => ref.includes("/worker-kept-"));

/** Resolves with the first ref of the repository at `cwd` that keeps a worker's work, once there is one. */
export function untilWorkKept(cwd: string): Promise<string> {
	return waitForValue(() => keptRefs(cwd)[0], 60_000, "the first try's work kept");
}
