/**
 * The checkpoints' git edge against a real repository in a temporary folder: a snapshot holds tracked and untracked
 * files but not ignored ones, and leaves the user's index, HEAD and refs as they were; a restore writes files back
 * without the user's index.
 */

import { execFileSync } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_CHECKPOINT_REFS, parseNameStatus } from "../../src/core/rules/checkpoint-rules.ts";
import {
	changedFiles,
	cleanCheckpointRefs,
	findRepo,
	gitBusy,
	type Repo,
	restoreFiles,
	runGit,
	snapshotTree,
	takeCheckpoint,
	withoutRepositoryVariables,
} from "../../src/edges/git/git.ts";
import { privateGitDir } from "../../src/edges/git/raw-git.ts";
import { must } from "../helpers/must.ts";

const got = <T>(value: T | undefined): T => must(value, "what git answers");
let dir: string;
const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
const write = (path: string, text: string) => {
	mkdirSync(join(dir, path, ".."), { recursive: true });
	writeFileSync(join(dir, path), text);
};

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-git-")));
	git("init", "-q", "-b", "main");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function repo(): Promise<Repo> {
	return got(await findRepo(dir));
}

describe("git of ours finds its repository from its folder, whatever the process inherited", () => {
	it("the variables that point git elsewhere are dropped, the rest kept", () => {
		const env = {
			GIT_DIR: "/elsewhere/.git",
			GIT_WORK_TREE: "/elsewhere",
			GIT_INDEX_FILE: "/elsewhere/index",
			GIT_CONFIG_COUNT: "1",
			GIT_CONFIG_KEY_0: "core.hooksPath",
			GIT_CONFIG_VALUE_0: "/elsewhere/hooks",
			GIT_AUTHOR_NAME: "the user",
			PATH: "/usr/bin",
		};
		expect(withoutRepositoryVariables(env)).toEqual({ GIT_AUTHOR_NAME: "the user", PATH: "/usr/bin" });
	});
});

describe("findRepo finds the work tree, and nothing outside one", () => {
	it("from a subfolder, and undefined in a folder outside any repository", async () => {
		mkdirSync(join(dir, "sub"));
		expect(await findRepo(join(dir, "sub"))).toEqual({
			top: dir,
			gitDir: join(dir, ".git"),
			commonDir: join(dir, ".git"),
		});
		const outside = realpathSync(mkdtempSync(join(tmpdir(), "til-done-nogit-")));
		try {
			expect(await findRepo(outside)).toBeUndefined();
		} finally {
			rmSync(outside, { recursive: true, force: true });
		}
	});
});

describe("a snapshot holds tracked and untracked files, not ignored ones, and changes nothing of the user's", () => {
	it("on a repository with commits and a staged change", async () => {
		write(".gitignore", "secret.txt\n");
		write("a.txt", "one\n");
		git("add", "-A");
		git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first");
		write("a.txt", "two\n");
		git("add", "a.txt");
		write("new/b.txt", "untracked\n");
		write("secret.txt", "ignored\n");
		const index = readFileSync(join(dir, ".git/index"));
		const head = git("rev-parse", "HEAD");
		const found = await repo();
		const tree = got(await snapshotTree(found));
		expect(git("ls-tree", "-r", "--name-only", tree).split("\n").filter(Boolean)).toEqual([
			".gitignore",
			"a.txt",
			"new/b.txt",
		]);
		const commit = got(await takeCheckpoint(found, "refs/til-done/s/0-k/start", "til-done start [0]"));
		expect(git("rev-parse", `${commit}^`)).toBe(head);
		expect(git("log", "-1", "--format=%s", commit)).toBe("til-done start [0]\n");
		expect(git("rev-parse", "refs/til-done/s/0-k/start").trim()).toBe(commit);
		expect(readFileSync(join(dir, ".git/index")).equals(index)).toBe(true);
		expect(git("rev-parse", "HEAD")).toBe(head);
		expect(git("status", "--porcelain")).toBe("M  a.txt\n?? new/\n");
		expect(await cleanCheckpointRefs(found)).toBe(1);
		expect(git("for-each-ref", "refs/til-done/")).toBe("");
	});

	it("on a repository with no commit yet (no HEAD), without the user's name configured", async () => {
		write("a.txt", "one\n");
		const found = await repo();
		const commit = got(await takeCheckpoint(found, "refs/til-done/s/k/done", "m"));
		expect(git("cat-file", "-p", commit)).toMatch(/^tree [0-9a-f]{40}\nauthor pi-til-done <til-done@localhost>/);
		expect(existsSync(join(dir, ".git/index"))).toBe(false);
	});
});

