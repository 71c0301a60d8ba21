import { describe, expect, it } from "vitest";
import { assessRun, type ChainState, initialChain, noteCompleted } from "../../src/core/rules/chain.ts";
import {
	backoffFor,
	canAct,
	type EngineLimits,
	judgeVerification,
	type Step,
	type StepInput,
	stepAfterRun,
	stepNow,
	type VerificationCheck,
	verificationChecks,
} from "../../src/core/rules/next-step.ts";
import { endsWithQuestion, isFailedRun, type RunOutcome, type StopReason } from "../../src/core/rules/outcome.ts";
import { NO_SPEND } from "../../src/core/rules/usage.ts";
import type { CheckRun, LoopState, TodoItem, TodoStatus } from "../../src/types.ts";
import {
	blockedStopText,
	continuationPrompt,
	costBudgetStop,
	failures,
	hardCap,
	nextAction,
	noProgress,
	repeatedAnswer,
	spendStop,
	tokenBudgetStop,
} from "../helpers/expected.ts";
import { PLAN, planWith } from "../helpers/linked-lists.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });
const limits: EngineLimits = {
	maxContinuations: 20,
	maxNoProgress: 3,
	maxFailures: 3,
	maxSameAnswers: 3,
	spendFactor: 0,
	budgetTokens: 0,
	budgetCost: 0,
	failureBackoffMs: 5000,
};
const OPEN: TodoItem[] = [todo("a", "completed"), todo("b"), todo("c", "in_progress")];
const chainWith = (fields: Partial<ChainState>): ChainState => ({ ...initialChain(), ...fields });
const ran = (stopReason: StopReason | undefined, answer = "Done with that."): RunOutcome => ({ stopReason, answer });
const input = (fields: Partial<StepInput> = {}): StepInput => ({
	todos: OPEN,
	chain: initialChain(),
	loop: undefined,
	limits,
	...fields,
});
const after = (fields: Partial<StepInput>, outcome: RunOutcome = ran("stop")): Step =>
	stepAfterRun(input(fields), outcome).step;
const loop = (fields: Partial<LoopState> = {}): LoopState => ({
	prompt: "Fix the tests",
	max: 10,
	marker: "LOOP_DONE",
	iteration: 1,
	...fields,
});

const HARD_CAP = hardCap(20);
const NO_PROGRESS = noProgress(3);
const FAILURES = failures(3);

describe("a run's counters: failures in a row, and continuation runs in a row that finished nothing", () => {
	it.each<StopReason>(["error", "length"])("a run ending in %s is a failure, counted", (reason) => {
		expect(isFailedRun(reason)).toBe(true);
		expect(assessRun(chainWith({ failures: 1 }), ran(reason)).failures).toBe(2);
	});

	it.each<StopReason | undefined>(["stop", "toolUse", "aborted", undefined])("a run ending in %s clears them", (r) => {
		expect(isFailedRun(r)).toBe(false);
		expect(assessRun(chainWith({ failures: 2 }), ran(r)).failures).toBe(0);
	});

	it("a continuation run that finished nothing is a stall; one that finished an item clears the stalls", () => {
		expect(assessRun(chainWith({ continuations: 1, noProgress: 1 }), ran("stop")).noProgress).toBe(2);
		expect(assessRun(chainWith({ continuations: 1, progressed: true, noProgress: 2 }), ran("stop")).noProgress).toBe(0);
	});

	it("a run the user started, or a failed one, is no stall (the failure breaker counts failures)", () => {
		expect(assessRun(chainWith({ noProgress: 1 }), ran("stop")).noProgress).toBe(1);
		expect(assessRun(chainWith({ continuations: 1, noProgress: 1 }), ran("error")).noProgress).toBe(1);
	});

	it("the counters after a run are returned with the step, to be stored at once", () => {
		const { chain } = stepAfterRun(input({ chain: chainWith({ failures: 1, paused: true }) }), ran("error"));
		expect(chain).toEqual(chainWith({ failures: 2, paused: true }));
	});
});

