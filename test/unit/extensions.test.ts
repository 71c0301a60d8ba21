/**
 * A worker loads what this pi loaded: its command line's extension flags, its word on trusting the project, the
 * project's entries outside the repository as absolute `-e` paths, and what its tree lacks of the project linked in
 * from the person's, never to land. Against a real repository in a temporary folder.
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
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findRepo, takeCheckpoint } from "../../src/edges/git/git.ts";
import { makeWorkerTree, removeWorkerTree, type WorkerTree } from "../../src/edges/git/worker-tree.ts";
import {
	extensionFlags,
	provideProject,
	trustFlags,
	workerExtensionFlags,
} from "../../src/edges/workers/extensions.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { must } from "../helpers/must.ts";

/** The temporary folder: the person's repository `project/` in it, and `outside/` beside the repository. */
let root = "";
let top = "";
let outside = "";
const trees: WorkerTree[] = [];

const git = (...args: string[]) => execFileSync("git", args, { cwd: top, encoding: "utf8" });
const write = (path: string, text: string) => {
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, text);
};
const settings = (value: unknown) => write(join(top, ".pi", "settings.json"), JSON.stringify(value));

beforeEach(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-extensions-")));
	top = join(root, "project");
	outside = join(root, "outside");
	mkdirSync(top);
	git("init", "-q", "-b", "main");
	write(join(top, "README.md"), "readme\n");
	git("add", ".");
	git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "start");
	write(join(outside, "ext.ts"), "export default () => {};\n");
	write(join(outside, "pkg", "package.json"), "{}\n");
	write(join(outside, "filtered", "package.json"), "{}\n");
});

afterEach(() => {
	for (const tree of trees.splice(0)) removeWorkerTree(tree);
	rmSync(root, { recursive: true, force: true });
});

/** A worker's tree made from a snapshot of the person's work tree as it is now. */
async function treeNow(): Promise<WorkerTree> {
	const repo = must(await findRepo(top), "the repository");
	const base = must(await takeCheckpoint(repo, "refs/til-done/s/worker/base", "snapshot"), "the snapshot");
	const tree = must(await makeWorkerTree(repo, base), "the worker's tree");
	trees.push(tree);
	return tree;
}

describe("a worker takes the extension flags of this pi's command line", () => {
	it("takes -e, --extension, -ne and --no-extensions from the command line, a relative path made absolute, and nothing else", () => {
		const argv = ["node", "pi", "-ne", "-e", "./a.ts", "--model", "x/y", "--extension", "b", "--no-extensions", "-e"];
		expect(extensionFlags(argv, "/work/project")).toEqual([
			"-ne",
			"-e",
			"/work/project/a.ts",
			"--extension",
			"/work/project/b",
			"--no-extensions",
		]);
	});

	it("leaves absolute paths and package sources as they are", () => {
		const argv = ["-e", "/abs/x.ts", "-e", "npm:@scope/pkg@1.0.0", "-e", "git:github.com/a/b", "-e", "~/ext.ts"];
		expect(extensionFlags(argv, "/work/project")).toEqual(argv);
	});
});

describe("a worker takes this pi's word on trusting the project", () => {
	it("trusted: --approve; not trusted: --no-approve", () => {
		expect(trustFlags(createFakeCtx({ trusted: true }).ctx)).toEqual(["--approve"]);
		expect(trustFlags(createFakeCtx({ trusted: false }).ctx)).toEqual(["--no-approve"]);
	});

	it("a pi without the question, or a context gone stale, gives no word", () => {
		expect(trustFlags(createFakeCtx().ctx)).toEqual([]);
		const stale = createFakeCtx({ trusted: true });
		stale.makeStale();
		expect(trustFlags(stale.ctx)).toEqual([]);
		expect(stale.refused()).toBe(1);
	});
});

