/** User control and the peers' features, proven in the real pi runtime (SDK, in process) with the fake model. */

import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { continuations, disposeAll, notices, quiet, startTilDone } from "../helpers/til-done-pi.ts";
import { completeTodo, say, startTodo, workItem, writeTodos } from "../helpers/todo-model.ts";

afterEach(disposeAll);

describe("/todos changes the list like a tool does", () => {
	it("add, done, start and abandon survive a reload from the session file", async () => {
		const harness = await startTilDone({
			persist: true,
			responses: [writeTodos(["a", "b"]), say("Planned; waiting?")],
		});
		await harness.prompt("plan");
		await quiet(harness);
		await harness.prompt("/todos add write the changelog");
		await harness.prompt("/todos done 0");
		await harness.prompt("/todos start 2");
		await harness.prompt("/todos abandon 1");
		expect(notices(harness)).toContain("Added [2] write the changelog");
		expect(harness.ui.status.get("til-done")).toBe("📋 2/3");
		expect(harness.ui.status.get("til-done-active")).toBe("[2] write the changelog");
		expect(harness.ui.status.get("til-done-progress")).toBe("[███████░░░] 2/3");

		await harness.reopen();
		expect(harness.ui.status.get("til-done")).toBe("📋 2/3");
		expect(harness.ui.status.get("til-done-active")).toBe("[2] write the changelog");
	});

	it("clear empties the list, and stays empty after moving back to the leaf of the branch", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a", "b"]), say("Planned; shall I go on?")] });
		await harness.prompt("plan");
		await quiet(harness);
		await harness.prompt("/todos clear");
		expect(harness.ui.status.get("til-done")).toBeUndefined();
		const branch = harness.branch();
		const write = branch.find((e) => e.type === "message" && e.message.role === "toolResult");
		await harness.navigateTree(write!.id);
		expect(harness.ui.status.get("til-done")).toBe("📋 0/2");
		await harness.navigateTree(branch.at(-1)!.id);
		expect(harness.ui.status.get("til-done")).toBeUndefined();
	});

	it("rejects bad input with a clear error and changes nothing", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a"]), say("ok?")] });
		await harness.prompt("plan");
		await quiet(harness);
		await harness.prompt("/todos done 7");
		await harness.prompt("/todos add");
		await harness.prompt("/todos frobnicate");
		const errors = harness.ui.notifications.filter((n) => n.type === "error").map((n) => n.message);
		expect(errors).toEqual([
			"/todos done: indices [7] out of range (0 to 0)",
			"/todos add: todo item at index 0 has empty text",
			"/todos: unknown subcommand 'frobnicate'. Try: add, start, done, abandon, review, approve, check, clear, pause, resume, status, panel",
		]);
		expect(harness.ui.status.get("til-done")).toBe("📋 0/1");
	});
});

describe("/todos pause and resume", () => {
	it("pause stops the auto-continue for the session; resume continues the list", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a", "b"]), ...workItem(0), ...workItem(1)] });
		await harness.prompt("/todos pause");
		expect(harness.ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused");
		await harness.prompt("go");
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done")).toBe("📋 1/2");

		await harness.prompt("/todos resume");
		await harness.waitFor(() => harness.ui.status.get("til-done") === "✓ Done (2 items)", 5000, "resumed list done");
		expect(continuations(harness)).toHaveLength(1);
		expect(harness.ui.status.get("til-done-paused")).toBeUndefined();
	});

	it("status reports the state, the counters and the limits", async () => {
		const harness = await startTilDone({ responses: [] });
		await harness.prompt("/todos status");
		expect(notices(harness).at(-1)).toBe(
			[
				"Auto-continue: on",
				"Continuations this prompt: 0/20",
				"Continuations without progress: 0/3",
				"Failed runs in a row: 0/3",
				"Countdown: 0.02s",
				"Done-check: none",
				"Item checks: on, timeout 120s",
			].join("\n"),
		);
	});

	it("starts paused with TIL_DONE_PAUSED=1", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_PAUSED: "1" },
		);
		await harness.prompt("go");
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: started with auto-continue off");
	});
});

