/**
 * The auto-continue rules as an RPC client sees them (`pi --mode rpc`): statuses, the countdown widget and notifies
 * arrive as `extension_ui_request` records; runs, continuations and errors as session events. The extension handles
 * `agent_settled` before pi prints it, so a countdown started at a settle is printed before that settle: the widget
 * history read right after the last `agent_settled` shows whether anything can still follow. That nothing follows a
 * cancelled countdown or a tripped breaker later on is proven with fake timers in test/unit/quiet.test.ts.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import {
	activeStatus,
	allDone,
	continuationPrompt,
	countdownLine,
	doneStatus,
	hardCap,
	KEY,
	MESSAGE_TYPE,
	nextAction,
	noProgress,
	progressStatus,
	stopStatus,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { customMessages, type PiRpc, type RpcRecord, reportedLines } from "../helpers/rpc.ts";
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
const WIDGET = KEY.countdown;

const pi = perTest();
/** The current test's environment, for its fake model's log. */
let iso: IsolatedEnv | undefined;

async function begin(
	host: PiHost,
	steps: Parameters<IsolatedEnv["writeScript"]>[0],
	env: Record<string, string>,
): Promise<PiRpc> {
	iso = pi.env(steps, env);
	return pi.rpc({ host, env: iso.env, extensions: [EXTENSION_ENTRY] });
}

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
		return e.type === "message_end" && message?.role === "custom" && message.customType === MESSAGE_TYPE.continuation;
	});

const completeMessages = (pi: PiRpc) => customMessages(pi, MESSAGE_TYPE.complete);

/** agent_start / agent_end in order: strictly alternating means never two runs at once. */
const runBoundaries = (pi: PiRpc) =>
	pi.events.filter((e) => e.type === "agent_start" || e.type === "agent_end").map((e) => e.type);

const alternating = (runs: number) => Array.from({ length: runs }, () => ["agent_start", "agent_end"]).flat();

const indexOfRecord = (pi: PiRpc, match: (r: RpcRecord) => boolean, from = 0) =>
	pi.records.findIndex((r, i) => i >= from && match(r));