describe("untracked files over the bound are left out of a snapshot, named, and never read", () => {
	const bound = (maxMb: number, named: string[][]) => ({
		maxMb,
		leftOut: (files: readonly { path: string }[]) => named.push(files.map((file) => file.path)),
	});

	it("an untracked file over it is left out, a tracked one is kept, and the bound's file names are taken literally", async () => {
		write("tracked.bin", "x".repeat(2_000_000));
		git("add", "tracked.bin");
		write("a*b [1].bin ", "y".repeat(2_000_000));
		write("aXb [1].bin ", "small\n");
		write("small.txt", "small\n");
		const named: string[][] = [];
		const tree = got(await snapshotTree(await repo(), { bound: bound(1, named) }));
		expect(git("ls-tree", "-r", "--name-only", tree).split("\n").filter(Boolean)).toEqual([
			"aXb [1].bin ",
			"small.txt",
			"tracked.bin",
		]);
		expect(named).toEqual([["a*b [1].bin "]]);
	});

	it("past ten times the bound in untracked bytes in all, the biggest files within it are left out too, and named apart", async () => {
		for (const name of ["a", "b", "c", "d", "e", "f"]) write(`${name}.bin`, "z".repeat(900_000));
		write("g.bin", "z".repeat(950_000));
		for (const name of ["h", "i", "j", "k"]) write(`${name}.bin`, "z".repeat(800_000));
		const named: string[][] = [];
		const beyond: string[][] = [];
		const withTotal = {
			...bound(1, named),
			beyondTotal: (files: readonly { path: string }[]) => beyond.push(files.map((file) => file.path)),
		};
		const tree = got(await snapshotTree(await repo(), { bound: withTotal }));
		// 4 × 0.8 + 6 × 0.9 + 0.95 = 9.55 MB: within 10 MB, nothing left out; a 0.99 MB file more passes it, and goes.
		expect(git("ls-tree", "-r", "--name-only", tree).split("\n").filter(Boolean)).toHaveLength(11);
		expect(beyond).toEqual([]);
		write("l.bin", "z".repeat(990_000));
		const again = got(await snapshotTree(await repo(), { bound: withTotal }));
		expect(git("ls-tree", "-r", "--name-only", again).split("\n").filter(Boolean)).not.toContain("l.bin");
		expect(beyond).toEqual([["l.bin"]]);
		expect(named).toEqual([]);
	});

	it("a file that grows past the bound after a snapshot leaves the next one", async () => {
		const found = await repo();
		write("grows.bin", "small\n");
		const first = got(await snapshotTree(found, { bound: bound(1, []) }));
		expect(git("ls-tree", "--name-only", first)).toBe("grows.bin\n");
		write("grows.bin", "z".repeat(2_000_000));
		const second = got(await snapshotTree(found, { bound: bound(1, []) }));
		expect(git("ls-tree", "--name-only", second)).toBe("");
	});

	it("an untracked link is no file over the bound, whatever it points at: it is kept as a link", async () => {
		write("big.bin", "x".repeat(2_000_000));
		git("add", "big.bin");
		symlinkSync("big.bin", join(dir, "to-big"));
		const named: string[][] = [];
		const tree = got(await snapshotTree(await repo(), { bound: bound(1, named) }));
		expect(git("ls-tree", tree, "to-big").split(/\s/).slice(0, 2)).toEqual(["120000", "blob"]);
		expect(named).toEqual([]);
	});

	it("a bound of 0 leaves nothing out and names nothing", async () => {
		write("big.bin", "x".repeat(2_000_000));
		const named: string[][] = [];
		const tree = got(await snapshotTree(await repo(), { bound: bound(0, named) }));
		expect(git("ls-tree", "--name-only", tree)).toBe("big.bin\n");
		expect(named).toEqual([]);
	});
});

