/**
 * `npm run bench` (`node bench/run.ts`): the extension's cost per agent run, reconstruction time against branch
 * length, the characters the model receives while a list is worked, in the real pi, against the original design
 * (bench/context.ts), and pi's start-up time with and without the extension on every tested pi version
 * (bench/startup.ts), and a per-item checkpoint beside `git status` (bench/checkpoints.ts). Real modules, warm-up
 * runs, medians. Prints a table and writes it to bench/results.md.
 *
 * Runs on Node >= 22.18 with type stripping: src/ uses `.ts` import specifiers and `import type` for type-only
 * imports (tsconfig `verbatimModuleSyntax` + `allowImportingTsExtensions`), so no loader or build step is needed.
 */

import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ensurePiHosts } from "../scripts/pi-hosts.ts";
import tilDone from "../src/index.ts";
import { reconstructState, resetState } from "../src/state.ts";
import type { TodoItem } from "../src/types.ts";
import { createFakePi } from "../test/helpers/fake-pi.ts";
import { createUiRecorder } from "../test/helpers/ui-recorder.ts";
import { checkpointsSection } from "./checkpoints.ts";
import { checksSection } from "./checks.ts";
import { contextSection } from "./context.ts";
import { judgeSection } from "./judge.ts";
import { planFileSection } from "./plan-file.ts";
import { BEFORE_ARMS, buildDist, CLONE_ARM, type EntryStartup, measureStartup, median } from "./startup.ts";
import { teamSection } from "./team.ts";
import { verifiedSection } from "./verified.ts";
import { workerStartSection } from "./worker-start.ts";
import { workersSection } from "./workers.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
/** Rounds of the start-up measurement: each arm runs once per round. */
const STARTUP_ROUNDS = 60;
const quick = process.argv.includes("--quick");
/** `--startup [rounds]`: the start-up section alone, printed, results.md left as it is. */
const startupOnly = process.argv.indexOf("--startup");
/** `--team`: the shared-plan section alone, printed, results.md left as it is. */
const teamOnly = process.argv.includes("--team");
/** `--against <dir>`: another checkout of the repository (the code before a change), measured in the same rounds. */
const against = process.argv.includes("--against") ? process.argv[process.argv.indexOf("--against") + 1] : undefined;

/** Runs `fn` `warmup` times, then `samples` times, and returns the median duration in milliseconds. */
function measure(fn: () => void, samples: number, warmup: number): number {
	for (let i = 0; i < warmup; i++) fn();
	const times: number[] = [];
	for (let i = 0; i < samples; i++) {
		const start = performance.now();
		fn();
		times.push(performance.now() - start);
	}
	return median(times);
}

const fmt = (value: number, digits = 1) => value.toLocaleString("en-US", { maximumFractionDigits: digits });

// ── 1. Cost per agent run ───────────────────────────────────────────────────

interface Harness {
	fire(event: string, payload: Record<string, unknown>): Promise<unknown[]>;
	call(tool: string, params: unknown): Promise<{ content: { text: string }[] }>;
}

function extensionHarness(branch: unknown[] = []): Harness {
	// A countdown long enough never to fire: the next run's `input` cancels it, as a user would.
	process.env.TIL_DONE_COUNTDOWN = "600";
	resetState();
	const fake = createFakePi();
	tilDone(fake.api);
	const ui = createUiRecorder();
	const ctx = {
		hasUI: true,
		ui: ui.ui,
		mode: "tui",
		cwd: HERE,
		sessionManager: { getBranch: () => branch, getEntries: () => branch },
		isIdle: () => true,
		hasPendingMessages: () => false,
		abort: () => undefined,
		signal: undefined,
	} as unknown as ExtensionContext;
	return {
		fire: (event, payload) => fake.fire(event, payload, ctx),
		call: async (name, params) => {
			const tool = fake.tools.get(name) as unknown as {
				execute: (...args: unknown[]) => Promise<{ content: { text: string }[] }>;
			};
			ui.reset();
			return tool.execute("bench", params, undefined, undefined, ctx);
		},
	};
}

