/**
 * A worker stays in its tree, the edge: links resolved on the disk, the `tool_call` gate of a worker's pi on real
 * folders, its bash confined by the real bubblewrap, and bubblewrap found out once per session that starts workers.
 */
import { execFileSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PARENT_MARKER, releaseRole, WORKER_MARKER } from "../../src/edges/host/role.ts";
import {
	boundsOf,
	confinedInTree,
	keepInTree,
	probeBwrap,
	realPath,
	WORKER_REPO_VAR,
} from "../../src/edges/workers/confine.ts";
import { registerEventHandlers } from "../../src/events.ts";
import { bwrapWorks } from "../helpers/bwrap.ts";
import { WORKER_BOUNDS } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { freshProcess, freshStore } from "../helpers/store.ts";

let dir: string;
let tree: string;
let repo: string;

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-confine-")));
	tree = join(dir, "tree");
	repo = join(dir, "repo");
	mkdirSync(join(tree, ".git"), { recursive: true });
	mkdirSync(`${tree}-tmp`);
	mkdirSync(repo);
	writeFileSync(join(repo, "README.md"), "the person's\n");
	freshStore();
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
	vi.unstubAllEnvs();
});

describe("a path's links are followed on the disk, a dangling one too", () => {
	it("links to folders, absolute and relative, are followed; what does not exist yet stays as written", () => {
		mkdirSync(join(dir, "elsewhere"));
		symlinkSync(join(dir, "elsewhere"), join(tree, "abs"));
		symlinkSync("../elsewhere", join(tree, "rel"));
		expect(realPath(join(tree, "abs", "new", "a.txt"))).toBe(join(dir, "elsewhere", "new", "a.txt"));
		expect(realPath(join(tree, "rel", "a.txt"))).toBe(join(dir, "elsewhere", "a.txt"));
		expect(realPath(join(tree, "plain", "a.txt"))).toBe(join(tree, "plain", "a.txt"));
	});

	it("a dangling link is followed to where a write through it would create its target", () => {
		symlinkSync(join(repo, "new.md"), join(tree, "dangling"));
		expect(realPath(join(tree, "dangling"))).toBe(join(repo, "new.md"));
	});

	it("`..` in a link's target goes up from where the links before it lead", () => {
		mkdirSync(join(dir, "elsewhere", "inner"), { recursive: true });
		mkdirSync(join(dir, "far"));
		symlinkSync(join(dir, "elsewhere", "inner"), join(dir, "far", "deep"));
		symlinkSync("../far/deep/../x", join(tree, "sib"));
		expect(realPath(join(tree, "sib"))).toBe(join(dir, "elsewhere", "x"));
	});

	it("a loop of links resolves no further than the kernel would follow", () => {
		symlinkSync(join(tree, "b"), join(tree, "a"));
		symlinkSync(join(tree, "a"), join(tree, "b"));
		// The kernel refuses the write (ELOOP); resolved as far as it goes, the path stays in the tree.
		expect(realPath(join(tree, "a", "x"))).toBe(join(tree, "a", "x"));
	});
});

/** A worker's pi with its gate, in `tree`: what its `tool_call` handler answers, and the input it leaves. */
function worker(env: NodeJS.ProcessEnv = { [WORKER_REPO_VAR]: repo }) {
	const pi = createFakePi();
	const { ctx } = createFakeCtx({ cwd: tree });
	const stop = keepInTree(pi.api, ctx, env);
	const call = async (toolName: string, input: Record<string, unknown>) => {
		const [answer] = await pi.fire("tool_call", { toolName, toolCallId: "t", input }, ctx);
		return { answer, input };
	};
	return { pi, stop, call };
}

const refused = (reason: string) => ({ block: true, reason });

