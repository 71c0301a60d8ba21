import type { AgentBeforeSettleEvent } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TilDoneConfig } from "../../src/core/rules/settings.ts";
import { NO_SPEND } from "../../src/core/rules/usage.ts";
import {
	getChain,
	getDecisions,
	getLoop,
	getTodos,
	isCompletionAnnounced,
	pauseAutoContinue,
	recordRun,
	resetState,
	setLoop,
	setTodos,
	updateTodoStatus,
} from "../../src/state.ts";
import { DEFAULT_LOOP_MARKER, type LoopSpec, type TodoItem, type TodoStatus } from "../../src/types.ts";
import { startEngine, WORKING } from "../helpers/engine.ts";
import {
	ABORTED_WAIT,
	allDone,
	allFinished,
	allVerified,
	backoff,
	type Counters,
	continuationPrompt,
	countdownLine,
	endData,
	hardCap,
	INTERRUPTED,
	KEY,
	LOOP_STOPPED_BY_USER,
	loopFinished,
	loopLimit,
	loopPrompt,
	loopStatus,
	MESSAGE_TYPE,
	nextAction,
	noProgress,
	reviewWait,
	stderrLine,
	stopStatus,
	tokenBudgetStop,
	UNVERIFIED_HEAD,
	UNVERIFIED_TAKE_OVER,
} from "../helpers/expected.ts";
import type { FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { runnerEnded } from "../helpers/fake-runner.ts";
import { must } from "../helpers/must.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
import { lastDecision, sendContinuation } from "../helpers/store.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

type StopReasonText = "stop" | "toolUse" | "length" | "error" | "aborted";

const assistant = (text: string, stopReason: StopReasonText = "stop", errorMessage?: string) => ({
	role: "assistant",
	stopReason,
	errorMessage,
	content: [{ type: "text", text }],
});

const FAILED = [assistant("", "error", "529 overloaded")];

/** The countdown widget's lines. */
const countdownLines = (n: number) => [countdownLine(n)];

const TWO_ITEMS = [todo("Write schema", "in_progress"), todo("Write migration")];
const TWO_ITEMS_PROMPT = continuationPrompt(["● [0] Write schema", "– [1] Write migration"], nextAction("complete", 0));

/** The decision to continue: a countdown, then the continuation (unless something changed by then). */
const CONTINUE = { kind: "send", code: "continue" };

/** What a print or JSON invocation records when it ends: why, as a custom entry in the session. */
function ended(level: "info" | "warning", code: string, text: string, counters: Partial<Counters> = {}) {
	return {
		entries: [{ type: "custom", customType: MESSAGE_TYPE.complete, data: endData(level, code, text, counters) }],
	};
}

const HARD_CAP_2 = hardCap(2);

function setup(options: FakeCtxOptions = {}, overrides: Partial<TilDoneConfig> = {}) {
	const base = startEngine(options, overrides);
	const { pi, engine } = base;
	/** print/JSON: the run is about to settle. */
	const beforeSettle = (
		messages: readonly unknown[] = WORKING,
		outcome: "completed" | "aborted" | "error" = "completed",
	) =>
		engine.onBeforeSettle(
			{
				type: "agent_before_settle",
				entries: [],
				continue: false,
				outcome,
				context: {
					contextMessages: messages,
					contextEntries: [],
					llmMessages: [],
					pendingMessages: [],
					canContinue: true,
				},
			} as unknown as AgentBeforeSettleEvent,
			base.ctx,
		);
	/** print/JSON after a failed run: what agent_before_settle returns once it has, `"pending"` until then. */
	const failedRunSettling = () => {
		const call: { result: unknown } = { result: "pending" };
		void beforeSettle(FAILED).then((value) => {
			call.result = value;
		});
		return call;
	};
	const sentTypes = () => pi.sent.map((sent) => sent.message.customType);
	return { ...base, beforeSettle, failedRunSettling, sentTypes };
}

/**
 * A run ends and `between` happens before pi settles: at the settle nothing is decided, and nothing is ever sent; the
 * next run that ends (in the new session, or the user's own run) is decided as usual.
 */
async function droppedBeforeSettle(between: (s: ReturnType<typeof setup>) => void): Promise<void> {
	const s = setup();
	setTodos(TWO_ITEMS);
	s.engine.onRunEnd(WORKING, s.ctx);
	between(s);
	s.engine.onSettled(s.ctx);
	await vi.advanceTimersByTimeAsync(60_000);
	expect(s.pi.sent).toEqual([]);
	expect(getDecisions()).toEqual([]);
	s.endRun();
	expect(lastDecision()).toEqual(CONTINUE);
}

const stderr = fakeTimersQuietStderr();

beforeEach(() => resetState());

describe("with items left, a settled run is followed by a countdown and one continuation", () => {
	it("shows the countdown after agent_settled, then sends the exact prompt with triggerTurn once", async () => {
		const { pi, ui, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(true);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(3));
		expect(pi.sent).toEqual([]);
		await vi.advanceTimersByTimeAsync(2999);
		expect(pi.sent).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(pi.sent).toEqual([
			{
				message: { customType: MESSAGE_TYPE.continuation, content: TWO_ITEMS_PROMPT, display: true },
				options: { triggerTurn: true },
			},
		]);
		expect(counting()).toBe(false);
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		expect(getChain().continuations).toBe(1);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toHaveLength(1);
	});

	it("does nothing at agent_end alone: it waits for agent_settled", async () => {
		const { pi, engine, ctx, ui, counting } = setup();
		setTodos(TWO_ITEMS);
		engine.onRunEnd(WORKING, ctx);
		expect(counting()).toBe(false);
		expect(ui.widgetCalls).toEqual([]);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
		engine.onSettled(ctx);
		expect(lastDecision()).toEqual(CONTINUE);
		expect(counting()).toBe(true);
	});

	it("acts on a settled run only once", async () => {
		const { pi, engine, ctx, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		await vi.advanceTimersByTimeAsync(3000);
		engine.onSettled(ctx);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toHaveLength(1);
	});

	it("counts down without a UI and still sends", async () => {
		const { pi, ui, endRun } = setup({ hasUI: false, mode: "rpc" });
		setTodos(TWO_ITEMS);
		endRun();
		expect(ui.widgetCalls).toEqual([]);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent).toHaveLength(1);
	});

	it("sends nothing when pi is not idle at zero", async () => {
		const { pi, setIdle, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		setIdle(false);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent).toEqual([]);
		expect(getChain().continuations).toBe(0);
		expect(lastDecision()).toEqual(CONTINUE);
	});

	it("sends nothing when a message is queued at zero", async () => {
		const { pi, setPendingMessages, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		setPendingMessages(true);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent).toEqual([]);
		expect(lastDecision()).toEqual(CONTINUE);
	});

	it("sends nothing when the list was finished during the countdown: it is planned again at zero", async () => {
		const { pi, ui, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		updateTodoStatus([0, 1], "completed");
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent).toEqual([]);
		expect(getDecisions().map((decision) => decision.code)).toEqual(["continue", "all-done"]);
		expect(pi.reports()).toEqual([{ level: "success", text: allDone(2) }]);
		expect(ui.notifications).toEqual([]);
	});

	it("sends nothing when the context went stale during the countdown", async () => {
		const { pi, makeStale, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		makeStale();
		await expect(vi.advanceTimersByTimeAsync(3000)).resolves.not.toThrow();
		expect(pi.sent).toEqual([]);
		expect(lastDecision()).toEqual(CONTINUE);
	});

	it("sends nothing after a session change during the countdown", async () => {
		const { pi, engine, ui, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(true);
		engine.onSessionChange();
		expect(counting()).toBe(false);
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});

	it("forgets a decision still waiting for agent_settled when the session changes", () =>
		droppedBeforeSettle((s) => s.engine.onSessionChange()));

	it("replaces the countdown when another run ends", async () => {
		const { pi, engine, ctx, ui, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		await vi.advanceTimersByTimeAsync(2000);
		engine.onRunEnd(WORKING, ctx);
		expect(counting()).toBe(false);
		engine.onSettled(ctx);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(3));
		await vi.advanceTimersByTimeAsync(2999);
		expect(pi.sent).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(pi.sent).toHaveLength(1);
	});

	it("uses the configured countdown length, read when the countdown starts", async () => {
		const { pi, config, ui, endRun } = setup();
		config.countdownSeconds = 1;
		setTodos(TWO_ITEMS);
		endRun();
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(1));
		await vi.advanceTimersByTimeAsync(1000);
		expect(pi.sent).toHaveLength(1);
	});
});

describe("the user takes over", () => {
	it("a keypress during the countdown stops it and nothing is sent", async () => {
		const { pi, ui, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(true);
		for (const handler of [...ui.inputHandlers]) expect(handler("x")).toBeUndefined();
		expect(counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
		expect(ui.notifications).toEqual([]);
	});

	it("the interruption is a decision with its reason, on the status bar until the user's next prompt", async () => {
		const { engine, ctx, ui, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		for (const handler of [...ui.inputHandlers]) handler("x");
		await vi.advanceTimersByTimeAsync(0);
		expect(getDecisions().map((decision) => [decision.code, decision.text])).toEqual([
			["continue", "2 of 2 todos remain: continuation 1 of 20 follows."],
			["interrupted", INTERRUPTED],
		]);
		expect(ui.status.get(KEY.stop)).toBe(stopStatus("interrupted by you"));
		engine.onUserInput(ctx);
		expect(ui.status.has(KEY.stop)).toBe(false);
	});

	it("user input cancels the countdown and resets the chain", async () => {
		const { pi, engine, ctx, ui, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		await vi.advanceTimersByTimeAsync(3000);
		endRun([assistant("", "error", "overloaded")]);
		expect(getChain()).toMatchObject({ continuations: 1, failures: 1 });
		engine.onUserInput(ctx);
		expect(counting()).toBe(false);
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		expect(getChain()).toMatchObject({ continuations: 0, failures: 0, noProgress: 0, progressed: false });
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toHaveLength(1);
	});

	it("user input drops a decision still waiting for agent_settled", () =>
		droppedBeforeSettle((s) => s.engine.onUserInput(s.ctx)));

	it("user input keeps the user's own pause, and starts the chain's counters again", async () => {
		const { engine, ctx } = setup();
		pauseAutoContinue("user", "reviewing");
		sendContinuation();
		engine.onUserInput(ctx);
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "reviewing", continuations: 0 });
	});

	it("pause stops a showing countdown and is safe without one", async () => {
		const { pi, engine, ctx, endRun, counting } = setup();
		engine.pause(ctx);
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(true);
		engine.pause(ctx);
		expect(counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});
});

describe("a skip sends nothing and shows nothing, and is kept as the decision", () => {
	const quiet = async (s: ReturnType<typeof setup>, code: string) => {
		expect(s.counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(s.pi.sent).toEqual([]);
		expect(s.ui.widgetCalls).toEqual([]);
		expect(s.ui.notifications).toEqual([]);
		expect(lastDecision()).toEqual({ kind: "idle", code });
	};

	it("no-todos: the list is empty, and no decision is kept for it", async () => {
		const s = setup();
		// The engine is live: with a list, a run's end counts down.
		setTodos(TWO_ITEMS);
		s.endRun();
		expect(s.counting()).toBe(true);
		setTodos([]);
		s.endRun();
		expect(s.counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(s.pi.sent).toEqual([]);
		expect(lastDecision()).toEqual({ kind: "send", code: "continue" });
	});

	it("aborted: the last assistant message stopped with aborted", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun([assistant("", "aborted")]);
		await quiet(s, "aborted");
	});

	it("aborted: an error that says it was aborted counts as aborted, not as a failure", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun([assistant("", "error", "Request was aborted")]);
		await quiet(s, "aborted");
		expect(getChain().failures).toBe(0);
	});

	it("paused: auto-continue is off", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		pauseAutoContinue("model", "needs a decision");
		s.endRun();
		await quiet(s, "paused");
	});

	it("asks-user: the answer ends with a question mark", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun([assistant("Should I use Postgres or SQLite?  ")]);
		await quiet(s, "asks-user");
	});

	it("asks-user also takes the full-width question mark", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun([assistant("続けますか？")]);
		await quiet(s, "asks-user");
	});

	it("a question that ends a failed run is not asking the user: the run is retried", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun([assistant("Should I?", "length")]);
		expect(s.counting()).toBe(true);
	});
});

describe("all-done: the completion comes exactly once per list, as a line that stays", () => {
	it("says `✓ All N todos are done.` once, a success in the transcript (no notice), and sends nothing", async () => {
		const { pi, ui, endRun } = setup();
		setTodos([todo("a", "completed"), todo("b", "abandoned")]);
		endRun();
		endRun();
		expect(pi.reports()).toEqual([{ level: "success", text: allDone(2) }]);
		expect(ui.notifications).toEqual([]);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});

	it("says it again once the list had work again and was finished again", async () => {
		const { pi, endRun } = setup();
		setTodos([todo("a", "completed")]);
		endRun();
		setTodos([todo("a", "completed"), todo("b")]);
		updateTodoStatus([1], "completed");
		endRun();
		expect(pi.reports().map((line) => line.text)).toEqual([allDone(1), allDone(2)]);
	});

	it("shows no notice and writes no line without a UI but still counts it as shown", async () => {
		const { pi, ui, endRun } = setup({ hasUI: false });
		setTodos([todo("a", "completed")]);
		endRun();
		expect(ui.notifications).toEqual([]);
		expect(pi.reports()).toEqual([]);
		expect(lastDecision()).toEqual({ kind: "idle", code: "all-done" });
		expect(isCompletionAnnounced()).toBe(true);
	});
});

describe("a budget or the progress breaker stops the chain, says why on the status bar, and keeps the decision", () => {
	it("a token budget the next continuation would cross: no countdown, a warning, the stop status", async () => {
		const s = setup({}, { budgetTokens: 10_000 });
		setTodos(TWO_ITEMS);
		recordRun({ ...getChain(), spend: { ...NO_SPEND, tokens: 9000, calls: 3, lastContext: 1500 } });
		s.endRun();
		const text = tokenBudgetStop(10_500, 10_000, 9000, 1500);
		expect(s.sentTypes()).toEqual([MESSAGE_TYPE.complete]);
		expect(s.ui.notifications).toEqual([]);
		expect(s.ui.status.get(KEY.stop)).toBe(stopStatus("token budget"));
		expect(getDecisions().map((decision) => [decision.code, decision.text])).toEqual([["budget-tokens", text]]);
	});

	it("the user's next prompt clears the stop status", async () => {
		const s = setup({}, { budgetTokens: 1 });
		setTodos(TWO_ITEMS);
		recordRun({ ...getChain(), spend: { ...NO_SPEND, tokens: 5, lastContext: 5 } });
		s.endRun();
		expect(s.ui.status.get(KEY.stop)).toBe(stopStatus("token budget"));
		s.engine.onUserInput(s.ctx);
		expect(s.ui.status.has(KEY.stop)).toBe(false);
	});

	it("every decision after a run is kept, with its counters", async () => {
		const s = setup();
		setTodos(TWO_ITEMS);
		s.endRun();
		await vi.advanceTimersByTimeAsync(3000);
		updateTodoStatus([0, 1], "completed");
		s.endRun();
		expect(getDecisions().map((decision) => [decision.code, decision.counters.continuations])).toEqual([
			["continue", 0],
			["all-done", 1],
		]);
	});
});

describe("a stop is shown once: a warning message on the branch, the stop on the status bar, no countdown", () => {
	// Which breaker trips when is for the next-step rules (next-step.test.ts, breakers.test.ts); here, what a stop does.
	const stopped = () => {
		const s = setup({}, { maxContinuations: 1 });
		setTodos(TWO_ITEMS);
		sendContinuation();
		updateTodoStatus([0], "completed");
		return s;
	};

	it("posts the stop text as a til-done-complete warning message, and no notice besides", async () => {
		const s = stopped();
		s.endRun();
		expect(s.pi.sent).toEqual([
			{
				message: {
					customType: MESSAGE_TYPE.complete,
					content: hardCap(1),
					display: true,
					details: { level: "warning" },
				},
				options: { triggerTurn: false },
			},
		]);
		expect(s.ui.notifications).toEqual([]);
		expect(s.ui.status.get(KEY.stop)).toBe(stopStatus("continuation limit reached"));
		expect(s.counting()).toBe(false);
		expect(lastDecision()).toEqual({ kind: "stop", code: "hard-cap" });
	});

	it("posts it without a UI too, and on a stale context", async () => {
		const s = stopped();
		s.makeStale();
		expect(() => s.endRun()).not.toThrow();
		expect(s.sentTypes()).toEqual([MESSAGE_TYPE.complete]);
	});

	it("swallows a sendMessage that throws on a replaced session, the stop still kept", async () => {
		const s = stopped();
		s.pi.api.sendMessage = () => {
			throw new Error("stale");
		};
		expect(() => s.endRun()).not.toThrow();
		expect(getChain().stopped).toBe("hard-cap");
	});
});

describe("after a failed run the countdown backs off, doubling per failure", () => {
	it("warns with the extra wait and adds it to the countdown: 5.0s, then 10.0s", async () => {
		const { pi, ui, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun(FAILED);
		expect(ui.notifications).toEqual([{ message: backoff("5.0"), type: "warning" }]);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(8));
		await vi.advanceTimersByTimeAsync(7999);
		expect(pi.sent).toEqual([]);
		await vi.advanceTimersByTimeAsync(1);
		expect(pi.sent).toHaveLength(1);
		endRun(FAILED);
		expect(ui.notifications.at(-1)).toEqual({
			message: backoff("10.0"),
			type: "warning",
		});
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(13));
	});

	it("drops the back-off after a run that did not fail", async () => {
		const { ui, endRun } = setup();
		setTodos(TWO_ITEMS);
		endRun(FAILED);
		await vi.advanceTimersByTimeAsync(8000);
		endRun();
		expect(ui.notifications).toHaveLength(1);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(3));
	});

	it("uses the configured first back-off", async () => {
		const { ui, endRun } = setup({}, { failureBackoffMs: 1500 });
		setTodos(TWO_ITEMS);
		endRun(FAILED);
		expect(must(ui.notifications[0], "a notification").message).toBe(backoff("1.5"));
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(5));
	});
});

