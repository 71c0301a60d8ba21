/**
 * Only the user closes an item they must review: a model that tries to complete it and to rewrite the list without it,
 * run after run of the auto-continue, is refused each time and the chain waits for the user. Print mode, on every
 * tested pi version. A rewrite refused in the run that wrote the item is tested in process (test/unit/tool-checks.test.ts).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { reviewRefused, reviewRewritten, reviewWait, stderrLine } from "../helpers/expected.ts";
import { REVIEW_REWRITER } from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
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
});