describe("a snapshot is taken whatever the tree holds", () => {
	it("a repository nested in the tree with no commit yet is left out and named; the rest is snapshotted", async () => {
		mkdirSync(join(dir, "idea"));
		execFileSync("git", ["init", "-q"], { cwd: join(dir, "idea") });
		write("idea/notes.txt", "an idea\n");
		write("a.txt", "one\n");
		const empty: string[][] = [];
		const bound = { maxMb: 50, emptyRepositories: (paths: readonly string[]) => empty.push([...paths]) };
		const tree = got(await snapshotTree(await repo(), { bound }));
		expect(git("ls-tree", "-r", "--name-only", tree)).toBe("a.txt\n");
		expect(empty).toEqual([["idea"]]);
	});

	it("a lock a killed snapshot left in the private git folder does not fail the next", async () => {
		const found = await repo();
		write("a.txt", "one\n");
		got(await snapshotTree(found));
		writeFileSync(join(privateGitDir(found), "index.lock"), "");
		write("a.txt", "two\n");
		const tree = got(await snapshotTree(found));
		expect(git("cat-file", "-p", `${tree}:a.txt`)).toBe("two\n");
	});

	it("a file over the bound whose name is not ASCII is left out by its exact name", async () => {
		write("café.bin", "x".repeat(2_000_000));
		write("cafe.bin", "small\n");
		const tree = got(await snapshotTree(await repo(), { bound: { maxMb: 1 } }));
		expect(git("ls-tree", "--name-only", tree)).toBe("cafe.bin\n");
	});
});

describe("a snapshot that fails leaves nothing in the user's store", () => {
	it("no new object and no folder of ours; once git can write again, the next snapshot is whole", async () => {
		const found = await repo();
		write("a.txt", "one\n");
		const objects = join(dir, ".git/objects");
		const blob = git("hash-object", "a.txt").trim();
		// A file where the folder of the new file's object must go: its object can never move into the store.
		const blocker = join(objects, blob.slice(0, 2));
		writeFileSync(blocker, "");
		const before = readdirSync(objects).sort();
		expect(await takeCheckpoint(found, "refs/til-done/s/0-k/start", "start")).toBeUndefined();
		expect(readdirSync(objects).sort()).toEqual(before);
		expect(git("for-each-ref", "refs/til-done/")).toBe("");
		rmSync(blocker);
		const commit = got(await takeCheckpoint(found, "refs/til-done/s/0-k/start", "start"));
		expect(git("cat-file", "-p", `${commit}:a.txt`)).toBe("one\n");
	});
});

describe("a restore writes files back from a snapshot, removes created ones, and leaves the index alone", () => {
	it("restores a changed and a deleted file, removes a created one", async () => {
		write("keep.txt", "before\n");
		write("gone.txt", "was here\n");
		const found = await repo();
		const start = got(await takeCheckpoint(found, "refs/til-done/s/k/start", "m"));
		write("keep.txt", "after\n");
		rmSync(join(dir, "gone.txt"));
		write("made.txt", "created\n");
		const done = got(await takeCheckpoint(found, "refs/til-done/s/k/done", "m"));
		const changes = parseNameStatus(got(await changedFiles(found, start, done)));
		expect(changes).toEqual([
			{ status: "D", path: "gone.txt" },
			{ status: "M", path: "keep.txt" },
			{ status: "A", path: "made.txt" },
		]);
		expect(await restoreFiles(found, start, ["gone.txt", "keep.txt"], ["made.txt"])).toBe(true);
		expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("before\n");
		expect(readFileSync(join(dir, "gone.txt"), "utf8")).toBe("was here\n");
		expect(existsSync(join(dir, "made.txt"))).toBe(false);
		expect(existsSync(join(dir, ".git/index"))).toBe(false);
	});
});