describe("resume continues at once when the list calls for it", () => {
	it("starts a countdown when idle with items left", async () => {
		const { pi, engine, ctx, counting } = setup();
		setTodos(TWO_ITEMS);
		engine.resume(ctx);
		expect(counting()).toBe(true);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.map((s) => s.message.content)).toEqual([TWO_ITEMS_PROMPT]);
	});

	it("does nothing while pi is busy: the run's end will decide", async () => {
		const { engine, ctx, counting, endRun } = setup({ idle: false });
		setTodos(TWO_ITEMS);
		engine.resume(ctx);
		expect(counting()).toBe(false);
		expect(getDecisions()).toEqual([]);
		endRun();
		expect(lastDecision()).toEqual(CONTINUE);
		expect(counting()).toBe(true);
	});

	it("does nothing when the list needs no continuation; with an item left again, the same call counts down", async () => {
		const { engine, ctx, counting } = setup();
		setTodos([todo("a", "completed")]);
		await engine.resume(ctx);
		expect(counting()).toBe(false);
		expect(lastDecision()).toEqual({ kind: "idle", code: "all-done" });
		setTodos([todo("a", "completed"), todo("b")]);
		engine.resume(ctx);
		expect(counting()).toBe(true);
	});

	it("does nothing on a stale context", async () => {
		const { engine, ctx, makeStale, refused, counting } = setup();
		setTodos(TWO_ITEMS);
		makeStale();
		expect(() => engine.resume(ctx)).not.toThrow();
		expect(refused()).toBeGreaterThan(0);
		expect(counting()).toBe(false);
	});
});

