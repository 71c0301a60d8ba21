/**
 * Per-item checkpoints: the time one checkpoint takes (the snapshot through a temporary index, the commit, the ref
 * and the pruning, as the extension takes it) beside `git status` on the same work tree, for 1,000 and 10,000 files.
 * Before each round five tracked files change and one untracked file appears, as an item's work would leave them.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findRepo, type Repo, snapshotTree, takeCheckpoint } from "../src/edges/git/git.ts";
import { median } from "./startup.ts";

type Out = (line?: string) => void;

const fmt = (value: number, digits = 1) => value.toLocaleString("en-US", { maximumFractionDigits: digits });

/** A repository of `files` files of about 1 KB in folders of 100, committed. */
function makeRepo(files: number): string {
	const dir = mkdtempSync(join(tmpdir(), "til-done-bench-cp-"));
	for (let i = 0; i < files; i++) {
		const folder = join(dir, `d${Math.floor(i / 100)}`);
		if (i % 100 === 0) mkdirSync(folder);
		writeFileSync(join(folder, `f${i}.txt`), `file ${i}\n${"x".repeat(1000)}\n`);
	}
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, stdio: "ignore" });
	git("init", "-q");
	git("add", "-A");
	git("commit", "-q", "-m", "base");
	return dir;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
	const start = performance.now();
	await run();
	return performance.now() - start;
}

/** One round's work: five tracked files changed, one new file. */
function work(dir: string, files: number, round: number): void {
	for (let k = 0; k < 5; k++) {
		const i = (round * 5 + k) % files;
		writeFileSync(join(dir, `d${Math.floor(i / 100)}`, `f${i}.txt`), `file ${i} round ${round}\n`);
	}
	writeFileSync(join(dir, `new-${round}.txt`), `new ${round}\n`);
}

async function measure(files: number, rounds: number): Promise<{ status: number; checkpoint: number; tree: number }> {
	const dir = makeRepo(files);
	try {
		const repo = (await findRepo(dir)) as Repo;
		const status: number[] = [];
		const checkpoint: number[] = [];
		const tree: number[] = [];
		for (let round = 0; round < rounds + 2; round++) {
			work(dir, files, round);
			// As the user runs it: it refreshes the index's stat cache when it can.
			const s = await timed(async () => execFileSync("git", ["status", "--porcelain"], { cwd: dir }));
			const t = await timed(() => snapshotTree(repo));
			const c = await timed(() => takeCheckpoint(repo, `refs/til-done/bench/${round}/done`, "bench"));
			// The first two rounds warm the caches.
			if (round < 2) continue;
			status.push(s);
			tree.push(t);
			checkpoint.push(c);
		}
		return { status: median(status), checkpoint: median(checkpoint), tree: median(tree) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function checkpointsSection(out: Out, quick: boolean): Promise<void> {
	out("## Per-item checkpoints against `git status` on the same work tree (median)");
	out();
	out(
		"| Work tree | `git status` | snapshot (`add -A` + `write-tree`) | whole checkpoint | checkpoint / status | rounds |",
	);
	out("|---:|---:|---:|---:|---:|---:|");
	for (const [files, rounds] of [
		[1_000, quick ? 3 : 15],
		[10_000, quick ? 3 : 9],
	] as const) {
		const row = await measure(files, rounds);
		const cells = [`${fmt(row.status)} ms`, `${fmt(row.tree)} ms`, `${fmt(row.checkpoint)} ms`];
		out(`| ${fmt(files, 0)} files | ${cells.join(" | ")} | ${fmt(row.checkpoint / row.status, 2)} | ${rounds} |`);
	}
	out();
	out(
		"Goal: a whole checkpoint within 1.5 × `git status`. A checkpoint is one shell running four git processes (`add -A` and `write-tree` on a copy of the index, `commit-tree`, `update-ref`); the refs are listed once per repository and process, and again each time the count passes 200, to delete the oldest; before each round five tracked files change and one untracked file appears.",
	);
	out();
}

if (process.argv[1]?.endsWith("checkpoints.ts"))
	await checkpointsSection(console.log, process.argv.includes("--quick"));