describe("git is left alone while the user's own operation is under way", () => {
	it("an index lock or a merge in progress is named", async () => {
		const found = await repo();
		expect(gitBusy(found)).toBeUndefined();
		writeFileSync(join(dir, ".git/MERGE_HEAD"), "");
		expect(gitBusy(found)).toBe("a merge is in progress");
		writeFileSync(join(dir, ".git/index.lock"), "");
		expect(gitBusy(found)).toBe("another git process holds the index");
	});
});

describe("at most MAX_CHECKPOINT_REFS refs are kept per session: a new snapshot deletes the session's oldest", () => {
	/** MAX_CHECKPOINT_REFS refs of session `session`, on an old commit. */
	async function oldRefs(found: Repo, session: string): Promise<void> {
		const tree = got(await snapshotTree(found));
		const old = execFileSync("git", ["commit-tree", tree, "-m", "old"], {
			cwd: dir,
			encoding: "utf8",
			env: {
				...process.env,
				GIT_AUTHOR_NAME: "t",
				GIT_AUTHOR_EMAIL: "t@t",
				GIT_COMMITTER_NAME: "t",
				GIT_COMMITTER_EMAIL: "t@t",
				GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
			},
		}).trim();
		const creates = Array.from(
			{ length: MAX_CHECKPOINT_REFS },
			(_, i) => `create refs/til-done/${session}/${String(i).padStart(3, "0")}/done ${old}\n`,
		);
		execFileSync("git", ["update-ref", "--stdin"], { cwd: dir, input: creates.join("") });
	}
	const refsOf = (session: string) =>
		git("for-each-ref", "--format=%(refname)", `refs/til-done/${session}/`).split("\n").filter(Boolean);

	it("200 older refs of the same session and a new one: 200 remain, the new one among them", async () => {
		write("a.txt", "one\n");
		const found = await repo();
		await oldRefs(found, "s");
		await takeCheckpoint(found, "refs/til-done/s/0-k/done", "m");
		expect(refsOf("s")).toHaveLength(MAX_CHECKPOINT_REFS);
		expect(refsOf("s")).toContain("refs/til-done/s/0-k/done");
		expect(refsOf("s")).not.toContain("refs/til-done/s/000/done");
	});

	it("200 older refs of another session are never pruned by this one's", async () => {
		write("a.txt", "one\n");
		const found = await repo();
		await oldRefs(found, "other");
		await takeCheckpoint(found, "refs/til-done/mine/0-k/done", "m");
		expect(refsOf("other")).toHaveLength(MAX_CHECKPOINT_REFS);
		expect(refsOf("mine")).toEqual(["refs/til-done/mine/0-k/done"]);
	});
});

describe("the checkpoint refs are cleaned all at once, or not at all", () => {
	it("every ref of every session deleted, counted; refs git holds locked: none deleted, and the count unknown", async () => {
		write("a.txt", "one\n");
		const found = await repo();
		await takeCheckpoint(found, "refs/til-done/s/0-k/start", "m");
		await takeCheckpoint(found, "refs/til-done/t/0-k/start", "m");
		writeFileSync(join(dir, ".git/refs/til-done/s/0-k/start.lock"), "");
		expect(await cleanCheckpointRefs(found)).toBeUndefined();
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/").split("\n").filter(Boolean)).toHaveLength(2);
		rmSync(join(dir, ".git/refs/til-done/s/0-k/start.lock"));
		expect(await cleanCheckpointRefs(found)).toBe(2);
		expect(git("for-each-ref", "refs/til-done/")).toBe("");
	});
});