describe("headless modes (print, json) continue inside the run", () => {
	it.each(["print", "json"] as const)("%s: agent_end and agent_settled do nothing", async (mode) => {
		const { pi, engine, ctx, endRun, beforeSettle, counting } = setup({ mode });
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(false);
		expect(vi.getTimerCount()).toBe(0);
		expect(pi.sent).toEqual([]);
		expect(getChain().continuations).toBe(0);
		engine.onSettled(ctx);
		expect(pi.sent).toEqual([]);
		expect(getDecisions()).toEqual([]);
		// It continues inside the run instead.
		expect(await beforeSettle()).toMatchObject({ continue: true });
		expect(lastDecision()).toEqual(CONTINUE);
	});

	it.each(["print", "json"] as const)(
		"%s: agent_before_settle returns the continuation as an entry and asks pi to continue",
		async (mode) => {
			const { pi, beforeSettle } = setup({ mode });
			setTodos(TWO_ITEMS);
			expect(await beforeSettle()).toEqual({
				entries: [
					{ type: "custom_message", customType: MESSAGE_TYPE.continuation, content: TWO_ITEMS_PROMPT, display: true },
				],
				continue: true,
			});
			expect(getChain().continuations).toBe(1);
			expect(pi.sent).toEqual([]);
		},
	);

	it("an aborted run ends the invocation with its reason on stderr and in the session", async () => {
		const { beforeSettle } = setup({ mode: "print" });
		setTodos(TWO_ITEMS);
		expect(await beforeSettle(WORKING, "aborted")).toEqual(ended("info", "aborted", ABORTED_WAIT, { total: 2 }));
		expect(stderr().mock.calls.map((call) => call[0])).toEqual([stderrLine(ABORTED_WAIT)]);
	});

	it("without a list the invocation ends silently; a finished list says so", async () => {
		const { beforeSettle } = setup({ mode: "print" });
		expect(await beforeSettle()).toBeUndefined();
		expect(stderr()).not.toHaveBeenCalled();
		setTodos([todo("a", "completed")]);
		expect(await beforeSettle()).toEqual(ended("info", "all-done", allFinished(1), { finished: 1, total: 1 }));
		expect(stderr().mock.calls.map((call) => call[0])).toEqual([stderrLine(allFinished(1))]);
	});

	it("a breaker stop is a warning entry with its code, text and counters, and a `[til-done] …` line on stderr", async () => {
		const { pi, ui, beforeSettle } = setup({ mode: "print", hasUI: false }, { maxContinuations: 2 });
		setTodos([todo("a"), todo("b"), todo("c")]);
		for (let i = 0; i < 2; i++) {
			await beforeSettle();
			updateTodoStatus([i], "completed");
		}
		expect(await beforeSettle()).toEqual(
			ended("warning", "hard-cap", HARD_CAP_2, { continuations: 2, maxContinuations: 2, finished: 2, total: 3 }),
		);
		expect(stderr()).toHaveBeenCalledTimes(1);
		expect(stderr()).toHaveBeenCalledWith(stderrLine(HARD_CAP_2));
		expect(pi.sent).toEqual([]);
		expect(ui.notifications).toEqual([]);
	});

	it("sends nothing when the session changes during the back-off", async () => {
		const { engine, failedRunSettling } = setup({ mode: "json" });
		setTodos(TWO_ITEMS);
		const settling = failedRunSettling();
		engine.onSessionChange();
		await vi.advanceTimersByTimeAsync(5000);
		expect(settling.result).toBeUndefined();
		expect(getChain().continuations).toBe(0);
		expect(lastDecision()).toEqual(CONTINUE);
	});

	it("backs off after a failed run before continuing", async () => {
		const { failedRunSettling } = setup({ mode: "json" });
		setTodos(TWO_ITEMS);
		const settling = failedRunSettling();
		await vi.advanceTimersByTimeAsync(4999);
		expect(settling.result).toBe("pending");
		await vi.advanceTimersByTimeAsync(1);
		expect(settling.result).toMatchObject({ continue: true });
		expect(getChain()).toMatchObject({ failures: 1, continuations: 1 });
	});
});