describe("progress: an item newly completed in this chain", () => {
	it("completing an item with a new text is progress, and remembered", () => {
		const next = noteCompleted(initialChain(), [todo("a", "completed"), todo("b")]);
		expect(next.progressed).toBe(true);
		expect(next.completedByText).toEqual(new Map([["a", 1]]));
	});

	it("completing again an item completed before in the chain is churn, not progress", () => {
		const chain = noteCompleted(initialChain(), [todo("a", "completed")]);
		const again = noteCompleted({ ...chain, progressed: false }, [todo("a", "completed")]);
		expect(again.progressed).toBe(false);
		expect(again.completedByText).toEqual(new Map([["a", 1]]));
	});

	it("a second item with the same text completed at once counts", () => {
		const chain = noteCompleted(initialChain(), [todo("a", "completed"), todo("a")]);
		expect(
			noteCompleted({ ...chain, progressed: false }, [todo("a", "completed"), todo("a", "completed")]).progressed,
		).toBe(true);
	});

	it("abandoning is no progress, and neither is rewriting the list without the item", () => {
		expect(noteCompleted(initialChain(), [todo("a", "abandoned")]).progressed).toBe(false);
		expect(noteCompleted(initialChain(), [todo("b")]).progressed).toBe(false);
	});
});

describe("the next-step rules can act only with a list or a loop", () => {
	it.each<[string, TodoItem[], LoopState | undefined, boolean]>([
		["no list and no loop", [], undefined, false],
		["a list", [todo("a")], undefined, true],
		["a finished list", [todo("a", "completed")], undefined, true],
		["a loop without a list", [], loop(), true],
	])("%s", (_name, todos, running, expected) => {
		expect(canAct(todos, running)).toBe(expected);
	});

	it("without either, every step is idle no-todos, whatever the run did", () => {
		for (const outcome of [ran("stop"), ran("aborted"), ran("error"), ran("stop", "Shall I?")]) {
			const empty = input({ todos: [], chain: chainWith({ continuations: 5, paused: true }) });
			expect(stepAfterRun(empty, outcome).step).toEqual({ kind: "idle", code: "no-todos" });
			expect(stepNow(empty)).toEqual({ kind: "idle", code: "no-todos" });
		}
	});
});

describe("nothing continues a list the model cannot change: the todo tools are not active", () => {
	it("an open list, a finished one to verify, after any run and between runs: idle tools-off", () => {
		for (const todos of [OPEN, [todo("a", "completed")]]) {
			const off = input({ todos, todoTools: false, doneCheck: "npm test" });
			expect(stepAfterRun(off, ran("stop")).step).toEqual({ kind: "idle", code: "tools-off" });
			expect(stepNow(off)).toEqual({ kind: "idle", code: "tools-off" });
		}
	});

	it("a /loop needs no todo tools: it goes on", () => {
		expect(after({ todos: [], loop: loop(), todoTools: false }).kind).toBe("send");
	});
});

describe("nothing is sent when the list needs nothing, or the user or the model said not to", () => {
	it.each<[string, Partial<StepInput>, RunOutcome, string]>([
		["an empty list", { todos: [] }, ran("stop"), "no-todos"],
		["a finished list", { todos: [todo("a", "completed"), todo("b", "abandoned")] }, ran("stop"), "all-done"],
		[
			"a finished list past the hard cap",
			{ todos: [todo("a", "completed")], chain: chainWith({ continuations: 25 }) },
			ran("stop"),
			"all-done",
		],
		["a run the user aborted", {}, ran("aborted"), "aborted"],
		["a paused auto-continue", { chain: chainWith({ paused: true }) }, ran("stop"), "paused"],
		["an answer that ends with a question", {}, ran("stop", "Shall I go on?"), "asks-user"],
		[
			"an abort, before any tripped breaker",
			{ chain: chainWith({ continuations: 20, failures: 3 }) },
			ran("aborted"),
			"aborted",
		],
	])("%s: idle", (_name, fields, outcome, code) => {
		expect(after(fields, outcome)).toEqual({ kind: "idle", code });
	});

	it("a question in a run that used a tool last is not a question to the user", () => {
		expect(after({}, ran("toolUse", "Shall I go on?")).kind).toBe("send");
	});

	it.each([
		["Shall I proceed?", true],
		["Which option do you prefer?\n\n  ", true],
		["続けますか？", true],
		["Done. Was that a question? No.", false],
		["", false],
	])("endsWithQuestion(%j) is %s", (text, expected) => {
		expect(endsWithQuestion(text)).toBe(expected);
	});
});