describe("git that refuses is an answer, never a throw", () => {
	it("a folder that does not exist, a tree that does not, a ref name git refuses, a commit that does not exist", async () => {
		expect((await runGit(join(dir, "missing"), ["status"])).code).toBe(127);
		write("a.txt", "one\n");
		const found = await repo();
		expect(await takeCheckpoint(found, "refs/til-done/s/bad..name", "m")).toBeUndefined();
		expect(await restoreFiles(found, "1".repeat(40), ["a.txt"], [])).toBe(false);
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
	});

	it("a revert that only removes files needs no snapshot read; folders it leaves empty go too, others stay", async () => {
		write("made.txt", "created\n");
		write("new/deep/made.txt", "created\n");
		write("kept/made.txt", "created\n");
		write("kept/other.txt", "the user's\n");
		const removed = ["made.txt", "new/deep/made.txt", "kept/made.txt"];
		expect(await restoreFiles(await repo(), "1".repeat(40), [], removed)).toBe(true);
		expect(["made.txt", "new", "kept/made.txt"].map((path) => existsSync(join(dir, path)))).toEqual([
			false,
			false,
			false,
		]);
		expect(readFileSync(join(dir, "kept/other.txt"), "utf8")).toBe("the user's\n");
	});
});

describe("snapshots and restores hold the user's bytes, whatever git's settings say of line endings and filters", () => {
	/** The user's files before an item: LF, CRLF, mixed endings, one git tracks with a filter whose program is missing. */
	const BEFORE: Record<string, string> = {
		"lf.txt": "one\ntwo\n",
		"crlf.txt": "one\r\ntwo\r\n",
		"mixed.txt": "one\r\ntwo\n",
		"data.bin": "raw\r\nbytes\n",
	};
	const SETTINGS: [string, string[]][] = [
		["core.autocrlf true", ["core.autocrlf", "true"]],
		["core.autocrlf input", ["core.autocrlf", "input"]],
		["a .gitattributes eol rule and a filter whose program is missing", ["core.autocrlf", "false"]],
	];
	const bytes = (path: string) => readFileSync(join(dir, path)).toString("latin1");

	it.each(SETTINGS)(
		"%s: a revert gives back every byte; a later change of line endings alone is a change",
		async (_, setting) => {
			git("config", ...(setting as [string, string]));
			write(".gitattributes", "*.txt text eol=crlf\n*.bin filter=missing\n");
			git("config", "filter.missing.clean", "no-such-program-here");
			git("config", "filter.missing.smudge", "no-such-program-here");
			for (const [path, text] of Object.entries(BEFORE)) write(path, text);
			git("add", "lf.txt", "crlf.txt", ".gitattributes");
			git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the user's");
			const found = await repo();
			const start = got(await takeCheckpoint(found, "refs/til-done/s/k/start", "m"));
			for (const path of Object.keys(BEFORE)) write(path, "the item's\n");
			write("new.txt", "new\r\nfile\n");
			const done = got(await takeCheckpoint(found, "refs/til-done/s/k/done", "m"));
			expect(git("cat-file", "blob", `${start}:crlf.txt`)).toBe(BEFORE["crlf.txt"]);
			expect(git("cat-file", "blob", `${done}:new.txt`)).toBe("new\r\nfile\n");

			// A change of line endings alone, after the item was completed, is seen.
			write("new.txt", "new\nfile\n");
			const now = got(await snapshotTree(found));
			expect(parseNameStatus(got(await changedFiles(found, done, now)))).toEqual([{ status: "M", path: "new.txt" }]);
			write("new.txt", "new\r\nfile\n");

			const changes = parseNameStatus(got(await changedFiles(found, start, done)));
			const restore = changes.filter((change) => change.status !== "A").map((change) => change.path);
			expect(await restoreFiles(found, start, restore, ["new.txt"])).toBe(true);
			for (const [path, text] of Object.entries(BEFORE)) expect(bytes(path)).toBe(text);
			expect(existsSync(join(dir, "new.txt"))).toBe(false);
			expect(git("status", "--porcelain", "--untracked-files=all")).not.toContain("new.txt");
		},
	);
});
