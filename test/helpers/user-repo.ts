/** The person's repository for the workers' tests: a real git repository in the test's project folder. */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IsolatedEnv } from "./cli.ts";

/**
 * Makes the project folder a repository with one commit (`README.md`: `readme`), a change not staged (`README.md`:
 * `readme, changed by the user`) and an untracked file (`mine.txt`). Returns what reads git's own state of it (index,
 * HEAD, branches, tags, stash, worktrees) as one string: a worker or a landing must leave it as it was.
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
