/**
 * Every command strict, in the real pi on every tested version: what a command does not understand is refused with
 * its usage and changes nothing (no run starts, no item changes). Print mode, where every answer is a stderr line.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import { LOOP_USAGE, loopRefused, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

describe.each(PI_HOSTS)("pi $version", (host) => {
	const print = async (prompt: string) => {
		const env = pi.env([sayStep("LOOP_DONE")]);
		const result = await runPrint(["-p", prompt], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { none: true },
		});
		return { ...result, modelCalls: env.readLog().length };
	};

	describe("/loop", () => {
		it("--help answers with the usage and runs nothing", async () => {
			const result = await print("/loop --help");
			expect(result.stderr).toBe(stderrLine(LOOP_USAGE));
			expect(result.modelCalls).toBe(0);
		});

		it.each([
			["/loop --until", "--until needs a value"],
			["/loop do it --max", "--max needs a value"],
			['/loop --until "unterminated go', '--until: the quote " is not closed'],
			["/loop --max 2 --max 5 go", "--max is given twice"],
			["/loop --halp go", "--halp is not an option of /loop"],
		])("%s is refused with the usage and runs nothing", async (command, why) => {
			const result = await print(command);
			expect(result.stderr).toBe(stderrLine(loopRefused(why)));
			expect(result.modelCalls).toBe(0);
		});
	});
});
