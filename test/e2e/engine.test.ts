/**
 * The auto-continue engine's rules, each proven in the real pi runtime (SDK, in process) with the fake model. Tests
 * wait on events (a settled run, a status, a widget); what must not happen later is proven in test/unit/quiet.test.ts.
 */

import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
	backoff,
	continuationPrompt,
	countdownLine,
	doneStatus,
	failures,
	INJECTION_HEAD,
	KEY,
	MESSAGE_TYPE,
	nextAction,
	progressStatus,
} from "../helpers/expected.ts";
import type { PiHarness } from "../helpers/sdk.ts";
import {
	continuations,
	countdownLines,
	countdownWidgets,
	disposeAll,
	idle,
	startTilDone,
	stopMessages,
	warnings,
} from "../helpers/til-done-pi.ts";
import { completeTodo, fail, say, startTodo, workItem, writeTodos } from "../helpers/todo-model.ts";

afterEach(disposeAll);

const status = (harness: PiHarness) => harness.ui.status.get(KEY.status);

describe("rule 2: a finished or empty list never continues", () => {
	it("shows no countdown and no limit message in 25 runs after the list is done", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["only item"]), startTodo(0), completeTodo(0), say("All done.")],
		});
		await harness.prompt("do it");
		for (let run = 0; run < 25; run++) {
			harness.respond(say(`reply ${run}`));
			await harness.prompt(`question ${run}`);
		}
		// Every prompt resolved after pi settled; a continuation can only follow a countdown, and none was shown.
		expect(harness.agentRuns()).toBe(26);
		expect(countdownWidgets(harness)).toEqual([]);
		expect(continuations(harness)).toEqual([]);
		expect(warnings(harness)).toEqual([]);
		expect(status(harness)).toBe(doneStatus(1));
	});

	it("shows no countdown when there is no list at all", async () => {
		const harness = await startTilDone({ responses: [say("hello"), say("again")] });
		await harness.prompt("hi");
		await harness.prompt("hi again");
		expect(harness.agentRuns()).toBe(2);
		expect(countdownWidgets(harness)).toEqual([]);
		expect(continuations(harness)).toEqual([]);
		expect(status(harness)).toBeUndefined();
	});
});

