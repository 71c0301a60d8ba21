/**
 * A budget that cannot apply says so: a cost budget with a model whose price pi does not know (every call costs 0)
 * is named once when the chain starts, with what still stops it, in print mode on stderr and in RPC as a notice and in
 * `/todos status`. On every tested pi version; the fake model is free unless priced.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import { ASKS_USER, FAKE_MODEL, inertCostBudget, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const ASKS = [writeStep(["Write the parser"]), sayStep("Which grammar do you want?")];

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("print: one stderr line before the run's end, naming the token budget that still applies", async () => {
		const env = pi.env(ASKS, { TIL_DONE_BUDGET_COST: "0.03", TIL_DONE_BUDGET_TOKENS: "100000" });
		const result = await runPrint(["-p", "Build it"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		expect(result.stderr).toBe(stderrLine(inertCostBudget("0.0300", FAKE_MODEL, "100,000")) + stderrLine(ASKS_USER));
	});

	it("RPC: a warning once per process, whatever the prompts, and the status line says it cannot apply", async () => {
		const env = pi.env([...ASKS, sayStep("Still waiting for the grammar?")], { TIL_DONE_BUDGET_COST: "0.5" });
		const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
		await client.promptAndSettle("Build it");
		await client.promptAndSettle("Any grammar");
		const warning = inertCostBudget("0.5000", FAKE_MODEL);
		expect(client.notifications.filter((notice) => notice.message === warning)).toEqual([
			{ message: warning, type: "warning" },
		]);
		const before = client.notifications.length;
		await client.prompt("/todos status");
		await client.waitFor(() => client.notifications.length > before, 5000, "the status");
		expect(client.notifications.at(-1)?.message.split("\n")).toContain(
			"Cost budget: 0.5000 (cannot apply: pi knows no price for this model)",
		);
	});
});