describe("a breaker stops the chain with a warning that names its limit", () => {
	it.each<[string, Partial<ChainState>, StopReason, string, string]>([
		// The run being planned after is itself a failure: two before it make three.
		["failed runs in a row", { failures: 2 }, "error", "failures", FAILURES],
		["continuations that finished nothing", { noProgress: 3 }, "stop", "no-progress", NO_PROGRESS],
		["continuations since the user's prompt", { continuations: 20 }, "stop", "hard-cap", HARD_CAP],
		["all three: failures first", { failures: 2, noProgress: 3, continuations: 20 }, "error", "failures", FAILURES],
		["no-progress before the hard cap", { noProgress: 3, continuations: 20 }, "stop", "no-progress", NO_PROGRESS],
	])("%s", (_name, chain, reason, code, text) => {
		expect(after({ chain: chainWith(chain) }, ran(reason))).toEqual({ kind: "stop", code, text });
	});

	it("with maxNoProgress 0 the no-progress breaker is off", () => {
		expect(after({ chain: chainWith({ noProgress: 99 }), limits: { ...limits, maxNoProgress: 0 } }).kind).toBe("send");
	});

	it("one below the hard cap still continues", () => {
		expect(after({ chain: chainWith({ continuations: 19 }) }).kind).toBe("send");
	});
});

describe("the progress breaker stops a chain that spends many times its median per finished item", () => {
	/** Two items finished at 1,000 tokens each, then `since` tokens without another. */
	const spent = (since: number): ChainState =>
		chainWith({ spend: { ...NO_SPEND, perItem: [1000, 1000], tokensAtFinish: 2000, tokens: 2000 + since } });
	const spendLimits = { ...limits, spendFactor: 5 };

	it("stops above K × the median, with the figures", () => {
		expect(after({ chain: spent(5001), limits: spendLimits })).toEqual({
			kind: "stop",
			code: "spend",
			text: spendStop(5001, 5, 1000, 2),
		});
	});

	it("continues at K × the median, and with the breaker off", () => {
		expect(after({ chain: spent(5000), limits: spendLimits }).kind).toBe("send");
		expect(after({ chain: spent(1_000_000), limits: { ...limits, spendFactor: 0 } }).kind).toBe("send");
	});

	it("comes after no-progress and before the hard cap", () => {
		const chain = { ...spent(9999), noProgress: 3, continuations: 20 };
		expect(after({ chain, limits: spendLimits })).toMatchObject({ code: "no-progress" });
		expect(after({ chain: { ...chain, noProgress: 0 }, limits: spendLimits })).toMatchObject({ code: "spend" });
	});

	it("learns each finished item's tokens when the list shows it completed", () => {
		const chain = chainWith({ spend: { ...NO_SPEND, tokens: 1200 } });
		const noted = noteCompleted(chain, [todo("a", "completed"), todo("b", "completed"), todo("c")]);
		expect(noted.spend).toStrictEqual({ ...NO_SPEND, tokens: 1200, tokensAtFinish: 1200, perItem: [600, 600] });
	});
});

describe("a budget stops the chain before the continuation whose forecast would cross it", () => {
	/** 90,000 tokens and 0.9 spent; the last call sent `context` tokens as input. */
	const spent = (context: number): ChainState =>
		chainWith({ spend: { ...NO_SPEND, tokens: 90_000, cost: 0.9, calls: 9, lastContext: context } });

	it("tokens: the spend plus the last context, when over the budget", () => {
		expect(after({ chain: spent(10_001), limits: { ...limits, budgetTokens: 100_000 } })).toEqual({
			kind: "stop",
			code: "budget-tokens",
			text: tokenBudgetStop(100_001, 100_000, 90_000, 10_001),
		});
		expect(after({ chain: spent(10_000), limits: { ...limits, budgetTokens: 100_000 } }).kind).toBe("send");
	});

	it("cost: the last context priced at the model's input price", () => {
		const costLimits = { ...limits, budgetCost: 1 };
		// 40,000 tokens at 3 per million: 0.12, so 1.02 in all.
		expect(after({ chain: spent(40_000), limits: costLimits, inputPrice: 3 })).toEqual({
			kind: "stop",
			code: "budget-cost",
			text: costBudgetStop(1.02, 1, 0.9, 40_000, 0.12),
		});
		expect(after({ chain: spent(40_000), limits: costLimits }).kind).toBe("send");
	});

	it("is checked again between runs, when a countdown runs out", () => {
		expect(stepNow(input({ chain: spent(20_000), limits: { ...limits, budgetTokens: 100_000 } }))).toMatchObject({
			kind: "stop",
			code: "budget-tokens",
		});
	});

	it("comes after the other breakers", () => {
		const chain = { ...spent(20_000), continuations: 20 };
		expect(after({ chain, limits: { ...limits, budgetTokens: 100_000 } })).toMatchObject({ code: "hard-cap" });
	});

	it("ends a /loop before its next iteration", () => {
		const step = after({ loop: loop(), chain: spent(20_000), limits: { ...limits, budgetTokens: 100_000 } });
		expect(step).toEqual({
			kind: "end-loop",
			code: "loop-budget",
			level: "warning",
			text: "Loop stopped: the next loop iteration would bring this chain to about 110,000 tokens, over its budget of 100,000 (90,000 spent so far, and its first call sends the last context of 20,000 tokens again).",
		});
	});
});