const stopMessages = [
	{ role: "assistant", content: [{ type: "text", text: "Finished that item." }], stopReason: "stop" },
];

/** One agent run as pi drives it: prompt, injection, start + complete of one item, end and settle. */
async function agentRun(h: Harness, index: number): Promise<void> {
	await h.fire("input", { text: "go on", source: "interactive" });
	await h.fire("before_agent_start", { prompt: "go on", systemPrompt: "" });
	await h.call("edit_todos", { action: "start", indices: [index] });
	await h.call("edit_todos", { action: "complete", indices: [index] });
	await h.fire("agent_end", { messages: stopMessages });
	await h.fire("agent_settled", {});
}

async function perRunCost(items: number): Promise<{ micros: number; runs: number }> {
	const h = extensionHarness();
	await h.fire("session_start", { reason: "startup" });
	const texts = Array.from({ length: items }, (_, i) => ({ text: `Item ${i}: ${"x".repeat(60)}` }));
	// One batch = one pass over the whole list (rewritten first, outside the timed part).
	const batch = async () => {
		for (let i = 0; i < items; i++) await agentRun(h, i);
	};
	const samples = quick ? 5 : 21;
	const times: number[] = [];
	for (let s = 0; s < samples + 3; s++) {
		await h.call("write_todos", { mode: "replace", todos: texts });
		const start = performance.now();
		await batch();
		if (s >= 3) times.push(((performance.now() - start) * 1000) / items);
	}
	await h.fire("input", { text: "stop", source: "interactive" });
	return { micros: median(times), runs: samples * items };
}

// ── 2. Reconstruction against branch length ─────────────────────────────────

function snapshotEntry(list: TodoItem[]): unknown {
	return {
		type: "message",
		id: "snap",
		message: {
			role: "toolResult",
			toolName: "edit_todos",
			toolCallId: "c",
			content: [{ type: "text", text: "ok" }],
			details: { action: "edit", todos: list },
			isError: false,
		},
	};
}

function buildBranch(length: number, snapshotAt: number, list: TodoItem[]): unknown[] {
	const entries: unknown[] = [];
	for (let i = 0; i < length; i++) {
		if (i === snapshotAt) entries.push(snapshotEntry(list));
		else if (i % 3 === 0)
			entries.push({ type: "message", id: `u${i}`, message: { role: "user", content: `prompt ${i}` } });
		else if (i % 3 === 1) {
			entries.push({
				type: "message",
				id: `a${i}`,
				message: { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], stopReason: "toolUse" },
			});
		} else {
			entries.push({
				type: "message",
				id: `t${i}`,
				message: { role: "toolResult", toolName: "bash", content: [{ type: "text", text: "ok" }], details: {} },
			});
		}
	}
	return entries;
}

function reconstructionTime(length: number, where: "leaf" | "root"): number {
	const list = Array.from({ length: 100 }, (_, i): TodoItem => ({ text: `item ${i}`, status: "not_started" }));
	const branch = buildBranch(length, where === "leaf" ? length - 5 : 5, list);
	const ctx = { sessionManager: { getBranch: () => branch }, hasUI: false } as unknown as ExtensionContext;
	const runs = length >= 100_000 ? 21 : 101;
	return measure(() => reconstructState(ctx), quick ? 5 : runs, quick ? 2 : 30);
}

