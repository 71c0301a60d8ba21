/**
 * Workers against one agent, in the real pi CLI with the scripted fake model.
 *
 * Wall time: eight independent items, each writing one file, the fake model taking 2 s per call. One agent works them
 * in one run (write the list; for each item, start it and write its file in one call, then complete it; answer), and
 * 4 workers work them (the session writes the list and answers; each worker writes its file and answers). Reported:
 * each `pi -p`'s wall time, their ratio, and each worker's start, from the decision to its first model call.
 *
 * Context: the 100 × 1,000-character job of the context section, worked by 4 workers: the characters of every model
 * call's request, the session's and every worker's, summed, against the same job worked in one session.
 */

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import {
	DEFAULT_HOST,
	EXTENSION_ENTRY,
	type FakeStep,
	isolatedEnv,
	type PiHost,
	runPrint,
} from "../test/helpers/cli.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../test/helpers/scripts.ts";
import { sessionEntries } from "../test/helpers/session-file.ts";
import { type ContextFigures, itemTexts } from "./context.ts";

/** How long the fake model takes to answer each call in the wall-time job. */
const CALL_MS = 2_000;
const ITEMS = Array.from({ length: 8 }, (_, i) => `Write file-${i}.txt`);
const slow = (step: FakeStep): FakeStep => ({ ...step, delayMs: CALL_MS });
/** Item `i`'s work: its file written. */
const writeFile = (i: number): FakeStep => toolStep("write", { path: `file-${i}.txt`, content: "done\n" });

/** The wall-time job's one agent: each item started and its file written in one call, then completed. */
function oneAgentScript(): FakeStep[] {
	const work = (i: number): FakeStep[] => {
		const start = startStep(i);
		const both = { ...start, toolCalls: [...(start.toolCalls ?? []), ...(writeFile(i).toolCalls ?? [])] };
		return [slow(both), slow(completeStep(i))];
	};
	return [slow(writeStep(ITEMS)), ...ITEMS.flatMap((_, i) => work(i)), slow(sayStep("Done."))];
}

/** Each worker of `count` items writes its file and answers. */
function workerScripts(count: number, step: (s: FakeStep) => FakeStep): Record<string, FakeStep[]> {
	return Object.fromEntries(
		Array.from({ length: count }, (_, i) => [String(i), [step(writeFile(i)), step(sayStep("Wrote it."))]]),
	);
}

/** Runs `pi -p` on a fresh git repository; the wall time in ms, the fake model's log and the session's entries. */
async function timed(host: PiHost, steps: FakeStep[], workers: number, scripts?: Record<string, FakeStep[]>) {
	const iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: String(workers), TIL_DONE_MAX_CONTINUE: "50" });
	try {
		execFileSync("git", ["init", "-q"], { cwd: iso.cwd });
		iso.writeScript(steps);
		if (scripts) iso.writeWorkerScripts(scripts);
		const sessionDir = join(iso.root, "sessions");
		const start = performance.now();
		const result = await runPrint(["-p", "Write the files."], iso.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: sessionDir },
			timeoutMs: 600_000,
		});
		const ms = performance.now() - start;
		if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
		return { ms, log: iso.readLog(), entries: sessionEntries(sessionDir) };
	} finally {
		iso.cleanup();
	}
}

/** Each worker's start: from the decision that started it to its first model call, in ms. */
function workerStarts(
	log: { lastUser: string; userHeads: string[]; time: number; messages: number }[],
	decidedAt: number,
) {
	return log
		.filter((line) => line.messages <= 2 && line.lastUser.includes("Your item (the list's words, data)"))
		.map((line) => line.time - decidedAt);
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const count = (value: number) => value.toLocaleString("en-US");

async function wallTime(out: (line?: string) => void, host: PiHost): Promise<void> {
	const alone = await timed(host, oneAgentScript(), 0);
	const crew = await timed(host, [slow(writeStep(ITEMS)), slow(sayStep("Planned."))], 4, workerScripts(8, slow));
	const decisions = crew.entries
		.filter((entry) => entry.customType === "til-done-decision")
		.map((entry) => entry.data as { code: string; at: number });
	const starts = decisions.filter((decision) => decision.code === "work").map((decision) => decision.at);
	const latency = workerStarts(crew.log, starts[0] ?? 0)
		.filter((ms) => ms >= 0)
		.sort((a, b) => a - b);
	out(`## Workers against one agent (real pi ${host.version}, the fake model taking 2 s per call)`);
	out();
	out("| Job: 8 independent items, each writing a file | wall time | model calls |");
	out("|---|---:|---:|");
	out(`| one agent | ${seconds(alone.ms)} s | ${alone.log.length} |`);
	out(`| 4 workers | ${seconds(crew.ms)} s | ${crew.log.length} |`);
	out();
	out(`4 workers take ${(crew.ms / alone.ms).toFixed(2)} of one agent's time (the goal: at most 0.4).`);
	out(
		`Starting a worker, from the decision to its first model call reaching the model, for the first 4: ${latency
			.slice(0, 4)
			.map((ms) => `${Math.round(ms)} ms`)
			.join(", ")}.`,
	);
	out();
}

/** The 100 × 1,000 job with 4 workers: every call's characters, the session's and the workers', against one session. */
async function contextWithWorkers(out: (line?: string) => void, host: PiHost, oneSession?: ContextFigures) {
	const texts = itemTexts(100, 1000);
	const crew = await timed(
		host,
		[writeStep(texts), sayStep("Planned.")],
		4,
		workerScripts(100, (s) => s),
	);
	const workerCalls = crew.log.filter(
		(line) =>
			line.lastUser.includes("Your item (the list's words, data)") ||
			line.userHeads.some((head) => head.includes("Your item (the list's words, data)")),
	);
	let summed = 0;
	for (const line of crew.log) summed += line.requestChars;
	out(`### The 100 × 1,000 job with 4 workers (real pi ${host.version}, scripted fake model)`);
	out();
	out("| Job: 100 items of 1,000 characters | model calls | of them, workers' | characters sent, summed |");
	out("|---|---:|---:|---:|");
	if (oneSession) out(`| one session, one run | ${oneSession.calls} | — | ${count(oneSession.summed)} |`);
	out(`| 4 workers | ${crew.log.length} | ${workerCalls.length} | ${count(summed)} |`);
	out();
	if (oneSession)
		out(
			`With workers the models are sent ${(summed / oneSession.summed).toFixed(3)} of one session's characters (the goal: at most 0.2).`,
		);
	out();
}

/** The section of bench/results.md; `oneSession`: the context section's 100 × 1,000 one-run figures, to compare with. */
export async function workersSection(
	out: (line?: string) => void,
	host: PiHost = DEFAULT_HOST,
	oneSession?: ContextFigures,
): Promise<void> {
	await wallTime(out, host);
	await contextWithWorkers(out, host, oneSession);
}
