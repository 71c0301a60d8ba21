import { beforeEach, describe, expect, it } from "vitest";
import {
	assessRun,
	type ChainState,
	decideNext,
	type EngineLimits,
	endsWithQuestion,
	initialChain,
	lastAssistantText,
	lastStopReason,
	type StopReason,
} from "../../src/continuation.ts";
import {
	getChain,
	incrementAutoContinue,
	resetChain,
	resetState,
	setChain,
	setTodos,
	updateTodoStatus,
} from "../../src/state.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

const limits: EngineLimits = { maxContinuations: 20, maxNoProgress: 3, maxFailures: 3, failureBackoffMs: 5000 };
const open: TodoItem[] = [todo("a", "completed"), todo("b"), todo("c", "in_progress")];
const chainWith = (fields: Partial<ChainState>): ChainState => ({ ...initialChain(), ...fields });

beforeEach(() => {
	resetState();
});

describe("initialChain starts every counter at zero, unpaused", () => {
	it("has no continuations, no stall, no failures", () => {
		expect(initialChain()).toEqual({
			continuations: 0,
			noProgress: 0,
			failures: 0,
			runIsContinuation: false,
			progressed: false,
			paused: false,
		});
	});
});

describe("assessRun updates the failure and no-progress counters", () => {
	it.each<StopReason>(["error", "length"])("counts a run ending in %s as a failure", (reason) => {
		expect(assessRun(chainWith({ failures: 1 }), reason).failures).toBe(2);
	});

	it.each<StopReason | undefined>(["stop", "toolUse", "aborted", undefined])(
		"a run ending in %s clears failures",
		(reason) => {
			expect(assessRun(chainWith({ failures: 2 }), reason).failures).toBe(0);
		},
	);

	it("counts a continuation run that finished nothing as a stall", () => {
		expect(assessRun(chainWith({ runIsContinuation: true, noProgress: 1 }), "stop").noProgress).toBe(2);
	});

	it("clears the stall count when an item was newly finished", () => {
		expect(assessRun(chainWith({ runIsContinuation: true, progressed: true, noProgress: 2 }), "stop").noProgress).toBe(
			0,
		);
	});

	it("does not count a run the user started as a stall", () => {
		expect(assessRun(chainWith({ runIsContinuation: false, noProgress: 1 }), "stop").noProgress).toBe(1);
	});

	it("does not count a failed continuation as a stall (the failure breaker handles it)", () => {
		expect(assessRun(chainWith({ runIsContinuation: true, noProgress: 1 }), "error").noProgress).toBe(1);
	});

	it("returns a new chain and keeps the other fields", () => {
		const chain = chainWith({ continuations: 4, paused: true, pauseReason: "x" });
		const next = assessRun(chain, "stop");
		expect(next).not.toBe(chain);
		expect(next).toMatchObject({ continuations: 4, paused: true, pauseReason: "x" });
	});
});

describe("decideNext skips when there is nothing to continue or the user should speak", () => {
	it("skips with no-todos for an empty list", () => {
		expect(decideNext([], initialChain(), "stop", limits)).toEqual({ kind: "skip", reason: "no-todos" });
	});

	it("skips with all-done when every item is completed or abandoned", () => {
		const done = [todo("a", "completed"), todo("b", "abandoned")];
		expect(decideNext(done, initialChain(), "stop", limits)).toEqual({ kind: "skip", reason: "all-done" });
	});

	it("skips with all-done even past the hard cap (defect 1: no limit message when nothing remains)", () => {
		const done = [todo("a", "completed")];
		expect(decideNext(done, chainWith({ continuations: 25 }), "stop", limits)).toEqual({
			kind: "skip",
			reason: "all-done",
		});
	});

	it("skips with aborted when the user stopped the run", () => {
		expect(decideNext(open, initialChain(), "aborted", limits)).toEqual({ kind: "skip", reason: "aborted" });
	});

	it("skips with paused while auto-continue is paused", () => {
		expect(decideNext(open, chainWith({ paused: true }), "stop", limits)).toEqual({ kind: "skip", reason: "paused" });
	});

	it("skips with asks-user when the model ended on a question", () => {
		expect(decideNext(open, initialChain(), "stop", limits, { asksUser: true })).toEqual({
			kind: "skip",
			reason: "asks-user",
		});
	});

	it("prefers a skip over a tripped breaker", () => {
		const tripped = chainWith({ continuations: 20, failures: 3, noProgress: 3 });
		expect(decideNext(open, tripped, "aborted", limits)).toEqual({ kind: "skip", reason: "aborted" });
	});
});