describe("the project's entries that lead outside the repository reach a worker as absolute -e paths", () => {
	const argv = ["node", "pi", "-e", "/abs/til-done.ts"];

	it("a relative extension and local packages outside the repository, each once, as absolute paths", () => {
		settings({
			packages: ["../../outside/pkg", { source: "../../outside/pkg" }, "npm:@scope/pkg", { source: "../inside" }],
			extensions: ["../../outside/ext.ts", "/abs/other.ts", "~/mine.ts", "../vendor/in.ts"],
		});
		const ctx = createFakeCtx({ cwd: top, trusted: true }).ctx;
		expect(workerExtensionFlags(ctx, top, argv)).toEqual([
			"-e",
			"/abs/til-done.ts",
			"--approve",
			"-e",
			join(outside, "pkg"),
			"-e",
			join(outside, "ext.ts"),
		]);
	});

	it("a path that is not there, a glob, a package narrowed by a filter, or a list that excludes anything: none of them", () => {
		settings({
			packages: [{ source: "../../outside/filtered", extensions: ["a.ts"] }, "../../outside/gone"],
			extensions: ["../../outside/gone.ts", "../../outside/*.ts"],
		});
		const ctx = createFakeCtx({ cwd: top }).ctx;
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts"]);
		settings({ extensions: ["../../outside/ext.ts", "!legacy.ts"] });
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts"]);
		settings({ extensions: ["../../outside/ext.ts", "-../../outside/ext.ts"] });
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts"]);
	});

	it("with a pi without the question of trust, they are given as pi loads them", () => {
		settings({ extensions: ["../../outside/ext.ts"] });
		const ctx = createFakeCtx({ cwd: top }).ctx;
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts", "-e", join(outside, "ext.ts")]);
	});

	it("none when this pi loads no configured extension (-ne, --no-extensions) or does not trust the project", () => {
		settings({ extensions: ["../../outside/ext.ts"] });
		const trusted = createFakeCtx({ cwd: top, trusted: true }).ctx;
		expect(workerExtensionFlags(trusted, top, ["-ne", ...argv])).toEqual([
			"-ne",
			"-e",
			"/abs/til-done.ts",
			"--approve",
		]);
		expect(workerExtensionFlags(trusted, top, ["--no-extensions"])).toEqual(["--no-extensions", "--approve"]);
		const untrusted = createFakeCtx({ cwd: top, trusted: false }).ctx;
		expect(workerExtensionFlags(untrusted, top, argv)).toEqual(["-e", "/abs/til-done.ts", "--no-approve"]);
	});

	it("none without a .pi, or with settings that are not JSON", () => {
		const ctx = createFakeCtx({ cwd: top }).ctx;
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts"]);
		write(join(top, ".pi", "settings.json"), "{ not json");
		expect(workerExtensionFlags(ctx, top, argv)).toEqual(["-e", "/abs/til-done.ts"]);
	});
});

describe("what a worker's tree lacks of the project is linked in from the person's, and never lands", () => {
	/** The lines the tree's own repository and ours beside it leave out, after the person's own. */
	const excluded = (tree: WorkerTree) => [
		readFileSync(join(tree.dir, ".git", "info", "exclude"), "utf8"),
		readFileSync(join(tree.meta, "info", "exclude"), "utf8"),
	];

	it("a .pi git ignores, and a file its settings name in a folder git ignores: each entry linked into a .pi of the tree's own (pi locks its settings there), and left out of git", async () => {
		write(join(top, ".gitignore"), ".pi/\nvendor/\n");
		write(join(top, "vendor", "in.ts"), "export default () => {};\n");
		settings({ extensions: ["../vendor/in.ts", "-../vendor/in.ts", "./own/ext.ts", "../../outside/ext.ts"] });
		write(join(top, ".pi", "own", "ext.ts"), "export default () => {};\n");
		const tree = await treeNow();
		const before = excluded(tree);
		const linked = provideProject(top, top, tree);
		expect(linked.toSorted()).toEqual([".pi/own", ".pi/settings.json", "vendor/in.ts"]);
		expect(lstatSync(join(tree.dir, ".pi")).isDirectory()).toBe(true);
		expect(readlinkSync(join(tree.dir, ".pi", "own"))).toBe(join(top, ".pi", "own"));
		expect(readlinkSync(join(tree.dir, ".pi", "settings.json"))).toBe(join(top, ".pi", "settings.json"));
		expect(readlinkSync(join(tree.dir, "vendor", "in.ts"))).toBe(join(top, "vendor", "in.ts"));
		expect(excluded(tree)).toEqual(before.map((lines) => `${lines}\n${linked.map((path) => `/${path}`).join("\n")}\n`));
		expect(execFileSync("git", ["status", "--porcelain"], { cwd: tree.dir, encoding: "utf8" })).toBe("");
	});

	it("a .pi the tree has: only what of it git ignores (its npm folder) is linked", async () => {
		write(join(top, ".gitignore"), ".pi/npm/\n");
		settings({ packages: ["npm:@scope/pkg"] });
		write(join(top, ".pi", "npm", "package.json"), "{}\n");
		const tree = await treeNow();
		expect(provideProject(top, top, tree)).toEqual([".pi/npm"]);
		expect(lstatSync(join(tree.dir, ".pi", "settings.json")).isSymbolicLink()).toBe(false);
		expect(readlinkSync(join(tree.dir, ".pi", "npm"))).toBe(join(top, ".pi", "npm"));
	});

	it("no .pi, or one the tree has whole: nothing linked, nothing left out", async () => {
		const tree = await treeNow();
		const before = excluded(tree);
		expect(provideProject(top, top, tree)).toEqual([]);
		expect(existsSync(join(tree.dir, ".pi"))).toBe(false);
		expect(excluded(tree)).toEqual(before);
		settings({ extensions: ["./ext.ts"] });
		const whole = await treeNow();
		const wholeBefore = excluded(whole);
		expect(provideProject(top, top, whole)).toEqual([]);
		expect(excluded(whole)).toEqual(wholeBefore);
	});
});
