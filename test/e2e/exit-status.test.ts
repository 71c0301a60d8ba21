/**
 * The exit status of `pi -p` and `pi --mode json` that a script or CI job relies on: 0 for a finished list (verified
 * where it has a verification) or no list, 3 for a finished list that did not pass its verification, 4 for a list that
 * ends with items open, whatever stopped it. pi's own failure keeps pi's own status.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, runJson, runPrint } from "../helpers/cli.ts";
import {
	ASKS_USER,
	failures,
	hardCap,
	noProgress,
	repeatedAnswer,
	reviewWait,
	stderrLine,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

type Steps = Parameters<IsolatedEnv["writeScript"]>[0];

const setup = (steps: Steps, vars: NodeJS.ProcessEnv = {}): IsolatedEnv => pi.env(steps, vars);

const TWO = ["Write the parser", "Write the printer"];
/** A model that writes two items and then only talks. */
const talker = (answers: string[]): Steps => [writeStep(TWO), ...answers.map((answer) => sayStep(answer))];

/** Each way a list can end with items open, with what stderr says last. */
const OPEN_ENDS: [string, Steps, NodeJS.ProcessEnv, string][] = [
	["the hard cap", talker(["a", "b", "c"]), { TIL_DONE_MAX_CONTINUE: "1", TIL_DONE_MAX_NO_PROGRESS: "0" }, hardCap(1)],
	["no progress", talker(["a", "b", "c", "d", "e"]), { TIL_DONE_MAX_SAME_ANSWERS: "0" }, noProgress(3)],
	["a repeated answer", talker(["Same.", "Same.", "Same.", "Same.", "Same."]), {}, repeatedAnswer(3)],
	["a question", talker(["Which parser library should I use?"]), {}, ASKS_USER],
	[
		"the model's pause",
		[writeStep(TWO), toolStep("pause_todos", { reason: "needs the API key" }), sayStep("Paused.")],
		{},
		"Auto-continue is paused (needs the API key): it waits for you.",
	],
	[
		"a review wait",
		[
			toolStep("write_todos", { mode: "replace", todos: [{ text: "Release notes", review: true }] }),
			startStep(0),
			sayStep("Written; over to you."),
		],
		{},
		`${reviewWait(0)}: /todos approve 0 completes it and goes on.`,
	],
];

describe.each(PI_HOSTS)("pi $version", (host) => {
	const print = (env: IsolatedEnv, prompt: string) =>
		runPrint(["-p", prompt], env.env, { host, extensions: [EXTENSION_ENTRY], session: { none: true } });

	describe("a list that ends with items open exits 4, whatever stopped it; stderr names why", () => {
		it.each(OPEN_ENDS)("%s", async (_name, steps, vars, why) => {
			const result = await print(setup(steps, vars), "Do the list");
			expect(result.code).toBe(4);
			expect(result.stderr.endsWith(stderrLine(why))).toBe(true);
		});

		it("in JSON mode too", async () => {
			const env = setup(talker(["Which parser library should I use?"]));
			const result = await runJson(["Do the list"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { none: true },
			});
			expect(result.code).toBe(4);
			expect(result.stderr).toBe(stderrLine(ASKS_USER));
		});
	});

	describe("a finished list, or none, exits 0", () => {
		it("a finished list without a verification", async () => {
			const steps = [writeStep(["Only one"]), startStep(0), completeStep(0), sayStep("Done.")];
			expect((await print(setup(steps), "Do it")).code).toBe(0);
		});

		it("no list at all", async () => {
			const result = await print(setup([sayStep("Hello.")]), "Say hello");
			expect(result.code).toBe(0);
			expect(result.stderr).toBe("");
		});
	});

	it("pi's own failure keeps pi's own status: a provider error ends with 1, not 4", async () => {
		const failing = { stopReason: "error" as const, errorMessage: "503 overloaded" };
		const env = setup([writeStep(TWO), failing, failing, failing, failing], { TIL_DONE_BACKOFF_MS: "0" });
		writeFileSync(join(env.agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false } }));
		const result = await print(env, "Do the list");
		expect(result.stderr).toContain(stderrLine(failures(3)));
		expect(result.code).toBe(1);
	});
});
