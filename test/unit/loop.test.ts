import { describe, expect, it } from "vitest";
import {
	DEFAULT_LOOP_MARKER,
	DEFAULT_LOOP_MAX,
	decideLoop,
	LOOP_MESSAGE_TYPE,
	type LoopState,
	loopEndMessage,
	loopPrompt,
	loopStatusText,
	MAX_LOOP_ITERATIONS,
	parseLoopArgs,
} from "../../src/loop.ts";

const USAGE = "usage: /loop [--max N] [--until MARKER] <prompt>";
const BAD_MAX = "--max takes a whole number from 1 to 1000";
const LIMITS = { maxFailures: 3, failureBackoffMs: 5000 };

const state = (overrides: Partial<LoopState> = {}): LoopState => ({
	prompt: "Fix the tests",
	max: 10,
	marker: "LOOP_DONE",
	iteration: 1,
	failures: 0,
	...overrides,
});

describe("constants", () => {
	it("defaults to 10 iterations, at most 1000, the marker LOOP_DONE and the message type til-done-loop", () => {
		expect(DEFAULT_LOOP_MAX).toBe(10);
		expect(MAX_LOOP_ITERATIONS).toBe(1000);
		expect(DEFAULT_LOOP_MARKER).toBe("LOOP_DONE");
		expect(LOOP_MESSAGE_TYPE).toBe("til-done-loop");
	});
});

describe("parseLoopArgs reads `[--max N] [--until MARKER] <prompt>`", () => {
	it("takes the defaults when there are no flags", () => {
		expect(parseLoopArgs("  fix the tests  ")).toEqual({
			spec: { prompt: "fix the tests", max: 10, marker: "LOOP_DONE" },
		});
	});

	it("reads the flags before the prompt", () => {
		expect(parseLoopArgs("--max 3 --until DONE fix it")).toEqual({
			spec: { prompt: "fix it", max: 3, marker: "DONE" },
		});
	});

	it("reads the flags after the prompt, in either order", () => {
		expect(parseLoopArgs("fix it --until DONE --max 3")).toEqual({
			spec: { prompt: "fix it", max: 3, marker: "DONE" },
		});
	});

	it("reads a flag in the middle, leaving the words around it", () => {
		expect(parseLoopArgs("fix --max 2 it")).toEqual({ spec: { prompt: "fix  it", max: 2, marker: "LOOP_DONE" } });
	});

	it("takes a double- or single-quoted marker with spaces, trimmed", () => {
		expect(parseLoopArgs('--until "ALL GREEN" go').spec?.marker).toBe("ALL GREEN");
		expect(parseLoopArgs("--until ' all  green ' go").spec?.marker).toBe("all  green");
	});

	it("accepts --max from 1 to 1000", () => {
		expect(parseLoopArgs("--max 1 go").spec?.max).toBe(1);
		expect(parseLoopArgs("--max 1000 go").spec?.max).toBe(1000);
		expect(parseLoopArgs("--max 007 go").spec?.max).toBe(7);
	});

	it.each(["0", "1001", "abc", "2.5", "-3", "1e2"])("rejects --max %s", (value) => {
		expect(parseLoopArgs(`--max ${value} go`)).toEqual({ error: BAD_MAX });
	});

	it("rejects an empty or blank quoted marker", () => {
		expect(parseLoopArgs('--until "" go')).toEqual({ error: "--until takes a non-empty marker" });
		expect(parseLoopArgs("--until '   ' go")).toEqual({ error: "--until takes a non-empty marker" });
	});

	it("rejects a missing prompt with the usage", () => {
		expect(parseLoopArgs("")).toEqual({ error: USAGE });
		expect(parseLoopArgs("   ")).toEqual({ error: USAGE });
		expect(parseLoopArgs("--max 3 --until DONE")).toEqual({ error: USAGE });
	});

	it("reads only a flag that stands as its own word", () => {
		expect(parseLoopArgs("x--max 3")).toEqual({ spec: { prompt: "x--max 3", max: 10, marker: "LOOP_DONE" } });
	});

	it("leaves a flag with no value in the prompt", () => {
		expect(parseLoopArgs("go --max")).toEqual({ spec: { prompt: "go --max", max: 10, marker: "LOOP_DONE" } });
	});
});