describe("/loop in the TUI", () => {
	const spec = (overrides: Partial<LoopSpec> = {}): LoopSpec => ({
		prompt: "Fix the failing tests",
		max: 10,
		marker: DEFAULT_LOOP_MARKER,
		...overrides,
	});
	const loopMessage = (iteration: number) => ({
		customType: KEY.loop,
		content: loopText(iteration),
		display: true,
	});
	const loopText = (iteration: number, max = 10) => loopPrompt("Fix the failing tests", iteration, max, "LOOP_DONE");

	it("start sends the first iteration as a 🔁 message that starts a run, and shows the loop status", async () => {
		const { pi, engine, commandCtx, ui } = setup();
		recordRun({ ...getChain(), failures: 2 });
		await await engine.startLoop(spec(), commandCtx);
		expect(pi.sent).toEqual([{ message: loopMessage(1), options: { triggerTurn: true } }]);
		expect(pi.userMessages).toEqual([]);
		expect(ui.status.get(KEY.loop)).toBe(loopStatus(1, 10));
		expect(getLoop()).toMatchObject({ iteration: 1 });
		expect(getChain().failures).toBe(0);
	});

	it("start queues the first iteration as a follow-up while pi is busy", async () => {
		const { pi, engine, commandCtx } = setup({ idle: false });
		await await engine.startLoop(spec(), commandCtx);
		expect(pi.sent).toEqual([{ message: loopMessage(1), options: { triggerTurn: true, deliverAs: "followUp" } }]);
	});

	it.each(["print", "json"] as const)("start in %s mode waits until the loop's run has settled", async (mode) => {
		const { engine, commandCtx } = setup({ mode });
		let waited = false;
		commandCtx.waitForIdle = async () => {
			waited = true;
		};
		await engine.startLoop(spec(), commandCtx);
		expect(waited).toBe(true);
	});

	it("start in the TUI returns at once: the loop goes on through countdowns", async () => {
		const { engine, commandCtx } = setup();
		let waited = false;
		commandCtx.waitForIdle = async () => {
			waited = true;
		};
		await engine.startLoop(spec(), commandCtx);
		expect(waited).toBe(false);
		expect(getLoop()).toMatchObject({ iteration: 1 });
	});

	it("start cancels a todo countdown and drops a pending decision", async () => {
		const { pi, engine, commandCtx, endRun, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		await engine.startLoop(spec(), commandCtx);
		expect(counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent.map((sent) => sent.message.content)).toEqual([loopText(1)]);
	});

	it("start on a stale context throws nothing and leaves no loop behind", async () => {
		const { pi, engine, commandCtx, makeStale, refused } = setup();
		makeStale();
		await expect(engine.startLoop(spec(), commandCtx)).resolves.toBeUndefined();
		expect(refused()).toBeGreaterThan(0);
		expect(pi.sent).toEqual([]);
		expect(getLoop()).toBeUndefined();
	});

	it("a run without the marker is followed by a countdown and the next iteration, in place of the todos", async () => {
		const { pi, engine, commandCtx, ui, endRun } = setup();
		setTodos(TWO_ITEMS);
		await engine.startLoop(spec(), commandCtx);
		endRun([assistant("Still two failures.")]);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(3));
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.at(-1)).toEqual({ message: loopMessage(2), options: { triggerTurn: true } });
		expect(pi.sent).toHaveLength(2);
		expect(ui.status.get(KEY.loop)).toBe(loopStatus(2, 10));
		expect(getChain().continuations).toBe(0);
	});

	it("the marker in the answer ends the loop, a success that stays", async () => {
		const { pi, engine, commandCtx, ui, endRun, counting } = setup();
		await engine.startLoop(spec(), commandCtx);
		endRun([assistant("All green. LOOP_DONE")]);
		expect(pi.reports()).toEqual([{ level: "success", text: loopFinished("LOOP_DONE", 1) }]);
		expect(ui.notifications).toEqual([]);
		expect(ui.status.has(KEY.loop)).toBe(false);
		expect(getLoop()).toBeUndefined();
		expect(counting()).toBe(false);
	});

	it("reaching the maximum ends the loop with a warning", async () => {
		const { pi, engine, commandCtx, ui, endRun } = setup();
		await engine.startLoop(spec({ max: 2 }), commandCtx);
		endRun();
		await vi.advanceTimersByTimeAsync(3000);
		endRun();
		expect(pi.sent.map((sent) => sent.message.content)).toEqual([loopText(1, 2), loopText(2, 2)]);
		expect(pi.reports()).toEqual([{ level: "warning", text: loopLimit(2, "LOOP_DONE") }]);
		expect(ui.notifications).toEqual([]);
		expect(getLoop()).toBeUndefined();
	});

	it("an aborted run ends the loop with a warning", async () => {
		const { pi, engine, commandCtx, endRun } = setup();
		await engine.startLoop(spec(), commandCtx);
		endRun([assistant("", "aborted")]);
		expect(pi.reports()).toEqual([{ level: "warning", text: "Loop stopped: the run was aborted." }]);
	});

	it("failed runs back off, and the configured number of them in a row ends the loop", async () => {
		const { pi, engine, commandCtx, ui, endRun } = setup();
		await engine.startLoop(spec(), commandCtx);
		endRun(FAILED);
		expect(getChain().failures).toBe(1);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(countdownLines(8));
		await vi.advanceTimersByTimeAsync(8000);
		endRun(FAILED);
		await vi.advanceTimersByTimeAsync(13_000);
		endRun(FAILED);
		expect(ui.notifications.map((n) => n.message)).toEqual([backoff("5.0"), backoff("10.0")]);
		expect(pi.reports()).toEqual([{ level: "warning", text: "Loop stopped after 3 failed runs in a row." }]);
	});

	it("a successful run resets the failure count", async () => {
		const { engine, commandCtx, endRun } = setup();
		await engine.startLoop(spec(), commandCtx);
		endRun(FAILED);
		expect(getChain().failures).toBe(1);
		await vi.advanceTimersByTimeAsync(8000);
		endRun();
		expect(getChain().failures).toBe(0);
	});

	/** A loop counts down to its next iteration and the user stops it with `stop`: a notice, and nothing more is sent. */
	const stoppedByUser = async (stop: (s: ReturnType<typeof setup>) => void) => {
		const s = setup();
		await s.engine.startLoop(spec(), s.commandCtx);
		s.endRun();
		stop(s);
		await vi.advanceTimersByTimeAsync(0);
		expect(s.ui.notifications).toEqual([{ message: LOOP_STOPPED_BY_USER, type: "info" }]);
		expect(s.ui.status.has(KEY.loop)).toBe(false);
		expect(getLoop()).toBeUndefined();
		await vi.advanceTimersByTimeAsync(60_000);
		expect(s.pi.sent.map((sent) => sent.message.content)).toEqual([loopText(1)]);
	};

	it("a keypress during the countdown stops the loop: `Loop stopped by the user.`", () =>
		stoppedByUser((s) => {
			for (const handler of [...s.ui.inputHandlers]) handler("x");
		}));

	it("user input ends the loop", () => stoppedByUser((s) => s.engine.onUserInput(s.commandCtx)));

	it("/todos pause stops the loop, like a keypress", () => stoppedByUser((s) => s.engine.pause(s.commandCtx)));

	it("a loop starts a fresh chain: its runs are not continuations of the list", async () => {
		const { engine, commandCtx } = setup();
		recordRun({ ...getChain(), continuations: 5, noProgress: 2, failures: 2 });
		await engine.startLoop(spec(), commandCtx);
		expect(getChain()).toMatchObject({ continuations: 0, noProgress: 0, failures: 0 });
	});

	it("a session change ends the loop silently", async () => {
		const { engine, commandCtx, ui } = setup();
		await engine.startLoop(spec(), commandCtx);
		expect(getLoop()).toMatchObject({ iteration: 1 });
		engine.onSessionChange();
		expect(getLoop()).toBeUndefined();
		expect(ui.notifications).toEqual([]);
	});

	it("sends nothing when the loop is gone by the end of the countdown", async () => {
		const { pi, engine, commandCtx, endRun } = setup();
		await engine.startLoop(spec(), commandCtx);
		endRun();
		setLoop(undefined);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.map((sent) => sent.message.content)).toEqual([loopText(1)]);
	});

	it("shows no loop status without a UI", async () => {
		const { pi, engine, commandCtx, ui } = setup({ hasUI: false });
		await engine.startLoop(spec(), commandCtx);
		expect(ui.statusCalls).toEqual([]);
		expect(getLoop()).toMatchObject({ iteration: 1 });
		expect(pi.sent).toEqual([{ message: loopMessage(1), options: { triggerTurn: true } }]);
	});
});

