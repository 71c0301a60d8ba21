/**
 * A worker's tree and the landing of its work, against a real repository in a temporary folder: the tree is the user's
 * work tree byte for byte (untracked and uncommitted files too, ignored ones left out), nothing of it shows in the
 * user's repository, and its work lands by a 3-way merge that keeps the user's own changes, or, on a conflict, changes
 * nothing. The user's index, HEAD, branches, stash and worktree list stay byte-identical.
 */

import { execFileSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findRepo, type Repo, takeCheckpoint } from "../../src/edges/git/git.ts";
import { blobNameOf, fileBlobName } from "../../src/edges/git/hash.ts";
import { applyAll, landWork, makeStage, type StagedFile } from "../../src/edges/git/land.ts";
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
const modeOf = (path: string) => lstatSync(join(dir, path)).mode & 0o7777;

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
	for (const tree of trees.splice(0)) removeWorkerTree(tree);
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
		// Our git folder and the worker's TMPDIR beside it are made with it and go with it.
		const folders = [tree.dir, tree.meta, `${tree.dir}-tmp`];
		expect(folders.filter((folder) => existsSync(folder))).toEqual(folders);
		removeWorkerTree(tree);
		expect(folders.filter((folder) => existsSync(folder))).toEqual([]);
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

describe("a worker's new files, links and modes land beside the user's", () => {
	it("a new file in a folder the user has lands there, the folder and its other files as they were", async () => {
		write(dir, "src/mine.ts", "the user's\n");
		chmodSync(join(dir, "src"), 0o750);
		const { repo, tree } = await setup();
		write(tree.dir, "src/deep/new.ts", "the worker's\n");
		expect(await land(repo, tree)).toEqual({ landed: ["src/deep/new.ts"] });
		expect([read(dir, "src/deep/new.ts"), read(dir, "src/mine.ts")]).toEqual(["the worker's\n", "the user's\n"]);
		expect(modeOf("src")).toBe(0o750);
	});

	it("a file whose bytes and exec bit the worker changed lands with both", async () => {
		write(dir, "tool.sh", "#!/bin/sh\n");
		chmodSync(join(dir, "tool.sh"), 0o644);
		const { repo, tree } = await setup();
		write(tree.dir, "tool.sh", "#!/bin/sh\necho tool\n");
		chmodSync(join(tree.dir, "tool.sh"), 0o755);
		expect(await land(repo, tree)).toEqual({ landed: ["tool.sh"] });
		expect([read(dir, "tool.sh"), modeOf("tool.sh")]).toEqual(["#!/bin/sh\necho tool\n", 0o755]);
	});

	it("a file the worker replaced by a link lands as the link; the user's bytes are not written through it", async () => {
		const { repo, tree } = await setup();
		rmSync(join(tree.dir, "notes.md"));
		symlinkSync("app.txt", join(tree.dir, "notes.md"));
		expect(await land(repo, tree)).toEqual({ landed: ["notes.md"] });
		expect(readlinkSync(join(dir, "notes.md"))).toBe("app.txt");
		expect(read(dir, "app.txt")).toBe("one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
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

describe("a landing keeps the user's modes and permission bits", () => {
	it("a worker's chmod +x alone lands where the user's file has the read bits (600 → 700), and a chmod -x", async () => {
		write(dir, "tool.sh", "#!/bin/sh\n");
		chmodSync(join(dir, "tool.sh"), 0o600);
		write(dir, "old.sh", "#!/bin/sh\n");
		chmodSync(join(dir, "old.sh"), 0o750);
		const { repo, tree } = await setup();
		chmodSync(join(tree.dir, "tool.sh"), 0o755);
		chmodSync(join(tree.dir, "old.sh"), 0o644);
		const before = userState();
		expect(await land(repo, tree)).toEqual({ landed: ["old.sh", "tool.sh"] });
		expect([modeOf("tool.sh"), modeOf("old.sh")]).toEqual([0o700, 0o640]);
		expect([read(dir, "tool.sh"), read(dir, "old.sh")]).toEqual(["#!/bin/sh\n", "#!/bin/sh\n"]);
		expect(userState()).toBe(before);
	});

	it("a 600 file the worker changes stays 600; a file the user made executable meanwhile stays so", async () => {
		write(dir, "secret.env", "TOKEN=1\n");
		chmodSync(join(dir, "secret.env"), 0o600);
		const { repo, tree } = await setup();
		write(tree.dir, "secret.env", "TOKEN=1\nTOKEN=2\n");
		write(tree.dir, "app.txt", "ONE (worker)\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\n");
		write(dir, "app.txt", "one\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\neight (user)\n");
		chmodSync(join(dir, "app.txt"), 0o754);
		expect(await land(repo, tree)).toEqual({ landed: ["app.txt", "secret.env"] });
		expect(read(dir, "secret.env")).toBe("TOKEN=1\nTOKEN=2\n");
		expect(read(dir, "app.txt")).toBe(
			"ONE (worker)\ntwo\nthree\nfour\nfive\nsix (uncommitted)\nseven (unstaged)\neight (user)\n",
		);
		expect([modeOf("secret.env"), modeOf("app.txt")]).toEqual([0o600, 0o754]);
	});

	it("a new file gets what a new file of the user's would under their umask (077: 600, and 700 when git says 755)", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "new.txt", "new\n");
		write(tree.dir, "deep/new.sh", "#!/bin/sh\n");
		chmodSync(join(tree.dir, "deep/new.sh"), 0o755);
		const result = must(await keepWorkerResult(repo, tree, "refs/til-done/s/worker/result"), "the result");
		const umask = process.umask(0o077);
		try {
			expect(await landWork(repo, tree.base, result)).toEqual({ landed: ["deep/new.sh", "new.txt"] });
		} finally {
			process.umask(umask);
		}
		expect([modeOf("new.txt"), modeOf("deep/new.sh"), modeOf("deep")]).toEqual([0o600, 0o700, 0o700]);
	});
});

describe("a landing never writes or deletes through a link of the user's, nor where a file or a folder stands", () => {
	let outside: string;
	beforeEach(() => {
		outside = realpathSync(mkdtempSync(join(tmpdir(), "til-done-outside-")));
	});
	afterEach(() => rmSync(outside, { recursive: true, force: true }));

	it("a file under a folder the user made a link to a folder outside conflicts; nothing of the landing is written", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "out/x.txt", "x\n");
		write(tree.dir, "y.txt", "y\n");
		symlinkSync(outside, join(dir, "out"));
		const before = userState();
		expect(await land(repo, tree)).toEqual({ conflicts: ["out/x.txt"] });
		expect(readdirSync(outside)).toEqual([]);
		expect(existsSync(join(dir, "y.txt"))).toBe(false);
		expect(userState()).toBe(before);
	});

	it("a file the worker deleted under a folder that is now a link conflicts; the file the link reaches is kept", async () => {
		write(dir, "shared/a.txt", "a\n");
		const { repo, tree } = await setup();
		rmSync(join(tree.dir, "shared/a.txt"));
		write(outside, "a.txt", "a\n");
		rmSync(join(dir, "shared"), { recursive: true });
		symlinkSync(outside, join(dir, "shared"));
		expect(await land(repo, tree)).toEqual({ conflicts: ["shared/a.txt"] });
		expect(read(outside, "a.txt")).toBe("a\n");
	});

	it("a file under a folder the user replaced by a file conflicts; nothing is written", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "docs/a.md", "a\n");
		write(tree.dir, "z.txt", "z\n");
		write(dir, "docs", "the user's file\n");
		expect(await land(repo, tree)).toEqual({ conflicts: ["docs/a.md"] });
		expect(read(dir, "docs")).toBe("the user's file\n");
		expect(existsSync(join(dir, "z.txt"))).toBe(false);
	});
});

