/** The auto-continue engine's rules, each proven in the real pi runtime (SDK, in process) with the fake model. */

import { afterEach, describe, expect, it } from "vitest";
import { continuations, countdownWidgets, disposeAll, quiet, startTilDone, warnings } from "../helpers/til-done-pi.ts";
import { completeTodo, fail, say, startTodo, workItem, writeTodos } from "../helpers/todo-model.ts";

afterEach(disposeAll);

describe("rule 2: a finished or empty list never continues", () => {
	it("sends nothing, shows no countdown and no limit message for 25 runs after the list is done", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["only item"]), startTodo(0), completeTodo(0), say("All done.")],
		});
		await harness.prompt("do it");
		await quiet(harness);
		for (let run = 0; run < 25; run++) {
			harness.respond(say(`reply ${run}`));
			await harness.prompt(`question ${run}`);
		}
		await quiet(harness);
		expect(harness.agentRuns()).toBe(26);
		expect(continuations(harness)).toEqual([]);
		expect(countdownWidgets(harness)).toEqual([]);
		expect(warnings(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done")).toBe("✓ Done (1 items)");
	});

	it("sends nothing when there is no list at all", async () => {
		const harness = await startTilDone({ responses: [say("hello"), say("again")] });
		await harness.prompt("hi");
		await harness.prompt("hi again");
		await quiet(harness);
		expect(harness.agentRuns()).toBe(2);
		expect(continuations(harness)).toEqual([]);
		expect(countdownWidgets(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done")).toBeUndefined();
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
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(countdownWidgets(harness)).toEqual([]);
	});

	it("backs off after a provider error, longer each time, and gives up after 3 failures with a warning", async () => {
		const harness = await startTilDone(
			{
				responses: [writeTodos(["a", "b"]), fail("boom"), fail("boom"), fail("boom")],
			},
			{ TIL_DONE_BACKOFF_MS: "100" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => warnings(harness).some((w) => w.startsWith("Auto-continue stopped")), 10_000);
		await quiet(harness);
		expect(warnings(harness)).toEqual([
			"The last run failed; auto-continue waits 0.1s longer before continuing.",
			"The last run failed; auto-continue waits 0.2s longer before continuing.",
			"Auto-continue stopped after 3 failed runs in a row (provider error or output limit). Remaining todos were not completed. Take over manually.",
		]);
		expect(continuations(harness)).toHaveLength(2);
	});
});

describe("rule 5: never send while pi is busy", () => {
	it("drops the continuation when a prompt is already running at the moment of sending", async () => {
		const harness = await startTilDone(
			{
				responses: [writeTodos(["a", "b"]), ...workItem(0), say("a slow answer ".repeat(30))],
				fauxOptions: { tokensPerSecond: 200 },
			},
			{ TIL_DONE_COUNTDOWN: "0.3" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => harness.ui.widgets.has("til-done-countdown"), 5000, "countdown shown");
		// A queued follow-up starts a run without the input event (as an extension or a queued message would).
		await harness.session.sendCustomMessage(
			{ customType: "other-extension", content: "other work", display: false },
			{ triggerTurn: true },
		);
		await quiet(harness, 400);
		expect(harness.extensionErrors).toEqual([]);
		expect(harness.userTexts()).toContain("other work");
		// Any continuation comes only after the other run's answer, never in the middle of it.
		const kinds = harness
			.branch()
			.map((e) => (e.type === "custom_message" ? e.customType : e.type === "message" ? e.message.role : e.type));
		const other = kinds.indexOf("other-extension");
		const firstContinuation = kinds.indexOf("til-done-countdown");
		expect(other).toBeGreaterThan(-1);
		if (firstContinuation !== -1) {
			expect(firstContinuation).toBeGreaterThan(other);
			expect(kinds.slice(other, firstContinuation)).toContain("assistant");
		}
	});
});

describe("rule 6: session changes during a countdown", () => {
	it("/reload during a countdown leaves no timer of the old runtime behind", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_COUNTDOWN: "0.3" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => harness.ui.widgets.has("til-done-countdown"), 5000, "countdown shown");
		await harness.reload();
		await new Promise((resolve) => setTimeout(resolve, 500));
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(harness.agentRuns()).toBe(1);
		expect(harness.extensionErrors).toEqual([]);
		expect(harness.ui.status.get("til-done")).toBe("📋 1/2");
	});

	it("tree navigation during a countdown cancels it and rebuilds the list as it was at that point", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_COUNTDOWN: "0.3" },
		);
		await harness.prompt("go");
		await harness.waitFor(() => harness.ui.widgets.has("til-done-countdown"), 5000, "countdown shown");
		const firstWrite = harness
			.branch()
			.find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "write_todos");
		await harness.navigateTree(firstWrite!.id);
		await new Promise((resolve) => setTimeout(resolve, 500));
		await quiet(harness);
		expect(harness.ui.widgets.has("til-done-countdown")).toBe(false);
		expect(continuations(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done")).toBe("📋 0/2");
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
		await harness.waitFor(() => harness.ui.status.get("til-done") === "✓ Done (3 items)", 10_000, "list done");
		await quiet(harness);
		expect(continuations(harness)).toHaveLength(2);
		expect(harness.extensionErrors).toEqual([]);
	});
});

describe("rule 10: continued runs carry the current list", () => {
	it("the continuation prompt holds the live statuses, and no second copy of the list is injected", async () => {
		const harness = await startTilDone({
			responses: [
				writeTodos(["a", "b", "c"]),
				startTodo(0),
				completeTodo(0),
				startTodo(1),
				say("stop"),
				...workItem(2),
			],
		});
		await harness.prompt("go");
		await harness.waitForSettled(2);
		await quiet(harness);
		const continuedRun = harness.modelCalls.find((call) => call.lastUserText?.startsWith("There are still"));
		expect(continuedRun?.lastUserText).toContain("● [1] b\n– [2] c");
		expect(continuedRun?.lastUserText).toContain("Next action: edit_todos with action 'complete' and indices [1]");
		const injections = continuedRun?.userTexts.filter((text) => text.startsWith("[TILL-DONE ACTIVE]")) ?? [];
		expect(injections).toHaveLength(0);
	});
});

describe("the countdown at its default length", () => {
	it("counts 3, 2, 1 above the editor and then continues", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a", "b"]), ...workItem(0), ...workItem(1)] }, {});
		delete process.env.TIL_DONE_COUNTDOWN;
		await harness.reload();
		const before = countdownWidgets(harness).length;
		await harness.prompt("go");
		await harness.waitFor(() => continuations(harness).length === 1, 8000, "continuation after 3 s");
		const shown = countdownWidgets(harness)
			.slice(before)
			.map((w) => w.lines?.[0]);
		expect(shown).toEqual([
			"⏳ Auto-continuing in 3s... (type anything to interrupt)",
			"⏳ Auto-continuing in 2s... (type anything to interrupt)",
			"⏳ Auto-continuing in 1s... (type anything to interrupt)",
			undefined,
		]);
	});
});