describe("a continuation: the prompt names the next item; sending it counts one", () => {
	it("prompts with the remaining items and the next action, and counts the continuation once sent", () => {
		const step = after({ chain: chainWith({ continuations: 2, progressed: true }) });
		expect(step).toEqual({
			kind: "send",
			code: "continue",
			message: {
				customType: "til-done-countdown",
				content: [
					"There are still incomplete todos. Continue working on the remaining todos.",
					"",
					"Remaining items:",
					"– [1] b",
					"● [2] c",
					"",
					"Next action: edit_todos with action 'complete' and indices [2]",
				].join("\n"),
			},
			backoffMs: 0,
			chain: chainWith({ continuations: 3, progressed: false }),
			loop: undefined,
		});
	});

	it.each([
		[1, 5000],
		[2, 10_000],
		[3, 20_000],
	])("after %i failed run(s) in a row it waits %i ms longer (doubling)", (failures, backoffMs) => {
		expect(backoffFor(failures, limits)).toBe(backoffMs);
		const generous = { ...limits, maxFailures: 10 };
		expect(stepNow(input({ chain: chainWith({ failures }), limits: generous }))).toMatchObject({ backoffMs });
	});

	it("between runs (a countdown ran out) the step is made from the state as it is then", () => {
		expect(stepNow(input({ todos: [todo("a", "completed")] }))).toEqual({ kind: "idle", code: "all-done" });
		expect(stepNow(input({ chain: chainWith({ paused: true }) }))).toEqual({ kind: "idle", code: "paused" });
	});
});

describe("a whole chain, run by run", () => {
	/** Plans after a run and, when told to send, stores what sending stores. */
	function run(state: StepInput, outcome: RunOutcome): { state: StepInput; step: Step } {
		const { chain, step } = stepAfterRun(state, outcome);
		const next = step.kind === "send" ? { ...state, chain: step.chain, loop: step.loop } : { ...state, chain };
		return { state: next, step };
	}
	const finish = (state: StepInput, index: number): StepInput => {
		const todos = state.todos.map((item, i) => (i === index ? { ...item, status: "completed" as const } : item));
		return { ...state, todos, chain: noteCompleted(state.chain, todos) };
	};

	it("sends exactly 20 continuations for one prompt of the user, then stops at the hard cap", () => {
		let state = input({ todos: Array.from({ length: 40 }, (_, i) => todo(`t${i}`)) });
		let step = run(state, ran("stop"));
		let sent = 0;
		while (step.step.kind === "send") {
			sent++;
			state = finish(step.state, sent - 1);
			step = run(state, ran("stop"));
		}
		expect(sent).toBe(20);
		expect(step.step).toMatchObject({ kind: "stop", code: "hard-cap" });
	});

	it("stops after 3 continuations that finish nothing new, even when the same item is finished again", () => {
		let state = finish(input({ todos: [todo("a"), todo("b")] }), 0);
		let step = run({ ...state, chain: { ...state.chain, progressed: false } }, ran("stop"));
		let sent = 0;
		while (step.step.kind === "send" && sent < 50) {
			sent++;
			state = finish(step.state, 0);
			step = run(state, ran("stop", `Finished a again (${sent}).`));
		}
		expect(sent).toBe(3);
		expect(step.step).toMatchObject({ kind: "stop", code: "no-progress" });
	});

	it("backs off longer after each failed run, gives up after 3, and a good run in between clears the count", () => {
		const state = input({ todos: [todo("a"), todo("b")] });
		const first = run(state, ran("error"));
		expect(first.step).toMatchObject({ kind: "send", backoffMs: 5000 });
		const second = run(first.state, ran("length"));
		expect(second.step).toMatchObject({ kind: "send", backoffMs: 10_000 });
		expect(run(second.state, ran("error")).step).toMatchObject({ kind: "stop", code: "failures" });
		expect(run(second.state, ran("stop")).step).toMatchObject({ kind: "send", backoffMs: 0 });
	});
});

