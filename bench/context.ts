/**
 * What the model receives while a list is worked, measured in the real pi CLI with the scripted fake model: the
 * characters of every model call's request (`requestChars` in the fake model's log, defined in
 * demo/fake-model-extension.ts), with this extension (src/index.ts) and with the original design
 * (bench/original-extension.ts), on the same jobs and the same scripts.
 *
 * Two kinds of job:
 * - one run: the model writes the list, then starts and completes every item, then answers: `pi -p`, 2 + 2N calls;
 * - lazy: the model stops after every item, so the extension's continuation prompts drive it, N runs, 1 + 3N calls.
 *   Print mode would end after the first run for the original design (its headless continuation is a `setTimeout`
 *   that the exiting process never runs), so this job runs in RPC mode for both: `TIL_DONE_COUNTDOWN=0` and
 *   `TIL_DONE_MAX_CONTINUE=N` for ours, the original's fixed 3 s countdown waited out.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	DEFAULT_HOST,
	EXTENSION_ENTRY,
	type FakeLogLine,
	type FakeStep,
	type IsolatedEnv,
	isolatedEnv,
	type PiHost,
	REPO_ROOT,
	runPrint,
} from "../test/helpers/cli.ts";
import { startRpc } from "../test/helpers/rpc.ts";
import { completeStep, lazyScript, sayStep, startStep, toolStep, writeStep } from "../test/helpers/scripts.ts";

export const ORIGINAL_ENTRY = join(REPO_ROOT, "bench/original-extension.ts");

/** The user's prompt that starts every job. */
const PROMPT = "Work through the list.";
const FINAL_ANSWER = "All items are done.";
/** After the lazy job's last run: longer than the original's 3 s countdown, so a stray continuation would show. */
const QUIET_MS = 4000;

export interface ContextJob {
	name: string;
	texts: string[];
	lazy: boolean;
	/** The links of a plan, item by item; only this extension knows them, so the original design is not run. */
	links?: { blockedBy?: number[]; parent?: number }[];
	/** The items the model works, in the order the plan leads it; every item when absent. */
	order?: number[];
}

/** The items a job's model works, in order. */
const workOrder = (job: ContextJob): number[] => job.order ?? job.texts.map((_, i) => i);

export interface ContextFigures {
	/** Model calls made. */
	calls: number;
	/** What every call carries before the conversation: the first call's characters less the user's prompt. */
	fixed: number;
	/** Characters of the last call's request. */
	last: number;
	/** Characters of every call's request, summed. */
	summed: number;
}

/** `count` item texts of exactly `length` characters each, none needing escapes in JSON. */
export function itemTexts(count: number, length: number): string[] {
	const filler = "lorem ipsum dolor sit amet ".repeat(Math.ceil(length / 27));
	return Array.from({ length: count }, (_, i) => `Task ${i}: ${filler}`.slice(0, length));
}

/** The write of a job's list, with its plan's links when it has them. */
function writeJob(job: ContextJob): FakeStep {
	if (!job.links) return writeStep(job.texts);
	const todos = job.texts.map((text, i) => ({ text, ...job.links?.[i] }));
	return toolStep("write_todos", { mode: "replace", todos });
}

/** The model does the whole list in one run: write, then start and complete each item, then a final answer. */
export function oneRunScript(job: ContextJob): FakeStep[] {
	return [writeJob(job), ...workOrder(job).flatMap((i) => [startStep(i), completeStep(i)]), sayStep(FINAL_ANSWER)];
}

/** The model writes the list, then stops after every item it works: the continuations lead it through the plan. */
function lazyJobScript(job: ContextJob): FakeStep[] {
	if (!job.links) return lazyScript(job.texts);
	return [writeJob(job), ...workOrder(job).flatMap((i) => [startStep(i), completeStep(i), sayStep(`Finished ${i}.`)])];
}

export const expectedCalls = (job: ContextJob) =>
	job.lazy ? 1 + 3 * workOrder(job).length : 2 + 2 * workOrder(job).length;

/**
 * A plan of 30 items: 10 features, each a parent with two subtasks, the second waiting for the first, and each
 * feature waiting for the one before. The model works the 20 subtasks; every parent completes with its last one.
 */
export function planJob(lazy: boolean): ContextJob {
	const texts = itemTexts(30, 40);
	const links = texts.map((_, i) => {
		const feature = Math.floor(i / 3);
		if (i % 3 === 0) return feature === 0 ? {} : { blockedBy: [i - 3] };
		return i % 3 === 1 ? { parent: i - 1 } : { parent: i - 2, blockedBy: [i - 1] };
	});
	const order = texts.flatMap((_, i) => (i % 3 === 0 ? [] : [i]));
	return {
		name: `30 × 40 chars, a plan of 10 features with 2 subtasks each${lazy ? ", lazy (20 runs)" : ", one run"}`,
		texts,
		lazy,
		links,
		order,
	};
}

