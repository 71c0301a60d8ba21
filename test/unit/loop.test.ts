import { describe, expect, it } from "vitest";
import { parseLoopArgs } from "../../src/core/rules/loop-args.ts";
import { loopPrompt } from "../../src/core/texts/model.ts";
import { fullText, loopStatus } from "../../src/core/texts/user.ts";
import type { LoopState } from "../../src/types.ts";

const BAD_MAX = "--max takes a whole number from 1 to 1000";

const state = (overrides: Partial<LoopState> = {}): LoopState => ({
	prompt: "Fix the tests",
	max: 10,
	marker: "LOOP_DONE",
	iteration: 1,
	...overrides,
});

describe("/loop reads its options strictly, anywhere, and keeps the prompt as written", () => {
	const loop = (prompt: string, max = 10, marker = "LOOP_DONE") => ({ spec: { prompt, max, marker } });

	it("takes a bare prompt with the defaults", () => {
		expect(parseLoopArgs("  fix the tests  ")).toEqual(loop("fix the tests"));
	});

	it("reads the options before, after or between the prompt's words", () => {
		expect(parseLoopArgs("--max 3 --until DONE fix it")).toEqual(loop("fix it", 3, "DONE"));
		expect(parseLoopArgs("fix it --until DONE --max 3")).toEqual(loop("fix it", 3, "DONE"));
		expect(parseLoopArgs("fix --max=2 it")).toEqual(loop("fix it", 2));
	});

	it("keeps the prompt's own words, quotes and lines", () => {
		expect(parseLoopArgs('make sure it\'s "green"\nthen stop')).toEqual(loop('make sure it\'s "green"\nthen stop'));
	});

	it("takes a quoted marker with spaces, and -- before a prompt that holds the options' names", () => {
		expect(parseLoopArgs('--until "ALL GREEN" go')).toEqual(loop("go", 10, "ALL GREEN"));
		expect(parseLoopArgs("--until ' all  green ' go")).toEqual(loop("go", 10, "all  green"));
		expect(parseLoopArgs("--max 2 -- explain --max and --until")).toEqual(loop("explain --max and --until", 2));
	});

	it("accepts --max from 1 to 1000", () => {
		expect(parseLoopArgs("--max 1 go")).toEqual(loop("go", 1));
		expect(parseLoopArgs("--max 1000 go")).toEqual(loop("go", 1000));
		expect(parseLoopArgs("--max 007 go")).toEqual(loop("go", 7));
	});

	it("answers --help and -h with the usage, and starts nothing", () => {
		expect(parseLoopArgs("--help")).toEqual({ help: true });
		expect(parseLoopArgs("-h do it")).toEqual({ help: true });
	});

	it.each([
		["--max 0 go", BAD_MAX],
		["--max 1001 go", BAD_MAX],
		["--max abc go", BAD_MAX],
		["--max 2.5 go", BAD_MAX],
		["--max 1e2 go", BAD_MAX],
		["do it --max", "--max needs a value"],
		["--max --until X go", "--max needs a value"],
		["--until", "--until needs a value"],
		["--max 2 --max 5 go", "--max is given twice"],
		["--until A --until=B go", "--until is given twice"],
		['--until "unterminated go', '--until: the quote " is not closed'],
		['--until "" go', "--until takes a non-empty marker"],
		["--until '   ' go", "--until takes a non-empty marker"],
		["--halp go", "--halp is not an option of /loop"],
		["", "what should the loop send? Give a prompt"],
		["   ", "what should the loop send? Give a prompt"],
		["--max 3 --until DONE", "what should the loop send? Give a prompt"],
	])("refuses %j: %s", (args, error) => {
		expect(parseLoopArgs(args)).toEqual({ error });
	});
});

describe("loopPrompt appends the iteration and how to end the loop", () => {
	it("names the iteration, the maximum and the marker", () => {
		expect(loopPrompt(state({ iteration: 2, max: 5, marker: "SHIPPED" }))).toBe(
			"Fix the tests\n\n(Loop iteration 2 of 5. When the task is fully complete, include SHIPPED in your answer.)",
		);
	});
});

describe("loopStatus", () => {
	it("shows `🔁 loop i/N`", () => {
		expect(fullText(loopStatus(3, 7))).toBe("🔁 loop 3/7");
	});
});
