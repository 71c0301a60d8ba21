/**
 * Every setting honest, in the real pi on every tested version: a switch's word is what it says, a prompt pi took as a
 * switch's value is named, every breaker has its own setting, a number may have an exponent, a warning repeats a bad
 * value cut short, and `pi --help` shows each flag's default and variable.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import { allFinished, hardCap, repeatedAnswer, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { lazyScript, sayStep, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const TWO = ["Write the parser", "Write the printer"];
/** A model that writes the list and then, run after run, finishes nothing and gives the same answer. */
const SAME_ANSWER = [writeStep(TWO), ...Array.from({ length: 12 }, () => sayStep("Still on the parser."))];

describe.each(PI_HOSTS)("pi $version", (host) => {
	const print = (args: string[], vars: NodeJS.ProcessEnv = {}) => {
		const env = pi.env(lazyScript(TWO), vars);
		return runPrint(args, env.env, { host, extensions: [EXTENSION_ENTRY], session: { none: true } });
	};

	it.each(["false", "0", "OFF", "no"])(
		"--til-done-paused=%s does not pause: the list is worked to the end",
		async (word) => {
			const result = await print([`--til-done-paused=${word}`, "-p", "Do the list"], { TIL_DONE_PAUSED: "1" });
			expect(result.stderr).toBe(stderrLine(allFinished(2)));
			expect(result.code).toBe(0);
		},
	);

	it("a prompt pi took as the switch's value is named: the switch is on, and the warning says the word was not sent", async () => {
		const result = await print(["-p", "--til-done-paused", "Do the list"]);
		expect(result.stderr.split("\n")[0]).toBe(
			'[til-done] pi-til-done: --til-done-paused took "Do the list" as its value (pi gives a flag the word after it): it is on, and that word was not sent; write --til-done-paused=on, or put it after the prompt',
		);
	});

	it("the repeated-answer breaker has its own setting: no-progress off leaves it on; 2 stops at 2; 0 turns it off", async () => {
		const run = (args: string[]) => {
			const env = pi.env(SAME_ANSWER);
			return runPrint([...args, "-p", "Do the list"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		};
		const noProgressOff = await run(["--til-done-max-no-progress", "0"]);
		expect(noProgressOff.stderr).toBe(stderrLine(repeatedAnswer(3)));
		const two = await run(["--til-done-max-no-progress", "0", "--til-done-max-same-answers", "2"]);
		expect(two.stderr).toBe(stderrLine(repeatedAnswer(2)));
		const off = ["--til-done-max-no-progress", "0", "--til-done-max-same-answers", "0", "--til-done-max-continue", "5"];
		expect((await run(off)).stderr).toBe(stderrLine(hardCap(5)));
	});

	it("a number may have an exponent; a bad value's warning repeats at most 40 characters of it", async () => {
		const env = pi.env(SAME_ANSWER, { TIL_DONE_MAX_SAME_ANSWERS: "0", TIL_DONE_MAX_NO_PROGRESS: "0" });
		const result = await runPrint(
			["--til-done-max-continue", "4e0", "--til-done-countdown", "x".repeat(600), "-p", "Do the list"],
			env.env,
			{ host, extensions: [EXTENSION_ENTRY] },
		);
		expect(result.stderr).toBe(
			stderrLine(`pi-til-done: --til-done-countdown=${"x".repeat(39)}… ignored: expected a number from 0 to 600`) +
				stderrLine(hardCap(4)),
		);
	});

	it("pi --help shows each flag with its default and its variable", async () => {
		const result = await print(["--help"]);
		const lines = result.stdout.split("\n");
		expect(lines.find((line) => line.includes("--til-done-max-continue"))).toMatch(
			/Hard cap on continuations per user prompt \[default 20, TIL_DONE_MAX_CONTINUE\]$/,
		);
		expect(lines.find((line) => line.includes("--til-done-paused"))).toMatch(
			/Start with auto-continue off \[default off, TIL_DONE_PAUSED\]$/,
		);
	});
});
