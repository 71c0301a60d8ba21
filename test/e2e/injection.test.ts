/** Todo text that tries to inject instructions, as the model receives it from the real pi runtime. */

import { afterEach, describe, expect, it } from "vitest";
import {
	continuationPrompt,
	flat,
	INJECTION_HEAD,
	injection,
	KEY,
	nextAction,
	progressStatus,
} from "../helpers/expected.ts";
import { continuations, disposeAll, idle, startTilDone } from "../helpers/til-done-pi.ts";
import { say, writeTodos } from "../helpers/todo-model.ts";
import { INJECTIONS } from "../helpers/todo-oracle.ts";

afterEach(disposeAll);

describe("todo text is data", () => {
	it("the continuation and the injection the model receives keep their structure", async () => {
		const texts = INJECTIONS.map((attempt, i) => `task ${i}${attempt}`);
		// One continuation, then the hard cap: the first run writes the list, the continued run only talks.
		const harness = await startTilDone(
			{ responses: [writeTodos(texts), say("Stopping here."), say("Stopping again.")] },
			{ TIL_DONE_MAX_CONTINUE: "1" },
		);
		await harness.prompt("go");
		await idle(harness);
		// Every text stays on its own list line: line breaks and control characters show as spaces.
		const lines = texts.map((text, i) => `– [${i}] ${flat(text)}`);
		expect(continuations(harness)).toEqual([continuationPrompt(lines, nextAction("start", 0))]);

		harness.respond(say("Which one first?"));
		await harness.prompt("next");
		const injected = harness.modelCalls.at(-1)?.userTexts.filter((text) => text.startsWith(INJECTION_HEAD));
		expect(injected).toEqual([injection(lines, texts.length)]);
		expect(harness.ui.status.get(KEY.status)).toBe(progressStatus(0, texts.length));
		expect(harness.extensionErrors).toEqual([]);
	});
});