describe("/loop in headless modes", () => {
	const start = (overrides: Partial<LoopSpec & { iteration: number }> = {}) =>
		setLoop({ prompt: "Fix it", max: 3, marker: "DONE", iteration: 1, ...overrides });

	it("continues with the next iteration as an entry", async () => {
		const { beforeSettle } = setup({ mode: "print" });
		start();
		expect(await beforeSettle([assistant("not yet")])).toEqual({
			entries: [
				{
					type: "custom_message",
					customType: KEY.loop,
					content: loopPrompt("Fix it", 2, 3, "DONE"),
					display: true,
				},
			],
			continue: true,
		});
		expect(getLoop()?.iteration).toBe(2);
	});

	it("ends on the marker: stderr line, the reason in the session, loop cleared", async () => {
		const { beforeSettle } = setup({ mode: "print" });
		start({ iteration: 2 });
		const found = loopFinished("DONE", 2);
		expect(await beforeSettle([assistant("DONE")])).toEqual(ended("info", "loop-done", found));
		expect(stderr()).toHaveBeenCalledWith(stderrLine(found));
		expect(getLoop()).toBeUndefined();
	});

	it("ends at the maximum and on an aborted outcome, each a warning with its reason", async () => {
		const { beforeSettle } = setup({ mode: "json" });
		start({ iteration: 3 });
		const limit = loopLimit(3, "DONE");
		expect(await beforeSettle()).toEqual(ended("warning", "loop-limit", limit));
		start();
		const aborted = "Loop stopped: the run was aborted.";
		expect(await beforeSettle(WORKING, "aborted")).toEqual(ended("warning", "loop-aborted", aborted));
		expect(stderr().mock.calls.map((call) => call[0])).toEqual([stderrLine(limit), stderrLine(aborted)]);
	});

	it("backs off after a failed run", async () => {
		const { failedRunSettling } = setup({ mode: "print" });
		start();
		const settling = failedRunSettling();
		await vi.advanceTimersByTimeAsync(4999);
		expect(settling.result).toBe("pending");
		await vi.advanceTimersByTimeAsync(1);
		expect(settling.result).toMatchObject({ continue: true });
		expect(getLoop()).toMatchObject({ iteration: 2 });
		expect(getChain().failures).toBe(1);
	});

	it("sends nothing and keeps the loop cleared when the session changes during the back-off", async () => {
		const { engine, failedRunSettling } = setup({ mode: "print" });
		start();
		const settling = failedRunSettling();
		engine.onSessionChange();
		await vi.advanceTimersByTimeAsync(5000);
		expect(getLoop()).toBeUndefined();
		expect(settling.result).toBeUndefined();
	});

	it("keeps the todo list out of a running loop", async () => {
		const { beforeSettle } = setup({ mode: "print" });
		setTodos(TWO_ITEMS);
		start();
		const result = (await beforeSettle()) as { entries: { customType: string }[] };
		expect(must(result.entries[0], "an entry").customType).toBe(KEY.loop);
		expect(getChain().continuations).toBe(0);
		expect(getTodos()).toHaveLength(2);
	});
});