describe("a worker's change to a submodule is refused, never lost", () => {
	let library: string;
	beforeEach(() => {
		library = realpathSync(mkdtempSync(join(tmpdir(), "til-done-library-")));
		execFileSync("git", ["init", "-q", "-b", "main"], { cwd: library });
		write(library, "lib.txt", "lib\n");
		execFileSync("git", ["add", "."], { cwd: library });
		execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "lib"], { cwd: library });
	});
	afterEach(() => rmSync(library, { recursive: true, force: true }));
	const addSubmodule = () => {
		git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "sub");
		git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "sub");
	};

	it("the worker's tree holds an empty folder for it; what the worker writes there is kept under its ref and refused", async () => {
		addSubmodule();
		const { repo, tree } = await setup();
		expect(git("ls-tree", tree.base, "sub").split(" ").slice(0, 2)).toEqual(["160000", "commit"]);
		expect(readdirSync(join(tree.dir, "sub"))).toEqual([]);
		write(tree.dir, "sub/lib.txt", "edited by the worker\n");
		write(tree.dir, "other.txt", "would land, but the landing is all or nothing\n");
		const before = userState();
		expect(await land(repo, tree)).toEqual({ submodules: ["sub"] });
		expect(git("show", "refs/til-done/s/worker/result:sub/lib.txt")).toBe("edited by the worker\n");
		expect(read(dir, "sub/lib.txt")).toBe("lib\n");
		expect(existsSync(join(dir, "other.txt"))).toBe(false);
		expect(execFileSync("git", ["status", "--porcelain"], { cwd: join(dir, "sub"), encoding: "utf8" })).toBe("");
		expect(userState()).toBe(before);
	});

	it("a worker that leaves the submodule alone lands its other work", async () => {
		addSubmodule();
		const { repo, tree } = await setup();
		write(tree.dir, "other.txt", "other\n");
		expect(await land(repo, tree)).toEqual({ landed: ["other.txt"] });
	});

	it("a submodule the user did not check out (its folder empty, its gitlink in the index) is refused", async () => {
		addSubmodule();
		git("submodule", "deinit", "-q", "-f", "sub");
		const { repo, tree } = await setup();
		write(tree.dir, "sub/lib.txt", "written where the submodule goes\n");
		expect(await land(repo, tree)).toEqual({ submodules: ["sub"] });
		expect(readdirSync(join(dir, "sub"))).toEqual([]);
	});

	it("a repository the user made in the tree after the worker started, above its file or in its place, is refused", async () => {
		const above = await setup();
		const inPlace = await setup();
		write(above.tree.dir, "nested/deep/x.txt", "x\n");
		write(inPlace.tree.dir, "here", "a file where the user makes a repository\n");
		execFileSync("git", ["init", "-q", join(dir, "nested")]);
		execFileSync("git", ["init", "-q", join(dir, "here")]);
		expect(await land(above.repo, above.tree)).toEqual({ submodules: ["nested"] });
		expect(await land(inPlace.repo, inPlace.tree)).toEqual({ submodules: ["here"] });
		expect(existsSync(join(dir, "nested/deep"))).toBe(false);
	});

	it("a worker that deletes a submodule's folder, or makes a repository of its own, is refused", async () => {
		addSubmodule();
		const { repo, tree } = await setup();
		rmSync(join(tree.dir, "sub"), { recursive: true });
		expect(await land(repo, tree)).toEqual({ submodules: ["sub"] });
		const second = await setup();
		execFileSync("git", ["init", "-q", join(second.tree.dir, "own")]);
		write(second.tree.dir, "own/x.txt", "x\n");
		execFileSync("git", ["add", "."], { cwd: join(second.tree.dir, "own") });
		execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "own"], {
			cwd: join(second.tree.dir, "own"),
		});
		expect(await land(second.repo, second.tree)).toEqual({ submodules: ["own"] });
		expect(existsSync(join(dir, "own"))).toBe(false);
	});
});