describe("decideNext stops when a breaker trips", () => {
	it("stops with failures after maxFailures failed runs in a row", () => {
		expect(decideNext(open, chainWith({ failures: 3 }), "error", limits)).toEqual({ kind: "stop", stop: "failures" });
	});

	it("stops with no-progress after maxNoProgress stalled continuations", () => {
		expect(decideNext(open, chainWith({ noProgress: 3 }), "stop", limits)).toEqual({
			kind: "stop",
			stop: "no-progress",
		});
	});

	it("never stops for no-progress when maxNoProgress is 0", () => {
		const off = { ...limits, maxNoProgress: 0 };
		expect(decideNext(open, chainWith({ noProgress: 99 }), "stop", off).kind).toBe("continue");
	});

	it("stops with hard-cap at maxContinuations", () => {
		expect(decideNext(open, chainWith({ continuations: 20 }), "stop", limits)).toEqual({
			kind: "stop",
			stop: "hard-cap",
		});
	});

	it("still continues one below the hard cap", () => {
		expect(decideNext(open, chainWith({ continuations: 19 }), "stop", limits).kind).toBe("continue");
	});

	it("reports failures before no-progress before hard-cap", () => {
		expect(decideNext(open, chainWith({ failures: 3, noProgress: 3, continuations: 20 }), "error", limits)).toEqual({
			kind: "stop",
			stop: "failures",
		});
		expect(decideNext(open, chainWith({ noProgress: 3, continuations: 20 }), "stop", limits)).toEqual({
			kind: "stop",
			stop: "no-progress",
		});
	});
});

describe("decideNext continues with the next item", () => {
	it("names the first in-progress item", () => {
		expect(decideNext(open, initialChain(), "stop", limits)).toEqual({ kind: "continue", nextIndex: 2, backoffMs: 0 });
	});

	it("names the first not-started item when nothing is in progress", () => {
		const list = [todo("a", "abandoned"), todo("b"), todo("c")];
		expect(decideNext(list, initialChain(), "stop", limits)).toEqual({ kind: "continue", nextIndex: 1, backoffMs: 0 });
	});

	it.each([
		[1, 5000],
		[2, 10_000],
		[3, 20_000],
	])("backs off %i failure(s) → %i ms (doubling)", (failures, backoffMs) => {
		const generous = { ...limits, maxFailures: 10 };
		expect(decideNext(open, chainWith({ failures }), "error", generous)).toEqual({
			kind: "continue",
			nextIndex: 2,
			backoffMs,
		});
	});
});

/** One engine step as engine.ts runs it, on the real store: assess the run, decide, and send if told to. */
function endRun(stopReason: StopReason, chainLimits: EngineLimits = limits) {
	setChain(assessRun(getChain(), stopReason));
	const decision = decideNext([todo("x"), todo("y")], getChain(), stopReason, chainLimits);
	if (decision.kind === "continue") incrementAutoContinue();
	return decision;
}

