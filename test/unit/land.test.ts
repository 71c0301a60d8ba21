/**
 * A worker's tree and the landing of its work, against a real repository in a temporary folder: the tree is the user's
 * work tree byte for byte (untracked and uncommitted files too, ignored ones left out), nothing of it shows in the
 * user's repository, and its work lands by a 3-way merge that keeps the user's own changes, or, on a conflict, changes
 * nothing. The user's index, HEAD, branches, stash and worktree list stay byte-identical.
 */

import { execFileSync } from "node:child_process";
import {
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FileSides, landFile } from "../../src/core/rules/landing.ts";
import { findRepo, type Repo, takeCheckpoint } from "../../src/edges/git/git.ts";
import { landWork } from "../../src/edges/git/land.ts";
import {
	keepWorkerResult,
	makeWorkerTree,
	removeWorkerTree,
	type WorkerTree,
} from "../../src/edges/git/worker-tree.ts";
import { must } from "../helpers/must.ts";

let dir: string;
const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
const write = (root: string, path: string, text: string | Buffer) => {
	mkdirSync(join(root, path, ".."), { recursive: true });
	writeFileSync(join(root, path), text);
};
const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");

/** What of the user's repository a worker must never change: index, HEAD, refs but ours, stash, worktrees. */
function userState(): string {
	const refs = git("for-each-ref", "--format=%(refname) %(objectname)")
		.split("\n")
		.filter((line) => !line.startsWith("refs/til-done/"));
	return JSON.stringify({
		index: readFileSync(join(dir, ".git", "index")).toString("base64"),
		head: readFileSync(join(dir, ".git", "HEAD"), "utf8"),
		refs,
		stash: git("stash", "list"),
		worktrees: git("worktree", "list", "--porcelain"),
	});
}

const trees: WorkerTree[] = [];

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-land-")));
	git("init", "-q", "-b", "main");
	write(dir, ".gitignore", "build/\n");
	write(dir, "app.txt", "one\ntwo\nthree\nfour\nfive\n");
	write(dir, "crlf.txt", "a\r\nb\r\n");
	git("add", ".");
	git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "start");
	write(dir, "app.txt", "stashed change\n");
	git("-c", "user.name=u", "-c", "user.email=u@u", "stash", "push", "-q");
	write(dir, "notes.md", "untracked notes\n");
	write(dir, "build/out.bin", "ignored");
	write(dir, "app.txt", "one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\n");
	git("add", "app.txt");
	write(dir, "app.txt", "one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
});
afterEach(() => {
	for (const tree of trees.splice(0)) removeWorkerTree(tree.dir);
	rmSync(dir, { recursive: true, force: true });
});

async function setup(): Promise<{ repo: Repo; tree: WorkerTree }> {
	const repo = must(await findRepo(dir), "the repository");
	const base = must(await takeCheckpoint(repo, "refs/til-done/s/worker/base", "snapshot"), "the snapshot");
	const tree = must(await makeWorkerTree(repo, base), "the worker's tree");
	trees.push(tree);
	return { repo, tree };
}

/** The worker's result kept under a ref, then landed; what the landing found. */
async function land(repo: Repo, tree: WorkerTree) {
	const result = must(await keepWorkerResult(repo, tree, "refs/til-done/s/worker/result"), "the result");
	return landWork(repo, tree.base, result);
}

