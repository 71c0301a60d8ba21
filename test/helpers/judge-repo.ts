/**
 * A person's git repository in a test's project folder, with state of their own to keep: a commit, a branch, a stash
 * entry and a staged change; and what of it must never change when pi-til-done reads or snapshots the work tree.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** git in `cwd`, as a person with a name and an address. */
export const git = (cwd: string, ...args: string[]): string =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

/** Makes `cwd` a repository holding the person's own state: a commit, a branch, a stash entry, a staged change. */
export function userRepo(cwd: string): void {
	git(cwd, "init", "-q", "-b", "main");
	writeFileSync(join(cwd, "a.txt"), "one\n");
	git(cwd, "add", "-A");
	git(cwd, "commit", "-q", "-m", "first");
	git(cwd, "branch", "feature");
	writeFileSync(join(cwd, "a.txt"), "stashed\n");
	git(cwd, "stash", "-q");
	writeFileSync(join(cwd, "c.txt"), "staged\n");
	git(cwd, "add", "c.txt");
}

/** What of the person's git state must never change: the index's bytes, HEAD, the branches, the stash. */
export function userGitState(cwd: string) {
	return {
		index: readFileSync(join(cwd, ".git/index")).toString("base64"),
		headFile: readFileSync(join(cwd, ".git/HEAD"), "utf8"),
		head: git(cwd, "rev-parse", "HEAD"),
		branches: git(cwd, "branch", "-a"),
		stash: git(cwd, "stash", "list"),
	};
}

/** The abbreviated id git gives a blob of `text` in a diff's `index` line. */
export const blobId = (cwd: string, text: string): string =>
	execFileSync("git", ["hash-object", "--stdin"], { cwd, input: text, encoding: "utf8" }).trim().slice(0, 7);
