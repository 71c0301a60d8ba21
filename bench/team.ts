/**
 * One plan shared by machines through a `git daemon` on the loopback address, in the real pi CLI with the scripted
 * fake model.
 *
 * Wall time: twelve independent items, each writing one file, every worker's model call taking 2 s, then 5 s (a fast
 * real model). One machine with 2 workers works the plan alone; then three machines (clones of the same remote,
 * started together, each with a TMPDIR of its own) with 2 workers each: the three share this machine's cores, which real machines would not; then one
 * machine with 2 workers on a third of the items, alone on the cores, as each of three real machines would work its
 * share. Reported: each wall time (the three: the last to end; the median of three runs) and their ratios to the first;
 * the pushes the remote took per item and the ref updates among them (its post-receive hook logs them: claims taken,
 * renewed and freed, the branch's landings).
 *
 * Claims: 50 items claimed one after another on the daemon (each a read and one atomic push): the time of one claim,
 * p50 and p95; and 8 sessions racing for one item, 50 rounds: how many won each round (exactly one, every time).
 */

import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { itemKey } from "../src/core/list/items.ts";
import { planName } from "../src/core/rules/leases.ts";
import { findRepo } from "../src/edges/git/git.ts";
import { type ClaimPlace, newNonce, takeClaim } from "../src/edges/git/leases.ts";
import {
	DEFAULT_HOST,
	EXTENSION_ENTRY,
	type FakeStep,
	isolatedEnv,
	type PiHost,
	runPrint,
} from "../test/helpers/cli.ts";
import { type GitServer, startGitServer } from "../test/helpers/git-server.ts";
import { sayStep, toolStep } from "../test/helpers/scripts.ts";

/** How long the fake model takes to answer each worker's call, one job per figure. */
const CALL_MS = [2_000, 5_000] as const;
const ITEMS = Array.from({ length: 12 }, (_, i) => `Write file-${i}.txt`);
/** Runs of each wall time, the median reported: two shared cores make one run's figure vary by a quarter. */
const RUNS = 3;
/** Rounds of eight racers for one item. */
const RACE_ROUNDS = 50;
const git = (cwd: string, ...args: string[]) =>
	execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd, encoding: "utf8" }).trim();

/**
 * A served remote holding the plan of `items` (its branch `main` with PLAN.md), logging every push it takes; its URL
 * and folder.
 */
function servedPlan(server: GitServer, root: string, name: string, items = ITEMS): { url: string; bare: string } {
	const seed = join(root, `seed-${name}`);
	mkdirSync(seed, { recursive: true });
	git(seed, "init", "-q", "-b", "main");
	writeFileSync(join(seed, "PLAN.md"), `# Plan\n\n${items.map((text) => `- [ ] ${text}`).join("\n")}\n`);
	git(seed, "add", "-A");
	git(seed, "commit", "-qm", "start");
	const bare = server.bare(`${name}.git`, { repo: seed, branch: "main" });
	// Every push the remote takes, and each ref it updated ("<old> <new> <ref>"), as git's post-receive hears them.
	const hook = join(bare, "hooks", "post-receive");
	writeFileSync(hook, `#!/bin/sh\n{ echo push; cat; } >> '${join(bare, "pushes.log")}'\n`);
	chmodSync(hook, 0o755);
	writeFileSync(join(bare, "pushes.log"), "");
	return { url: server.url(`${name}.git`), bare };
}

/** The remote's accepted pushes so far, and their ref updates by kind: the branch's (landings) and the claims'. */
function pushesTo(bare: string): { pushes: number; branch: number; claims: number } {
	const log = readFileSync(join(bare, "pushes.log"), "utf8").split("\n");
	const updates = log.filter((line) => line.split(" ").length === 3);
	return {
		pushes: log.filter((line) => line === "push").length,
		branch: updates.filter((line) => line.endsWith(" refs/heads/main")).length,
		claims: updates.filter((line) => line.includes(" refs/til-done/claims/")).length,
	};
}

/**
 * A jiti cache holding what the bench's pi compiles (this extension, the fake model's), warmed by one run: each machine
 * starts from a copy of it in a TMPDIR of its own, as a machine of its own would, rather than from the tests' shared
 * cache of every clone's sources (about 1,500 files, which each session would copy for its workers and remove at exit).
 */