describe("rule 4: aborts and failures", () => {
	it("never continues after Esc (stopReason aborted)", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["a", "b"]), startTodo(0), say("a long answer that streams slowly ".repeat(20))],
			fauxOptions: { tokensPerSecond: 30 },
		});
		const run = harness.prompt("go");
		await harness.waitFor(() => harness.count("message_update") > 0 && harness.modelCalls.length >= 3, 10_000);
		await harness.session.abort();
		await run;
		await idle(harness);
		expect(countdownWidgets(harness)).toEqual([]);
		expect(continuations(harness)).toEqual([]);
	});

	it("backs off after a provider error, longer each time, and gives up after 3 failures with one warning message", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), fail("boom"), fail("boom"), fail("boom")] },
			{ TIL_DONE_BACKOFF_MS: "100" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => stopMessages(harness).includes(failures(3)), 10_000, "failure breaker");
		await idle(harness);
		expect(warnings(harness)).toEqual([backoff("0.1"), backoff("0.2")]);
		expect(stopMessages(harness)).toEqual([failures(3)]);
		expect(continuations(harness)).toHaveLength(2);
		// The list written before the failures stays as it was.
		expect(status(harness)).toBe(progressStatus(0, 2));
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("rule 5: never send while pi is busy", () => {
	it("drops the continuation when another run is going at the moment of sending, and continues after it", async () => {
		let harness: PiHarness;
		/** The other run's model call: answers only once the countdown has run out while this run is going. */
		const answerAfterCountdown = (async () => {
			await harness.waitFor(() => countdownLines(harness).at(-1) === undefined, 5000, "countdown ran out");
			return fauxAssistantMessage("Other work done.");
		}) as unknown as Parameters<PiHarness["respond"]>[0];
		harness = await startTilDone({
			responses: [writeTodos(["a", "b"]), ...workItem(0), answerAfterCountdown, ...workItem(1)],
		});
		await harness.prompt("go");
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(true);
		// A custom message starts a run without the user typing (as another extension or a queued message would).
		const other = harness.session.sendCustomMessage(
			{ customType: "other-extension", content: "other work", display: false },
			{ triggerTurn: true },
		);
		await harness.waitFor(() => status(harness) === doneStatus(2), 10_000, "list done");
		await other;
		await idle(harness);

		// Two countdowns ran out, the first while the other run was going; only the second one sent its prompt.
		expect(countdownLines(harness)).toEqual([countdownLine(1), undefined, countdownLine(1), undefined]);
		expect(continuations(harness)).toEqual([continuationPrompt(["– [1] b"], nextAction("start", 1))]);
		const kinds = harness
			.branch()
			.map((e) => (e.type === "custom_message" ? e.customType : e.type === "message" ? e.message.role : e.type));
		const otherAt = kinds.indexOf("other-extension");
		const continuationAt = kinds.indexOf(MESSAGE_TYPE.continuation);
		expect(otherAt).toBeGreaterThan(-1);
		expect(kinds.slice(otherAt, continuationAt)).toContain("assistant");
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("rule 6: session changes during a countdown", () => {
	it("/reload during a countdown removes it; the reloaded runtime shows the same list", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_COUNTDOWN: "600" },
		);
		await harness.prompt("go");
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(true);
		await harness.reload();
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(false);
		expect(harness.ui.terminalHandlerCount()).toBe(0);
		expect(status(harness)).toBe(progressStatus(1, 2));
		expect(continuations(harness)).toEqual([]);
		expect(harness.extensionErrors).toEqual([]);
	});

	it("tree navigation during a countdown removes it and rebuilds the list as it was at that point", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_COUNTDOWN: "600" },
		);
		await harness.prompt("go");
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(true);
		const firstWrite = harness
			.branch()
			.find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "write_todos");
		await harness.navigateTree(firstWrite!.id);
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(false);
		expect(status(harness)).toBe(progressStatus(0, 2));
		expect(continuations(harness)).toEqual([]);
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("rule 7: one countdown at a time", () => {
	it("a retried provider error (two agent_ends before pi settles) sends exactly one continuation", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["a", "b", "c"]), ...workItem(0), fail("503 overloaded"), ...workItem(1), ...workItem(2)],
			settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } },
		});
		await harness.prompt("go");
		await harness.waitFor(() => status(harness) === doneStatus(3), 10_000, "list done");
		await idle(harness);
		expect(continuations(harness)).toHaveLength(2);
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("rule 10: continued runs carry the current list", () => {
	it("the continuation prompt holds the live statuses and names the item in progress; nothing else is injected", async () => {
		const harness = await startTilDone({
			responses: [
				writeTodos(["a", "b", "c"]),
				startTodo(0),
				completeTodo(0),
				startTodo(1),
				say("stop"),
				completeTodo(1),
				...workItem(2),
			],
		});
		await harness.prompt("go");
		await harness.waitFor(() => status(harness) === doneStatus(3), 10_000, "list done");
		await idle(harness);
		const prompt = continuationPrompt(["● [1] b", "– [2] c"], nextAction("complete", 1));
		expect(continuations(harness)).toEqual([prompt]);
		const continuedRun = harness.modelCalls.find((call) => call.lastUserText === prompt);
		expect(continuedRun?.userTexts.filter((text) => text.startsWith(INJECTION_HEAD))).toEqual([]);
	});
});

describe("the countdown at its default length", () => {
	it("counts 3, 2, 1 above the editor and then continues", async () => {
		// An empty value counts as unset: the default applies.
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0), ...workItem(1)] },
			{ TIL_DONE_COUNTDOWN: "" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => status(harness) === doneStatus(2), 8000, "list done after one 3 s countdown");
		expect(countdownLines(harness)).toEqual([countdownLine(3), countdownLine(2), countdownLine(1), undefined]);
		expect(continuations(harness)).toHaveLength(1);
	});
});
