/**
 * Only the user closes an item they must review, in every run: the model can neither complete it, nor rewrite the
 * list to drop or unmark it, whether the auto-continue is on or not. Print mode, on every tested pi version.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { reviewRefused, reviewRewritten, reviewWait, stderrLine } from "../helpers/expected.ts";
import { REVIEW_REWRITER, writeChecked } from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep } from "../helpers/scripts.ts";
import { toolResults } from "../helpers/session-file.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

async function run(host: PiHost, steps: FakeStep[], prompt: string) {
	const env: IsolatedEnv = pi.env(steps);
	const dir = join(env.root, "sessions");
	const result = await runPrint(["-p", prompt], env.env, { host, extensions: [EXTENSION_ENTRY], session: { dir } });
	return { ...result, results: toolResults(dir) };
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("a rewrite that drops the review mark is refused, and the item stays the user's to close", async () => {
		const result = await run(host, REVIEW_REWRITER.steps, REVIEW_REWRITER.prompt);
		const refusals = result.results
			.filter((entry) => entry.text.startsWith("Error"))
			.map((entry) => entry.text.split("\n")[0]);
		expect(refusals).toEqual([reviewRefused(0), reviewRewritten(0, "Write the release notes"), reviewRefused(0)]);
		expect(result.stderr).toBe(stderrLine(`${reviewWait(0)}: /todos approve 0 completes it and goes on.`));
		expect(result.code).toBe(4);
	});

	it("a review item dropped in the model's very first run is refused too, with nothing changed", async () => {
		const steps = [
			writeChecked([{ text: "Check the screenshots", review: true }]),
			writeChecked([{ text: "Something else" }]),
			sayStep("Rewrote the plan."),
		];
		const result = await run(host, steps, "Plan the release");
		const writes = result.results.filter((entry) => entry.toolName === "write_todos");
		expect(writes.map((entry) => entry.text.split("\n")[0])).toEqual([
			"Wrote 1 todo item(s)",
			reviewRewritten(0, "Check the screenshots"),
		]);
		expect(writes[1]?.details.todos).toEqual([]);
	});
});
