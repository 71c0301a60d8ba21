/**
 * The workers' copy of the session's compiled extensions: made once per process from jiti's cache in TMPDIR, linked
 * as each worker's `<tmp>/jiti`, owned (a killed pi's copy is swept), and removed when pi exits.
 */

import { execFileSync } from "node:child_process";
import {
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bwrapWorks } from "../helpers/bwrap.ts";

let root: string;
const savedTmp = process.env.TMPDIR;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "til-done-compiled-"));
	process.env.TMPDIR = join(root, "session-tmp");
	mkdirSync(process.env.TMPDIR);
	vi.resetModules();
});

afterEach(async () => {
	(await owner()).removeInUse();
	if (savedTmp === undefined) delete process.env.TMPDIR;
	else process.env.TMPDIR = savedTmp;
	rmSync(root, { recursive: true, force: true });
});

/** The module afresh: its copy is made once per process, so each test starts without one. */
const fresh = () => import("../../src/edges/workers/compiled-extensions.ts");
/** The owner module the fresh one uses: what it made, it removes at exit. */
const owner = () => import("../../src/edges/host/owner.ts");

function sessionCache(files: Record<string, string>): string {
	const cache = join(root, "session-tmp", "jiti");
	mkdirSync(join(cache, "a-folder"), { recursive: true });
	for (const [name, text] of Object.entries(files)) writeFileSync(join(cache, name), text);
	return cache;
}

describe("the workers' copy of the compiled extensions", () => {
	it("is made once: every worker is given the same folder, holding each file of the session's cache (folders not)", async () => {
		sessionCache({ "src-index.1a2b.mjs": "index\n", "core-plan.3c4d.mjs": "plan\n" });
		const { compiledCopy } = await fresh();
		const copy = await compiledCopy();
		expect(copy).toBeDefined();
		expect(await compiledCopy()).toBe(copy);
		expect(readdirSync(copy as string).sort()).toEqual(["core-plan.3c4d.mjs", "src-index.1a2b.mjs"]);
		expect(readFileSync(join(copy as string, "src-index.1a2b.mjs"), "utf8")).toBe("index\n");
	});

	it("lives in TMPDIR under this process's owner tag, so the next run's sweep removes it once this pi is gone", async () => {
		sessionCache({ "src-index.1a2b.mjs": "index\n" });
		const copy = (await (await fresh()).compiledCopy()) as string;
		expect(copy.startsWith(`${join(root, "session-tmp")}/`)).toBe(true);
		const { ownerOf, ownerTag } = await owner();
		expect(ownerOf(basename(copy), "jiti")).toBe(ownerTag());
	});

	it("a write into it leaves the session's cache as it was", async () => {
		const cache = sessionCache({ "src-index.1a2b.mjs": "index\n" });
		const copy = (await (await fresh()).compiledCopy()) as string;
		writeFileSync(join(copy, "src-index.1a2b.mjs"), "changed by a worker\n");
		expect(readFileSync(join(cache, "src-index.1a2b.mjs"), "utf8")).toBe("index\n");
	});

	it("is linked as a worker's <tmp>/jiti, where its pi's jiti looks", async () => {
		sessionCache({ "src-index.1a2b.mjs": "index\n" });
		const { linkCompiledCopy } = await fresh();
		const workerTmp = join(root, "worker-tmp");
		mkdirSync(workerTmp);
		const copy = await linkCompiledCopy(workerTmp);
		expect(lstatSync(join(workerTmp, "jiti")).isSymbolicLink()).toBe(true);
		expect(readlinkSync(join(workerTmp, "jiti"))).toBe(copy);
	});

	it("is none where the session has compiled nothing: the worker's pi compiles into its own TMPDIR", async () => {
		const { compiledCopy, linkCompiledCopy } = await fresh();
		const workerTmp = join(root, "worker-tmp");
		mkdirSync(workerTmp);
		expect(await compiledCopy()).toBeUndefined();
		expect(await linkCompiledCopy(workerTmp)).toBeUndefined();
		expect(readdirSync(workerTmp)).toEqual([]);
	});

	it.skipIf(!bwrapWorks)(
		"is begun at a run only where a worker could start: in a git work tree, never outside one",
		async () => {
			sessionCache({ "src-index.1a2b.mjs": "index\n" });
			const outside = join(root, "outside");
			const repo = join(root, "repo");
			mkdirSync(outside);
			mkdirSync(repo);
			execFileSync("git", ["init", "-q"], { cwd: repo });
			const { prepareWorkerJail } = await import("../../src/edges/workers/worker-jail.ts");
			const copies = () => readdirSync(join(root, "session-tmp")).filter((name) => name.startsWith("til-done-jiti-"));
			await prepareWorkerJail(outside);
			expect(copies()).toEqual([]);
			await prepareWorkerJail(repo);
			expect(copies()).toHaveLength(1);
		},
	);

	it("is removed when pi exits", async () => {
		sessionCache({ "src-index.1a2b.mjs": "index\n" });
		const copy = (await (await fresh()).compiledCopy()) as string;
		(await owner()).removeInUse();
		expect(readdirSync(join(root, "session-tmp"))).toEqual(["jiti"]);
		expect(copy).toMatch(/til-done-jiti-/);
	});
});