describe("a finished list is verified between runs before it counts as done", () => {
	const DONE: TodoItem[] = [todo("a", "completed"), { text: "b", status: "completed", check: "test -f b" }];
	const commandOf = (call: { args: string[] }) => call.args[3];
	const exits = (codes: Record<string, number>) => async (call: { args: string[] }) =>
		runnerEnded(call.args, codes[commandOf(call) ?? ""] ?? 0, `ran ${commandOf(call)}\n`);

	it("runs the done-check and the items' checks once pi has settled, then says the list is done and verified", async () => {
		const s = setup({}, { doneCheck: "npm test" });
		setTodos(DONE);
		s.engine.onRunEnd(WORKING, s.ctx);
		expect(s.pi.execCalls).toEqual([]);
		s.engine.onSettled(s.ctx);
		expect(s.ui.status.get(KEY.check)).toBe("🔎 checking the done-check: npm test");
		await vi.advanceTimersByTimeAsync(0);
		expect(s.pi.execCalls.map(commandOf)).toEqual(["npm test", "test -f b"]);
		expect(s.pi.execCalls[0]?.options).toMatchObject({ cwd: "/tmp", timeout: 140_000 });
		expect(s.pi.reports()).toEqual([
			{ level: "success", text: "✓ All 2 todos are done and verified (2 check(s) passed)." },
		]);
		expect(s.ui.notifications).toEqual([]);
		expect(s.ui.status.get(KEY.check)).toBe("✓ verified (2 check(s) passed)");
		expect(s.pi.sent).toEqual([]);
	});

	it("a failed item check reopens the item, records the list, and the continuation carries the failure", async () => {
		const s = setup();
		s.pi.onExec = exits({ "test -f b": 1 });
		setTodos(DONE);
		s.endRun();
		await vi.advanceTimersByTimeAsync(0);
		expect(getTodos()[1]).toEqual({ text: "b", status: "in_progress", check: "test -f b" });
		expect(s.pi.entries.filter((entry) => entry.customType !== "til-done-decision")).toEqual([
			{ customType: "til-done-snapshot", data: { action: "write", todos: [DONE[0], getTodos()[1]] } },
			{
				customType: "til-done-verdict",
				data: { passed: false, failed: ["the check of [1] (exit code 1)"], checks: 1 },
			},
		]);
		expect(s.ui.status.get(KEY.check)).toBe("✗ not verified: the check of [1] (exit code 1)");
		expect(s.counting()).toBe(true);
		await vi.advanceTimersByTimeAsync(3000);
		const prompt = String(s.pi.sent[0]?.message.content);
		expect(prompt).toContain("- the check of [1] failed (exit code 1)");
		expect(prompt).toContain("«ran test -f b»");
		expect(prompt.split("\n").at(-1)).toBe(nextAction("complete", 1));
	});

	it("a failed done-check asks for the fix with the list still finished", async () => {
		const s = setup({}, { doneCheck: "npm test" });
		s.pi.onExec = exits({ "npm test": 3 });
		setTodos([todo("a", "completed")]);
		s.endRun();
		await vi.advanceTimersByTimeAsync(0);
		await vi.advanceTimersByTimeAsync(3000);
		expect(s.pi.sent).toHaveLength(1);
		expect(String(s.pi.sent[0]?.message.content).split("\n")[0]).toBe(UNVERIFIED_HEAD);
		expect(s.ui.notifications).toEqual([]);
	});

	it("a prompt of the user during the verification stops it: nothing follows from it", async () => {
		const s = setup({}, { doneCheck: "npm test" });
		let finish: (result: { stdout: string; stderr: string; code: number; killed: boolean }) => void = () => undefined;
		s.pi.onExec = () => new Promise((resolve) => (finish = resolve));
		setTodos(DONE);
		s.endRun();
		await vi.advanceTimersByTimeAsync(0);
		expect(s.pi.execCalls[0]?.options?.signal?.aborted).toBe(false);
		s.engine.onUserInput(s.ctx);
		expect(s.pi.execCalls[0]?.options?.signal?.aborted).toBe(true);
		finish({ stdout: "", stderr: "", code: 1, killed: true });
		await vi.advanceTimersByTimeAsync(60_000);
		expect(s.pi.sent).toEqual([]);
		expect(s.ui.notifications).toEqual([]);
		expect(s.pi.execCalls).toHaveLength(1);
	});

	it("the model's item checks are left out where pi's bash tool is not active", async () => {
		const s = setup({}, { doneCheck: "npm test" });
		s.pi.activeTools = ["read", "write_todos", "edit_todos"];
		setTodos(DONE);
		s.endRun();
		await vi.advanceTimersByTimeAsync(0);
		expect(s.pi.execCalls.map(commandOf)).toEqual(["npm test"]);
	});
});