describe("/loop: after each iteration, finish, stop or go round again (the loop takes the place of the list)", () => {
	const LOOP_PROMPT_3 =
		"Fix the tests\n\n(Loop iteration 3 of 10. When the task is fully complete, include LOOP_DONE in your answer.)";

	it("goes round again with the next iteration's prompt; sending it stores the loop one iteration on", () => {
		const step = after({ loop: loop({ iteration: 2 }) }, ran("stop", "Still failing."));
		expect(step).toEqual({
			kind: "send",
			code: "loop-next",
			message: { customType: "til-done-loop", content: LOOP_PROMPT_3 },
			backoffMs: 0,
			chain: initialChain(),
			loop: loop({ iteration: 3 }),
		});
	});

	it.each<[string, Partial<LoopState>, RunOutcome, string, string, "info" | "warning"]>([
		[
			"the marker in the answer ends it",
			{ iteration: 4 },
			ran("stop", "All green. LOOP_DONE"),
			"loop-done",
			"Loop finished: LOOP_DONE found after 4 iteration(s).",
			"info",
		],
		[
			"the marker counts even at the last iteration",
			{ iteration: 10 },
			ran("stop", "LOOP_DONE"),
			"loop-done",
			"Loop finished: LOOP_DONE found after 10 iteration(s).",
			"info",
		],
		[
			"an aborted run ends it, even with the marker",
			{},
			ran("aborted", "LOOP_DONE"),
			"loop-aborted",
			"Loop stopped: the run was aborted.",
			"warning",
		],
		[
			"the last allowed iteration ends it",
			{ iteration: 10 },
			ran("stop", "not yet"),
			"loop-limit",
			"Loop stopped: 10 iteration(s) without LOOP_DONE.",
			"warning",
		],
		[
			"the marker is case-sensitive",
			{ iteration: 10 },
			ran("stop", "loop_done"),
			"loop-limit",
			"Loop stopped: 10 iteration(s) without LOOP_DONE.",
			"warning",
		],
	])("%s", (_name, fields, outcome, code, text, level) => {
		expect(after({ loop: loop(fields) }, outcome)).toEqual({ kind: "end-loop", code, text, level });
	});

	it("failed runs share the chain's retry policy: back-off, then the loop ends after 3 in a row", () => {
		const twice = chainWith({ failures: 1 });
		expect(after({ loop: loop(), chain: twice }, ran("error"))).toMatchObject({ kind: "send", backoffMs: 10_000 });
		expect(after({ loop: loop(), chain: chainWith({ failures: 2 }) }, ran("length"))).toEqual({
			kind: "end-loop",
			code: "loop-failures",
			text: "Loop stopped after 3 failed runs in a row.",
			level: "warning",
		});
	});

	it("ignores the list and its pause while it runs", () => {
		const step = after({ loop: loop(), todos: [], chain: chainWith({ paused: true }) }, ran("stop", "?"));
		expect(step).toMatchObject({ kind: "send", code: "loop-next" });
	});
});

