/**
 * pi's start-up with and without the extension: `pi -p` with the scripted fake model, on every tested pi version, for
 * the source entry (src/index.ts), the one the package manifest names (index.ts, which loads the built dist/index.cjs
 * from its code cache), and that same entry in a fresh clone with nothing built (what `pi install <clone>` loads: the
 * TypeScript source through pi's loader).
 *
 * One isolated environment per version is kept for all its runs, so pi's and jiti's caches are warm, as on a user's
 * machine after the first start; one warm-up run per arm fills them. Then each round runs every arm once, in an order
 * that rotates from round to round. The extension adds about 1% to a start that varies by 5-10% from run to run here,
 * so the ratio is taken from paired runs: each round's "with" run against the same round's "without" run, which shares
 * whatever load the machine had at that moment; the ratio is 1 + median(with - without) / median(without).
 */

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PiHost } from "../scripts/pi-hosts.ts";
import { EXTENSION_ENTRY, isolatedEnv, NODE, piArgs, REPO_ROOT } from "../test/helpers/cli.ts";

/** The entry the package manifest names: it runs dist/index.cjs when it is built. */
export const MANIFEST_ENTRY = join(REPO_ROOT, "index.ts");

export interface EntryStartup {
	/** Median milliseconds from spawn to exit with this entry loaded. */
	median: number;
	/** 1 + median of the paired differences / median without the extension. */
	pairedRatio: number;
	/** 90% bootstrap interval of `pairedRatio` (rounds resampled with replacement). */
	interval: [number, number];
}

export interface StartupRow {
	version: string;
	/** The machine's load average over one minute, as the rounds began and as they ended. */
	load: [number, number];
	/** Median milliseconds from spawn to exit without the extension. */
	without: number;
	/** By entry path relative to the repository. */
	entries: Record<string, EntryStartup>;
	/** The same figures for the CPU time pi's process took (user + system), which a loaded machine disturbs less. */
	cpuWithout: number;
	cpuEntries: Record<string, EntryStartup>;
	rounds: number;
}

/** Resamplings behind each bootstrap interval. */
const BOOTSTRAP_SAMPLES = 2000;

/** The median of timings; there is always at least one. */
export function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	const upper = sorted[mid];
	if (upper === undefined) throw new Error("the median of no values");
	// An odd count has one middle value; an even one (at least 2 here) has `lower` as well.
	const lower = sorted[mid - 1];
	return sorted.length % 2 || lower === undefined ? upper : (lower + upper) / 2;
}

/** 1 + median(with - without) / median(without) over paired rounds. */
function pairedRatio(pairs: readonly (readonly [number, number])[]): number {
	return (
		1 + median(pairs.map(([without, withEntry]) => withEntry - without)) / median(pairs.map(([without]) => without))
	);
}

/** A fixed-seed generator (mulberry32), so the same measurements always give the same interval. */
function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The 5th and 95th percentiles of the paired ratio over rounds resampled with replacement. */
function bootstrapInterval(pairs: readonly (readonly [number, number])[]): [number, number] {
	const random = seededRandom(pairs.length);
	const ratios: number[] = [];
	for (let sample = 0; sample < BOOTSTRAP_SAMPLES; sample++) {
		// random() is below 1, so each draw is one of the rounds.
		const resampled = pairs.map(() => pairs[Math.floor(random() * pairs.length)]!);
		ratios.push(pairedRatio(resampled));
	}
	ratios.sort((a, b) => a - b);
	const low = ratios[Math.floor(0.05 * BOOTSTRAP_SAMPLES)];
	const high = ratios[Math.floor(0.95 * BOOTSTRAP_SAMPLES)];
	if (low === undefined || high === undefined) throw new Error("too few bootstrap samples for the interval");
	return [low, high];
}

/** Builds dist/ so the built entry measured is the current code. */
export function buildDist(root = REPO_ROOT): void {
	const result = spawnSync("npx", ["tsup", "--silent"], { cwd: root, encoding: "utf8" });
	if (result.status !== 0) throw new Error(`tsup failed: ${result.stderr}`);
}

/**
 * Runs a command, then writes the CPU time its children took (bash's `times`: user and system, to the millisecond) to
 * the file named first.
 */
const WITH_CPU_TIME = 'file=$1; shift; "$@"; status=$?; times > "$file"; exit $status';

/** One start: its wall time, and the CPU time (user + system) pi's process took, in milliseconds. */
interface RunTime {
	wall: number;
	cpu: number;
}

/** Seconds of a `times` figure such as `1m2.345s`. */
function secondsOf(figure: string): number {
	const [, minutes = "0", seconds = "0"] = /(\d+)m([\d.]+)s/.exec(figure) ?? [];
	return Number(minutes) * 60 + Number(seconds);
}