describe("loopPrompt appends the iteration and how to end the loop", () => {
	it("names the iteration, the maximum and the marker", () => {
		expect(loopPrompt(state({ iteration: 2, max: 5, marker: "SHIPPED" }))).toBe(
			"Fix the tests\n\n(Loop iteration 2 of 5. When the task is fully complete, include SHIPPED in your answer.)",
		);
	});
});

describe("decideLoop: after a run, finish, stop or go round again", () => {
	it("stops on an aborted run, even when the answer holds the marker", () => {
		expect(decideLoop(state(), "aborted", "LOOP_DONE", LIMITS)).toEqual({ kind: "stop", reason: "aborted" });
	});

	it("is done when the answer holds the marker, anywhere, even at the limits", () => {
		expect(decideLoop(state(), "stop", "All green. LOOP_DONE.", LIMITS)).toEqual({ kind: "done" });
		expect(decideLoop(state({ iteration: 10, failures: 3 }), "error", "xLOOP_DONEx", LIMITS)).toEqual({ kind: "done" });
	});

	it("is case-sensitive about the marker", () => {
		expect(decideLoop(state(), "stop", "loop_done", LIMITS)).toEqual({ kind: "continue", backoffMs: 0 });
	});

	it("stops after maxFailures failed runs in a row, before the iteration limit", () => {
		expect(decideLoop(state({ failures: 3, iteration: 10 }), "error", "", LIMITS)).toEqual({
			kind: "stop",
			reason: "failures",
		});
	});

	it("stops when the last allowed iteration has run", () => {
		expect(decideLoop(state({ iteration: 10 }), "stop", "", LIMITS)).toEqual({ kind: "stop", reason: "limit" });
		expect(decideLoop(state({ iteration: 9 }), "stop", "", LIMITS)).toEqual({ kind: "continue", backoffMs: 0 });
	});

	it("continues without a back-off after a good run, with an undefined stop reason too", () => {
		expect(decideLoop(state(), "toolUse", "", LIMITS)).toEqual({ kind: "continue", backoffMs: 0 });
		expect(decideLoop(state(), undefined, "", LIMITS)).toEqual({ kind: "continue", backoffMs: 0 });
	});

	it("backs off failureBackoffMs × 2^(failures − 1) after failed runs", () => {
		expect(decideLoop(state({ failures: 1 }), "error", "", LIMITS)).toEqual({ kind: "continue", backoffMs: 5000 });
		expect(decideLoop(state({ failures: 2 }), "length", "", LIMITS)).toEqual({ kind: "continue", backoffMs: 10_000 });
		expect(decideLoop(state({ failures: 4 }), "error", "", { maxFailures: 5, failureBackoffMs: 100 })).toEqual({
			kind: "continue",
			backoffMs: 800,
		});
	});
});

describe("loopEndMessage tells the user why the loop ended", () => {
	it("done: the marker and the iterations it took", () => {
		expect(loopEndMessage(state({ iteration: 4 }), { kind: "done" })).toBe(
			"Loop finished: LOOP_DONE found after 4 iteration(s).",
		);
	});

	it("limit: the maximum and the marker never seen", () => {
		expect(loopEndMessage(state({ max: 3 }), { kind: "stop", reason: "limit" })).toBe(
			"Loop stopped: 3 iteration(s) without LOOP_DONE.",
		);
	});

	it("failures: how many runs failed in a row", () => {
		expect(loopEndMessage(state({ failures: 3 }), { kind: "stop", reason: "failures" })).toBe(
			"Loop stopped after 3 failed runs in a row.",
		);
	});

	it("aborted", () => {
		expect(loopEndMessage(state(), { kind: "stop", reason: "aborted" })).toBe("Loop stopped: the run was aborted.");
	});

	it("nothing for a loop that goes on", () => {
		expect(loopEndMessage(state(), { kind: "continue", backoffMs: 0 })).toBe("");
	});
});

describe("loopStatusText", () => {
	it("shows `🔁 loop i/N`", () => {
		expect(loopStatusText(state({ iteration: 3, max: 7 }))).toBe("🔁 loop 3/7");
	});
});