describe("a worker's tree is the user's work tree, byte for byte, and none of the user's repository", () => {
	it("holds tracked, untracked and uncommitted files as they are, not ignored ones; the user's repository is as before", async () => {
		const before = userState();
		const { tree } = await setup();
		expect(read(tree.dir, "app.txt")).toBe("one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		expect(readFileSync(join(tree.dir, "crlf.txt"))).toEqual(Buffer.from("a\r\nb\r\n"));
		expect(read(tree.dir, "notes.md")).toBe("untracked notes\n");
		expect(existsSync(join(tree.dir, "build"))).toBe(false);
		expect(execFileSync("git", ["status", "--porcelain"], { cwd: tree.dir, encoding: "utf8" })).toBe("");
		expect(userState()).toBe(before);
		removeWorkerTree(tree.dir);
		expect(existsSync(tree.dir)).toBe(false);
	});
});

describe("a worker's work lands by a 3-way merge, or not at all", () => {
	it("lands new, changed and deleted files and keeps the user's own changes made meanwhile", async () => {
		const { repo, tree } = await setup();
		const before = userState();
		write(tree.dir, "app.txt", "ONE (worker)\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		write(tree.dir, "src/new.ts", "export const x = 1;\n");
		rmSync(join(tree.dir, "notes.md"));
		write(
			dir,
			"app.txt",
			"one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\neight (user, meanwhile)\n",
		);
		write(dir, "mine.txt", "the user's new file\n");
		expect(await land(repo, tree)).toEqual({ landed: ["app.txt", "notes.md", "src/new.ts"] });
		expect(read(dir, "app.txt")).toBe(
			"ONE (worker)\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\neight (user, meanwhile)\n",
		);
		expect(read(dir, "src/new.ts")).toBe("export const x = 1;\n");
		expect(existsSync(join(dir, "notes.md"))).toBe(false);
		expect(read(dir, "mine.txt")).toBe("the user's new file\n");
		expect(userState()).toBe(before);
	});

	it("a conflict names the files and changes nothing in the user's tree", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "app.txt", "one\nTWO (worker)\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		write(tree.dir, "other.txt", "would land, but the landing is all or nothing\n");
		write(dir, "app.txt", "one\nTWO (user)\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		expect(await land(repo, tree)).toEqual({ conflicts: ["app.txt"] });
		expect(read(dir, "app.txt")).toBe("one\nTWO (user)\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		expect(existsSync(join(dir, "other.txt"))).toBe(false);
		expect(git("cat-file", "-t", "refs/til-done/s/worker/result").trim()).toBe("commit");
	});

	it("keeps the exec bit, writes a link, and lands nothing twice", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "run.sh", "#!/bin/sh\necho hi\n");
		execFileSync("chmod", ["+x", join(tree.dir, "run.sh")]);
		symlinkSync("app.txt", join(tree.dir, "link"));
		expect(await land(repo, tree)).toEqual({ landed: ["link", "run.sh"] });
		expect(lstatSync(join(dir, "run.sh")).mode & 0o111).not.toBe(0);
		expect(readlinkSync(join(dir, "link"))).toBe("app.txt");
		expect(await land(repo, tree)).toEqual({ landed: [] });
	});
});

describe("a stop holds until the landing writes", () => {
	it("a stop that came before the first write writes nothing: the user's files are as they were", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "app.txt", "the worker's app\n");
		write(tree.dir, "new.txt", "new\n");
		const before = read(dir, "app.txt");
		const result = must(await keepWorkerResult(repo, tree, "refs/til-done/s/worker/result"), "the result");
		const stop = new AbortController();
		stop.abort();
		expect(await landWork(repo, tree.base, result, stop.signal)).toEqual({ stopped: true });
		expect(read(dir, "app.txt")).toBe(before);
		expect(existsSync(join(dir, "new.txt"))).toBe(false);
	});
});

describe("what git refuses, and what cannot be merged", () => {
	it("a repository without exclusions of its own still makes a tree", async () => {
		rmSync(join(dir, ".git", "info", "exclude"), { force: true });
		const { tree } = await setup();
		expect(read(tree.dir, "notes.md")).toBe("untracked notes\n");
	});

	it("a snapshot git does not have makes no tree; a tree whose base is gone keeps no result", async () => {
		const repo = must(await findRepo(dir), "the repository");
		expect(await makeWorkerTree(repo, "0".repeat(40))).toBeUndefined();
		const { tree } = await setup();
		expect(await keepWorkerResult(repo, { ...tree, base: "1".repeat(40) }, "refs/til-done/s/x")).toBeUndefined();
		expect(await landWork(repo, "0".repeat(40), tree.base)).toBeUndefined();
	});

	it("a folder where the worker wrote a file, and a file the user deleted that the worker changed, conflict", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "notes.md", "the worker's notes\n");
		write(tree.dir, "dir-here", "a file");
		mkdirSync(join(dir, "dir-here"));
		rmSync(join(dir, "notes.md"));
		expect(await land(repo, tree)).toEqual({ conflicts: ["dir-here", "notes.md"] });
	});

	it("a file deleted on both sides, or the user's already the worker's, needs nothing; a binary changed by both conflicts", async () => {
		const { repo, tree } = await setup();
		rmSync(join(tree.dir, "notes.md"));
		rmSync(join(dir, "notes.md"));
		expect(await land(repo, tree)).toEqual({ landed: [] });
		const second = await setup();
		write(second.tree.dir, "crlf.txt", Buffer.from([0, 1, 2, 3]));
		write(dir, "crlf.txt", Buffer.from([0, 9, 9, 9]));
		expect(await land(second.repo, second.tree)).toEqual({ conflicts: ["crlf.txt"] });
	});
});

describe("what landing does to one file", () => {
	const sides = (overrides: Partial<FileSides>): FileSides => ({
		base: true,
		theirs: true,
		ours: true,
		oursIsBase: false,
		oursIsTheirs: false,
		regular: true,
		...overrides,
	});
	it.each([
		["the user's copy is already the worker's", sides({ oursIsTheirs: true }), "keep"],
		["deleted by the worker, gone from the user's tree too", sides({ theirs: false, ours: false }), "keep"],
		["deleted by the worker, untouched by the user", sides({ theirs: false, oursIsBase: true }), "delete"],
		["deleted by the worker, changed by the user", sides({ theirs: false }), "conflict"],
		["changed by the worker, deleted by the user", sides({ ours: false }), "conflict"],
		["added by the worker only", sides({ base: false, ours: false }), "write"],
		["added by both, differently", sides({ base: false }), "conflict"],
		["changed by the worker, untouched by the user", sides({ oursIsBase: true }), "write"],
		["changed by both", sides({}), "merge"],
		["a link changed by both", sides({ regular: false }), "conflict"],
	])("%s: %s", (_name, given, expected) => {
		expect(landFile(given)).toBe(expected);
	});
});
