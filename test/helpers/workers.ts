/**
 * What the workers' end-to-end tests share: the user's repository in the project folder and the state of it that no
 * worker may touch, and the processes of a test's workers, found by what their environment carries.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IsolatedEnv } from "./cli.ts";

/**
 * The user's repository in the project folder: one commit, a change not staged, and an untracked file. Returns what
 * must stay as it is: the index, HEAD, branches, tags, stash and work trees.
 */
export function userRepo(env: IsolatedEnv): () => string {
	const git = (...args: string[]) => execFileSync("git", args, { cwd: env.cwd, encoding: "utf8" });
	git("init", "-q", "-b", "main");
	writeFileSync(join(env.cwd, "README.md"), "readme\n");
	git("add", ".");
	git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "start");
	writeFileSync(join(env.cwd, "README.md"), "readme, changed by the user\n");
	writeFileSync(join(env.cwd, "mine.txt"), "the user's own\n");
	return () =>
		JSON.stringify({
			index: readFileSync(join(env.cwd, ".git", "index")).toString("base64"),
			head: git("rev-parse", "HEAD"),
			refs: git("for-each-ref", "--format=%(refname)", "refs/heads", "refs/tags", "refs/stash"),
			worktrees: git("worktree", "list", "--porcelain").replace(/\n+$/, ""),
		});
}

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