async function warmJitiCache(host: PiHost, root: string): Promise<string> {
	const env = isolatedEnv({ TIL_DONE_COUNTDOWN: "0" });
	try {
		const jiti = join(env.tmpDir, "jiti");
		rmSync(jiti);
		mkdirSync(jiti);
		env.writeScript([sayStep("Warm.")]);
		const run = await runPrint(["-p", "Warm up."], env.env, { host, cwd: env.cwd, extensions: [EXTENSION_ENTRY] });
		if (run.code !== 0) throw new Error(`warm-up exit ${run.code}: ${run.stderr}`);
		const warm = join(root, `jiti-${host.version}`);
		cpSync(jiti, warm, { recursive: true });
		return warm;
	} finally {
		env.cleanup();
	}
}

/** Each machine's `pi -p` with 2 workers on the plan, joined to `origin`, all started at once; the wall time in ms. */
async function machinesAtWork(
	host: PiHost,
	url: string,
	machines: number,
	callMs: number,
	jitiCache: string,
): Promise<number> {
	const slow = (step: FakeStep): FakeStep => ({ ...step, delayMs: callMs });
	const env = isolatedEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: "2", TIL_DONE_MAX_CONTINUE: "50" });
	try {
		env.writeScript([sayStep("Working the plan.")]);
		const write = (i: number) => toolStep("write", { path: `file-${i}.txt`, content: "done\n" });
		env.writeWorkerScripts(
			Object.fromEntries(ITEMS.map((_, i) => [String(i), [slow(write(i)), slow(sayStep("Wrote it."))]])),
		);
		const dirs = Array.from({ length: machines }, (_, at) => join(env.root, `machine-${at}`));
		for (const dir of dirs) execFileSync("git", ["clone", "-q", url, dir]);
		const tmpDirs = dirs.map((_, at) => join(env.root, `tmp-${at}`));
		for (const tmp of tmpDirs) cpSync(jitiCache, join(tmp, "jiti"), { recursive: true });
		const args = ["--til-done-plan", "PLAN.md", "--til-done-remote", "origin", "-p", "Work the plan."];
		const start = performance.now();
		const runs = await Promise.all(
			dirs.map((cwd, at) =>
				runPrint(
					args,
					{ ...env.env, TMPDIR: tmpDirs[at] },
					{
						host,
						cwd,
						extensions: [EXTENSION_ENTRY],
						session: { dir: join(env.root, `sessions-${at}`) },
						timeoutMs: 600_000,
					},
				),
			),
		);
		const ms = performance.now() - start;
		const failed = runs.find((run) => run.code !== 0);
		if (failed) throw new Error(`exit ${failed.code}: ${failed.stderr}`);
		return ms;
	} finally {
		env.cleanup();
	}
}

/** One job's figures: its call time, the wall times (ms) and the shared run's pushes. */
interface Job {
	callMs: number;
	aloneMs: number;
	sharedMs: number;
	thirdMs: number;
	pushes: ReturnType<typeof pushesTo>;
}

