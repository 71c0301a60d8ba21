/**
 * Every setting honest, in the real pi on every tested version, where pi's own command line matters: a switch's word
 * after `=` is what it says, a `pi -p` whose prompt pi took as a switch's value runs nothing and exits 2 with the line
 * that says how to fix it, every breaker has its own setting, and `pi --help` shows each flag's default and variable.
 * How each setting is read and each refusal worded is tested in process (test/unit/config.test.ts, events.test.ts).
 */
import { describe, expect, it } from "vitest";
import { BOOLEAN_SETTINGS, NUMERIC_SETTINGS, TEXT_SETTINGS } from "../../src/core/rules/settings.ts";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import {
	allFinished,
	GOAL_EXPECTED,
	hardCap,
	RUN_REFUSED,
	repeatedAnswer,
	settingRefused,
	stderrLine,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { lazyScript, sayStep, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
/** Every flag of ours as `pi --help` begins its line: its name, and ` <value>` where it takes one. */
const FLAGS = [
	...[...NUMERIC_SETTINGS, ...TEXT_SETTINGS].map((setting) => `--${setting.flag} <value>`),
	...BOOLEAN_SETTINGS.map((setting) => `--${setting.flag}`),
];
const TWO = ["Write the parser", "Write the printer"];
/** A model that writes the list and then, run after run, finishes nothing and gives the same answer. */
const SAME_ANSWER = [writeStep(TWO), ...Array.from({ length: 12 }, () => sayStep("Still on the parser."))];

/**
 * A flag's text in `pi --help`, where it is separated from the flag: after a space on the flag's line, or on the next
 * line, indented; undefined where it runs into the flag (or the flag is not listed).
 */
function helpText(lines: readonly string[], head: string): string | undefined {
	const at = lines.findIndex((line) => line.startsWith(`  ${head}`));
	const rest = (lines[at] ?? "").slice(head.length + 2);
	if (at >= 0 && /^ +\S/.test(rest)) return rest.trim();
	const next = lines[at + 1] ?? "";
	return at >= 0 && rest === "" && /^ {2,}\S/.test(next) ? next.trim() : undefined;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	const print = (args: string[], vars: NodeJS.ProcessEnv = {}) => {
		const env = pi.env(lazyScript(TWO), vars);
		return runPrint(args, env.env, { host, extensions: [EXTENSION_ENTRY], session: { none: true } });
	};

	it("--til-done-paused=false does not pause: the list is worked to the end", async () => {
		const result = await print(["--til-done-paused=false", "-p", "Do the list"], { TIL_DONE_PAUSED: "1" });
		expect(result.stderr).toBe(stderrLine(allFinished(2)));
		expect(result.code).toBe(0);
	});

	it("a pi -p whose prompt pi took as a switch's value (pi gives a switch the word after it) runs nothing, says how to fix it, and exits 2", async () => {
		const env = pi.env(lazyScript(TWO));
		const result = await runPrint(["-p", "--til-done-notify", "plan and do the work"], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
		});
		expect(result.code).toBe(2);
		expect(result.stderr).toBe(
			stderrLine(
				'pi-til-done: --til-done-notify took "plan and do the work" as its value (pi gives a switch the word after it), which is no switch\'s word: it is refused, and that word was not sent; write --til-done-notify=on, or put the prompt before the switch',
			) + stderrLine(RUN_REFUSED),
		);
		expect(result.stdout).toBe("");
		expect(env.readLog()).toEqual([]);
	});

	it.each(["", "   "])(
		"pi -p --til-done-goal %j runs nothing: its line, exit 2, as every bad setting",
		async (blank) => {
			const env = pi.env(lazyScript(TWO));
			const result = await runPrint(["--til-done-goal", blank, "-p", "Do the list"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			const shown = blank === "" ? '""' : '" "';
			expect(result.stderr).toBe(
				stderrLine(`pi-til-done: ${settingRefused("--til-done-goal", shown, GOAL_EXPECTED)}`) + stderrLine(RUN_REFUSED),
			);
			expect(result.code).toBe(2);
			expect(result.stdout).toBe("");
			expect(env.readLog()).toEqual([]);
		},
	);

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

	it("pi --help: every til-done flag has a space or a line break between its value and its text", async () => {
		const lines = (await print(["--help"])).stdout.split("\n");
		const ranIn = FLAGS.flatMap((head) => (helpText(lines, head) === undefined ? [head] : []));
		expect(ranIn).toEqual([]);
	});

	it("pi --help shows each flag with its default and its variable", async () => {
		const lines = (await print(["--help"])).stdout.split("\n");
		expect(helpText(lines, "--til-done-max-continue <value>")).toMatch(
			/Hard cap on continuations per user prompt \[default 20, TIL_DONE_MAX_CONTINUE\]$/,
		);
		expect(helpText(lines, "--til-done-paused")).toMatch(
			/Start with auto-continue off \[default off, TIL_DONE_PAUSED\]$/,
		);
		expect(helpText(lines, "--til-done-judge <value>")).toMatch(
			/an independent model judges a finished list against what you asked \(on: the session's model\) \[default off, TIL_DONE_JUDGE\]$/,
		);
		expect(helpText(lines, "--til-done-goal <value>")).toMatch(
			/A goal the judge decides after every run, as \/goal <condition> sets one \(pi -p works until it is met\) \[default none, TIL_DONE_GOAL\]$/,
		);
	});
});
