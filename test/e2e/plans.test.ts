/**
 * Plans with waits and subtasks in the real pi, print mode, on every tested pi version: the continuation follows the
 * waits, not list order; a start that would jump a wait is refused; a parent completes with its last subtask; an
 * abandoned blocker stops the chain at once; an insert keeps every wait on its item. Links that do not hold (a cycle
 * among them) are refused in process (test/unit/plan-tools.test.ts).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	EXTENSION_ENTRY,
	type FakeStep,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	readFakeLog,
	runPrint,
} from "../helpers/cli.ts";
import {
	allFinished,
	blockedStopText,
	continuationPrompt,
	nextAction,
	notReady,
	stderrLine,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, continuationPrompts, sayStep, startStep, toolStep } from "../helpers/scripts.ts";
import { toolResults } from "../helpers/session-file.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

/** A write of items with their links, as the model sends it. */
const writePlan = (
	todos: { text: string; blockedBy?: number[]; parent?: number }[],
	mode = "replace",
	index?: number,
) => toolStep("write_todos", index === undefined ? { mode, todos } : { mode, index, todos });

async function run(host: PiHost, steps: FakeStep[], prompt = "Do the plan") {
	const env: IsolatedEnv = pi.env(steps);
	const dir = join(env.root, "sessions");
	const result = await runPrint(["-p", prompt], env.env, { host, extensions: [EXTENSION_ENTRY], session: { dir } });
	const edits = toolResults(dir).map((entry) => entry.text.split("\n")[0]);
	return { ...result, edits, prompts: continuationPrompts(readFakeLog(env.env.TIL_DONE_FAKE_LOG as string)) };
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("a lazy model is led through the waits, not list order; jumping a wait is refused", async () => {
		const result = await run(host, [
			writePlan([{ text: "Deploy", blockedBy: [1] }, { text: "Build" }]),
			sayStep("Planned."),
			startStep(0),
			startStep(1),
			completeStep(1),
			sayStep("Built."),
			startStep(0),
			completeStep(0),
			sayStep("Deployed."),
		]);
		expect(result.prompts).toEqual([
			continuationPrompt(["– [0] Deploy ⛓ [1]", "– [1] Build"], nextAction("start", 1)),
			continuationPrompt(["– [0] Deploy ⛓ [1]"], nextAction("start", 0)),
		]);
		expect(result.edits).toEqual([
			"Wrote 2 todo item(s)",
			notReady("[0] waits for [1]", 1),
			"Started [1]",
			"Completed [1]",
			"Started [0]",
			"Completed [0]",
		]);
		expect(result.stderr).toBe(stderrLine(allFinished(2)));
		expect(result.code).toBe(0);
	});

	it("a parent completes with its last subtask, and the list is done", async () => {
		const result = await run(host, [
			writePlan([{ text: "Ship it" }, { text: "API", parent: 0 }, { text: "UI", parent: 0 }]),
			startStep(1),
			completeStep(1),
			startStep(2),
			completeStep(2),
			sayStep("Shipped."),
		]);
		expect(result.edits.slice(-1)).toEqual(["Completed [2]; [0] completed with its last subtask"]);
		expect(result.stderr).toBe(stderrLine(allFinished(3)));
		expect(result.prompts).toEqual([]);
	});

	it("an abandoned blocker stops the chain at once with `blocked`, naming the waits: no continuation is sent", async () => {
		const result = await run(host, [
			writePlan([{ text: "Get the key" }, { text: "Call the API", blockedBy: [0] }]),
			toolStep("edit_todos", { action: "abandon", indices: [0], reason: "no key" }),
			sayStep("Gave up on the key."),
		]);
		expect(result.stderr).toBe(stderrLine(blockedStopText("[1] waits for [0] (abandoned)")));
		expect(result.prompts).toEqual([]);
		expect(result.code).toBe(4);
	});

	it("an insert keeps every wait on the same item, and the chain follows it", async () => {
		const result = await run(host, [
			writePlan([{ text: "Build" }, { text: "Deploy", blockedBy: [0] }]),
			writePlan([{ text: "Design" }], "insert", 0),
			sayStep("Planned."),
			startStep(0),
			completeStep(0),
			sayStep("Designed."),
			startStep(1),
			completeStep(1),
			sayStep("Built."),
			startStep(2),
			completeStep(2),
			sayStep("Deployed."),
		]);
		expect(result.edits[1]).toBe("Inserted 1 item(s) at index 0");
		expect(result.prompts).toEqual([
			continuationPrompt(["– [0] Design", "– [1] Build", "– [2] Deploy ⛓ [1]"], nextAction("start", 0)),
			continuationPrompt(["– [1] Build", "– [2] Deploy ⛓ [1]"], nextAction("start", 1)),
			continuationPrompt(["– [2] Deploy ⛓ [1]"], nextAction("start", 2)),
		]);
		expect(result.stderr).toBe(stderrLine(allFinished(3)));
	});
});
