import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG, type TilDoneConfig } from "../../src/core/rules/settings.ts";
import { type ChainSpend, NO_SPEND } from "../../src/core/rules/usage.ts";
import { registerLoopCommand } from "../../src/edges/commands/loop.ts";
import { completeTodosArgs, formatStatusReport } from "../../src/edges/commands/todos.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import {
	beginSession,
	getChain,
	getDecisions,
	getLoop,
	getTodos,
	isPanelEnabled,
	markStopped,
	pauseAutoContinue,
	recordRun,
	setLoop,
	setTodos,
} from "../../src/state.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { startEngine } from "../helpers/engine.ts";
import {
	allDone,
	LOOP_USAGE,
	listLines,
	loopRefused,
	NO_PROGRESS_DONE,
	progressBreakerDone,
	STATUS_REFUSED,
	statusReport,
	stderrLine,
	TODOS_ERRORS,
	TODOS_HELP_TEXT,
	TODOS_SUBCOMMANDS,
	todosRefused,
} from "../helpers/expected.ts";
import type { FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { item, PLAN, planWith } from "../helpers/linked-lists.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
import { sendContinuation } from "../helpers/store.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });
const TWO_ITEMS = [todo("Write schema", "in_progress"), todo("Write migration")];

function setup(options: FakeCtxOptions = {}, overrides: Partial<TilDoneConfig> = {}) {
	const base = startEngine(options, overrides);
	const { config, pi, engine, ui, commandCtx } = base;
	registerTodosCommand(pi.api, engine, () => config);
	registerLoopCommand(pi.api, engine, () => config);
	const todos = (args: string) => pi.commands.get("todos")?.handler(args, commandCtx);
	const loop = (args: string) => pi.commands.get("loop")?.handler(args, commandCtx);
	/** The messages told to the user, in order. */
	const told = () => ui.notifications.map((n) => n.message);
	return { ...base, todos, loop, told };
}

/** The lists the commands stored on the branch (decisions are stored beside them). */
const snapshots = (pi: { entries: { customType: string; data: unknown }[] }) =>
	pi.entries.filter((entry) => entry.customType === "til-done-snapshot");

const stderr = fakeTimersQuietStderr();

describe("the factory registers /todos and /loop", () => {
	it("registers exactly the two commands with their descriptions", async () => {
		const { pi } = setup();
		expect([...pi.commands.keys()]).toEqual(["todos", "loop"]);
		expect(pi.commands.get("todos")?.description).toBe(
			"Show or change the todo list and the auto-continue (/todos help lists the subcommands)",
		);
		expect(pi.commands.get("loop")?.description).toBe(
			"Send a prompt again after every run until the answer holds a marker: /loop [--max N] [--until M] <prompt>",
		);
	});

	it("offers the subcommand completions for /todos", async () => {
		const { pi } = setup();
		expect(await pi.commands.get("todos")?.getArgumentCompletions?.("cl")).toEqual([
			{ value: "clear", label: "clear", description: "clear: empty the list" },
		]);
	});
});

describe("argument completion covers the first word only", () => {
	it("offers every subcommand for an empty prefix, in order", async () => {
		expect(completeTodosArgs("")?.map((c) => c.value)).toEqual(TODOS_SUBCOMMANDS.split(", "));
	});

	it("offers the subcommands that start with the prefix, with their help", async () => {
		expect(completeTodosArgs("st")).toEqual([
			{ value: "start", label: "start", description: "start <i> [<i> …]: mark items in progress, and go on" },
			{
				value: "status",
				label: "status",
				description: "status: the auto-continue's state, counters, spend and limits",
			},
		]);
		expect(completeTodosArgs("pa")?.map((c) => c.value)).toEqual(["pause", "panel"]);
	});

	it("offers nothing for a prefix no subcommand starts with", async () => {
		expect(completeTodosArgs("x")).toBeNull();
	});

	it("offers nothing once the first word is complete", async () => {
		expect(completeTodosArgs("done ")).toBeNull();
		expect(completeTodosArgs("panel o")).toBeNull();
	});
});

describe("/todos with no subcommand shows the list as text outside the TUI (the TUI's view: list-view.test.ts)", () => {
	it("rpc: the plain list", async () => {
		const { todos, told } = setup({ mode: "rpc" });
		setTodos(TWO_ITEMS);
		await todos("");
		expect(told()).toEqual(["● [0] Write schema\n– [1] Write migration"]);
	});

	it("without a UI: the plain list on stderr (stdout is pi's)", async () => {
		const { todos, ui } = setup({ hasUI: false, mode: "print" });
		setTodos(TWO_ITEMS);
		await todos("");
		expect(stderr()).toHaveBeenCalledWith(stderrLine("● [0] Write schema\n– [1] Write migration"));
		expect(ui.notifications).toEqual([]);
		await todos("clear");
		expect(stderr()).toHaveBeenLastCalledWith(stderrLine("Todo list cleared."));
	});
});

describe("/todos in print mode answers on stderr, and a refused subcommand changes nothing", () => {
	it("a word given as an index is named, on one stderr answer; the list, the branch and the chain stay as they were", async () => {
		const { pi, todos, told } = setup({ hasUI: false, mode: "print" });
		const two = [todo("a"), todo("b")];
		setTodos(two);
		const chain = getChain();
		await todos("start abc");
		expect(stderr().mock.calls).toEqual([[stderrLine(TODOS_ERRORS.notAnIndex("start", "abc", 2))]]);
		expect(told()).toEqual([]);
		expect(getTodos()).toEqual(two);
		expect(getChain()).toEqual(chain);
		expect(pi.entries).toEqual([]);
		expect(pi.sent).toEqual([]);
		await todos("");
		expect(stderr()).toHaveBeenLastCalledWith(stderrLine(listLines("– [0] a", "– [1] b")));
	});
});

describe("a refused command exits 2 where the invocation ends with it, in the user's own session only", () => {
	let exitCode: typeof process.exitCode;
	beforeEach(() => {
		exitCode = process.exitCode;
		process.exitCode = undefined;
	});
	afterEach(() => {
		process.exitCode = exitCode;
	});

	it.each([
		["/todos frobnicate", (s: ReturnType<typeof setup>) => s.todos("frobnicate")],
		["/todos start 7", (s: ReturnType<typeof setup>) => s.todos("start 7")],
		["/todos diff 0 of an item without checkpoints", (s: ReturnType<typeof setup>) => s.todos("diff 0")],
		["/todos import of a missing file", (s: ReturnType<typeof setup>) => s.todos("import no-such-plan.md")],
		["/loop --max 0", (s: ReturnType<typeof setup>) => s.loop("--max 0 go")],
	])("print mode: %s sets exit status 2", async (_name, run) => {
		const s = setup({ hasUI: false, mode: "print", cwd: tmpdir() });
		setTodos([todo("a")]);
		await run(s);
		expect(stderr()).toHaveBeenCalledOnce();
		expect(process.exitCode).toBe(2);
	});

	it("JSON mode too", async () => {
		const { todos } = setup({ hasUI: false, mode: "json" });
		await todos("frobnicate");
		expect(process.exitCode).toBe(2);
	});

	it("over RPC and in the TUI the status is left alone: the refusal is a notice", async () => {
		const { todos, ui } = setup({ mode: "rpc" });
		await todos("frobnicate");
		expect(ui.notifications.map((notice) => notice.type)).toEqual(["error"]);
		expect(process.exitCode).toBeUndefined();
	});

	it("a guest's refusal leaves the status alone: it is pi's own", async () => {
		const { todos, config } = setup({ hasUI: false, mode: "print" });
		beginSession("child", config);
		await todos("frobnicate");
		expect(stderr()).toHaveBeenCalledOnce();
		expect(process.exitCode).toBeUndefined();
	});

	it("a command answered, not refused, leaves the status alone", async () => {
		const { todos } = setup({ hasUI: false, mode: "print" });
		await todos("help status");
		await todos("add a");
		expect(process.exitCode).toBeUndefined();
	});
});

describe("changing the list records a til-done-snapshot entry with the full list", () => {
	it("add appends an item, tells its index and records the list", async () => {
		const { pi, todos, told, ui } = setup();
		setTodos(TWO_ITEMS);
		await todos("add   Write   docs  ");
		expect(told()).toEqual(["Added [2] Write   docs"]);
		expect(snapshots(pi)).toEqual([
			{
				customType: "til-done-snapshot",
				data: { action: "write", todos: [...TWO_ITEMS, todo("Write   docs")] },
			},
		]);
		expect(ui.status.get("til-done")).toBe("📋 0/3 [░░░░░░░░░░]");
	});

	it("the recorded list is a copy, not the live list", async () => {
		const { pi, todos } = setup();
		await todos("add a");
		await todos("done 0");
		expect(snapshots(pi).map((entry) => entry.data)).toEqual([
			{ action: "write", todos: [todo("a")] },
			{ action: "write", todos: [todo("a", "completed")] },
		]);
	});

	it("add without text is an error and records nothing", async () => {
		const { pi, todos, ui } = setup();
		await todos("add");
		expect(ui.notifications).toEqual([{ message: TODOS_ERRORS.addEmpty, type: "error" }]);
		expect(pi.entries).toEqual([]);
		expect(getTodos()).toEqual([]);
	});

	it("add to a full list is an error", async () => {
		const { pi, todos, told } = setup();
		setTodos(Array.from({ length: 100 }, (_, i) => todo(`item ${i}`)));
		await todos("add one more");
		expect(told()).toEqual([todosRefused("add", "the list holds 100 items, its most")]);
		expect(pi.entries).toEqual([]);
	});

	it("start, done and abandon set the status of every index given and show the list", async () => {
		const { pi, todos, told } = setup();
		setTodos([todo("a"), todo("b"), todo("c")]);
		await todos("start 1");
		await todos("done 0 1");
		await todos("abandon 2");
		expect(told()).toEqual(["– [0] a\n● [1] b\n– [2] c", "✓ [0] a\n✓ [1] b\n– [2] c", "✓ [0] a\n✓ [1] b\n✗ [2] c"]);
		expect(pi.entries.at(-1)).toEqual({
			customType: "til-done-snapshot",
			data: { action: "write", todos: [todo("a", "completed"), todo("b", "completed"), todo("c", "abandoned")] },
		});
	});

	it("clear empties the list and records the empty list", async () => {
		const { pi, todos, told, ui } = setup();
		setTodos(TWO_ITEMS);
		await todos("clear");
		expect(told()).toEqual(["Todo list cleared."]);
		expect(getTodos()).toEqual([]);
		expect(pi.entries).toEqual([{ customType: "til-done-snapshot", data: { action: "write", todos: [] } }]);
		expect(ui.status.has("til-done")).toBe(false);
	});

	it("a change by the user starts a new chain", async () => {
		const { todos } = setup();
		setTodos(TWO_ITEMS);
		sendContinuation();
		await todos("done 0");
		expect(getChain()).toMatchObject({ continuations: 0, noProgress: 0, failures: 0 });
	});
});

describe("indices are read as typed: anything else is named, refused with the usage, and changes nothing", () => {
	it("asks which item when no index is given", async () => {
		const { pi, todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("done");
		expect(told()).toEqual([TODOS_ERRORS.which("done", 2)]);
		expect(pi.entries).toEqual([]);
	});

	it("names a word, a negative number or a fraction as not an index", async () => {
		const { pi, todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("start abc");
		await todos("abandon x 1");
		await todos("done -1");
		await todos("start 1.5");
		await todos("done 0 two 1e1");
		expect(told()).toEqual([
			TODOS_ERRORS.notAnIndex("start", "abc", 2),
			TODOS_ERRORS.notAnIndex("abandon", "x", 2),
			TODOS_ERRORS.notAnIndex("done", "-1", 2),
			TODOS_ERRORS.notAnIndex("start", "1.5", 2),
			TODOS_ERRORS.notAnIndex("done", "two", 2),
		]);
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(pi.entries).toEqual([]);
	});

	it("quotes a bad argument on one line, cut to 20 characters", async () => {
		const { todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos(`start ${"x".repeat(40)}`);
		expect(told()).toEqual([TODOS_ERRORS.notAnIndex("start", `${"x".repeat(19)}…`, 2)]);
	});

	it("names the first index the list does not have, as typed", async () => {
		const { todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("start 1 5 7");
		await todos("review 007");
		expect(told()).toEqual([TODOS_ERRORS.notAnItem("start", "5", 2), TODOS_ERRORS.notAnItem("review", "007", 2)]);
		expect(getTodos()).toEqual(TWO_ITEMS);
	});

	it("refuses an item given twice, however it is written, and changes nothing", async () => {
		const { todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("done 1 1");
		await todos("remove 0 1 00");
		expect(told()).toEqual([TODOS_ERRORS.twice("done", 1), TODOS_ERRORS.twice("remove", 0)]);
		expect(getTodos()).toEqual(TWO_ITEMS);
	});

	it("refuses more than 50 indices, a text past 1000 characters, and a move that is not two items; changes nothing", async () => {
		const { todos, told, pi } = setup();
		setTodos(TWO_ITEMS);
		await todos(`done ${Array.from({ length: 51 }, () => "0").join(" ")}`);
		await todos(`add ${"x".repeat(1001)}`);
		await todos(`edit 1 ${"y".repeat(1001)}`);
		await todos("edit 1");
		await todos("move 1");
		await todos("move x 1");
		await todos("move 0 2");
		expect(told()).toEqual([
			TODOS_ERRORS.tooManyIndices("done", 51),
			TODOS_ERRORS.textTooLong("add"),
			TODOS_ERRORS.textTooLong("edit"),
			TODOS_ERRORS.emptyText("edit"),
			TODOS_ERRORS.move(2),
			TODOS_ERRORS.notAnIndex("move", "x", 2),
			TODOS_ERRORS.notAnItem("move", "2", 2),
		]);
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(pi.entries).toEqual([]);
	});

	it("on an empty list there is nothing to name, and a word is still not an index", async () => {
		const { todos, told } = setup();
		await todos("done 0");
		await todos("done");
		await todos("start abc");
		expect(told()).toEqual([
			TODOS_ERRORS.notAnItem("done", "0", 0),
			TODOS_ERRORS.which("done", 0),
			TODOS_ERRORS.notAnIndex("start", "abc", 0),
		]);
	});

	it.each(["status", "why", "clear", "resume"])("%s takes no arguments", async (sub) => {
		const { todos, told, pi } = setup();
		setTodos(TWO_ITEMS);
		await todos(`${sub} now`);
		expect(told()).toEqual([TODOS_ERRORS.takesNothing(sub, "now")]);
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(pi.entries).toEqual([]);
	});
});

describe("/todos help lists the subcommands, one line each, and says how one is used", () => {
	it("lists every subcommand with how it is written and what it does", async () => {
		const { todos, told } = setup();
		await todos("help");
		expect(told()).toEqual([TODOS_HELP_TEXT]);
	});

	it("says how one subcommand is used, and refuses one it does not know", async () => {
		const { todos, told } = setup();
		await todos("help move");
		await todos("help frob");
		expect(told()).toEqual([
			"usage: /todos move <i> <j>\nmove item i to position j",
			todosRefused("help", '"frob" is not a subcommand'),
		]);
	});
});

describe("the user edits, removes, moves and unmarks items; each change is stored on the branch", () => {
	it("edit changes the text of one item and keeps its status and marks", async () => {
		const { pi, todos } = setup();
		setTodos([todo("a", "in_progress"), { text: "b", status: "not_started", review: true }]);
		await todos("edit 1 Write the release notes");
		expect(getTodos()).toEqual([
			todo("a", "in_progress"),
			{ text: "Write the release notes", status: "not_started", review: true },
		]);
		expect(pi.entries.at(-1)?.data).toEqual({ action: "write", todos: getTodos() });
	});

	it("remove deletes items; move puts an item at another position", async () => {
		const { todos } = setup();
		setTodos([todo("a"), todo("b"), todo("c"), todo("d")]);
		await todos("remove 1 3");
		expect(getTodos().map((item) => item.text)).toEqual(["a", "c"]);
		await todos("move 0 1");
		expect(getTodos().map((item) => item.text)).toEqual(["c", "a"]);
	});

	it("remove and move keep every wait and subtask on the same item; a removed blocker frees what waited", async () => {
		const { todos, pi } = setup();
		setTodos(PLAN);
		await todos("remove 0");
		expect(getTodos().map((item) => [item.text, item.blockedBy, item.parent])).toEqual([
			["Write the migration", undefined, undefined],
			["Ship the feature", undefined, undefined],
			["Add the API", undefined, 1],
			["Add the UI", [2], 1],
			["Release", [0, 1], undefined],
		]);
		await todos("move 4 0");
		expect(getTodos()[0]).toEqual(item("Release", "not_started", { blockedBy: [1, 2] }));
		expect(getTodos()[4]).toEqual(item("Add the UI", "not_started", { parent: 2, blockedBy: [3] }));
		expect(pi.entries.at(-1)?.data).toEqual({ action: "write", todos: getTodos() });
	});

	it("the user's done on a parent's last open subtask completes the parent, whatever it waits on", async () => {
		const { todos } = setup();
		setTodos(planWith({ 3: "completed" }));
		await todos("done 4");
		expect(getTodos().map((item) => item.status)).toEqual([
			"not_started",
			"not_started",
			"completed",
			"completed",
			"completed",
			"not_started",
		]);
	});

	it("unreview takes the review mark off; review puts it on", async () => {
		const { todos } = setup();
		setTodos([todo("a")]);
		await todos("review 0");
		expect(getTodos()).toEqual([{ text: "a", status: "not_started", review: true }]);
		await todos("unreview 0");
		expect(getTodos()).toEqual([todo("a")]);
	});

	it("on a paused list of six: add without text and an item given twice are refused and change nothing; edit, review, unreview, move and remove go", async () => {
		const { pi, todos, told } = setup();
		const six = ["a", "b", "c", "d", "e", "f"].map((text) => todo(text));
		setTodos(six);
		await todos("pause");
		const paused = [...pi.entries];
		await todos("add");
		await todos("help");
		expect(told().slice(1)).toEqual([TODOS_ERRORS.addEmpty, TODOS_HELP_TEXT]);
		expect(getTodos()).toEqual(six);
		expect(pi.entries).toEqual(paused);
		await todos("edit 0 Write the parser");
		await todos("review 1");
		await todos("unreview 1");
		await todos("move 5 0");
		const moved = getTodos();
		await todos("remove 2 3 3");
		expect(told().at(-1)).toBe(TODOS_ERRORS.twice("remove", 3));
		expect(getTodos()).toEqual(moved);
		await todos("remove 2 3 4 5");
		expect(told().at(-1)).toBe(listLines("– [0] f", "– [1] Write the parser"));
		expect(getTodos()).toEqual([todo("f"), todo("Write the parser")]);
	});

	it.each([
		["edit 0", todosRefused("edit", "the text is empty")],
		["edit x text", TODOS_ERRORS.notAnIndex("edit", "x", 2)],
		["move 0", todosRefused("move", "give the item and where it goes: two indices, the list has 2 item(s), 0 to 1")],
		["move 0 2", TODOS_ERRORS.notAnItem("move", "2", 2)],
		["remove", TODOS_ERRORS.which("remove", 2)],
	])("%s is refused and changes nothing", async (args, error) => {
		const { todos, told, pi } = setup();
		setTodos(TWO_ITEMS);
		await todos(args);
		expect(told()).toEqual([error]);
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(pi.entries).toEqual([]);
	});
});

describe("pause, resume and status control the auto-continue", () => {
	it("pause stops a showing countdown, pauses with the reason and shows it", async () => {
		const { pi, endRun, todos, told, ui, counting } = setup();
		setTodos(TWO_ITEMS);
		endRun();
		expect(counting()).toBe(true);
		await todos("pause   reviewing the plan ");
		expect(told()).toEqual(["Auto-continue paused for this session. /todos resume turns it back on."]);
		expect(counting()).toBe(false);
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "reviewing the plan" });
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: reviewing the plan");
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});

	it("pause without a reason", async () => {
		const { todos, ui } = setup();
		await todos("pause");
		expect(getChain().pauseReason).toBeUndefined();
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused");
	});

	it("resume turns auto-continue on, clears the status and continues at once when items remain", async () => {
		const { pi, todos, told, ui, counting } = setup();
		setTodos(TWO_ITEMS);
		await todos("pause");
		await todos("resume");
		expect(told().at(-1)).toBe("Auto-continue is on.");
		expect(getChain().paused).toBe(false);
		expect(ui.status.has("til-done-paused")).toBe(false);
		expect(counting()).toBe(true);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.map((sent) => sent.message.customType)).toEqual(["til-done-countdown"]);
	});

	it("resume with nothing left to do only says so; with an item left, the same command counts down", async () => {
		const { todos, told, counting } = setup();
		await todos("resume");
		expect(told()).toEqual(["Auto-continue is on."]);
		expect(counting()).toBe(false);
		expect(getDecisions()).toEqual([]);
		setTodos(TWO_ITEMS);
		await todos("resume");
		expect(counting()).toBe(true);
	});

	it("status reports the state, the counters and the limits", async () => {
		const { todos, told } = setup();
		await todos("status");
		expect(told()).toEqual([statusReport(3)]);
	});

	it("status in print and JSON modes says there is no countdown: the chain goes on inside the run", () => {
		expect(formatStatusReport(DEFAULT_CONFIG, { activeTools: ["read", "bash"], inRun: true })).toBe(
			statusReport("in-run"),
		);
	});

	it("status during a /loop forecasts the next loop iteration against a budget", () => {
		setLoop({ prompt: "tidy up", max: 3, marker: "LOOP DONE", iteration: 1 });
		const report = formatStatusReport({ ...DEFAULT_CONFIG, budgetTokens: 50_000 }, { activeTools: ["bash"] });
		setLoop(undefined);
		expect(report.split("\n").filter((line) => line.startsWith("Token budget"))).toEqual([
			"Token budget: 50,000 (next loop iteration: about 0)",
		]);
	});

	it("status shows a pause with its reason on one line, and the configured limits", async () => {
		pauseAutoContinue("model", "waiting\nfor review");
		sendContinuation();
		const config = { ...DEFAULT_CONFIG, maxContinuations: 5, maxNoProgress: 0, countdownSeconds: 0.5 };
		expect(formatStatusReport(config, { activeTools: ["read", "bash"] })).toBe(
			[
				"Auto-continue: paused (waiting for review)",
				"Spent this chain: 0 tokens in 0 call(s)",
				"Failed runs in a row: 0/3",
				"Same answer in a row: 0/3",
				"Continuations without progress: off",
				"Progress breaker: 5 × the median tokens per finished todo; armed once 2 todos are finished, 0 so far",
				"Continuations this prompt: 1/5",
				"Token budget: none",
				"Cost budget: none",
				"Countdown: 0.5s",
				"Stale-list reminder: every 12 tool calls",
				"Done-check: none",
				"Item checks: on, timeout 120s",
				"Judge: off",
				"Workers: off",
			].join("\n"),
		);
	});

	it("status shows a pause without a reason", async () => {
		pauseAutoContinue("user");
		expect(formatStatusReport(DEFAULT_CONFIG, { activeTools: ["bash"] }).split("\n")[0]).toBe("Auto-continue: paused");
	});

	it.each([
		[12, "Stale-list reminder: every 12 tool calls"],
		[1, "Stale-list reminder: every tool call"],
		[0, "Stale-list reminder: off"],
	])("status says how often the model is reminded of a stale list: every %i", (remindEvery, line) => {
		const report = formatStatusReport({ ...DEFAULT_CONFIG, remindEvery }, { activeTools: ["bash"] });
		expect(report.split("\n").filter((text) => text.startsWith("Stale-list reminder:"))).toEqual([line]);
	});

	it.each([
		["on, with bash active", DEFAULT_CONFIG, ["read", "bash"], "Item checks: on, timeout 120s"],
		[
			"off while bash is not active",
			DEFAULT_CONFIG,
			["read"],
			"Item checks: off while pi's bash tool is not active, timeout 120s",
		],
		[
			"off by setting, whatever the tools",
			{ ...DEFAULT_CONFIG, modelChecks: false, checkTimeoutSeconds: 30 },
			["bash"],
			"Item checks: off (--til-done-model-checks off), timeout 30s",
		],
	])("status says whether the model's item checks can run: %s", (_name, config, tools, line) => {
		expect(formatStatusReport(config, { activeTools: tools }).split("\n").at(-3)).toBe(line);
	});

	it.each([
		["off", { tokens: 0, cost: 0, calls: 0 }, "Judge: off"],
		[
			"on",
			{ tokens: 1234, cost: 0, calls: 1 },
			"Judge: the session's model; spent this chain: 1,234 tokens in 1 call(s)",
		],
		[
			"acme/small",
			{ tokens: 40, cost: 0.0125, calls: 2 },
			"Judge: acme/small; spent this chain: 40 tokens in 2 call(s), cost 0.0125",
		],
	])("status names the judge (%s) and what it spent in the chain", (judge, spent, line) => {
		recordRun({ ...getChain(), spend: { ...NO_SPEND, judge: spent } });
		expect(
			formatStatusReport({ ...DEFAULT_CONFIG, judge }, { activeTools: [] })
				.split("\n")
				.at(-2),
		).toBe(line);
	});

	it.each([
		[0, { tokens: 0, cost: 0, calls: 0 }, "Workers: off"],
		[4, { tokens: 0, cost: 0, calls: 0 }, "Workers: up to 4 at once; spent this chain: 0 tokens in 0 call(s)"],
		[
			2,
			{ tokens: 52_000, cost: 0.5, calls: 8 },
			"Workers: up to 2 at once; spent this chain: 52,000 tokens in 8 call(s), cost 0.5000",
		],
		[0, { tokens: 900, cost: 0, calls: 2 }, "Workers: off now; spent this chain: 900 tokens in 2 call(s)"],
	])("status says how many workers may work (%i) and what they spent in the chain", (workers, spent, line) => {
		recordRun({ ...getChain(), spend: { ...NO_SPEND, workers: spent } });
		expect(
			formatStatusReport({ ...DEFAULT_CONFIG, workers }, { activeTools: [] })
				.split("\n")
				.at(-1),
		).toBe(line);
	});
});

describe("status shows what the chain spent, its budgets and the progress breaker", () => {
	/** The spend line, then the progress breaker's and the budgets' lines. */
	const spendLines = (report: string) => report.split("\n").filter((line) => /^(Spent|Progress|Token|Cost)/.test(line));
	const spent = (fields: Partial<ChainSpend>) => recordRun({ ...getChain(), spend: { ...NO_SPEND, ...fields } });

	it("the spend, the budgets with the next continuation's forecast, and the breaker's figures", async () => {
		spent({ tokens: 54_321, cost: 0.4321, calls: 9, lastContext: 6000, perItem: [2000, 4000], tokensAtFinish: 50_000 });
		const config = { ...DEFAULT_CONFIG, budgetTokens: 100_000, budgetCost: 2 };
		expect(spendLines(formatStatusReport(config, { activeTools: ["bash"], inputPrice: 3 }))).toEqual([
			"Spent this chain: 54,321 tokens in 9 call(s), cost 0.4321",
			"Progress breaker: 5 × the median tokens per finished todo; median 3,000, 4,321 since the last finished todo",
			"Token budget: 100,000 (next continuation: about 60,321)",
			"Cost budget: 2.0000 (next continuation: about 0.4501)",
		]);
	});

	it("a done list shows no chain stuck on it: no counter of continuations without progress, nothing spent since", async () => {
		spent({ tokens: 54_321, calls: 9, lastContext: 6000, perItem: [2000, 4000], tokensAtFinish: 50_000 });
		recordRun({ ...getChain(), noProgress: 1 });
		const lines = formatStatusReport(DEFAULT_CONFIG, { activeTools: ["bash"], listDone: true }).split("\n");
		expect(lines.filter((line) => /^(Continuations without|Progress breaker)/.test(line))).toEqual([
			NO_PROGRESS_DONE,
			progressBreakerDone(5, 2),
		]);
	});

	it("says when the model's price is unknown, and when the breaker is off", async () => {
		spent({ tokens: 1000, calls: 1, lastContext: 800 });
		const config = { ...DEFAULT_CONFIG, budgetCost: 1, spendFactor: 0 };
		expect(spendLines(formatStatusReport(config, { activeTools: ["bash"] }))).toEqual([
			"Spent this chain: 1,000 tokens in 1 call(s)",
			"Progress breaker: off",
			"Token budget: none",
			"Cost budget: 1.0000 (next continuation: about 0.0000, the next call's price unknown)",
		]);
	});

	it("a stopped chain says why until the user acts", async () => {
		const { todos, told } = setup();
		markStopped("spend");
		await todos("status");
		expect(told()[0]?.split("\n")[0]).toBe("Auto-continue: stopped: spending without progress (/todos why)");
	});
});

describe("why shows the auto-continue's last decisions", () => {
	it("with none yet, says so", async () => {
		const { todos, told } = setup();
		await todos("why");
		expect(told()).toEqual(["No decision yet in this session: the auto-continue has not acted."]);
	});

	it("lists each decision with its time, code, sentence and counters, the newest last", async () => {
		const { engine, ctx, todos, told } = setup();
		vi.setSystemTime(new Date(2026, 10, 23, 3, 4, 5));
		setTodos([{ text: "a", status: "not_started" }]);
		engine.onRunEnd([{ role: "assistant", content: [{ type: "text", text: "Working." }], stopReason: "stop" }], ctx);
		engine.onSettled(ctx);
		await todos("why");
		expect(told()).toEqual([
			[
				"The auto-continue's last 1 decision(s), the newest last:",
				"03:04:05 continue: 1 of 1 todos remain: continuation 1 of 20 follows. [continuations 0/20, no progress 0/3, failures 0/3, 0/1 finished, 0 tokens in 0 call(s)]",
			].join("\n"),
		]);
	});
});

describe("panel switches the todo panel", () => {
	it("panel on shows it, panel off hides it", async () => {
		const { todos, told, ui } = setup();
		setTodos(TWO_ITEMS);
		await todos("panel on");
		expect(isPanelEnabled()).toBe(true);
		expect(ui.widgets.get("til-done-panel")?.lines).toEqual(["● [0] Write schema", "– [1] Write migration"]);
		await todos("panel off");
		expect(isPanelEnabled()).toBe(false);
		expect(ui.widgets.has("til-done-panel")).toBe(false);
		expect(told()).toEqual(["Todo panel on.", "Todo panel off."]);
	});

	it("panel without an argument switches it; with a switch word, in any case, sets it", async () => {
		const { todos, told } = setup();
		await todos("panel");
		await todos("panel");
		await todos("panel ON");
		await todos("panel ON");
		await todos("panel 0");
		expect(told()).toEqual([
			"Todo panel on.",
			"Todo panel off.",
			"Todo panel on.",
			"Todo panel on.",
			"Todo panel off.",
		]);
	});

	it("panel with anything else is refused and changes nothing", async () => {
		const { todos, told } = setup();
		await todos("panel maybe");
		expect(told()).toEqual([todosRefused("panel", '"maybe" is neither on nor off')]);
		expect(isPanelEnabled()).toBe(false);
	});

	it("a refused word leaves a panel that is on as it was, showing the list", async () => {
		const { todos, told, ui } = setup();
		setTodos([todo("a"), todo("b")]);
		await todos("panel ON");
		await todos("panel maybe");
		expect(told()).toEqual(["Todo panel on.", todosRefused("panel", '"maybe" is neither on nor off')]);
		expect(isPanelEnabled()).toBe(true);
		expect(ui.widgets.get("til-done-panel")?.lines).toEqual(["– [0] a", "– [1] b"]);
	});
});

describe("an unknown subcommand is an error that lists the valid ones", () => {
	it("names the subcommand and the choices", async () => {
		const { todos, ui } = setup();
		await todos("frob 1");
		expect(ui.notifications).toEqual([{ message: TODOS_ERRORS.unknown("frob"), type: "error" }]);
	});

	it("treats names inherited from Object.prototype as unknown subcommands", async () => {
		const { todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("toString");
		await todos("constructor 0");
		expect(told()).toEqual([TODOS_ERRORS.unknown("toString"), TODOS_ERRORS.unknown("constructor")]);
	});
});

describe("/loop starts an iteration loop or explains its arguments", () => {
	it("starts the loop: the first iteration goes out as a 🔁 message that starts a run", async () => {
		const { pi, loop } = setup();
		await loop('--max 3 --until "ALL GREEN" make the tests pass');
		expect(pi.sent).toEqual([
			{
				message: {
					customType: "til-done-loop",
					content:
						"make the tests pass\n\n(Loop iteration 1 of 3. When the task is fully complete, include ALL GREEN in your answer.)",
					display: true,
				},
				options: { triggerTurn: true },
			},
		]);
		expect(getLoop()).toEqual({ prompt: "make the tests pass", max: 3, marker: "ALL GREEN", iteration: 1 });
	});

	it("reports a missing prompt with the usage", async () => {
		const { pi, loop, ui } = setup();
		await loop("  ");
		expect(ui.notifications).toEqual([
			{ message: loopRefused("what should the loop send? Give a prompt"), type: "error" },
		]);
		expect(pi.userMessages).toEqual([]);
		expect(getLoop()).toBeUndefined();
	});

	it("reports a bad --max or --until", async () => {
		const { loop, told } = setup();
		await loop("--max 0 go");
		await loop("--until '' go");
		expect(told()).toEqual([
			loopRefused("--max takes a whole number from 1 to 1000"),
			loopRefused("--until takes a non-empty marker"),
		]);
		expect(getLoop()).toBeUndefined();
	});

	it("answers --help with the usage, and starts nothing", async () => {
		const { pi, loop, ui } = setup();
		await loop("--help");
		expect(ui.notifications).toEqual([{ message: LOOP_USAGE, type: "info" }]);
		expect(pi.sent).toEqual([]);
		expect(getLoop()).toBeUndefined();
	});

	it("without a UI, writes the error to stderr", async () => {
		const { loop } = setup({ hasUI: false, mode: "print" });
		await loop("");
		expect(stderr()).toHaveBeenCalledWith(stderrLine(loopRefused("what should the loop send? Give a prompt")));
	});
});

describe("/loop in print mode: --help and every refusal are one answer on stderr, and nothing starts", () => {
	/** `/loop <args>` where there is no UI (pi -p); what it wrote to stderr, and what it started. */
	async function printLoop(args: string) {
		const { pi, loop, ui } = setup({ hasUI: false, mode: "print" });
		await loop(args);
		return {
			stderr: stderr().mock.calls.map(([text]) => text),
			notices: ui.notifications,
			sent: pi.sent,
			userMessages: pi.userMessages,
			loop: getLoop(),
			decisions: getDecisions(),
		};
	}
	const NOTHING_STARTED = { notices: [], sent: [], userMessages: [], loop: undefined, decisions: [] };

	it("--help answers with the usage", async () => {
		expect(await printLoop("--help")).toEqual({ stderr: [stderrLine(LOOP_USAGE)], ...NOTHING_STARTED });
	});

	it.each([
		["--until", "--until needs a value"],
		["do it --max", "--max needs a value"],
		['--until "unterminated go', '--until: the quote " is not closed'],
		["--max 2 --max 5 go", "--max is given twice"],
		["--halp go", "--halp is not an option of /loop"],
	])("/loop %s is refused with what was not understood and the usage", async (args, why) => {
		expect(await printLoop(args)).toEqual({ stderr: [stderrLine(loopRefused(why))], ...NOTHING_STARTED });
	});
});

describe("review and approve: items only the user closes", () => {
	it("review marks items for the user's review, shows them and stores the list", async () => {
		const { pi, todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("review 1");
		expect(getTodos()[1]).toEqual({ text: "Write migration", status: "not_started", review: true });
		expect(told()).toEqual(["● [0] Write schema\n– [1] Write migration (review)"]);
		expect(pi.entries).toEqual([
			{
				customType: "til-done-snapshot",
				data: { action: "write", todos: [TWO_ITEMS[0], { ...TWO_ITEMS[1], review: true }] },
			},
		]);
	});

	it("review names a bad index and changes nothing", async () => {
		const { pi, todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("review x");
		await todos("review 4");
		expect(told()).toEqual([TODOS_ERRORS.notAnIndex("review", "x", 2), TODOS_ERRORS.notAnItem("review", "4", 2)]);
		expect(pi.entries).toEqual([]);
	});

	it("approve completes the item and the chain goes on at once", async () => {
		const { pi, todos, counting } = setup();
		setTodos([{ text: "a", status: "in_progress", review: true }, todo("b")]);
		await todos("approve 0");
		expect(getTodos()[0]).toEqual({ text: "a", status: "completed", review: true });
		expect(counting()).toBe(true);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.map((sent) => sent.message.customType)).toEqual(["til-done-countdown"]);
	});
});

describe("the user's status changes keep the same wait and review rules as the model's", () => {
	it("approve refuses an item without the review mark, naming it, and changes nothing", async () => {
		const { pi, todos, told } = setup();
		setTodos(TWO_ITEMS);
		await todos("approve 1");
		expect(told()).toEqual([todosRefused("approve", STATUS_REFUSED.notReview(1))]);
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(pi.entries).toEqual([]);
	});

	it("approve never turns an abandoned review item into a completed one", async () => {
		const { todos, told } = setup();
		const abandoned = { text: "a", status: "abandoned" as const, review: true as const };
		setTodos([abandoned]);
		await todos("approve 0");
		expect(told()).toEqual([todosRefused("approve", STATUS_REFUSED.notOpen(0, "abandoned"))]);
		expect(getTodos()).toEqual([abandoned]);
	});

	it("start refuses an item that waits for one not completed, naming what it waits for", async () => {
		const { pi, todos, told } = setup();
		setTodos(PLAN);
		await todos("start 1");
		expect(told()).toEqual([todosRefused("start", STATUS_REFUSED.waiting("[1] waits for [0] (not started)"))]);
		expect(getTodos()).toEqual(PLAN);
		expect(pi.entries).toEqual([]);
	});

	it("done of a subtask whose parent waits for an open item is refused: the parent is never completed past its blocker", async () => {
		const { todos, told } = setup();
		const blocked = [
			item("Blocker", "in_progress"),
			item("Parent", "not_started", { blockedBy: [0] }),
			item("Sub", "not_started", { parent: 1 }),
		];
		setTodos(blocked);
		await todos("done 2");
		expect(told()).toEqual([todosRefused("done", STATUS_REFUSED.waiting("[2] waits for [0] (in progress)"))]);
		expect(getTodos()).toEqual(blocked);
	});

	it("a subtask never completes a parent past its blocker: done of it and start of the parent are refused; done of the blocker with it goes", async () => {
		const { pi, todos, told } = setup();
		const plan = [
			item("Blocker"),
			item("Parent", "not_started", { blockedBy: [0] }),
			item("Sub", "not_started", { parent: 1 }),
		];
		setTodos(plan);
		await todos("done 2");
		await todos("start 1");
		expect(told()).toEqual([
			todosRefused("done", STATUS_REFUSED.waiting("[2] waits for [0] (not started)")),
			todosRefused("start", STATUS_REFUSED.waiting("[1] waits for [0] (not started)")),
		]);
		expect(getTodos()).toEqual(plan);
		expect(pi.entries).toEqual([]);
		await todos("done 0 2");
		expect(told().slice(2)).toEqual([listLines("✓ [0] Blocker", "✓ [1] Parent ⛓ [0]", "  ✓ [2] Sub")]);
		expect(pi.reports()).toEqual([{ level: "success", text: allDone(3) }]);
	});

	it("done of a parent whose subtasks are open is refused; done of the blocker and the items after it, in one command, goes", async () => {
		const { todos, told } = setup();
		setTodos(planWith({ 0: "completed", 1: "completed" }));
		await todos("done 2");
		expect(told()).toEqual([todosRefused("done", STATUS_REFUSED.subtasks(2, "3, 4", "are"))]);
		await todos("done 3 4");
		expect(getTodos().map((todo) => todo.status)).toEqual([
			"completed",
			"completed",
			"completed",
			"completed",
			"completed",
			"not_started",
		]);
	});
});

describe("check sets the done-check for the whole list, stored on the branch", () => {
	it("sets, shows and turns off the done-check", async () => {
		const { pi, todos, told } = setup();
		await todos("check");
		await todos("check npm test -- --run");
		await todos("check");
		await todos("check off");
		await todos("check");
		expect(told()).toEqual([
			"No done-check. /todos check <command> sets one.",
			"Done-check set: npm test -- --run. It runs when every item is finished.",
			"Done-check: npm test -- --run",
			"Done-check off.",
			"No done-check. /todos check <command> sets one.",
		]);
		expect(pi.entries).toEqual([
			{ customType: "til-done-check", data: { command: "npm test -- --run" } },
			{ customType: "til-done-check", data: { command: null } },
		]);
	});

	it("a done-check on the branch takes the place of the configured one; off turns that off too", async () => {
		const { todos, told } = setup({}, { doneCheck: "make check" });
		await todos("check");
		await todos("check off");
		await todos("check");
		expect(told()).toEqual([
			"Done-check: make check",
			"Done-check off.",
			"No done-check. /todos check <command> sets one.",
		]);
	});

	it("rejects a command over 500 characters and stores nothing", async () => {
		const { pi, todos, told } = setup();
		await todos(`check ${"x".repeat(501)}`);
		expect(told()).toEqual([todosRefused("check", "the command is longer than 500 characters")]);
		expect(pi.entries).toEqual([]);
	});
});
