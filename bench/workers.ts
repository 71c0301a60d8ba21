/**
 * Workers against one agent, in the real pi CLI with the scripted fake model taking 2 s per call: eight independent
 * items, each writing one file, worked by the session's model alone (one run: write the list, then start and complete
 * each item) and by 4 workers (the session writes the list; each worker writes its file and answers). Reported: the
 * wall time of each `pi -p`, their ratio, and each worker's start, from the decision to its first model call.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
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

/** How long the fake model takes to answer each call. */
const CALL_MS = 2_000;
const ITEMS = Array.from({ length: 8 }, (_, i) => `Write file-${i}.txt`);
const slow = (step: FakeStep): FakeStep => ({ ...step, delayMs: CALL_MS });

/** Runs `pi -p` on a fresh git repository; the wall time in ms and the session's entries. */
async function timed(host: PiHost, steps: FakeStep[], workers: number, scripts?: Record<string, FakeStep[]>) {
	const iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: String(workers), TIL_DONE_MAX_CONTINUE: "50" });
	try {
		execFileSync("git", ["init", "-q"], { cwd: iso.cwd });
		iso.writeScript(steps);
		if (scripts) {
			const file = join(iso.root, "worker-scripts.json");
			writeFileSync(file, JSON.stringify(scripts));
			iso.env.TIL_DONE_FAKE_WORKER_SCRIPTS = file;
		}
		const sessionDir = join(iso.root, "sessions");
		const start = performance.now();
		const result = await runPrint(["-p", "Write the eight files."], iso.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: sessionDir },
			timeoutMs: 300_000,
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
		.filter((line) => line.messages <= 2 && line.lastUser.includes("Your item (the plan's words, data)"))
		.map((line) => line.time - decidedAt);
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The section of bench/results.md. */
export async function workersSection(out: (line?: string) => void, host: PiHost = DEFAULT_HOST): Promise<void> {
	const alone = await timed(
		host,
		[
			slow(writeStep(ITEMS)),
			...ITEMS.flatMap((_, i) => [slow(startStep(i)), slow(completeStep(i))]),
			slow(sayStep("Done.")),
		],
		0,
	);
	const scripts = Object.fromEntries(
		ITEMS.map((_, i) => [
			String(i),
			[slow(toolStep("write", { path: `file-${i}.txt`, content: "done\n" })), slow(sayStep("Wrote it."))],
		]),
	);
	const crew = await timed(host, [slow(writeStep(ITEMS)), slow(sayStep("Planned."))], 4, scripts);
	const decisions = crew.entries
		.filter((entry) => entry.customType === "til-done-decision")
		.map((entry) => entry.data as { code: string; at: number });
	const starts = decisions.filter((decision) => decision.code === "work").map((decision) => decision.at);
	const latency = workerStarts(crew.log, starts[0] ?? 0)
		.filter((ms) => ms >= 0)
		.sort((a, b) => a - b);
	out(`## Workers against one agent (real pi ${host.version}, the fake model taking 2 s per call)`);
	out();
	out("| Job: 8 independent items | wall time | model calls |");
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