/**
 * An isolated pi with auto-compaction off. The original design outgrows the fake model's 200,000-token window within
 * a few calls of the 100 × 1,000 job; pi would then ask the model for a summary, the scripted model would answer it
 * with the script's next step, and the job would no longer be the one measured. Off, every call carries the whole
 * conversation, which is what each design puts before the model.
 */
function benchEnv(extra: NodeJS.ProcessEnv = {}): IsolatedEnv {
	const iso = isolatedEnv(extra);
	writeFileSync(join(iso.agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
	return iso;
}

async function oneRunLog(job: ContextJob, extension: string, host: PiHost): Promise<FakeLogLine[]> {
	const iso = benchEnv();
	try {
		iso.writeScript(oneRunScript(job));
		const result = await runPrint(["-p", PROMPT], iso.env, { host, extensions: [extension], timeoutMs: 600_000 });
		if (result.code !== 0 || result.stdout.trim() !== FINAL_ANSWER)
			throw new Error(`${job.name}: pi exited ${result.code} with ${result.stdout.slice(-200)} ${result.stderr}`);
		return iso.readLog();
	} finally {
		iso.cleanup();
	}
}

async function lazyLog(job: ContextJob, extension: string, host: PiHost): Promise<FakeLogLine[]> {
	// Our hard cap of 20 continuations per prompt would end a 100-item job after 21 runs: raised to what the job needs.
	const runs = workOrder(job).length;
	const iso = benchEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_MAX_CONTINUE: String(runs) });
	try {
		iso.writeScript(lazyJobScript(job));
		const pi = await startRpc({ host, env: iso.env, extensions: [extension] });
		try {
			await pi.prompt(PROMPT);
			// One run per item; a run that never comes fails within a minute rather than at the end.
			for (let run = 1; run <= runs; run++) await pi.waitForSettled({ nth: run, timeoutMs: 60_000 });
			await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
			return iso.readLog();
		} finally {
			await pi.close();
		}
	} finally {
		iso.cleanup();
	}
}

/** Runs `job` once with `extension` loaded and returns its figures; throws if the script did not play out exactly. */
export async function measureContext(job: ContextJob, extension: string, host = DEFAULT_HOST): Promise<ContextFigures> {
	const log = job.lazy ? await lazyLog(job, extension, host) : await oneRunLog(job, extension, host);
	const unscripted = log.filter((line) => line.step < 0).length;
	if (log.length !== expectedCalls(job) || unscripted > 0)
		throw new Error(
			`${job.name}: ${log.length} model calls (${unscripted} unscripted), ${expectedCalls(job)} expected`,
		);
	const first = log[0];
	const last = log.at(-1);
	if (!first || !last) throw new Error(`${job.name}: no model calls`);
	let summed = 0;
	for (const line of log) summed += line.requestChars;
	return {
		calls: log.length,
		fixed: first.requestChars - PROMPT.length,
		last: last.requestChars,
		summed,
	};
}

/**
 * What pi itself puts in every call with no extension loaded (its system prompt and its built-in tools): the first
 * call's characters less the user's prompt. The goals are set on what an extension adds beyond it.
 */
export async function piOwnFixed(host = DEFAULT_HOST): Promise<number> {
	const iso = benchEnv();
	try {
		iso.writeScript([sayStep(FINAL_ANSWER)]);
		const result = await runPrint(["-p", PROMPT], iso.env, { host, extensions: [] });
		const first = iso.readLog()[0];
		if (result.code !== 0 || !first) throw new Error(`pi without an extension exited ${result.code}: ${result.stderr}`);
		return first.requestChars - PROMPT.length;
	} finally {
		iso.cleanup();
	}
}

/** The figures without pi's own part of every call. */
export function beyondPi(figures: ContextFigures, piFixed: number): ContextFigures {
	return {
		calls: figures.calls,
		fixed: figures.fixed - piFixed,
		last: figures.last - piFixed,
		summed: figures.summed - figures.calls * piFixed,
	};
}

const LONG_ONE_RUN = "100 × 1,000 chars, one run";
const SHORT_ONE_RUN = "10 × 40 chars, one run";

/** The jobs of the table; `--quick` leaves out the long lazy one (the original design waits 3 s per item). */
export function contextJobs(quick: boolean): ContextJob[] {
	const long = itemTexts(100, 1000);
	const short = itemTexts(10, 40);
	const jobs: ContextJob[] = [
		{ name: LONG_ONE_RUN, texts: long, lazy: false },
		{ name: SHORT_ONE_RUN, texts: short, lazy: false },
		{ name: "10 × 40 chars, lazy (10 runs)", texts: short, lazy: true },
	];
	if (!quick) jobs.push({ name: "100 × 1,000 chars, lazy (100 runs)", texts: long, lazy: true });
	jobs.push(planJob(false), planJob(true));
	return jobs;
}