describe("a landing waits for the person's own git operation", () => {
	it("mid-merge (or any operation git marks in its folder): refused with why, nothing written", async () => {
		const { repo, tree } = await setup();
		write(tree.dir, "new.txt", "the worker's\n");
		writeFileSync(join(dir, ".git", "MERGE_HEAD"), `${git("rev-parse", "HEAD").trim()}\n`);
		expect(await land(repo, tree)).toEqual({ busy: "a merge is in progress" });
		expect(existsSync(join(dir, "new.txt"))).toBe(false);
	});
});

describe("a landing that fails once it has begun writing undoes what it wrote", () => {
	it("a new file in new folders, a file written in place, a deleted one: all as they were, and the failing path named", async () => {
		write(dir, "keep.txt", "the user's\n");
		write(dir, "gone.txt", "to delete\n");
		const stage = makeStage({ commonDir: join(dir, ".git") });
		const newFile = join(stage.dir, "new-bytes");
		const newer = join(stage.dir, "newer-bytes");
		writeFileSync(newFile, "new\n");
		writeFileSync(newer, "rewritten\n");
		const absent = { parents: "folders" as const, ours: { kind: "absent" as const } };
		const file = (mode: number) => ({ parents: "folders" as const, ours: { kind: "file" as const, mode, sha: "" } });
		const files: StagedFile[] = [
			{ path: "made/deep/new.txt", landing: { action: "write", mode: 0o644 }, staged: newFile, around: absent },
			{ path: "keep.txt", landing: { action: "write", mode: 0o644 }, staged: newer, around: file(0o644) },
			{ path: "gone.txt", landing: { action: "delete" }, around: file(0o644) },
			// Its staged bytes are not there: the write fails, after the three before it.
			{ path: "fails.txt", landing: { action: "write", mode: 0o644 }, staged: join(stage.dir, "none"), around: absent },
		];
		try {
			expect(applyAll(dir, files, stage)).toBe("fails.txt");
		} finally {
			stage.remove();
		}
		expect(existsSync(join(dir, "made"))).toBe(false);
		expect(read(dir, "keep.txt")).toBe("the user's\n");
		expect(read(dir, "gone.txt")).toBe("to delete\n");
		expect(existsSync(join(dir, "fails.txt"))).toBe(false);
	});
});