function expectCleanRun(pi: PiRpc): void {
	expect(pi.events.filter((e) => e.type === "extension_error")).toEqual([]);
	expect(JSON.stringify(pi.records)).not.toContain("Agent is already processing");
	expect(pi.stderr).not.toContain("Agent is already processing");
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	const start = (steps: Parameters<IsolatedEnv["writeScript"]>[0], env: Record<string, string>) =>
		begin(host, steps, env);

	describe("rule 1: a run that ends with items left gets exactly one continuation", () => {
		it("drives a lazy model through a 5-item list with 4 continuations, and no countdown after the last run", async () => {
			const pi = await start(lazyScript(FIVE), { TIL_DONE_COUNTDOWN: "0.05" });
			const env = iso as IsolatedEnv;
			await pi.prompt("Build the thing");
			await pi.waitFor(() => pi.statuses.get(KEY.status) === doneStatus(5), 10_000, "the list done");
			await pi.waitForSettled({ nth: 5 });

			expect(statusHistory(pi, KEY.status)).toEqual([
				progressStatus(0, 5),
				progressStatus(1, 5),
				progressStatus(2, 5),
				progressStatus(3, 5),
				progressStatus(4, 5),
				doneStatus(5),
			]);
			expect(statusHistory(pi, KEY.active)).toEqual(FIVE.map((text, i) => activeStatus(i, text)));
			expect(pi.statuses.has(KEY.active)).toBe(false);

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
				continuationPrompt(
					["– [1] Write the parser", "– [2] Write the printer", "– [3] Add tests", "– [4] Update the docs"],
					nextAction("start", 1),
				),
			);
			expect(prompts[3]).toBe(continuationPrompt(["– [4] Update the docs"], nextAction("start", 4)));

			// 0.05 s rounds up to one shown second: one line, then a clear, per continuation; and none after the 5th run.
			const line = countdownLine(1);
			expect(widgetHistory(pi)).toEqual([line, null, line, null, line, null, line, null]);
			expect(pi.uiRequests.find((r) => r.method === "setWidget" && r.widgetKey === WIDGET)).toMatchObject({
				widgetPlacement: "aboveEditor",
			});
			expect(pi.widgets.has(WIDGET)).toBe(false);
			expect(pi.notifications.filter((n) => n.type === "warning")).toEqual([]);
			expectCleanRun(pi);
		});
	});

	describe("rule 3: a prompt during the countdown replaces the continuation", () => {
		it("cancels the countdown before the prompt's run starts, and runs the prompt normally", async () => {
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
				// 600 s: the countdown can only go because of the prompt.
				{ TIL_DONE_COUNTDOWN: "600" },
			);
			const env = iso as IsolatedEnv;
			await pi.promptAndSettle("Do the list");
			expect(pi.widgets.get(WIDGET)?.lines).toEqual([countdownLine(600)]);
			expect(pi.statuses.get(KEY.status)).toBe(progressStatus(1, 3));

			const recordsBeforePrompt = pi.records.length;
			await pi.promptAndSettle("Now do b please");

			// The widget is cleared before the prompt's run starts.
			const clear = indexOfRecord(
				pi,
				(r) => r.type === "extension_ui_request" && r.method === "setWidget" && r.widgetKey === WIDGET,
				recordsBeforePrompt,
			);
			const secondStart = indexOfRecord(pi, (r) => r.type === "agent_start", recordsBeforePrompt);
			expect(clear).toBeGreaterThan(-1);
			expect(clear).toBeLessThan(secondStart);
			expect(pi.statuses.get(KEY.status)).toBe(progressStatus(2, 3));
			expect(pi.assistantTexts().at(-1)).toBe("Finished item 1. Shall I go on with c?");

			// The prompt's run ended with a question: no countdown followed it.
			expect(widgetHistory(pi)).toEqual([countdownLine(600), null]);
			expect(pi.countAgentRuns()).toBe(2);
			expect(runBoundaries(pi)).toEqual(alternating(2));
			expect(continuationMessages(pi)).toEqual([]);
			expect(continuationCalls(env.readLog())).toEqual([]);
			expect(env.readLog()).toHaveLength(7);
			// The user's second prompt, with items left, gets the hidden list; the first (an empty list) did not.
			expect(injectionsPerCall(env.readLog())).toEqual([0, 0, 0, 0, 1, 1, 1]);
			expectCleanRun(pi);
		});
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
			await pi.waitFor(() => pi.statuses.get(KEY.status) === doneStatus(3), 10_000, "the list done");
			await pi.waitForSettled({ nth: 3 });

			const sequences = countdownSequences(widgetHistory(pi));
			expect(sequences).toHaveLength(2);
			// The interrupted countdown showed 2 s (and at most 1 s) before it was cleared; the second ran out in full.
			expect([[countdownLine(2)], [countdownLine(2), countdownLine(1)]]).toContainEqual(sequences[0]);
			expect(sequences[1]).toEqual([countdownLine(2), countdownLine(1)]);
			expect(widgetHistory(pi).at(-1)).toBeNull();
			expect(pi.widgets.has(WIDGET)).toBe(false);

			expect(continuationMessages(pi)).toHaveLength(1);
			expect(continuationPrompts((iso as IsolatedEnv).readLog())).toEqual([
				continuationPrompt(["– [2] c"], nextAction("start", 2)),
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
		it("stops a model that never finishes anything after 3 continuations, shown once as a warning message", async () => {
			const pi = await start(stallScript(["a", "b"], 10), { TIL_DONE_COUNTDOWN: "0.05" });
			const env = iso as IsolatedEnv;
			await pi.prompt("Do the list");
			await pi.waitForSettled({ nth: 4 });

			expect(pi.notifications).toEqual([]);
			expect(completeMessages(pi)).toEqual([{ content: noProgress(3), details: { level: "warning" } }]);

			expect(pi.countAgentRuns()).toBe(4);
			expect(continuationMessages(pi)).toHaveLength(3);
			expect(continuationCalls(env.readLog())).toHaveLength(3);
			// Three countdowns, and none after the breaker tripped at the 4th settle.
			const line = countdownLine(1);
			expect(widgetHistory(pi)).toEqual([line, null, line, null, line, null]);
			const countdownRequests = pi.uiRequests.filter((r) => r.method === "setWidget" && r.widgetKey === WIDGET);
			expect(countdownRequests[0]).toMatchObject({
				type: "extension_ui_request",
				method: "setWidget",
				widgetLines: [line],
				widgetPlacement: "aboveEditor",
			});
			expect(pi.statuses.get(KEY.status)).toBe(progressStatus(0, 2));
			expectCleanRun(pi);
		});

		it("stops at the hard cap (TIL_DONE_MAX_CONTINUE=2) with one warning message; the user's next prompt starts anew", async () => {
			const pi = await start(lazyScript(FIVE), { TIL_DONE_COUNTDOWN: "0.05", TIL_DONE_MAX_CONTINUE: "2" });
			await pi.prompt("Build the thing");
			await pi.waitForSettled({ nth: 3 });

			expect(pi.notifications).toEqual([]);
			expect(completeMessages(pi)).toEqual([{ content: hardCap(2), details: { level: "warning" } }]);
			expect(pi.countAgentRuns()).toBe(3);
			expect(continuationMessages(pi)).toHaveLength(2);
			// Beside the stop's sentence the 80 columns assumed over RPC leave no room for the bar: the count stays.
			expect(pi.statuses.get(KEY.status)).toBe("📋 3/5");
			expect(pi.statuses.get(KEY.stop)).toBe(stopStatus("continuation limit reached"));
			// Two countdowns, and none after the cap was reached at the 3rd settle.
			expect(widgetHistory(pi)).toEqual([countdownLine(1), null, countdownLine(1), null]);

			// A prompt of the user's starts a new chain: the model does item 3, a continuation takes it to the end.
			await pi.prompt("Keep going");
			await pi.waitFor(() => pi.statuses.get(KEY.status) === doneStatus(5), 10_000, "the list done");
			await pi.waitForSettled({ nth: 5 });
			expect(continuationMessages(pi)).toHaveLength(3);
			expect(reportedLines(pi)).toEqual([{ level: "success", text: allDone(5) }]);
			expect(pi.notifications).toEqual([]);
			expectCleanRun(pi);
		});
	});
});
