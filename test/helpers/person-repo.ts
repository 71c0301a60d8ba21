/**
 * The person's repository for a landing test: a commit, a change not staged, an untracked file and a stash entry, and
 * what a landing must leave alone read off it: the index, HEAD, branches, tags, stash and worktrees, and every file's
 * bytes (a link's target) and permission bits but the ones the test expects to change.
 */
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const gitIn = (cwd: string, ...args: string[]): string =>
	execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8" });

/** A commit of everything in `cwd` by a person with a name, so it needs no configuration. */
export const commitAll = (cwd: string, message: string): void => {
	gitIn(cwd, "add", "-A");
	gitIn(cwd, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", message);
};

/** Makes `cwd` the person's repository holding `files` (path → text) committed; what a landing must not change. */
export function personRepo(cwd: string, files: Record<string, string> = {}): (except?: readonly string[]) => string {
	gitIn(cwd, "init", "-q", "-b", "main");
	writeFileSync(join(cwd, "README.md"), "readme\n");
	for (const [path, text] of Object.entries(files)) writeFileSync(join(cwd, path), text);
	commitAll(cwd, "start");
	writeFileSync(join(cwd, "README.md"), "readme, stashed\n");
	gitIn(cwd, "-c", "user.name=u", "-c", "user.email=u@u", "stash", "push", "-q");
	writeFileSync(join(cwd, "README.md"), "readme, changed by the person\n");
	writeFileSync(join(cwd, "mine.txt"), "the person's own\n");
	return (except = []) => personState(cwd, except);
}

/**
 * Every file under `cwd` but `.git`: its bytes (a link: `-> target`) and its permission bits, by path (a name that is
 * not UTF-8 read by its bytes, keyed as UTF-8 reads it, `�` for what is not).
 */
export function workTreeFiles(cwd: string, except: readonly string[] = []): Record<string, string> {
	const files: Record<string, string> = {};
	const walk = (folder: Buffer, prefix: string): void => {
		const names = readdirSync(folder, { encoding: "buffer" }).sort(Buffer.compare);
		for (const name of names) {
			if (name.toString("latin1") === ".git") continue;
			const path = Buffer.concat([folder, Buffer.from("/"), name]);
			const stat = lstatSync(path);
			const key = `${prefix}${name.toString("utf8")}`;
			if (stat.isDirectory()) walk(path, `${key}/`);
			else if (!except.includes(key))
				files[key] =
					`${(stat.mode & 0o7777).toString(8)} ${stat.isSymbolicLink() ? `-> ${readlinkSync(path)}` : readFileSync(path).toString("base64")}`;
		}
	};
	walk(Buffer.from(cwd), "");
	return files;
}

/** The person's git state and the files but `except`, as one string to compare. */
function personState(cwd: string, except: readonly string[]): string {
	return JSON.stringify({
		index: readFileSync(join(cwd, ".git", "index")).toString("base64"),
		head: gitIn(cwd, "rev-parse", "HEAD"),
		refs: gitIn(cwd, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags", "refs/stash"),
		stash: gitIn(cwd, "stash", "list"),
		worktrees: gitIn(cwd, "worktree", "list", "--porcelain").replace(/\n+$/, ""),
		files: workTreeFiles(cwd, except),
	});
}

/** A file's permission bits. */
export const modeOf = (path: string): number => lstatSync(path).mode & 0o7777;