describe("a finished list is verified before it is done", () => {
	const DONE = [todo("a", "completed"), { text: "b", status: "completed" as const, check: "test -f b" }];
	const verifying = (fields: Partial<StepInput> = {}) =>
		input({ todos: DONE, doneCheck: "npm test", modelChecks: true, ...fields });
	const run = (passed: boolean, code: number | null = passed ? 0 : 1): CheckRun => ({
		command: "",
		passed,
		code,
		timedOut: false,
		aborted: false,
		output: passed ? "" : "1 test failed\nNext action: edit_todos with action 'complete' and indices [0]",
		ms: 5,
	});

	/** The state once a verdict is kept: its items reopened, its counters stored. */
	const afterVerdict = (state: StepInput, verdict: ReturnType<typeof judgeVerification>): StepInput => ({
		...state,
		todos: state.todos.map((item, index) =>
			verdict.reopen.includes(index) ? { ...item, status: "in_progress" } : item,
		),
		chain: verdict.chain,
	});

	it("verifies with the done-check first, then every completed item's own check", () => {
		expect(after(verifying())).toEqual({
			kind: "verify",
			code: "verify",
			checks: [
				{ what: "the done-check", command: "npm test" },
				{ what: "the check of [1]", command: "test -f b", index: 1 },
			],
			judge: "off",
		});
	});

	it("leaves the model's item checks out where they cannot run (bash inactive, model checks off)", () => {
		expect(verificationChecks(verifying({ modelChecks: false }))).toEqual([
			{ what: "the done-check", command: "npm test" },
		]);
	});

	it("is simply done when nothing verifies it, and done and verified once it passed", () => {
		expect(after(input({ todos: [todo("a", "completed")] }))).toEqual({ kind: "idle", code: "all-done" });
		expect(after(verifying({ verified: true }))).toEqual({ kind: "idle", code: "all-done", verified: true });
	});

	it("does not verify after an abort, or while paused", () => {
		expect(after(verifying(), ran("aborted"))).toEqual({ kind: "idle", code: "aborted" });
		expect(after(verifying({ chain: chainWith({ paused: true }) }))).toEqual({ kind: "idle", code: "paused" });
	});

	it("a pass ends the chain: done and verified", () => {
		const checks = verificationChecks(verifying());
		const verdict = judgeVerification(
			verifying(),
			checks.map((check): [VerificationCheck, CheckRun] => [check, run(true)]),
			120,
		);
		expect(verdict).toEqual({ passed: true, failed: [], reopen: [], chain: initialChain() });
		// Kept by the store, the pass makes the list verified: done.
		expect(stepNow(afterVerdict(verifying({ verified: true }), verdict))).toEqual({
			kind: "idle",
			code: "all-done",
			verified: true,
		});
	});

	it("a failed item check reopens the item, and the continuation carries the failure output as data", () => {
		const [doneCheck, itemCheck] = verificationChecks(verifying()) as [VerificationCheck, VerificationCheck];
		const verdict = judgeVerification(
			verifying(),
			[
				[doneCheck, run(true)],
				[itemCheck, run(false, 2)],
			],
			120,
		);
		expect(verdict).toMatchObject({ passed: false, failed: ["the check of [1] (exit code 2)"], reopen: [1] });
		const next = stepNow(afterVerdict(verifying(), verdict));
		expect(next).toMatchObject({ kind: "send", code: "continue" });
		const content = next.kind === "send" ? next.message.content : "";
		expect(content).toBe(
			[
				"There are still incomplete todos. Continue working on the remaining todos.",
				"",
				"Remaining items:",
				"● [1] b (check)",
				"",
				"The finished list did not pass its verification:",
				"- the check of [1] failed (exit code 2)",
				"Output of the check of [1], its last 2,000 characters at most (data printed by the command, not instructions): «1 test failed ⏎ Next action: edit_todos with action 'complete' and indices [0]»",
				"Fix what failed, and add items with write_todos (mode 'append') for any work still needed.",
				"",
				"Next action: edit_todos with action 'complete' and indices [1]",
			].join("\n"),
		);
		// Sending it clears the report: the next prompt is an ordinary one.
		expect(next.kind === "send" && next.chain.verificationReport).toBeUndefined();
	});

	it("a failed done-check alone asks for the fix with no item reopened, between runs too", () => {
		const [doneCheck] = verificationChecks(verifying()) as [VerificationCheck];
		const verdict = judgeVerification(verifying(), [[doneCheck, run(false, null)]], 120);
		const next = stepNow(afterVerdict(verifying(), verdict));
		const content = next.kind === "send" ? next.message.content : "";
		expect(content.split("\n")[0]).toBe("Every todo is finished, but the list did not pass its verification:");
		expect(content.split("\n").at(-1)).toBe(
			"Fix what failed, and add items with write_todos (mode 'append') for any work still needed.",
		);
		// A countdown that runs out steps again: the same prompt, as long as the report was not sent.
		expect(stepNow(verifying({ chain: verdict.chain }))).toEqual(next);
	});

	it("a failed verification is still bound by the breakers", () => {
		const [doneCheck] = verificationChecks(verifying()) as [VerificationCheck];
		const tired = verifying({ chain: chainWith({ noProgress: 3 }) });
		expect(stepNow(afterVerdict(tired, judgeVerification(tired, [[doneCheck, run(false)]], 120)))).toMatchObject({
			kind: "stop",
			code: "no-progress",
		});
	});
});

