/**
 * The auto-continue rules as an RPC client sees them (`pi --mode rpc`): statuses, the countdown widget and notifies
 * arrive as `extension_ui_request` records; runs, continuations and errors as session events.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, EXTENSION_ENTRY, type IsolatedEnv, isolatedEnv, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import { CONTINUATION_HEAD } from "../helpers/expected.ts";
import { type PiRpc, type RpcRecord, startRpc } from "../helpers/rpc.ts";
import {
	completeStep,
	continuationCalls,
	continuationPrompts,
	injectionsPerCall,
	lazyScript,
	sayStep,
	stallScript,
	startStep,
	writeStep,
} from "../helpers/scripts.ts";

const FIVE = ["Read the spec", "Write the parser", "Write the printer", "Add tests", "Update the docs"];
const WIDGET = "til-done-countdown";
const countdownLine = (seconds: number) => `⏳ Auto-continuing in ${seconds}s... (type anything to interrupt)`;
const NO_PROGRESS =
	"Auto-continue stopped: no todo was completed or abandoned in the last 3 continuations. Remaining todos were not completed. Take over manually.";
const HARD_CAP_2 =
	"Auto-continue limit reached (2 iterations). Remaining todos were not completed. Take over manually.";

let iso: IsolatedEnv | undefined;
let rpc: PiRpc | undefined;

afterEach(async () => {
	await rpc?.close();
	iso?.cleanup();
	rpc = undefined;
	iso = undefined;
});
afterAll(() => cleanupAll());

async function begin(
	host: PiHost,
	steps: Parameters<IsolatedEnv["writeScript"]>[0],
	env: Record<string, string>,
): Promise<PiRpc> {
	iso = isolatedEnv(env);
	iso.writeScript(steps);
	rpc = await startRpc({ host, env: iso.env, extensions: [EXTENSION_ENTRY] });
	return rpc;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every value the `til-done` status took, consecutive repeats and clears dropped. */
function statusHistory(pi: PiRpc, key: string): string[] {
	const values: string[] = [];
	for (const request of pi.uiRequests) {
		if (request.method !== "setStatus" || request.statusKey !== key || request.statusText == null) continue;
		if (values.at(-1) !== request.statusText) values.push(request.statusText);
	}
	return values;
}

/** The countdown widget's history: its line, or null for a clear. */
function widgetHistory(pi: PiRpc): (string | null)[] {
	return pi.uiRequests.flatMap((request) =>
		request.method === "setWidget" && request.widgetKey === WIDGET ? [request.widgetLines?.join("\n") ?? null] : [],
	);
}

/** Splits the widget history at clears: one array of shown lines per countdown. */
function countdownSequences(history: readonly (string | null)[]): string[][] {
	const sequences: string[][] = [];
	let current: string[] = [];
	for (const entry of history) {
		if (entry === null) {
			if (current.length > 0) sequences.push(current);
			current = [];
		} else current.push(entry);
	}
	if (current.length > 0) sequences.push(current);
	return sequences;
}

/** Continuation messages the extension put into the conversation. */
const continuationMessages = (pi: PiRpc) =>
	pi.events.filter((e) => {
		const message = e.message as { role?: string; customType?: string } | undefined;
		return e.type === "message_end" && message?.role === "custom" && message.customType === WIDGET;
	});

const completeMessages = (pi: PiRpc) =>
	pi.events.flatMap((e) => {
		const message = e.message as { role?: string; customType?: string; content?: unknown; details?: unknown };
		return e.type === "message_end" && message?.role === "custom" && message.customType === "til-done-complete"
			? [{ content: message.content, details: message.details }]
			: [];
	});

/** agent_start / agent_end in order: strictly alternating means never two runs at once. */
const runBoundaries = (pi: PiRpc) =>
	pi.events.filter((e) => e.type === "agent_start" || e.type === "agent_end").map((e) => e.type);

const alternating = (runs: number) => Array.from({ length: runs }, () => ["agent_start", "agent_end"]).flat();

const indexOfRecord = (pi: PiRpc, match: (r: RpcRecord) => boolean, from = 0) =>
	pi.records.findIndex((r, i) => i >= from && match(r));