/** A folder on another file system than TMPDIR's (a tmpfs); undefined where there is none. */
const OTHER_FS =
	statSync("/dev/shm", { throwIfNoEntry: false })?.dev !== statSync(tmpdir()).dev ? "/dev/shm" : undefined;

describe.skipIf(!OTHER_FS)("a work tree on another file system than its .git: its stage is crossed by a copy", () => {
	let top: string;
	beforeEach(() => {
		top = mkdtempSync(join(OTHER_FS as string, "til-done-land-top-"));
		write(top, "gone.txt", "to delete\n");
		symlinkSync("gone.txt", join(top, "link"));
	});
	afterEach(() => rmSync(top, { recursive: true, force: true }));

	const absent = { parents: "folders" as const, ours: { kind: "absent" as const } };
	const file = { parents: "folders" as const, ours: { kind: "file" as const, mode: 0o644, sha: "" } };
	const link = {
		parents: "folders" as const,
		ours: { kind: "link" as const, target: Buffer.from("gone.txt"), sha: "" },
	};

	/** A new file, a deleted one, a link replaced, then `last`; what applyAll gave, and the stage removed. */
	function apply(last: StagedFile[] = []) {
		const stage = makeStage({ commonDir: join(dir, ".git") });
		const staged = join(stage.dir, "new-bytes");
		writeFileSync(staged, "new\n");
		const files: StagedFile[] = [
			{ path: "new.txt", landing: { action: "write", mode: 0o640 }, staged, around: absent },
			{ path: "gone.txt", landing: { action: "delete" }, around: file },
			{ path: "link", landing: { action: "link" }, target: Buffer.from("new.txt"), around: link },
			...last,
		];
		try {
			return applyAll(top, files, stage);
		} finally {
			stage.remove();
		}
	}

	it("a new file, a deletion and a link land", () => {
		expect(apply()).toBeUndefined();
		expect(read(top, "new.txt")).toBe("new\n");
		expect(lstatSync(join(top, "new.txt")).mode & 0o7777).toBe(0o640);
		expect(existsSync(join(top, "gone.txt"))).toBe(false);
		expect(readlinkSync(join(top, "link"))).toBe("new.txt");
	});

	it("a write that fails after them undoes them: the deleted file and the link come back", () => {
		const fails: StagedFile = {
			path: "fails.txt",
			landing: { action: "write", mode: 0o644 },
			staged: "/none",
			around: absent,
		};
		expect(apply([fails])).toBe("fails.txt");
		expect(existsSync(join(top, "new.txt"))).toBe(false);
		expect(read(top, "gone.txt")).toBe("to delete\n");
		expect(readlinkSync(join(top, "link"))).toBe("gone.txt");
	});
});

describe("git's name of a blob is computed as git computes it", () => {
	it("for a file read in pieces, and for bytes (a link's target): the names git gives", () => {
		write(dir, "piece.bin", Buffer.alloc(3 * 1024 * 1024, 7));
		const name = fileBlobName(Buffer.from(join(dir, "piece.bin")), 3 * 1024 * 1024, 40);
		expect(name).toBe(git("hash-object", "piece.bin").trim());
		expect(blobNameOf(Buffer.from("../target"), 40)).toBe(
			execFileSync("git", ["hash-object", "--stdin"], { cwd: dir, input: "../target", encoding: "utf8" }).trim(),
		);
	});
});
