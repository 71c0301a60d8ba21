/**
 * Per-item checkpoints, the git edge: snapshots of the working tree as commits under the extension's own refs, and
 * what `/todos diff` and `/todos revert` read and write. Every snapshot goes through a temporary index
 * (`GIT_INDEX_FILE`), so the user's index, HEAD, branches and stash are never touched. Git runs with a timeout and
 * the session's abort signal; nothing here decides (checkpoints/plan.ts does).
 */

import { execFile } from "node:child_process";
import { copyFileSync, existsSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKPOINT_REF_ROOT } from "../session/keys.ts";
import { busyReason, refsToPrune } from "./plan.ts";

/** Milliseconds one git command may run before it is killed. */
export const GIT_TIMEOUT_MS = 30_000;
/** Bytes of a git command's output kept (a diff beyond it is cut by the command that shows it). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** A repository as the checkpoints use it: its work tree's top folder and its git directory. */
export interface Repo {
	top: string;
	gitDir: string;
}

export interface GitResult {
	code: number;
	stdout: string;
	stderr: string;
}

interface GitOptions {
	env?: NodeJS.ProcessEnv;
	input?: string;
	signal?: AbortSignal;
}

/** Who the snapshot commits are by, so they need no `user.name` in the user's configuration. */
const AUTHOR = {
	GIT_AUTHOR_NAME: "pi-til-done",
	GIT_AUTHOR_EMAIL: "til-done@localhost",
	GIT_COMMITTER_NAME: "pi-til-done",
	GIT_COMMITTER_EMAIL: "til-done@localhost",
};

/** Runs git in `cwd`; never throws (a failure to start is code 127). */
export function runGit(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
	return new Promise((resolve) => {
		const child = execFile(
			"git",
			[...args],
			{
				cwd,
				env: { ...process.env, ...options.env, GIT_OPTIONAL_LOCKS: "0" },
				timeout: GIT_TIMEOUT_MS,
				signal: options.signal,
				maxBuffer: MAX_OUTPUT_BYTES,
				encoding: "utf8",
			},
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : 127) : 0;
				resolve({ code, stdout, stderr: stderr || (error && code === 127 ? error.message : "") });
			},
		);
		child.stdin?.on("error", () => {});
		child.stdin?.end(options.input ?? "");
	});
}

/** The repository whose work tree holds `cwd`, or undefined outside one (or without git). */
export async function findRepo(cwd: string, signal?: AbortSignal): Promise<Repo | undefined> {
	const result = await runGit(cwd, ["rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-toplevel"], {
		signal,
	});
	const [inside, gitDir, top] = result.stdout.split("\n");
	return result.code === 0 && inside === "true" && gitDir && top ? { top, gitDir } : undefined;
}

/** Why git must be left alone now (the user's own operation), or undefined. */
export function gitBusy(repo: Repo): string | undefined {
	return busyReason((name) => existsSync(join(repo.gitDir, name)));
}

let temporaries = 0;

/**
 * A copy of the user's index keeps git's stat cache, so only files changed since it was written are read again. It
 * keeps the original's times too: git reads a file as "racily clean" (and compares its content) by the index file's
 * time, and a copy made later would make a file changed in the same second as the index look unchanged.
 */
function copyIndex(from: string, to: string): void {
	if (!existsSync(from)) return;
	copyFileSync(from, to);
	const { atime, mtime } = statSync(from);
	utimesSync(to, atime, mtime);
}

/** Runs `use` with a temporary index file (a copy of the user's when `copy`), removed afterwards. */
async function withTemporaryIndex<T>(repo: Repo, copy: boolean, use: (env: NodeJS.ProcessEnv) => Promise<T>) {
	const file = join(tmpdir(), `til-done-index-${process.pid}-${++temporaries}`);
	try {
		if (copy) copyIndex(join(repo.gitDir, "index"), file);
		return await use({ GIT_INDEX_FILE: file });
	} finally {
		rmSync(file, { force: true });
	}
}

