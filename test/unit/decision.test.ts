import { describe, expect, it } from "vitest";
import { type ChainState, initialChain } from "../../src/core/rules/chain.ts";
import { type Counters, countersOf, type Decision, decisionOf, explain } from "../../src/core/rules/decision.ts";
import type { EngineLimits, Step, StepInput } from "../../src/core/rules/next-step.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { NO_SPEND } from "../../src/core/rules/usage.ts";
import { formatWhy } from "../../src/core/texts/user/todos.ts";
import { formatClock, formatCounters, formatDecision } from "../../src/core/texts/user.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });
const limits: EngineLimits = { ...DEFAULT_CONFIG, spendFactor: 0 };
const LIST = [todo("a", "completed"), todo("b", "in_progress"), todo("c")];
const input = (fields: Partial<StepInput> = {}): StepInput => ({
	todos: LIST,
	chain: initialChain(),
	loop: undefined,
	limits,
	...fields,
});
const sendPlan = (fields: Partial<Extract<Step, { kind: "send" }>> = {}): Step => ({
	kind: "send",
	code: "continue",
	message: { customType: "til-done-countdown", content: "…" },
	backoffMs: 0,
	chain: initialChain(),
	loop: undefined,
	...fields,
});
/** 03:04:05 local time. */
const AT = new Date(2026, 10, 23, 3, 4, 5).getTime();

describe("every step is explained in one sentence", () => {
	it.each<[string, Step, Partial<StepInput>, string]>([
		[
			"a continuation",
			sendPlan(),
			{ chain: { ...initialChain(), continuations: 2 } },
			"2 of 3 todos remain: continuation 3 of 20 follows.",
		],
		[
			"a continuation after a failed verification",
			sendPlan(),
			{ todos: [todo("a", "completed")] },
			"Every todo is finished, but the list did not pass its verification: continuation 1 of 20 asks for the fix.",
		],
		[
			"a loop's next iteration",
			sendPlan({ code: "loop-next", loop: { prompt: "p", max: 5, marker: "SHIPPED", iteration: 3 } }),
			{ loop: { prompt: "p", max: 5, marker: "SHIPPED", iteration: 2 } },
			"Loop iteration 3 of 5 follows: the answer did not hold SHIPPED.",
		],
		[
			"a verification",
			{ kind: "verify", code: "verify", checks: [{ what: "the done-check", command: "npm test" }], judge: "off" },
			{},
			"Every todo is finished: 1 check(s) verify the list.",
		],
		[
			"a stop",
			{ kind: "stop", code: "hard-cap", text: "Auto-continue limit reached." },
			{},
			"Auto-continue limit reached.",
		],
		[
			"the end of a loop",
			{ kind: "end-loop", code: "loop-done", text: "Loop finished.", level: "info" },
			{},
			"Loop finished.",
		],
		["no list", { kind: "idle", code: "no-todos" }, { todos: [] }, "No todo list: nothing to continue."],
		[
			"the todo tools not active",
			{ kind: "idle", code: "tools-off" },
			{},
			"The todo tools are not active in this session: nothing continues the list.",
		],
		[
			"a prompt of the user's in the countdown's place",
			{ kind: "idle", code: "interrupted", byPrompt: true },
			{},
			"Interrupted by your prompt: it runs in the continuation's place.",
		],
		["a finished list", { kind: "idle", code: "all-done" }, {}, "Every todo is finished (3): nothing to continue."],
		[
			"a verified list",
			{ kind: "idle", code: "all-done", verified: true },
			{},
			"Every todo is finished (3) and the list passed its verification: nothing to continue.",
		],
		["an aborted run", { kind: "idle", code: "aborted" }, {}, "The run was aborted: the auto-continue waits for you."],
		[
			"a pause with its reason",
			{ kind: "idle", code: "paused" },
			{ chain: { ...initialChain(), paused: true, pauseReason: "lunch" } },
			"Auto-continue is paused (lunch): it waits for you.",
		],
		["a pause", { kind: "idle", code: "paused" }, {}, "Auto-continue is paused: it waits for you."],
		[
			"a question",
			{ kind: "idle", code: "asks-user" },
			{},
			"The model asked a question: the auto-continue waits for your answer.",
		],
		[
			"a review wait",
			{ kind: "idle", code: "review-wait", index: 1 },
			{},
			"👁 [1] waits for your review: /todos approve 1 completes it and goes on.",
		],
	])("%s", (_name, step, fields, sentence) => {
		expect(explain(step, input(fields))).toBe(sentence);
	});
});

describe("a decision keeps the counters it was made on", () => {
	const chain: ChainState = {
		...initialChain(),
		continuations: 4,
		noProgress: 1,
		failures: 2,
		spend: { ...NO_SPEND, tokens: 12_345, cost: 0.0123, calls: 7 },
	};
	const counters: Counters = {
		continuations: 4,
		maxContinuations: 20,
		noProgress: 1,
		maxNoProgress: 3,
		failures: 2,
		maxFailures: 3,
		finished: 1,
		total: 3,
		tokens: 12_345,
		cost: 0.0123,
		calls: 7,
	};

	it("reads them from the step's input", () => {
		expect(countersOf(input({ chain }))).toStrictEqual(counters);
		expect(decisionOf({ kind: "idle", code: "aborted" }, input({ chain }), AT)).toStrictEqual({
			at: AT,
			kind: "idle",
			code: "aborted",
			text: "The run was aborted: the auto-continue waits for you.",
			counters,
		});
	});

	it("shows them on one line, the cost only when pi reported one", () => {
		expect(formatCounters(counters)).toBe(
			"[continuations 4/20, no progress 1/3, failures 2/3, 1/3 finished, 12,345 tokens in 7 call(s), cost 0.0123]",
		);
		expect(formatCounters({ ...counters, cost: 0, maxNoProgress: 0 })).toBe(
			"[continuations 4/20, no progress off, failures 2/3, 1/3 finished, 12,345 tokens in 7 call(s)]",
		);
	});
});

describe("/todos why shows the last decisions, the newest last", () => {
	const decision = (code: string, at = AT): Decision => ({
		at,
		kind: "idle",
		code,
		text: `because ${code}`,
		counters: countersOf(input()),
	});

	it("a decision is its time of day, its code, its sentence and its counters", () => {
		expect(formatClock(AT)).toBe("03:04:05");
		expect(formatDecision(decision("aborted"))).toBe(
			"03:04:05 aborted: because aborted [continuations 0/20, no progress 0/3, failures 0/3, 1/3 finished, 0 tokens in 0 call(s)]",
		);
	});

	it("shows at most 10", () => {
		const decisions = Array.from({ length: 12 }, (_, i) => decision(`d${i}`));
		const lines = formatWhy(decisions).split("\n");
		expect(lines[0]).toBe("The auto-continue's last 10 decision(s), the newest last:");
		expect(lines.slice(1).map((line) => line.split(" ")[1])).toEqual(
			Array.from({ length: 10 }, (_, i) => `d${i + 2}:`),
		);
	});

	it("says when there is none yet", () => {
		expect(formatWhy([])).toBe("No decision yet in this session: the auto-continue has not acted.");
	});
});