// ── Main ────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
	const lines: string[] = [];
	const out = (line = "") => {
		lines.push(line);
		console.log(line);
	};
	const started = new Date();
	out("# pi-til-done benchmark");
	out();
	out(
		`Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? "?"}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM; ${started.toISOString()}${quick ? " (--quick)" : ""}`,
	);
	out();
	if (teamOnly) {
		await teamSection(out);
		return;
	}
	if (startupOnly >= 0) {
		startupSection(out, Number(process.argv[startupOnly + 1] ?? STARTUP_ROUNDS) || STARTUP_ROUNDS);
		return;
	}

	await runCostSection(out);
	reconstructionSection(out);
	planFileSection(out, quick);
	const oneSession = await contextSection(out, quick);
	await verifiedSection(out);
	await judgeSection(out);
	await workersSection(out, undefined, oneSession);
	await workerStartSection(out);
	await teamSection(out);
	await checksSection(out, quick);
	await checkpointsSection(out, quick);
	startupSection(out, quick ? 4 : STARTUP_ROUNDS);
	out("Command: `npm run bench` (= `node bench/run.ts`).");

	if (!quick) writeFileSync(join(HERE, "results.md"), `${lines.join("\n")}\n`);
}

type Out = (line?: string) => void;

async function runCostSection(out: Out): Promise<void> {
	out("## Extension cost per agent run (handlers + 2 tool calls, median)");
	out();
	out("| List size | µs per run | runs measured |");
	out("|---:|---:|---:|");
	for (const size of [10, 100]) {
		const { micros, runs } = await perRunCost(size);
		out(`| ${size} items | ${fmt(micros)} | ${runs} |`);
	}
	out();
}

function reconstructionSection(out: Out): void {
	out("## Reconstruction time against branch length (snapshot of 100 items, median)");
	out();
	out("| Branch entries | snapshot near the leaf | snapshot near the root |");
	out("|---:|---:|---:|");
	// Warm the JIT on every shape first, so the first row does not pay for it.
	for (const length of [1_000, 10_000])
		for (const where of ["leaf", "root"] as const) reconstructionTime(length, where);
	for (const length of [1_000, 10_000, 100_000]) {
		const leaf = reconstructionTime(length, "leaf");
		const root = reconstructionTime(length, "root");
		out(`| ${fmt(length, 0)} | ${fmt(leaf * 1000)} µs | ${fmt(root * 1000)} µs |`);
	}
	out();
}

function startupSection(out: Out, rounds: number): void {
	out("## pi start-up with and without the extension (`pi -p`, fake model, warm caches)");
	out();
	out(
		"| pi | entry | median without | median with | ratio (paired) | 90% interval | CPU time: ratio (paired) | 90% interval | load (1 min) |",
	);
	out("|---|---|---:|---:|---:|---:|---:|---:|---:|");
	buildDist();
	if (against !== undefined) buildDist(against);
	const ratio = (figures: EntryStartup | undefined) =>
		figures === undefined
			? ["—", "—"]
			: [fmt(figures.pairedRatio, 3), `${fmt(figures.interval[0], 3)} to ${fmt(figures.interval[1], 3)}`];
	for (const host of ensurePiHosts().filter((pi) => pi.full)) {
		const row = measureStartup(host, rounds, against);
		const load = row.load.map((value) => fmt(value, 2)).join(" to ");
		for (const [entry, figures] of Object.entries(row.entries)) {
			const cells = [row.version, `\`${entry}\``, `${fmt(row.without, 0)} ms`, `${fmt(figures.median, 0)} ms`];
			cells.push(...ratio(figures), ...ratio(row.cpuEntries?.[entry]), load);
			out(`| ${cells.join(" | ")} |`);
		}
	}
	out();
	out(
		`${rounds} rounds per version, arms in rotating order. The package manifest names \`index.ts\`, which runs the built \`dist/index.cjs\` from its code cache; \`${CLONE_ARM}\` is that entry in a copy of the repository's files with no \`dist/\` and no \`node_modules\`, as \`pi install <clone>\` loads it (the TypeScript source through pi's loader). CPU time: user + system of pi's process (bash's \`times\`), which the machine's load disturbs less than the wall time.${against === undefined ? "" : ` \`${BEFORE_ARMS.built}\` and \`${BEFORE_ARMS.clone}\`: the same entries of ${against}, in the same rounds.`}`,
	);
	out();
}

await main();
