/**
 * Every setting honest, in the real pi on every tested version: a switch's word is what it says, a prompt pi took as a
 * switch's value is named, and `pi --help` shows each flag's default and variable.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import { allFinished, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { lazyScript } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const TWO = ["Write the parser", "Write the printer"];

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
