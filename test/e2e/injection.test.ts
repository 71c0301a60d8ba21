/** Todo text that tries to inject instructions, as the model receives it from the real pi runtime. */

import { afterEach, describe, expect, it } from "vitest";
import { buildContextInjection, buildContinuationPrompt } from "../../src/formatting.ts";
import { type PiHarness, startPi } from "../helpers/sdk.ts";
import { continuationsOn, EXTENSION_PATH, say, withEnv, writeTodos } from "../helpers/todo-model.ts";
import { INJECTIONS, type Item } from "../helpers/todo-oracle.ts";

describe("in the real runtime", () => {
	let pi: PiHarness | undefined;
	let restore: () => void = () => undefined;
	afterEach(async () => {
		await pi?.dispose();
		pi = undefined;
		restore();
	});

	it("the continuation and the injection the model receives keep their structure", async () => {
		restore = withEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_MAX_CONTINUE: "1" });
		const texts = INJECTIONS.map((injection, i) => `task ${i}${injection}`);
		pi = await startPi({
			extensionPaths: [EXTENSION_PATH],
			responses: [writeTodos(texts), say("Stopping here."), say("Stopping again."), say("and again")],
		});
		await pi.prompt("go");
		await pi.waitFor(() => continuationsOn(pi!.branch() as never).length === 1, 10_000, "one continuation");
		await pi.settle(100);
		const harness = pi;
		const todos = texts.map((text): Item => ({ text, status: "not_started" }));
		expect(continuationsOn(harness.branch() as never)).toEqual([buildContinuationPrompt(todos)]);
		await harness.prompt("next");
		await harness.settle(100);
		const injected = harness.modelCalls.at(-1)!.userTexts.filter((text) => text.startsWith("[TILL-DONE ACTIVE]"));
		expect(injected.at(-1)).toBe(buildContextInjection(todos));
		const lines = buildContinuationPrompt(todos).split("\n");
		expect(lines.filter((line) => line.startsWith("Next action:"))).toEqual([
			"Next action: edit_todos with action 'start' and indices [0]",
		]);
		expect(harness.extensionErrors).toEqual([]);
	});
});
