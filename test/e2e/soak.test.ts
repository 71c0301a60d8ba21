/**
 * Soak: 500 user runs in one real pi session (SDK, fake model, a 1 ms countdown) with random tool calls, continuation
 * behaviours, interrupts (Esc mid-run) and reloads. After every step the session is compared with an independent
 * model of the rules: the list, the status bar, the number of continuations and of breaker messages.
 */

import { fauxAssistantMessage, fauxToolCall, type JsonObject, type Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONTINUATION_HEAD, KEY, MESSAGE_TYPE } from "../helpers/expected.ts";
import type { PiHarness } from "../helpers/sdk.ts";
import { disposeAll, idle, startTilDone } from "../helpers/til-done-pi.ts";
import {
	expectedStatus,
	type Item,
	listOnBranch,
	modelEdit,
	modelWrite,
	type SchemaValidCall,
	schemaValidCall,
} from "../helpers/todo-oracle.ts";

/** Agent runs (user prompts and continuations) the soak goes through. */
const RUNS = 500;
const LIMITS = { maxContinuations: 20, maxNoProgress: 3, maxFailures: 3 };

type Response = Parameters<PiHarness["respond"]>[0];

/** How the model behaves in a continuation run. */
type Behaviour = "follow" | "start-only" | "idle" | "fail" | "ask";
/** One soak step. */
type Step =
	| { kind: "prompt"; turns: SchemaValidCall[][]; ask: boolean }
	| { kind: "interrupt"; turns: SchemaValidCall[][] }
	| { kind: "reload" };

const turns = fc.array(fc.array(schemaValidCall, { minLength: 1, maxLength: 3 }), { maxLength: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 14, arbitrary: fc.record({ kind: fc.constant("prompt" as const), turns, ask: fc.boolean() }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant("interrupt" as const), turns }) },
	{ weight: 2, arbitrary: fc.constant({ kind: "reload" as const }) },
);

/** Deterministic behaviour stream shared by the fake model and the rule model. */
function behaviours(seed: number): () => Behaviour {
	let state = seed >>> 0;
	const table: Behaviour[] = [
		"follow",
		"follow",
		"follow",
		"start-only",
		"idle",
		"idle",
		"idle",
		"fail",
		"fail",
		"ask",
	];
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return table[state % table.length]!;
	};
}

// ── The rule model ──────────────────────────────────────────────────────────

interface Chain {
	continuations: number;
	noProgress: number;
	failures: number;
	runIsContinuation: boolean;
	progressed: boolean;
	/** Most items with each text finished at once so far in the chain. */
	finished: Map<string, number>;
}

const done = (item: Item) => item.status === "completed" || item.status === "abandoned";
const open = (list: readonly Item[]) => list.some((item) => !done(item));

class RuleModel {
	list: Item[] = [];
	continuations = 0;
	breakers = 0;
	chain: Chain = this.fresh();

	fresh(): Chain {
		const finished = this.countFinished();
		return { continuations: 0, noProgress: 0, failures: 0, runIsContinuation: false, progressed: false, finished };
	}

	/** A tool call: the list changes as the tool rules say; more finished items of some text than ever is progress. */
	call(call: SchemaValidCall): void {
		if (call.name === "list_todos") return;
		const outcome = call.name === "write_todos" ? modelWrite(this.list, call.args) : modelEdit(this.list, call.args);
		if (!outcome.ok) return;
		this.list = outcome.list;
		for (const [text, count] of this.countFinished()) {
			if (count > (this.chain.finished.get(text) ?? 0)) {
				this.chain.finished.set(text, count);
				this.chain.progressed = true;
			}
		}
	}

	countFinished(): Map<string, number> {
		const counts = new Map<string, number>();
		for (const item of this.list.filter(done)) counts.set(item.text, (counts.get(item.text) ?? 0) + 1);
		return counts;
	}

	/** The run ended; returns whether a continuation is sent (the breakers may post a message instead). */
	runEnded(stop: "stop" | "error" | "aborted", asks: boolean): boolean {
		const c = this.chain;
		const failed = stop === "error";
		const stalled = c.runIsContinuation && !c.progressed && !failed;
		c.failures = failed ? c.failures + 1 : 0;
		c.noProgress = c.progressed ? 0 : stalled ? c.noProgress + 1 : c.noProgress;
		if (!open(this.list) || stop === "aborted" || (stop === "stop" && asks)) return false;
		if (
			c.failures >= LIMITS.maxFailures ||
			c.noProgress >= LIMITS.maxNoProgress ||
			c.continuations >= LIMITS.maxContinuations
		) {
			this.breakers++;
			return false;
		}
		c.continuations++;
		c.runIsContinuation = true;
		c.progressed = false;
		this.continuations++;
		return true;
	}
}

// ── The fake model ──────────────────────────────────────────────────────────