/** A snapshot of everything that could still change if something happened after the end. */
const activity = (pi: PiRpc, env: IsolatedEnv) => ({
	records: pi.records.length,
	runs: pi.countAgentRuns(),
	modelCalls: env.readLog().length,
	widgets: widgetHistory(pi).length,
});

function expectCleanRun(pi: PiRpc): void {
	expect(pi.events.filter((e) => e.type === "extension_error")).toEqual([]);
	expect(JSON.stringify(pi.records)).not.toContain("Agent is already processing");
	expect(pi.stderr).not.toContain("Agent is already processing");
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	const start = (steps: Parameters<IsolatedEnv["writeScript"]>[0], env: Record<string, string>) =>
		begin(host, steps, env);

	describe("rule 1: a run that ends with items left gets exactly one continuation", () => {
		it("drives a lazy model through a 5-item list with 4 continuations, then goes quiet", async () => {
			const pi = await start(lazyScript(FIVE), { TIL_DONE_COUNTDOWN: "0.05" });
			const env = iso as IsolatedEnv;
			await pi.prompt("Build the thing");
			await pi.waitFor(() => pi.statuses.get("til-done") === "✓ Done (5 items)", 10_000, "✓ Done (5 items)");
			await pi.waitFor(() => pi.count("agent_settled") === 5, 5000, "5th agent_settled");

			expect(statusHistory(pi, "til-done")).toEqual([
				"📋 0/5",
				"📋 1/5",
				"📋 2/5",
				"📋 3/5",
				"📋 4/5",
				"✓ Done (5 items)",
			]);
			expect(statusHistory(pi, "til-done-active")).toEqual(FIVE.map((text, i) => `[${i}] ${text}`));
			expect(pi.statuses.has("til-done-active")).toBe(false);

			expect(pi.countAgentRuns()).toBe(5);
			expect(runBoundaries(pi)).toEqual(alternating(5));
			expect(continuationMessages(pi)).toHaveLength(4);
			const log = env.readLog();
			// Each continuation run makes three model calls (start, complete, stop), all answering that continuation.
			expect(continuationCalls(log)).toHaveLength(12);
			// The list was empty at the user's prompt, and a continuation's prompt is its one copy of the list: no call
			// carries the hidden injection (pi 1.2+ would add one to every continuation, unasked).
			expect(injectionsPerCall(log)).toEqual(log.map(() => 0));
			const prompts = continuationPrompts(log);
			expect(prompts).toHaveLength(4);
			expect(prompts[0]).toBe(
				[
					CONTINUATION_HEAD,
					"",
					"Remaining items:",
					"– [1] Write the parser",
					"– [2] Write the printer",
					"– [3] Add tests",
					"– [4] Update the docs",
					"",
					"Next action: edit_todos with action 'start' and indices [1]",
				].join("\n"),
			);
			expect(prompts[3]).toBe(
				[
					CONTINUATION_HEAD,
					"",
					"Remaining items:",
					"– [4] Update the docs",
					"",
					"Next action: edit_todos with action 'start' and indices [4]",
				].join("\n"),
			);

			// 0.05 s rounds up to one shown second: one line, then a clear, per continuation.
			const line = countdownLine(1);
			expect(widgetHistory(pi)).toEqual([line, null, line, null, line, null, line, null]);
			expect(pi.uiRequests.find((r) => r.method === "setWidget" && r.widgetKey === WIDGET)).toMatchObject({
				widgetPlacement: "aboveEditor",
			});
			expect(pi.widgets.has(WIDGET)).toBe(false);
			expect(pi.notifications.filter((n) => n.type === "warning")).toEqual([]);
			expectCleanRun(pi);

			const before = activity(pi, env);
			await sleep(400);
			expect(activity(pi, env)).toEqual(before);
		});
	});

	describe("rule 3: a prompt during the countdown replaces the continuation", () => {
		it("cancels a 5 s countdown, runs the prompt normally and never sends the continuation", async () => {
			const pi = await start(
				[
					writeStep(["a", "b", "c"]),
					startStep(0),
					completeStep(0),
					sayStep("Finished item 0."),
					// The user's prompt: the model does b, then asks (a question never auto-continues).
					startStep(1),
					completeStep(1),
					sayStep("Finished item 1. Shall I go on with c?"),
				],
				{ TIL_DONE_COUNTDOWN: "5" },
			);
			const env = iso as IsolatedEnv;
			await pi.prompt("Do the list");
			await pi.waitFor(() => pi.widgets.get(WIDGET)?.lines[0] === countdownLine(5), 10_000, "5 s countdown");
			const countdownShown = performance.now();
			expect(pi.statuses.get("til-done")).toBe("📋 1/3");

			const recordsBeforePrompt = pi.records.length;
			const response = await pi.send({ type: "prompt", message: "Now do b please" });
			expect(response.success).toBe(true);
			await pi.waitFor(() => !pi.widgets.has(WIDGET), 2000, "countdown cleared");
			const clearedAfterMs = performance.now() - countdownShown;
			await pi.waitFor(() => pi.count("agent_settled") === 2, 5000, "2nd agent_settled");

			expect(clearedAfterMs).toBeLessThan(1000);
			// The widget is cleared before the prompt's run starts.
			const clear = indexOfRecord(
				pi,
				(r) => r.type === "extension_ui_request" && r.method === "setWidget" && r.widgetKey === WIDGET,
				recordsBeforePrompt,
			);
			const secondStart = indexOfRecord(pi, (r) => r.type === "agent_start", recordsBeforePrompt);
			expect(clear).toBeGreaterThan(-1);
			expect(clear).toBeLessThan(secondStart);
			expect(pi.statuses.get("til-done")).toBe("📋 2/3");
			expect(pi.assistantTexts().at(-1)).toBe("Finished item 1. Shall I go on with c?");

			// Wait until well past the cancelled countdown's deadline: nothing fires.
			await sleep(Math.max(0, 5300 - (performance.now() - countdownShown)));
			expect(pi.countAgentRuns()).toBe(2);
			expect(runBoundaries(pi)).toEqual(alternating(2));
			expect(continuationMessages(pi)).toEqual([]);
			expect(continuationCalls(env.readLog())).toEqual([]);
			expect(env.readLog()).toHaveLength(7);
			// The user's second prompt, with items left, gets the hidden list; the first (an empty list) did not.
			expect(injectionsPerCall(env.readLog())).toEqual([0, 0, 0, 0, 1, 1, 1]);
			expect(widgetHistory(pi)).toEqual([countdownLine(5), null]);
			expect(pi.widgets.has(WIDGET)).toBe(false);
			expectCleanRun(pi);
		}, 15_000);
	});

	describe("rule 7: exactly one countdown at a time", () => {
		it("replaces an interrupted countdown with one new one; every countdown counts down alone", async () => {
			const pi = await start(
				[
					writeStep(["a", "b", "c"]),
					startStep(0),
					completeStep(0),
					sayStep("Finished item 0."),
					// The user's prompt interrupts countdown 1; this run leaves c, so countdown 2 runs out.
					startStep(1),
					completeStep(1),
					sayStep("Finished item 1."),
					// The one continuation.
					startStep(2),
					completeStep(2),
					sayStep("Finished item 2."),
				],
				{ TIL_DONE_COUNTDOWN: "1.5" },
			);
			await pi.prompt("Do the list");
			await pi.waitFor(() => pi.widgets.get(WIDGET)?.lines[0] === countdownLine(2), 10_000, "first countdown");
			await pi.prompt("Carry on with b");
			await pi.waitFor(() => pi.statuses.get("til-done") === "✓ Done (3 items)", 10_000, "✓ Done (3 items)");
			await pi.waitFor(() => pi.count("agent_settled") === 3, 5000, "3rd agent_settled");
			await sleep(300);

			const sequences = countdownSequences(widgetHistory(pi));
			expect(sequences).toHaveLength(2);
			// The interrupted countdown showed 2 s (and at most 1 s) before it was cleared; the second ran out in full.
			expect([[countdownLine(2)], [countdownLine(2), countdownLine(1)]]).toContainEqual(sequences[0]);
			expect(sequences[1]).toEqual([countdownLine(2), countdownLine(1)]);
			expect(widgetHistory(pi).at(-1)).toBeNull();
			expect(pi.widgets.has(WIDGET)).toBe(false);

			expect(continuationMessages(pi)).toHaveLength(1);
			expect(continuationPrompts((iso as IsolatedEnv).readLog())).toEqual([
				[
					CONTINUATION_HEAD,
					"",
					"Remaining items:",
					"– [2] c",
					"",
					"Next action: edit_todos with action 'start' and indices [2]",
				].join("\n"),
			]);
			expect(pi.countAgentRuns()).toBe(3);
			expect(runBoundaries(pi)).toEqual(alternating(3));
			// The countdown is gone before the continuation's run starts.
			const lastClear = pi.records.findLastIndex(
				(r) => r.type === "extension_ui_request" && r.method === "setWidget" && r.widgetKey === WIDGET,
			);
			const lastStart = pi.records.findLastIndex((r) => r.type === "agent_start");
			expect(lastClear).toBeLessThan(lastStart);
			expectCleanRun(pi);
		});
	});

	describe("rule 9 (rpc): the countdown and the breakers reach an RPC client", () => {
		it("stops a model that never finishes anything after 3 continuations with a warning notify", async () => {
			const pi = await start(stallScript(["a", "b"], 10), { TIL_DONE_COUNTDOWN: "0.05" });
			const env = iso as IsolatedEnv;
			await pi.prompt("Do the list");
			await pi.waitFor(() => pi.notifications.some((n) => n.type === "warning"), 10_000, "warning notify");
			await pi.waitFor(() => pi.count("agent_settled") === 4, 5000, "4th agent_settled");

			const warning = pi.uiRequests.filter((r) => r.method === "notify" && r.notifyType === "warning");
			expect(warning).toEqual([expect.objectContaining({ type: "extension_ui_request", message: NO_PROGRESS })]);
			expect(pi.notifications).toEqual([{ message: NO_PROGRESS, type: "warning" }]);
			expect(completeMessages(pi)).toEqual([{ content: NO_PROGRESS, details: { level: "warning" } }]);

			expect(pi.countAgentRuns()).toBe(4);
			expect(continuationMessages(pi)).toHaveLength(3);
			expect(continuationCalls(env.readLog())).toHaveLength(3);
			const line = countdownLine(1);
			expect(widgetHistory(pi)).toEqual([line, null, line, null, line, null]);
			const countdownRequests = pi.uiRequests.filter((r) => r.method === "setWidget" && r.widgetKey === WIDGET);
			expect(countdownRequests[0]).toMatchObject({
				type: "extension_ui_request",
				method: "setWidget",
				widgetLines: [line],
				widgetPlacement: "aboveEditor",
			});
			expect(pi.statuses.get("til-done")).toBe("📋 0/2");
			expectCleanRun(pi);

			const before = activity(pi, env);
			await sleep(400);
			expect(activity(pi, env)).toEqual(before);
		});

		it("stops at the hard cap (TIL_DONE_MAX_CONTINUE=2) with a warning notify", async () => {
			const pi = await start(lazyScript(FIVE), { TIL_DONE_COUNTDOWN: "0.05", TIL_DONE_MAX_CONTINUE: "2" });
			await pi.prompt("Build the thing");
			await pi.waitFor(() => pi.notifications.some((n) => n.type === "warning"), 10_000, "warning notify");
			await pi.waitFor(() => pi.count("agent_settled") === 3, 5000, "3rd agent_settled");

			expect(pi.notifications).toEqual([{ message: HARD_CAP_2, type: "warning" }]);
			expect(completeMessages(pi)).toEqual([{ content: HARD_CAP_2, details: { level: "warning" } }]);
			expect(pi.countAgentRuns()).toBe(3);
			expect(continuationMessages(pi)).toHaveLength(2);
			expect(pi.statuses.get("til-done")).toBe("📋 3/5");
			expect(widgetHistory(pi)).toEqual([countdownLine(1), null, countdownLine(1), null]);
			expectCleanRun(pi);
		});
	});
});