describe("the model pauses when it must stop", () => {
	it("pause_todos stops the continuation with a reason the user sees, until the user prompts again", async () => {
		const pause = fauxAssistantMessage(fauxToolCall("pause_todos", { reason: "need the database password" }), {
			stopReason: "toolUse",
		});
		const harness = await startTilDone({
			responses: [writeTodos(["a", "b"]), startTodo(0), pause, say("I need the password."), ...workItem(0), say("ok")],
		});
		await harness.prompt("go");
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(harness.ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: need the database password");
		expect(notices(harness)).toContain("Auto-continue paused by the model: need the database password");

		await harness.prompt("the password is hunter2");
		await quiet(harness);
		expect(harness.ui.status.get("til-done-paused")).toBeUndefined();
		expect(continuations(harness).length).toBeGreaterThanOrEqual(1);
	});

	it("does not continue when the model's last message asks the user a question", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["a", "b"]), ...workItem(0).slice(0, 2), say("Should I use Postgres or SQLite?")],
		});
		await harness.prompt("go");
		await quiet(harness);
		expect(continuations(harness)).toEqual([]);
		expect(harness.ui.widgetHistory.filter((w) => w.key === "til-done-countdown")).toEqual([]);
	});
});

describe("seeing progress", () => {
	it("shows the panel with the in-progress item and a +N more tail, and the finished notice once", async () => {
		const items = ["one", "two", "three", "four", "five", "six", "seven"];
		const responses = [writeTodos(items), startTodo(0), say("Working on it; more later.")];
		const harness = await startTilDone({ responses }, { TIL_DONE_PANEL: "1", TIL_DONE_PAUSED: "1" });
		await harness.prompt("go");
		await quiet(harness);
		expect(harness.ui.widgets.get("til-done-panel")).toEqual([
			"● [0] one",
			"– [1] two",
			"– [2] three",
			"– [3] four",
			"– [4] five",
			"+2 more",
		]);
		await harness.prompt("/todos panel off");
		expect(harness.ui.widgets.has("til-done-panel")).toBe(false);

		harness.respond(completeTodo(0, 1, 2, 3, 4, 5, 6), say("All finished."));
		await harness.prompt("finish them all");
		await quiet(harness);
		harness.respond(say("Anything else?"), say("Still here."));
		await harness.prompt("thanks");
		await harness.prompt("bye");
		await quiet(harness);
		const done = harness.ui.notifications.filter((n) => n.message === "✓ All 7 todos are done.");
		expect(done).toHaveLength(1);
		expect(done[0]?.type).toBe("info");
	});
});

describe("/loop", () => {
	it("sends the prompt again after each run until the answer holds the marker", async () => {
		const harness = await startTilDone({ responses: [say("step 1"), say("step 2"), say("all good: SHIPPED")] });
		await harness.prompt("/loop --until SHIPPED --max 5 polish the README");
		await harness.waitFor(() => notices(harness).some((m) => m.startsWith("Loop finished")), 5000, "loop end");
		await quiet(harness);
		expect(harness.agentRuns()).toBe(3);
		expect(notices(harness)).toContain("Loop finished: SHIPPED found after 3 iteration(s).");
		expect(harness.userTexts()[0]).toBe(
			"polish the README\n\n(Loop iteration 1 of 5. When the task is fully complete, include SHIPPED in your answer.)",
		);
		expect(harness.ui.status.get("til-done-loop")).toBeUndefined();
	});

	it("stops at --max iterations with a warning", async () => {
		const harness = await startTilDone({ responses: [say("a"), say("b"), say("c")] });
		await harness.prompt("/loop --max 2 keep refining");
		await harness.waitFor(() => notices(harness).some((m) => m.startsWith("Loop stopped")), 5000, "loop stop");
		await quiet(harness);
		expect(harness.agentRuns()).toBe(2);
		expect(harness.ui.notifications.at(-1)).toEqual({
			message: "Loop stopped: 2 iteration(s) without LOOP_DONE.",
			type: "warning",
		});
	});

	it("a keypress during the countdown ends the loop", async () => {
		const harness = await startTilDone({ responses: [say("a"), say("b")] }, { TIL_DONE_COUNTDOWN: "5" });
		await harness.prompt("/loop again and again");
		await harness.waitFor(() => harness.ui.widgets.has("til-done-countdown"), 5000, "countdown");
		expect(harness.ui.status.get("til-done-loop")).toBe("🔁 loop 1/10");
		harness.ui.pressKey("q");
		await quiet(harness);
		expect(harness.agentRuns()).toBe(1);
		expect(notices(harness)).toContain("Loop stopped by the user.");
		expect(harness.ui.status.get("til-done-loop")).toBeUndefined();
	});

	it("rejects a bad --max", async () => {
		const harness = await startTilDone({ responses: [] });
		await harness.prompt("/loop --max lots do it");
		expect(harness.ui.notifications.at(-1)).toEqual({
			message: "/loop: --max takes a whole number from 1 to 1000",
			type: "error",
		});
		expect(harness.agentRuns()).toBe(0);
	});
});