let n = 0;
const toolMessage = (calls: readonly SchemaValidCall[]) =>
	fauxAssistantMessage(
		calls.map((call) => fauxToolCall(call.name, call.args as JsonObject, { id: `soak_${++n}` })),
		{ stopReason: "toolUse" },
	);
const text = (value: string) => fauxAssistantMessage(value);

const NEXT_ACTION = /Next action: edit_todos with action '(start|complete)' and indices \[(\d+)\]/;

function lastUserText(messages: readonly Message[]): string {
	const last = messages.at(-1);
	if (last?.role !== "user") return "";
	return typeof last.content === "string"
		? last.content
		: last.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** What the model does in a continuation run, as tool calls per turn plus how the run ends. */
interface ContinuationRun {
	turns: SchemaValidCall[][];
	end: "stop" | "error";
	ask: boolean;
}

/** The continuation run a behaviour plays for a prompt: it follows (or not) the prompt's Next action line. */
function continuationRun(behaviour: Behaviour, prompt: string): ContinuationRun {
	const match = NEXT_ACTION.exec(prompt);
	const index = Number(match?.[2] ?? 0);
	const action = match?.[1] ?? "start";
	if (behaviour === "follow") {
		const calls: SchemaValidCall[] = [];
		if (action === "start") calls.push({ name: "edit_todos", args: { action: "start", indices: [index] } });
		calls.push({ name: "edit_todos", args: { action: "complete", indices: [index] } });
		return { turns: [calls], end: "stop", ask: false };
	}
	if (behaviour === "start-only") {
		return { turns: [[{ name: "edit_todos", args: { action: "start", indices: [index] } }]], end: "stop", ask: false };
	}
	if (behaviour === "fail") return { turns: [], end: "error", ask: false };
	return { turns: [], end: "stop", ask: behaviour === "ask" };
}

/**
 * The fake model pi calls: the responses queued for the user's run in progress, then, for a continuation, a run
 * chosen by the behaviour stream and kept in `pendingRuns` for the rule model to replay.
 */
class SoakModel {
	/** Responses queued for the run in progress; empty at the start of a continuation run. */
	readonly queue: (Response | "hang")[] = [];
	/** Continuation runs the model played and the rule model has not replayed yet. */
	readonly pendingRuns: ContinuationRun[] = [];
	/** Ends the hanging call of an interrupted run. */
	hang: (() => void) | undefined;
	/** Calls that were neither queued nor a continuation. */
	unexpected = 0;
	#harness: PiHarness | undefined;

	readonly nextBehaviour: () => Behaviour;

	constructor(nextBehaviour: () => Behaviour) {
		this.nextBehaviour = nextBehaviour;
	}

	/** The one response step: it queues itself again for the next call. */
	readonly respond = (async (context: { messages: Message[] }, options?: { signal?: AbortSignal }) => {
		// Straight onto the faux queue: the harness's call recorder copies the whole context every call.
		this.#harness?.faux.appendResponses([this.respond]);
		const next = this.queue.shift();
		if (next === "hang") return this.#hangUntilAborted(options?.signal);
		if (next) return next;
		const prompt = lastUserText(context.messages);
		if (!prompt.startsWith(CONTINUATION_HEAD)) {
			this.unexpected++;
			return text("Unexpected call?");
		}
		return this.#startContinuation(prompt);
	}) as unknown as Response;

	attach(harness: PiHarness): void {
		this.#harness = harness;
	}

	/** Queues a user's run: its tool-call turns, then a hang (an interrupt) or its answer. */
	queueRun(turns: readonly SchemaValidCall[][], end: "hang" | Response): void {
		this.queue.length = 0;
		for (const calls of turns) this.queue.push(toolMessage(calls));
		this.queue.push(end);
		this.hang = undefined;
	}

	async #hangUntilAborted(signal: AbortSignal | undefined) {
		await new Promise<void>((resolve) => {
			this.hang = resolve;
			signal?.addEventListener("abort", () => resolve());
		});
		return text("interrupted");
	}

	/** A fresh continuation run: its first turn now, the rest queued. */
	#startContinuation(prompt: string) {
		const run = continuationRun(this.nextBehaviour(), prompt);
		this.pendingRuns.push(run);
		for (const calls of run.turns.slice(1)) this.queue.push(toolMessage(calls));
		this.queue.push(
			run.end === "error"
				? fauxAssistantMessage("", { stopReason: "error", errorMessage: "boom" })
				: text(run.ask ? "Shall I go on?" : "Done with that."),
		);
		const [firstTurn] = run.turns;
		return firstTurn ? toolMessage(firstTurn) : (this.queue.shift() as never);
	}
}