function timedRun(host: PiHost, env: NodeJS.ProcessEnv, cwd: string, extensions: string[]): RunTime {
	const args = piArgs({ extensions, args: ["-p", "hello"] });
	const cpuFile = join(cwd, "..", "cpu-time");
	const started = performance.now();
	const result = spawnSync("bash", ["-c", WITH_CPU_TIME, "bash", cpuFile, NODE, host.cli, ...args], {
		env,
		cwd,
		encoding: "utf8",
	});
	const wall = performance.now() - started;
	if (result.status !== 0) throw new Error(`pi ${host.version} failed: ${result.stderr}`);
	// The second line of `times` is the children's: user, then system.
	const [user = "", system = ""] = readFileSync(cpuFile, "utf8").split("\n")[1]?.split(" ") ?? [];
	return { wall, cpu: (secondsOf(user) + secondsOf(system)) * 1000 };
}

/** The time one round measured for an arm; every round times every arm. */
function timeOf(times: Readonly<Record<string, number>>, arm: string): number {
	const time = times[arm];
	if (time === undefined) throw new Error(`no time for ${arm} in a round`);
	return time;
}

/** The figures of one arm against the arm without the extension, over the rounds. */
function figuresOf(perRound: readonly Record<string, number>[], arm: string): EntryStartup {
	const pairs = perRound.map((times) => [timeOf(times, "without"), timeOf(times, arm)] as const);
	return {
		median: median(perRound.map((times) => timeOf(times, arm))),
		pairedRatio: pairedRatio(pairs),
		interval: bootstrapInterval(pairs),
	};
}

/** The arm of a fresh clone's manifest entry, nothing built. */
export const CLONE_ARM = "index.ts, clone (nothing built)";

/**
 * The repository's files as a fresh clone has them (what git tracks, and what is new and not ignored), with no dist/
 * and no node_modules, in a temporary folder: its index.ts loads the TypeScript source. Returns the folder.
 */
export function freshClone(root = REPO_ROOT): string {
	const clone = join(mkdtempSync(join(tmpdir(), "til-done-bench-clone-")), "pi-til-done");
	const files = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
		cwd: root,
		encoding: "utf8",
	});
	if (files.status !== 0) throw new Error(`git ls-files failed: ${files.stderr}`);
	for (const file of files.stdout.split("\0").filter(Boolean)) {
		if (!existsSync(join(root, file))) continue;
		mkdirSync(dirname(join(clone, file)), { recursive: true });
		cpSync(join(root, file), join(clone, file));
	}
	return clone;
}

/** The arms of an earlier checkout of the repository (`--against <dir>`): its built entry, and its fresh clone. */
export const BEFORE_ARMS = { built: "index.ts, before", clone: "index.ts, clone, before" } as const;

/**
 * Start-up figures for one pi version: without the extension, and with each entry; with `before` (another checkout of
 * the repository, its dist/ built), its built entry and its fresh clone too, measured in the same rounds.
 */
export function measureStartup(host: PiHost, rounds: number, before?: string): StartupRow {
	const iso = isolatedEnv();
	const clones = [freshClone(), ...(before === undefined ? [] : [freshClone(before)])];
	try {
		iso.writeScript([]);
		const [clone = "", beforeClone = ""] = clones;
		const arms: [string, string[]][] = [
			["without", []],
			["src/index.ts", [EXTENSION_ENTRY]],
			["index.ts", [MANIFEST_ENTRY]],
			[CLONE_ARM, [join(clone, "index.ts")]],
			...(before === undefined
				? []
				: ([
						[BEFORE_ARMS.built, [join(before, "index.ts")]],
						[BEFORE_ARMS.clone, [join(beforeClone, "index.ts")]],
					] as [string, string[]][])),
		];
		const loadBefore = loadavg()[0] ?? 0;
		for (const [, extensions] of arms) timedRun(host, iso.env, iso.cwd, extensions);
		const wall: Record<string, number>[] = [];
		const cpu: Record<string, number>[] = [];
		for (let round = 0; round < rounds; round++) {
			const wallTimes: Record<string, number> = {};
			const cpuTimes: Record<string, number> = {};
			// Round r starts with arm r (mod the number of arms) and goes round the rest in order.
			const first = round % arms.length;
			for (const [name, extensions] of [...arms.slice(first), ...arms.slice(0, first)]) {
				const run = timedRun(host, iso.env, iso.cwd, extensions);
				wallTimes[name] = run.wall;
				cpuTimes[name] = run.cpu;
			}
			wall.push(wallTimes);
			cpu.push(cpuTimes);
		}
		const load: [number, number] = [loadBefore, loadavg()[0] ?? 0];
		const names = arms.slice(1).map(([name]) => name);
		return {
			version: host.version,
			load,
			without: median(wall.map((times) => timeOf(times, "without"))),
			entries: Object.fromEntries(names.map((name) => [name, figuresOf(wall, name)])),
			cpuWithout: median(cpu.map((times) => timeOf(times, "without"))),
			cpuEntries: Object.fromEntries(names.map((name) => [name, figuresOf(cpu, name)])),
			rounds,
		};
	} finally {
		iso.cleanup();
		for (const folder of clones) rmSync(dirname(folder), { recursive: true, force: true });
	}
}
