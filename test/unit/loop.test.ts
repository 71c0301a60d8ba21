import { describe, expect, it } from "vitest";
import { parseLoopArgs } from "../../src/continue/loop.ts";
import { loopPrompt } from "../../src/texts/model.ts";
import { loopStatusText } from "../../src/texts/user.ts";
import type { LoopState } from "../../src/types.ts";

const USAGE = "usage: /loop [--max N] [--until MARKER] <prompt>";
const BAD_MAX = "--max takes a whole number from 1 to 1000";

const state = (overrides: Partial<LoopState> = {}): LoopState => ({
	prompt: "Fix the tests",
	max: 10,
	marker: "LOOP_DONE",
	iteration: 1,
	...overrides,
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

describe("loopStatusText", () => {
	it("shows `🔁 loop i/N`", () => {
		expect(loopStatusText(3, 7)).toBe("🔁 loop 3/7");
	});
});