/** Replays, in the rule model, the continuation runs the fake model played since the last call, in order. */
function replayContinuations(model: RuleModel, fake: SoakModel, stepNo: number): void {
	while (fake.pendingRuns.length > 0) {
		const run = fake.pendingRuns.shift()!;
		for (const calls of run.turns) for (const call of calls) model.call(call);
		const again = model.runEnded(run.end, run.ask);
		if (!again) {
			const chain = { ...model.chain, finished: [...model.chain.finished.entries()] };
			expect(fake.pendingRuns, JSON.stringify({ list: model.list, chain, run, stepNo })).toEqual([]);
		}
	}
}

/** One user prompt (interrupted by Esc or not), played in pi and in the rule model, until pi is idle. */
async function playPrompt(
	harness: PiHarness,
	fake: SoakModel,
	model: RuleModel,
	s: Exclude<Step, { kind: "reload" }>,
	at: { promptNo: number; stepNo: number; label: string },
): Promise<void> {
	const asks = s.kind === "prompt" && s.ask;
	fake.queueRun(s.turns, s.kind === "interrupt" ? "hang" : text(asks ? "Anything else?" : "Stopping here."));
	model.chain = model.fresh();
	const run = harness.prompt(`user prompt ${at.promptNo}`);
	if (s.kind === "interrupt") {
		await harness.waitFor(() => fake.hang !== undefined, 5000, `${at.label}: hanging model call`);
		await harness.session.abort();
	}
	await run;
	for (const calls of s.turns) for (const call of calls) model.call(call);
	const again = model.runEnded(s.kind === "interrupt" ? "aborted" : "stop", asks);
	await idle(harness);
	if (again) replayContinuations(model, fake, at.stepNo);
	expect(fake.pendingRuns, at.label).toEqual([]);
}

/** Custom messages of `type` on the branch (of `level` when given). */
function countMessages(harness: PiHarness, type: string, level?: string): number {
	return harness
		.branch()
		.filter(
			(e) =>
				e.type === "custom_message" &&
				e.customType === type &&
				(level === undefined || (e.details as { level?: string } | undefined)?.level === level),
		).length;
}

/** After every step the session holds what the rule model says. */
function expectRulesHold(harness: PiHarness, model: RuleModel, fake: SoakModel, label: string): void {
	expect(listOnBranch(harness.branch()), label).toEqual(model.list);
	expect(harness.ui.status.get(KEY.status), label).toBe(expectedStatus(model.list));
	expect(countMessages(harness, MESSAGE_TYPE.continuation), label).toBe(model.continuations);
	// Breaker messages are warnings; the "all done" notice shares the type with level "success".
	expect(countMessages(harness, MESSAGE_TYPE.complete, "warning"), label).toBe(model.breakers);
	expect(harness.ui.widgets.has(KEY.countdown), label).toBe(false);
	expect(harness.extensionErrors, label).toEqual([]);
	expect(fake.unexpected, label).toBe(0);
}

afterEach(disposeAll);

// The soak checks the rules, not the layout: a terminal wide enough that the status line is never fitted
// (test/unit/status-line.test.ts and the property test cover the fitting).
const columns = Object.getOwnPropertyDescriptor(process.stdout, "columns");
beforeAll(() => {
	Object.defineProperty(process.stdout, "columns", { value: 1000, configurable: true, writable: true });
});
afterAll(() => {
	if (columns) Object.defineProperty(process.stdout, "columns", columns);
	else delete (process.stdout as { columns?: number }).columns;
});

describe("soak", () => {
	it(`${RUNS} runs with random tool calls, interrupts and reloads follow the rules after every step`, async () => {
		const steps = fc.sample(step, { numRuns: RUNS * 2, seed: 20_250_501 });
		const model = new RuleModel();
		const fake = new SoakModel(behaviours(7));
		// A countdown above 0 shows its widget inside pi's settle, so idle() can tell a chain has ended.
		const harness = await startTilDone(
			{ responses: [fake.respond], settings: { retry: { enabled: false } } },
			{ TIL_DONE_COUNTDOWN: "0.001", TIL_DONE_BACKOFF_MS: "0" },
		);
		fake.attach(harness);
		let promptNo = 0;
		for (const [stepNo, s] of steps.entries()) {
			if (harness.agentRuns() >= RUNS) break;
			const label = `step ${stepNo} (${s.kind})`;
			if (s.kind === "reload") {
				await harness.reload();
				model.chain = model.fresh();
			} else await playPrompt(harness, fake, model, s, { promptNo: ++promptNo, stepNo, label });
			expectRulesHold(harness, model, fake, label);
		}
		expect(harness.agentRuns()).toBeGreaterThanOrEqual(RUNS);
		expect(promptNo).toBeGreaterThan(200);
		expect(model.continuations).toBeGreaterThan(100);
		expect(model.breakers).toBeGreaterThan(0);
	}, 120_000);
});