describe("the auto-continue waits on an item the user must review", () => {
	const WAITING: TodoItem[] = [todo("a", "completed"), { text: "b", status: "in_progress", review: true }, todo("c")];

	it("says once that the item waits for the user's review, and counts nothing down", async () => {
		const s = setup();
		setTodos(WAITING);
		s.endRun();
		s.endRun();
		expect(s.ui.notifications).toEqual([{ message: reviewWait(1), type: "info" }]);
		expect(s.ui.status.get(KEY.review)).toBe(reviewWait(1));
		expect(s.counting()).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(s.pi.sent).toEqual([]);
	});
});

describe("print and JSON modes verify inside the run, and the exit status says how the list ended", () => {
	const DONE: TodoItem[] = [todo("a", "completed")];
	let exitCode: typeof process.exitCode;
	beforeEach(() => {
		exitCode = process.exitCode;
		process.exitCode = undefined;
	});
	afterEach(() => {
		process.exitCode = exitCode;
	});

	it("a passing done-check ends the run verified: exit status 0", async () => {
		const s = setup({ mode: "print" }, { doneCheck: "npm test" });
		setTodos(DONE);
		const verified = allVerified(DONE.length);
		expect(await s.beforeSettle()).toEqual(
			ended("info", "all-done", verified, { finished: DONE.length, total: DONE.length }),
		);
		expect(s.pi.execCalls.map((call) => call.args[3])).toEqual(["npm test"]);
		expect(process.exitCode).toBe(0);
	});

	it("a failing done-check continues the run with the fix prompt", async () => {
		const s = setup({ mode: "json" }, { doneCheck: "npm test" });
		s.pi.onExec = async (call) => runnerEnded(call.args, 1, "2 failed");
		setTodos(DONE);
		const result = (await s.beforeSettle()) as { entries: { content: string }[]; continue: boolean };
		expect(result.continue).toBe(true);
		expect(result.entries[0]?.content.split("\n")[0]).toBe(UNVERIFIED_HEAD);
		expect(process.exitCode).toBeUndefined();
	});

	it("a list with a verification that ends unverified (a breaker) exits with status 3", async () => {
		const s = setup({ mode: "print" }, { doneCheck: "npm test", maxNoProgress: 1 });
		s.pi.onExec = async (call) => runnerEnded(call.args, 1);
		setTodos(DONE);
		// A continued run that completed nothing new: the one continuation the breaker allows is used up.
		recordRun({ ...getChain(), continuations: 1, progressed: false });
		await s.beforeSettle();
		expect(stderr().mock.calls.map((call) => call[0])).toEqual([stderrLine(noProgress(1, UNVERIFIED_TAKE_OVER))]);
		expect(process.exitCode).toBe(3);
	});

	it("a finished list without any verification exits 0; no list leaves the exit status alone", async () => {
		const s = setup({ mode: "print" });
		expect(await s.beforeSettle()).toBeUndefined();
		expect(process.exitCode).toBeUndefined();
		setTodos(DONE);
		expect(await s.beforeSettle()).toEqual(ended("info", "all-done", allFinished(1), { finished: 1, total: 1 }));
		expect(process.exitCode).toBe(0);
	});

	it("a review wait is a line on stderr and its reason in the session, and exits 4: an item is open", async () => {
		const s = setup({ mode: "print" });
		setTodos([{ text: "b", status: "in_progress", review: true }]);
		const waits = `${reviewWait(0)}: /todos approve 0 completes it and goes on.`;
		expect(await s.beforeSettle()).toEqual(ended("info", "review-wait", waits, { total: 1 }));
		expect(stderr().mock.calls.map((call) => call[0])).toEqual([stderrLine(waits)]);
		expect(process.exitCode).toBe(4);
	});
});
