/** User control and the peers' features, proven in the real pi runtime (SDK, in process) with the fake model. */

import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
	activeStatus,
	added,
	allDone,
	doneStatus,
	KEY,
	LOOP_BAD_MAX,
	LOOP_STOPPED_BY_USER,
	loopFinished,
	loopLimit,
	loopPrompt,
	loopStatus,
	PAUSED_STATUS,
	panelMore,
	pausedByModel,
	pausedStatus,
	progressStatus,
	STARTED_PAUSED,
	statusReport,
	TODOS_ERRORS,
} from "../helpers/expected.ts";
import type { PiHarness } from "../helpers/sdk.ts";
import {
	continuations,
	countdownWidgets,
	disposeAll,
	idle,
	notices,
	reported,
	startTilDone,
	stayed,
} from "../helpers/til-done-pi.ts";
import { completeTodo, say, startTodo, workItem, writeTodos } from "../helpers/todo-model.ts";

afterEach(disposeAll);

const status = (harness: PiHarness, key: string = KEY.status) => harness.ui.status.get(key);

describe("/todos changes the list like a tool does", () => {
	it("add, done, start and abandon survive a reload from the session file", async () => {
		const harness = await startTilDone({
			persist: true,
			responses: [writeTodos(["a", "b"]), say("Planned; waiting?")],
		});
		await harness.prompt("plan");
		await harness.prompt("/todos add write the changelog");
		await harness.prompt("/todos done 0");
		await harness.prompt("/todos start 2");
		await harness.prompt("/todos abandon 1");
		expect(notices(harness)).toContain(added(2, "write the changelog"));
		expect(status(harness)).toBe(progressStatus(2, 3));
		expect(status(harness, KEY.active)).toBe(activeStatus(2, "write the changelog"));

		await harness.reopen();
		expect(status(harness)).toBe(progressStatus(2, 3));
		expect(status(harness, KEY.active)).toBe(activeStatus(2, "write the changelog"));
	});

	it("clear empties the list, and stays empty after moving back to the leaf of the branch", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a", "b"]), say("Planned; shall I go on?")] });
		await harness.prompt("plan");
		await harness.prompt("/todos clear");
		expect(status(harness)).toBeUndefined();
		const branch = harness.branch();
		const write = branch.find((e) => e.type === "message" && e.message.role === "toolResult");
		await harness.navigateTree(write!.id);
		expect(status(harness)).toBe(progressStatus(0, 2));
		await harness.navigateTree(branch.at(-1)!.id);
		expect(status(harness)).toBeUndefined();
	});

	it("rejects bad input with a clear error and changes nothing", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a"]), say("ok?")] });
		await harness.prompt("plan");
		await harness.prompt("/todos done 7");
		await harness.prompt("/todos add");
		await harness.prompt("/todos frobnicate");
		const errors = harness.ui.notifications.filter((n) => n.type === "error").map((n) => n.message);
		expect(errors).toEqual([
			TODOS_ERRORS.notAnItem("done", "7", 1),
			TODOS_ERRORS.addEmpty,
			TODOS_ERRORS.unknown("frobnicate"),
		]);
		expect(status(harness)).toBe(progressStatus(0, 1));
	});
});

describe("/todos pause and resume", () => {
	it("pause stops the auto-continue for the session; resume continues the list", async () => {
		const harness = await startTilDone({ responses: [writeTodos(["a", "b"]), ...workItem(0), ...workItem(1)] });
		await harness.prompt("/todos pause");
		expect(status(harness, KEY.paused)).toBe(PAUSED_STATUS);
		await harness.prompt("go");
		expect(countdownWidgets(harness)).toEqual([]);
		expect(status(harness)).toBe(progressStatus(1, 2));

		await harness.prompt("/todos resume");
		await harness.waitFor(() => status(harness) === doneStatus(2), 5000, "resumed list done");
		expect(continuations(harness)).toHaveLength(1);
		expect(status(harness, KEY.paused)).toBeUndefined();
	});

	it("status reports the state, the counters and the limits", async () => {
		const harness = await startTilDone({ responses: [] });
		await harness.prompt("/todos status");
		expect(notices(harness).at(-1)).toBe(statusReport(0.02));
	});

	it("starts paused with TIL_DONE_PAUSED=1", async () => {
		const harness = await startTilDone(
			{ responses: [writeTodos(["a", "b"]), ...workItem(0)] },
			{ TIL_DONE_PAUSED: "1" },
		);
		await harness.prompt("go");
		expect(countdownWidgets(harness)).toEqual([]);
		expect(status(harness, KEY.paused)).toBe(pausedStatus(STARTED_PAUSED));
	});
});