describe("a worker's write and edit outside its tree are refused", () => {
	it("inside the tree, relative or absolute, the call goes ahead untouched", async () => {
		const { call } = worker();
		expect(await call("write", { path: "a.txt", content: "x" })).toEqual({
			answer: undefined,
			input: { path: "a.txt", content: "x" },
		});
		expect((await call("edit", { path: join(tree, "a.txt"), edits: [] })).answer).toBeUndefined();
		expect((await call("write", { path: "@a.txt", content: "x" })).answer).toBeUndefined();
		expect((await call("write", { path: "a\u00A0b.txt", content: "x" })).answer).toBeUndefined();
		// A file URL with a host is no path pi can write (its tool fails): read as written, it names the tree.
		expect((await call("write", { path: "file://host/x", content: "x" })).answer).toBeUndefined();
	});

	it("the person's file by absolute path, as a file URL, or through `..`: refused, with the tree's path to use", async () => {
		const { call } = worker();
		const readme = join(repo, "README.md");
		const instead = join(tree, "README.md");
		expect((await call("write", { path: readme, content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.inRepo(readme, instead)),
		);
		expect((await call("edit", { path: readme, edits: [] })).answer).toEqual(
			refused(WORKER_BOUNDS.inRepo(readme, instead)),
		);
		const url = pathToFileURL(readme).href;
		expect((await call("write", { path: url, content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.inRepo(url, instead)),
		);
		expect((await call("write", { path: "../repo/README.md", content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.inRepo("../repo/README.md", instead)),
		);
		expect(readFileSync(readme, "utf8")).toBe("the person's\n");
	});

	it("the home folder (`~`) and other folders are outside; a link of the tree that leads out is named", async () => {
		const { call } = worker();
		expect((await call("write", { path: "~/notes.txt", content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.outside("~/notes.txt", tree)),
		);
		expect((await call("write", { path: "~", content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.outside("~", tree)),
		);
		mkdirSync(join(dir, "elsewhere"));
		symlinkSync(join(dir, "elsewhere"), join(tree, "out"));
		expect((await call("write", { path: "out/a.txt", content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.throughLink("out/a.txt", join(dir, "elsewhere", "a.txt"), tree)),
		);
		expect(homedir().startsWith(tree)).toBe(false);
	});

	it("without the repository in its environment, the person's file is outside like any other", async () => {
		const { call } = worker({});
		const readme = join(repo, "README.md");
		expect((await call("write", { path: readme, content: "x" })).answer).toEqual(
			refused(WORKER_BOUNDS.outside(readme, tree)),
		);
	});

	it("other tools and calls without a path string pass; stopping removes the gate", async () => {
		const { pi, stop, call } = worker();
		expect((await call("read", { path: join(repo, "README.md") })).answer).toBeUndefined();
		expect((await call("write", { content: "x" })).answer).toBeUndefined();
		expect(pi.handlerCount("tool_call")).toBe(1);
		stop();
		expect(pi.handlerCount("tool_call")).toBe(0);
	});
});

describe("a worker's bash writes only its tree and its TMPDIR", () => {
	const command = () =>
		[
			`{ echo x >> ${join(repo, "README.md")}; } 2>/dev/null; echo "repo $?"`,
			`echo t > "$TMPDIR/t" && echo "tmp $TMPDIR"`,
			'echo t > t.txt && echo "tree $?"',
		].join("; ");
	const run = (wrapped: string) => execFileSync("bash", ["-c", wrapped], { cwd: tree, encoding: "utf8" });
	const tmp = () => `${tree}-tmp`;

	it.skipIf(!bwrapWorks)(
		"an item's check the session runs in the tree, in bubblewrap: the person's file cannot be written; the tree and the worker's TMPDIR can",
		() => {
			const bwrap = execFileSync("bash", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();
			expect(run(confinedInTree(command(), tree, { repo, bwrap, writable: [] }))).toBe(
				`repo 1\ntmp ${tmp()}\ntree 0\n`,
			);
			expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("the person's\n");
			expect(readFileSync(join(tmp(), "t"), "utf8")).toBe("t\n");
		},
	);

	it("the worker's own bash: the command is the same, with the worker's own TMPDIR", async () => {
		const { call } = worker();
		const { input } = await call("bash", { command: "echo $TMPDIR" });
		expect(run(String(input.command))).toBe(`${tmp()}\n`);
	});

	it("an item's check the session runs in the tree, where bubblewrap cannot confine: as written, with the worker's TMPDIR", () => {
		const check = confinedInTree('echo "$TMPDIR" && echo x > t.txt', tree, { repo, writable: [] });
		expect(run(check)).toBe(`${tmp()}\n`);
		expect(readFileSync(join(tree, "t.txt"), "utf8")).toBe("x\n");
	});
});

describe("whether bubblewrap confines is found out by running it, and said once per session where it does not", () => {
	const fakeBwrap = (script: string): string => {
		const bin = join(dir, "bin");
		mkdirSync(bin, { recursive: true });
		writeFileSync(join(bin, "bwrap"), `#!/bin/sh\n${script}\n`);
		chmodSync(join(bin, "bwrap"), 0o755);
		return bin;
	};

	it("no bwrap on PATH is missing; one that cannot make its namespace failed, with its first line or its exit code", async () => {
		expect(await probeBwrap({ PATH: join(dir, "nothing") })).toEqual({ kind: "missing" });
		const failing = fakeBwrap("echo 'bwrap: No permissions to create a new namespace' >&2\necho more >&2\nexit 1");
		expect(await probeBwrap({ PATH: failing })).toEqual({
			kind: "failed",
			detail: "bwrap: No permissions to create a new namespace",
		});
		rmSync(join(dir, "bin"), { recursive: true });
		expect(await probeBwrap({ PATH: fakeBwrap("exit 3") })).toEqual({ kind: "failed", detail: "exit code 3" });
		rmSync(join(dir, "bin"), { recursive: true });
		expect(await probeBwrap({ PATH: fakeBwrap("kill -TERM $$") })).toEqual({
			kind: "failed",
			detail: "it was ended by SIGTERM",
		});
	});

	it("no PATH at all, or only a folder named bwrap on it: missing", async () => {
		expect(await probeBwrap({})).toEqual({ kind: "missing" });
		mkdirSync(join(dir, "bin", "bwrap"), { recursive: true });
		expect(await probeBwrap({ PATH: `${join(dir, "bin")}:${join(dir, "nothing")}` })).toEqual({ kind: "missing" });
	});

	it("one that does not end in time is killed, and failed", async () => {
		expect(await probeBwrap({ PATH: fakeBwrap("exec /bin/sleep 30") }, 200)).toEqual({
			kind: "failed",
			detail: "it did not end within 0.2 s",
		});
	});

	it.skipIf(!bwrapWorks)("the bwrap on PATH that makes its namespaces works, named by its path", async () => {
		const probe = await probeBwrap();
		expect(probe.kind).toBe("works");
		expect(probe.kind === "works" && existsSync(probe.bwrap)).toBe(true);
	});

	it("workers are told the repository, and the bwrap when it works; where it does not, the session hears it once", () => {
		const { ctx, ui } = createFakeCtx({ cwd: repo });
		const top = { top: repo, gitDir: join(repo, ".git"), commonDir: join(repo, ".git") };
		expect(boundsOf({ kind: "works", bwrap: "/usr/bin/bwrap" }, top, ctx, {})).toEqual({
			repo,
			bwrap: "/usr/bin/bwrap",
			writable: [],
		});
		expect(ui.notifications).toEqual([]);
		const failed = { kind: "failed", detail: "bwrap: No permissions" } as const;
		expect(boundsOf(failed, top, ctx)).toEqual({ repo, writable: [] });
		expect(boundsOf(failed, top, ctx)).toEqual({ repo, writable: [] });
		expect(ui.notifications).toEqual([
			{ message: WORKER_BOUNDS.bwrapFailed("bwrap: No permissions"), type: "warning" },
		]);
		boundsOf({ kind: "missing" }, top, ctx);
		expect(ui.notifications.at(-1)).toEqual({
			message: WORKER_BOUNDS.bwrapMissing,
			type: "warning",
		});
	});
});

describe("only a worker's pi keeps to its tree", () => {
	/** A session started by the factory in `tree`, in a process whose environment holds `env`: its pi and context. */
	async function sessionWith(env: Record<string, string>) {
		freshProcess();
		for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
		const pi = createFakePi();
		registerEventHandlers(pi.api);
		const { ctx } = createFakeCtx({ cwd: tree });
		await pi.fire("session_start", { reason: "startup" }, ctx);
		return { pi, ctx };
	}

	it("a worker's session refuses a write of the person's file from its start, until it ends", async () => {
		const { pi, ctx } = await sessionWith({
			[PARENT_MARKER]: "1",
			[WORKER_MARKER]: String(process.pid),
			[WORKER_REPO_VAR]: repo,
		});
		const readme = join(repo, "README.md");
		const input = { path: readme, content: "x" };
		expect(await pi.fire("tool_call", { toolName: "write", toolCallId: "t", input }, ctx)).toEqual([
			refused(WORKER_BOUNDS.inRepo(readme, join(tree, "README.md"))),
		]);
		await pi.fire("session_shutdown", {}, ctx);
		expect(pi.handlerCount("tool_call")).toBe(0);
		releaseRole(pi.api);
	});

	it("the user's own session, and a child that is no worker, register no gate", async () => {
		const own = await sessionWith({ [WORKER_REPO_VAR]: repo });
		expect(own.pi.handlerCount("tool_call")).toBe(0);
		releaseRole(own.pi.api);
		const child = await sessionWith({ [PARENT_MARKER]: "1", [WORKER_REPO_VAR]: repo });
		expect(child.pi.handlerCount("tool_call")).toBe(0);
		releaseRole(child.pi.api);
	});
});