/** The working tree as a tree object: tracked and untracked files, ignored ones left out; undefined on failure. */
export function snapshotTree(repo: Repo, signal?: AbortSignal): Promise<string | undefined> {
	return withTemporaryIndex(repo, true, async (env) => {
		const added = await runGit(repo.top, ["add", "-A"], { env, signal });
		if (added.code !== 0) return undefined;
		const tree = await runGit(repo.top, ["write-tree"], { env, signal });
		return tree.code === 0 ? tree.stdout.trim() : undefined;
	});
}

/** A commit of `tree` (on HEAD when there is one) kept under `ref`; the oldest refs beyond the limit are deleted. */
export async function commitSnapshot(
	repo: Repo,
	tree: string,
	ref: string,
	message: string,
	signal?: AbortSignal,
): Promise<string | undefined> {
	const options = { env: AUTHOR, signal };
	let commit = await runGit(repo.top, ["commit-tree", tree, "-p", "HEAD", "-m", message], options);
	// A repository with no commit yet has no HEAD to stand on.
	if (commit.code !== 0) commit = await runGit(repo.top, ["commit-tree", tree, "-m", message], options);
	if (commit.code !== 0) return undefined;
	const sha = commit.stdout.trim();
	const updated = await runGit(repo.top, ["update-ref", ref, sha], { signal });
	if (updated.code !== 0) return undefined;
	await pruneRefs(repo, signal);
	return sha;
}

/** Every checkpoint ref of the repository, oldest commit first. */
async function checkpointRefs(repo: Repo, signal?: AbortSignal): Promise<string[]> {
	const listed = await runGit(
		repo.top,
		["for-each-ref", "--sort=committerdate", "--format=%(refname)", CHECKPOINT_REF_ROOT],
		{ signal },
	);
	return listed.code === 0 ? listed.stdout.split("\n").filter((line) => line !== "") : [];
}

async function deleteRefs(repo: Repo, refs: readonly string[], signal?: AbortSignal): Promise<boolean> {
	if (refs.length === 0) return true;
	const input = refs.map((ref) => `delete ${ref}\n`).join("");
	return (await runGit(repo.top, ["update-ref", "--stdin"], { input, signal })).code === 0;
}

async function pruneRefs(repo: Repo, signal?: AbortSignal): Promise<void> {
	await deleteRefs(repo, refsToPrune(await checkpointRefs(repo, signal)), signal);
}

/** Deletes every checkpoint ref of the repository; how many there were, or undefined when git refused. */
export async function cleanCheckpointRefs(repo: Repo): Promise<number | undefined> {
	const refs = await checkpointRefs(repo);
	return (await deleteRefs(repo, refs)) ? refs.length : undefined;
}

/** `git diff --stat --patch` between two snapshots; undefined when git cannot (a snapshot is gone). */
export async function diffSnapshots(repo: Repo, from: string, to: string): Promise<string | undefined> {
	const result = await runGit(repo.top, ["diff", "--no-color", "--no-ext-diff", "--stat", "--patch", from, to]);
	return result.code === 0 ? result.stdout : undefined;
}

/** The files changed between two commits or trees, as `git diff --name-status -z --no-renames` says. */
export async function changedFiles(
	repo: Repo,
	from: string,
	to: string,
	paths?: readonly string[],
): Promise<string | undefined> {
	const limit = paths ? ["--", ...paths] : [];
	const args = ["--literal-pathspecs", "diff", "--name-status", "-z", "--no-renames", from, to, ...limit];
	const result = await runGit(repo.top, args);
	return result.code === 0 ? result.stdout : undefined;
}

/** Writes `paths` as they are in `commit` into the work tree (not the user's index); removes `remove`. */
export async function restoreFiles(
	repo: Repo,
	commit: string,
	paths: readonly string[],
	remove: readonly string[],
): Promise<boolean> {
	const restored = await withTemporaryIndex(repo, false, async (env) => {
		if (paths.length === 0) return true;
		const read = await runGit(repo.top, ["read-tree", commit], { env });
		if (read.code !== 0) return false;
		const input = paths.map((path) => `${path}\0`).join("");
		return (await runGit(repo.top, ["checkout-index", "-f", "-z", "--stdin"], { env, input })).code === 0;
	});
	if (!restored) return false;
	for (const path of remove) rmSync(join(repo.top, path), { force: true });
	return true;
}