describe("breakers over a whole chain", () => {
	it("sends exactly 20 continuations per user prompt, then trips the hard cap", () => {
		setTodos(Array.from({ length: 40 }, (_, i) => todo(`t${i}`)));
		resetChain();
		let sent = 0;
		let decision = endRun("stop");
		while (decision.kind === "continue") {
			sent++;
			updateTodoStatus([sent - 1], "completed");
			decision = endRun("stop");
		}
		expect(sent).toBe(20);
		expect(decision).toEqual({ kind: "stop", stop: "hard-cap" });
	});

	it("stops after 3 continuations that finish nothing", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		let sent = 0;
		let decision = endRun("stop");
		while (decision.kind === "continue") {
			sent++;
			updateTodoStatus([0], sent % 2 === 0 ? "not_started" : "in_progress");
			decision = endRun("stop");
		}
		expect(sent).toBe(3);
		expect(decision).toEqual({ kind: "stop", stop: "no-progress" });
	});

	it("re-completing the same item is churn: the no-progress breaker still trips", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		let sent = 0;
		let decision = endRun("stop");
		while (decision.kind === "continue" && sent < 50) {
			sent++;
			updateTodoStatus([0], "in_progress");
			updateTodoStatus([0], "completed");
			decision = endRun("stop");
		}
		expect(sent).toBe(4);
		expect(decision).toEqual({ kind: "stop", stop: "no-progress" });
	});

	it("backs off longer after each failed run and gives up after 3", () => {
		setTodos([todo("a")]);
		resetChain();
		expect(endRun("error")).toEqual({ kind: "continue", nextIndex: 0, backoffMs: 5000 });
		expect(endRun("length")).toEqual({ kind: "continue", nextIndex: 0, backoffMs: 10_000 });
		expect(endRun("error")).toEqual({ kind: "stop", stop: "failures" });
	});

	it("a successful run in between clears the failures", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		endRun("error");
		updateTodoStatus([0], "completed");
		expect(endRun("stop")).toEqual({ kind: "continue", nextIndex: 0, backoffMs: 0 });
		expect(getChain().failures).toBe(0);
	});
});

describe("lastStopReason reads the last assistant message of the run", () => {
	const assistant = (stopReason: unknown, errorMessage?: string) => ({ role: "assistant", stopReason, errorMessage });

	it("returns the stop reason of the last assistant message, skipping later tool results", () => {
		const messages = [assistant("toolUse"), { role: "toolResult" }, assistant("stop"), { role: "toolResult" }];
		expect(lastStopReason(messages)).toBe("stop");
	});

	it.each<StopReason>(["stop", "toolUse", "length", "error", "aborted"])("passes %s through", (reason) => {
		expect(lastStopReason([assistant(reason)])).toBe(reason);
	});

	it.each(["Request was aborted", "Operation aborted by user", "ABORT"])(
		"treats an error that says %j as aborted",
		(errorMessage) => {
			expect(lastStopReason([assistant("error", errorMessage)])).toBe("aborted");
		},
	);

	it("keeps other errors as error", () => {
		expect(lastStopReason([assistant("error", "rate limit exceeded")])).toBe("error");
		expect(lastStopReason([assistant("error", "abortion clinic search failed")])).toBe("error");
	});

	it("is undefined without an assistant message", () => {
		expect(lastStopReason([])).toBeUndefined();
		expect(lastStopReason([{ role: "user" }, null, { role: "toolResult" }])).toBeUndefined();
	});

	it("is undefined when the stop reason is not a string", () => {
		expect(lastStopReason([assistant(undefined)])).toBeUndefined();
		expect(lastStopReason([assistant(3)])).toBeUndefined();
	});
});

describe("lastAssistantText joins the text blocks of the last assistant message", () => {
	it("joins text blocks with a line break and ignores other blocks", () => {
		const messages = [
			{ role: "assistant", content: [{ type: "text", text: "old" }] },
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "hmm" },
					{ type: "text", text: "First." },
					{ type: "toolCall", name: "x" },
					{ type: "text", text: "Shall I go on?" },
					null,
					{ type: "text", text: 5 },
				],
			},
			{ role: "toolResult", content: [{ type: "text", text: "tool output" }] },
		];
		expect(lastAssistantText(messages)).toBe("First.\nShall I go on?");
	});

	it("returns string content as is", () => {
		expect(lastAssistantText([{ role: "assistant", content: "plain" }])).toBe("plain");
	});

	it("returns an empty text without an assistant message or with odd content", () => {
		expect(lastAssistantText([{ role: "user", content: "hi" }])).toBe("");
		expect(lastAssistantText([{ role: "assistant", content: 42 }])).toBe("");
		expect(lastAssistantText([])).toBe("");
	});
});

describe("endsWithQuestion: the answer ends by asking the user", () => {
	it.each([
		["Shall I proceed?", true],
		["Which option do you prefer?\n\n  ", true],
		["続けますか？", true],
		["Done. Was that a question? No.", false],
		["All good.", false],
		["", false],
	])("%j → %s", (text, expected) => {
		expect(endsWithQuestion(text)).toBe(expected);
	});
});