describe("the model pauses when it must stop", () => {
	it("pause_todos stops the continuation with a reason the user sees, until the user prompts again", async () => {
		const pause = fauxAssistantMessage(fauxToolCall("pause_todos", { reason: "need the database password" }), {
			stopReason: "toolUse",
		});
		const harness = await startTilDone({
			responses: [
				writeTodos(["a", "b"]),
				startTodo(0),
				pause,
				say("I need the password."),
				...workItem(0),
				...workItem(1),
			],
		});
		await harness.prompt("go");
		expect(countdownWidgets(harness)).toEqual([]);
		expect(status(harness, KEY.paused)).toBe(pausedStatus("need the database password"));
		expect(notices(harness)).toContain(pausedByModel("need the database password"));

		await harness.prompt("the password is hunter2");
		expect(status(harness, KEY.paused)).toBeUndefined();
		await harness.waitFor(() => status(harness) === doneStatus(2), 5000, "list done");
		expect(continuations(harness)).toHaveLength(1);
	});

	it("does not continue when the model's last message asks the user a question", async () => {
		const harness = await startTilDone({
			responses: [writeTodos(["a", "b"]), ...workItem(0).slice(0, 2), say("Should I use Postgres or SQLite?")],
		});
		await harness.prompt("go");
		expect(countdownWidgets(harness)).toEqual([]);
		expect(continuations(harness)).toEqual([]);
	});
});

describe("seeing progress", () => {
	it("shows the panel with the in-progress item and a +N more tail, and the finished notice once", async () => {
		const items = ["one", "two", "three", "four", "five", "six", "seven"];
		const responses = [writeTodos(items), startTodo(0), say("Working on it; more later.")];
		const harness = await startTilDone({ responses }, { TIL_DONE_PANEL: "1", TIL_DONE_PAUSED: "1" });
		await harness.prompt("go");
		expect(harness.ui.widgets.get(KEY.panel)?.lines).toEqual([
			"● [0] one",
			"– [1] two",
			"– [2] three",
			"– [3] four",
			"– [4] five",
			panelMore(2),
		]);
		await harness.prompt("/todos panel off");
		expect(harness.ui.widgets.has(KEY.panel)).toBe(false);

		harness.respond(completeTodo(0, 1, 2, 3, 4, 5, 6), say("All finished."));
		await harness.prompt("finish them all");
		harness.respond(say("Anything else?"), say("Still here."));
		await harness.prompt("thanks");
		await harness.prompt("bye");
		expect(reported(harness).filter((line) => line.text === allDone(7))).toEqual([
			{ level: "success", text: allDone(7) },
		]);
		expect(notices(harness)).not.toContain(allDone(7));
	});
});

describe("/loop", () => {
	it("sends the prompt again after each run until the answer holds the marker", async () => {
		const harness = await startTilDone({ responses: [say("step 1"), say("step 2"), say("all good: SHIPPED")] });
		await harness.prompt("/loop --until SHIPPED --max 5 polish the README");
		await harness.waitFor(() => stayed(harness).includes(loopFinished("SHIPPED", 3)), 5000, "loop end");
		await idle(harness);
		expect(harness.agentRuns()).toBe(3);
		expect(harness.userTexts()[0]).toBe(loopPrompt("polish the README", 1, 5, "SHIPPED"));
		expect(status(harness, KEY.loop)).toBeUndefined();
	});

	it("stops at --max iterations with a warning", async () => {
		const harness = await startTilDone({ responses: [say("a"), say("b"), say("c")] });
		await harness.prompt("/loop --max 2 keep refining");
		await harness.waitFor(() => stayed(harness).includes(loopLimit(2, "LOOP_DONE")), 5000, "loop stop");
		await idle(harness);
		expect(harness.agentRuns()).toBe(2);
		expect(reported(harness)).toEqual([{ level: "warning", text: loopLimit(2, "LOOP_DONE") }]);
	});

	it("a keypress during the countdown ends the loop", async () => {
		const harness = await startTilDone({ responses: [say("a"), say("b")] }, { TIL_DONE_COUNTDOWN: "600" });
		await harness.prompt("/loop again and again");
		await harness.waitFor(() => harness.ui.widgets.has(KEY.countdown), 5000, "countdown");
		expect(status(harness, KEY.loop)).toBe(loopStatus(1, 10));
		harness.ui.pressKey("q");
		expect(harness.ui.widgets.has(KEY.countdown)).toBe(false);
		await harness.waitFor(() => notices(harness).includes(LOOP_STOPPED_BY_USER), 5000, "the loop's end");
		expect(harness.agentRuns()).toBe(1);
		expect(status(harness, KEY.loop)).toBeUndefined();
	});

	it("rejects a bad --max", async () => {
		const harness = await startTilDone({ responses: [] });
		await harness.prompt("/loop --max lots do it");
		expect(harness.ui.notifications.at(-1)).toEqual({ message: LOOP_BAD_MAX, type: "error" });
		expect(harness.agentRuns()).toBe(0);
	});
});