/** The `p`-th percentile of `values` (nearest rank). */
function percentile(values: readonly number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** 50 claims one after another on the daemon, and 8 racers for one item over {@link RACE_ROUNDS} rounds. */
async function claimFigures(server: GitServer, root: string) {
	const { url } = servedPlan(server, root, "claims");
	const clone = join(root, "claims-clone");
	execFileSync("git", ["clone", "-q", url, clone]);
	const repo = await findRepo(clone);
	if (!repo) throw new Error("no repository");
	const place: ClaimPlace = { repo, remote: "origin", plan: planName("main", "PLAN.md") };
	const me = { session: "bench", host: "bench", nonce: newNonce() };
	const times: number[] = [];
	for (let i = 0; i < 50; i++) {
		const start = performance.now();
		const taken = await takeClaim(place, itemKey(i, `item ${i}`), me, 60_000);
		times.push(performance.now() - start);
		if (taken.kind !== "won") throw new Error(`claim ${i}: ${taken.kind}`);
	}
	const winners: number[] = [];
	for (let round = 0; round < RACE_ROUNDS; round++) {
		const key = itemKey(100 + round, `raced ${round}`);
		const racers = Array.from({ length: 8 }, (_, at) => ({ session: `racer-${at}`, host: "bench", nonce: newNonce() }));
		const results = await Promise.all(racers.map((racer) => takeClaim(place, key, racer, 60_000)));
		winners.push(results.filter((result) => result.kind === "won").length);
	}
	return { p50: percentile(times, 50), p95: percentile(times, 95), winners };
}

/** The section of bench/results.md. */
export async function teamSection(out: (line?: string) => void, host: PiHost = DEFAULT_HOST): Promise<void> {
	const server = await startGitServer();
	const root = join(server.base, "..", `team-bench-${process.pid}`);
	mkdirSync(root, { recursive: true });
	try {
		const jitiCache = await warmJitiCache(host, root);
		const jobs: Job[] = [];
		for (const callMs of CALL_MS) {
			const times = { alone: [] as number[], shared: [] as number[], third: [] as number[] };
			let pushes: ReturnType<typeof pushesTo> = { pushes: 0, branch: 0, claims: 0 };
			for (let run = 0; run < RUNS; run++) {
				const alone = servedPlan(server, root, `alone-${callMs}-${run}`);
				times.alone.push(await machinesAtWork(host, alone.url, 1, callMs, jitiCache));
				const shared = servedPlan(server, root, `shared-${callMs}-${run}`);
				times.shared.push(await machinesAtWork(host, shared.url, 3, callMs, jitiCache));
				pushes = pushesTo(shared.bare);
				const third = servedPlan(server, root, `third-${callMs}-${run}`, ITEMS.slice(0, ITEMS.length / 3));
				times.third.push(await machinesAtWork(host, third.url, 1, callMs, jitiCache));
			}
			const [aloneMs, sharedMs, thirdMs] = [times.alone, times.shared, times.third].map((ms) => percentile(ms, 50));
			jobs.push({ callMs, aloneMs: aloneMs ?? 0, sharedMs: sharedMs ?? 0, thirdMs: thirdMs ?? 0, pushes });
		}
		const claims = await claimFigures(server, root);
		out(`## One plan, many machines (real pi ${host.version}, a git daemon on 127.0.0.1)`);
		out();
		out(
			"| Job: 12 independent items, each writing a file | 1 machine × 2 workers | 3 machines × 2 workers | ratio (goal ≤ 0.45) | pushes per item (branch, claims) | a machine's third alone (ratio) |",
		);
		out("|---|---:|---:|---:|---:|---:|");
		const per = (n: number) => (n / ITEMS.length).toFixed(1);
		for (const { callMs, aloneMs, sharedMs, thirdMs, pushes } of jobs)
			out(
				`| ${callMs / 1000} s per worker call | ${(aloneMs / 1000).toFixed(1)} s | ${(sharedMs / 1000).toFixed(1)} s | ${(sharedMs / aloneMs).toFixed(2)} | ${per(pushes.pushes)} (${per(pushes.branch)}, ${per(pushes.claims)}) | ${(thirdMs / 1000).toFixed(1)} s (${(thirdMs / aloneMs).toFixed(2)}) |`,
			);
		out();
		out(
			`Each wall time the median of ${RUNS} runs. The three machines share this machine's cores; pushes per item count every push the remote took, and the ref updates among them: the branch's (its landing) and the claims' (taken, renewed, freed with the landing). A machine's third alone: one machine with 2 workers on four of the items, the cores its own, as each of three real machines would have them (what it lacks is the others' claims and landings on the remote).`,
		);
		const rounds = claims.winners.length;
		const once = claims.winners.filter((winners) => winners === 1).length;
		out(
			`One claim on the daemon (a read, then one atomic push): p50 ${Math.round(claims.p50)} ms, p95 ${Math.round(claims.p95)} ms (50 claims). Eight sessions racing for one item, ${rounds} rounds: exactly one winner in ${once} of ${rounds} (winners per round seen: ${[...new Set(claims.winners)].join(", ")}).`,
		);
		out();
	} finally {
		await server.close();
		execFileSync("rm", ["-rf", root]);
	}
}
