/**
 * A list that does not go stale, in the real pi, print mode, on every tested pi version: while an item is in
 * progress, the model call after every `TIL_DONE_REMIND_EVERY` tool calls without a todo tool carries the reminder,
 * and no other call does; it is neither stored in the session nor printed; `0` turns it off.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, type PiHost, readFakeLog, runPrint } from "../helpers/cli.ts";
import { allFinished, REMINDER_HEAD, staleReminder, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { sessionEntries, toolResults } from "../helpers/session-file.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

/** Tool calls of another tool made while item 0 is in progress. */
const BASH_CALLS = 7;
/**
 * The model writes two items and starts the first (calls 0 and 1), makes {@link BASH_CALLS} bash calls (calls 2 to
 * 8), then completes both items and says so.
 */
const STEPS = [
	writeStep(["Fix the parser", "Write the tests"]),
	startStep(0),
	...Array.from({ length: BASH_CALLS }, (_, n) => toolStep("bash", { command: `echo call ${n + 1}` })),
	completeStep(0),
	startStep(1),
	completeStep(1),
	sayStep("Both done."),
];
const CALLS = STEPS.length;

async function run(host: PiHost, remindEvery: string) {
	const env = pi.env(STEPS, { TIL_DONE_REMIND_EVERY: remindEvery });
	const dir = join(env.root, "sessions");
	const result = await runPrint(["-p", "Fix the parser"], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir },
	});
	const log = readFakeLog(env.env.TIL_DONE_FAKE_LOG as string);
	/** For each model call, how many reminders its request holds. */
	const reminders = log.map((line) => line.userHeads.filter((head) => head.startsWith(REMINDER_HEAD)).length);
	const bashOutputs = toolResults(dir, "bash").map((entry) => entry.text.trim());
	return { ...result, log, reminders, bashOutputs, session: JSON.stringify(sessionEntries(dir)) };
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("every 3: the calls after the 3rd and the 6th bash call carry the reminder, as their last message", async () => {
		const result = await run(host, "3");
		expect(result.log).toHaveLength(CALLS);
		expect(result.bashOutputs).toEqual(Array.from({ length: BASH_CALLS }, (_, n) => `call ${n + 1}`));
		// Call k answers with the (k - 1)th bash call for k from 2 to 8: call 5 follows the 3rd, call 8 the 6th.
		expect(result.reminders).toEqual(Array.from({ length: CALLS }, (_, call) => (call === 5 || call === 8 ? 1 : 0)));
		const reminder = (calls: number) => staleReminder(calls, "● [0] Fix the parser", "– [1] Write the tests");
		expect(result.log[5]?.lastUser).toBe(reminder(3));
		expect(result.log[8]?.lastUser).toBe(reminder(6));
		expect(result.stderr).toBe(stderrLine(allFinished(2)));
		expect(result.code).toBe(0);
	});

	it("the reminder is neither stored in the session nor printed on stdout or stderr", async () => {
		const result = await run(host, "3");
		expect(result.reminders.filter((count) => count > 0)).toHaveLength(2);
		expect(result.session).toContain("Fix the parser");
		for (const output of [result.session, result.stdout, result.stderr]) {
			expect(output).not.toContain(REMINDER_HEAD);
			expect(output).not.toContain("til-done-reminder");
		}
	});

	it("with TIL_DONE_REMIND_EVERY=0 no call carries it", async () => {
		const result = await run(host, "0");
		expect(result.log).toHaveLength(CALLS);
		expect(result.reminders).toEqual(Array.from({ length: CALLS }, () => 0));
		expect(result.code).toBe(0);
	});
});