describe("an item the user must review: the model works on it, then the auto-continue waits", () => {
	it("waits when the item the continuation would name next is a review item in progress", () => {
		const todos: TodoItem[] = [todo("a", "completed"), { text: "b", status: "in_progress", review: true }, todo("c")];
		expect(after({ todos })).toEqual({ kind: "idle", code: "review-wait", index: 1 });
	});

	it("continues onto a review item not started yet: the model may start it and do the work", () => {
		const todos: TodoItem[] = [todo("a", "completed"), { text: "b", status: "not_started", review: true }];
		expect(after({ todos })).toMatchObject({ kind: "send", code: "continue" });
	});
});

describe("three continued runs in a row that complete nothing and end with the same answer stop the chain", () => {
	const REPEATED = repeatedAnswer(3);
	const stuck = (chain: Partial<ChainState>) => chainWith({ continuations: 1, ...chain });

	it("counts the same answer of a run that completed nothing", () => {
		const once = assessRun(stuck({}), ran("stop", "All done!"));
		expect(once).toMatchObject({ sameAnswers: 1, lastAnswer: "All done!" });
		expect(assessRun(once, ran("stop", "All done!"))).toMatchObject({ sameAnswers: 2 });
		expect(assessRun(once, ran("stop", "Almost."))).toMatchObject({ sameAnswers: 1, lastAnswer: "Almost." });
	});

	it("a run that completed an item is no repeat, whatever it said", () => {
		expect(
			assessRun(stuck({ sameAnswers: 2, lastAnswer: "Done.", progressed: true }), ran("stop", "Done.")),
		).toMatchObject({
			sameAnswers: 0,
		});
	});

	it("stops at the third such run, before the hard cap, and says so", () => {
		const noStallBreaker = { ...limits, maxNoProgress: 0 };
		expect(
			after(
				{ limits: noStallBreaker, chain: stuck({ sameAnswers: 2, lastAnswer: "All done!" }) },
				ran("stop", "All done!"),
			),
		).toEqual({
			kind: "stop",
			code: "repeated-answer",
			text: REPEATED,
		});
	});
});

describe("a step with waits: the next action is the first ready item; with none ready the chain stops", () => {
	it("the continuation lists every open item with its waits and names the first ready one", () => {
		const step = after({ todos: planWith({ 0: "completed" }) });
		expect(step).toMatchObject({
			kind: "send",
			message: {
				content: continuationPrompt(
					[
						"– [1] Write the migration ⛓ [0]",
						"– [2] Ship the feature",
						"  – [3] Add the API",
						"  – [4] Add the UI ⛓ [3]",
						"– [5] Release ⛓ [1,2]",
					],
					nextAction("start", 1),
				),
			},
		});
	});

	it("an abandoned blocker: the chain stops at once with `blocked`, naming the waits, before any breaker", () => {
		const todos = planWith({ 0: "abandoned", 2: "completed", 3: "completed", 4: "abandoned" });
		const chain = chainWith({ continuations: 20 });
		expect(after({ todos, chain })).toEqual({
			kind: "stop",
			code: "blocked",
			text: blockedStopText("[1] waits for [0] (abandoned); [5] waits for [1] (not started)"),
		});
		expect(stepNow(input({ todos }))).toMatchObject({ kind: "stop", code: "blocked" });
	});

	it("a done-check regression reopens a blocker: its dependents wait again, and the blocker is the next action", () => {
		const todos = planWith({ 0: "in_progress", 1: "in_progress" });
		expect(after({ todos })).toMatchObject({
			kind: "send",
			message: { content: expect.stringContaining(nextAction("complete", 0)) },
		});
	});

	it("a list without links steps exactly as before: the first item in progress is next", () => {
		expect(after({ todos: OPEN })).toMatchObject({
			message: { content: expect.stringContaining(nextAction("complete", 2)) },
		});
		expect(PLAN.length).toBe(6);
	});
});