const count = (value: number) => value.toLocaleString("en-US");
const ratio = (ours: number, original: number) => (ours / original).toFixed(3);

/** A limit this project works towards for our figures (not a pass/fail of the bench). */
interface Goal {
	job: string;
	figure: "last" | "summed";
	/** The limit, or "original": no more than the original design's figure. */
	limit: number | "original";
}

const GOALS: readonly Goal[] = [
	{ job: LONG_ONE_RUN, figure: "last", limit: 130_000 },
	{ job: LONG_ONE_RUN, figure: "summed", limit: 25_000_000 },
	{ job: SHORT_ONE_RUN, figure: "last", limit: "original" },
	{ job: SHORT_ONE_RUN, figure: "summed", limit: "original" },
];

type Measured = Map<string, { ours: ContextFigures; original: ContextFigures }>;

/** The goals, on the figures beyond pi's own part (the same subtraction for both designs keeps their comparison). */
function goalLines(measured: Measured, piFixed: number): string[] {
	const lines = ["| Goal (beyond pi's own) | limit | ours | |", "|---|---:|---:|---|"];
	for (const goal of GOALS) {
		const figures = measured.get(goal.job);
		if (!figures) continue;
		const original = beyondPi(figures.original, piFixed);
		const limit = goal.limit === "original" ? original[goal.figure] : goal.limit;
		const ours = beyondPi(figures.ours, piFixed)[goal.figure];
		const what = goal.figure === "last" ? "last call" : "summed";
		const limitText = goal.limit === "original" ? `original's ${count(limit)}` : count(limit);
		lines.push(`| ${goal.job}: ${what} | ≤ ${limitText} | ${count(ours)} | ${ours <= limit ? "met" : "not yet"} |`);
	}
	return lines;
}

/** Runs every job with both extensions and prints the section of bench/results.md. */
/** The section of bench/results.md; returns our figures of the 100 × 1,000 one-run job, for the workers' section. */
export async function contextSection(
	out: (line?: string) => void,
	quick: boolean,
	host = DEFAULT_HOST,
): Promise<ContextFigures | undefined> {
	out(`## Characters the model receives while a list is worked (real pi ${host.version}, scripted fake model)`);
	out();
	out("| Job | model calls | last call: ours | original | ratio | summed: ours | original | ratio |");
	out("|---|---:|---:|---:|---:|---:|---:|---:|");
	const measured: Measured = new Map();
	const plans = new Map<string, ContextFigures>();
	for (const job of contextJobs(quick)) {
		const ours = await measureContext(job, EXTENSION_ENTRY, host);
		// The original design has no waits or subtasks: a plan is ours alone.
		const original = job.links ? undefined : await measureContext(job, ORIGINAL_ENTRY, host);
		if (original) measured.set(job.name, { ours, original });
		else plans.set(job.name, ours);
		const vs = (a: number, b: number | undefined) => (b === undefined ? ["—", "—"] : [count(b), ratio(a, b)]);
		const last = [count(ours.last), ...vs(ours.last, original?.last)];
		const summed = [count(ours.summed), ...vs(ours.summed, original?.summed)];
		out(`| ${job.name} | ${ours.calls} | ${last.join(" | ")} | ${summed.join(" | ")} |`);
	}
	out();
	const [first] = measured.values();
	if (!first) throw new Error("no context job was measured");
	out(
		`Ratio: ours / original. Every call starts with a fixed part, pi's system prompt and every tool's definition: ${count(first.ours.fixed)} characters with ours, ${count(first.original.fixed)} with the original.`,
	);
	out("A character: see `requestChars` in demo/fake-model-extension.ts and docs/PERFORMANCE.md.");
	if (quick) out("`--quick` leaves out the lazy 100 × 1,000 job.");
	out();
	const piFixed = await piOwnFixed(host);
	out(
		`Beyond pi's own: the same figures less what pi puts in every call with no extension (${count(piFixed)} characters: its system prompt and built-in tools), so what an extension adds, its prompt lines included.`,
	);
	out();
	out("| Job | last call: ours | original | summed: ours | original |");
	out("|---|---:|---:|---:|---:|");
	for (const [name, figures] of measured) {
		const ours = beyondPi(figures.ours, piFixed);
		const original = beyondPi(figures.original, piFixed);
		out(
			`| ${name} | ${count(ours.last)} | ${count(original.last)} | ${count(ours.summed)} | ${count(original.summed)} |`,
		);
	}
	for (const [name, figures] of plans) {
		const ours = beyondPi(figures, piFixed);
		out(`| ${name} | ${count(ours.last)} | — | ${count(ours.summed)} | — |`);
	}
	out();
	for (const line of goalLines(measured, piFixed)) out(line);
	out();
	return measured.get(LONG_ONE_RUN)?.ours;
}
