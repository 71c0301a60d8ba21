import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Component } from "@earendil-works/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { initialChain } from "../../src/core/rules/chain.ts";
import { countersOf } from "../../src/core/rules/decision.ts";
import type { StepInput } from "../../src/core/rules/next-step.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { registerEventHandlers, registerFlags, registerMessageRenderers } from "../../src/events.ts";
import {
	getChain,
	getConfig,
	getDecisions,
	getTodos,
	isPanelEnabled,
	pauseAutoContinue,
	recordDecision,
	resetState,
	setLoop,
	setTodos,
} from "../../src/state.ts";
import { DEFAULT_LOOP_MARKER, type TodoItem, type TodoStatus } from "../../src/types.ts";
import {
	cannotJoin,
	ENTRY_TYPE,
	JOIN_WHY,
	KEY,
	MESSAGE_TYPE,
	PLAN_NOTICES,
	PLAN_PROBLEMS,
	planFileError,
	RUN_REFUSED,
	settingRefused,
	staleReminder,
	stderrLine,
} from "../helpers/expected.ts";
import { createFakeCtx, type FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { judgeNoAuth, judgeUnknown, judgeUnusable } from "../helpers/judge.ts";
import { must } from "../helpers/must.ts";
import { taggingTheme, textOf } from "../helpers/theme.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });
const TWO_ITEMS = [todo("Write schema", "in_progress"), todo("Write migration")];

/** A session entry holding a write_todos result, as pi stores it. */
const written = (todos: TodoItem[]) => ({
	type: "message",
	message: { role: "toolResult", toolName: "write_todos", details: { action: "write", todos }, isError: false },
});

const WORKING = [{ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Working." }] }];

const ENV_NAMES = [
	"TIL_DONE_COUNTDOWN",
	"TIL_DONE_MAX_CONTINUE",
	"TIL_DONE_MAX_NO_PROGRESS",
	"TIL_DONE_MAX_FAILURES",
	"TIL_DONE_BACKOFF_MS",
	"TIL_DONE_PAUSED",
	"TIL_DONE_PANEL",
	"TIL_DONE_NOTIFY",
	"TIL_DONE_REMIND_EVERY",
];

const currentInput = (): StepInput => ({
	todos: getTodos(),
	chain: initialChain(),
	loop: undefined,
	limits: DEFAULT_CONFIG,
});

function setup(options: FakeCtxOptions = {}) {
	const pi = createFakePi();
	const engine = registerEventHandlers(pi.api);
	const fake = createFakeCtx(options);
	const fire = (event: string, payload: Record<string, unknown> = {}) => pi.fire(event, payload, fake.ctx);
	/** The session starts, a run ends and pi settles: with items left on the branch, the countdown shows. */
	const countDown = async () => {
		await fire("session_start", { reason: "startup" });
		await fire("agent_end", { messages: WORKING });
		await fire("agent_settled");
		expect(fake.ui.widgets.has(KEY.countdown)).toBe(true);
	};
	return { pi, engine, fire, countDown, ...fake };
}

beforeEach(() => {
	resetState();
	vi.useFakeTimers();
	for (const name of ENV_NAMES) vi.stubEnv(name, undefined);
});

afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllEnvs();
});

describe("registerEventHandlers subscribes one handler to each event it needs", () => {
	it("registers exactly these handlers", async () => {
		const { pi } = setup();
		const events = [
			"session_start",
			"session_tree",
			"session_shutdown",
			"input",
			"before_agent_start",
			"context",
			"message_end",
			"agent_end",
			"agent_settled",
		];
		expect(events.map((event) => pi.handlerCount(event))).toEqual(events.map(() => 1));
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
		expect(pi.handlerCount("turn_end")).toBe(0);
		expect(pi.handlerCount("tool_result")).toBe(0);
	});

	it("starts from the default configuration", async () => {
		setup();
		expect(getConfig()).toEqual(DEFAULT_CONFIG);
	});
});

describe("tool_call is listened to only while checkpoints are on (pi builds a context for each call it is heard)", () => {
	it("off: never; on: from the session's start to its end", async () => {
		const off = setup();
		await off.fire("session_start", { reason: "startup" });
		expect(off.pi.handlerCount("tool_call")).toBe(0);
		await off.fire("session_shutdown", {});

		vi.stubEnv("TIL_DONE_CHECKPOINTS", "on");
		const on = setup();
		expect(on.pi.handlerCount("tool_call")).toBe(0);
		await on.fire("session_start", { reason: "startup" });
		expect(on.pi.handlerCount("tool_call")).toBe(1);
		await on.fire("session_shutdown", {});
		expect(on.pi.handlerCount("tool_call")).toBe(0);
	});
});

describe("agent_before_settle is listened to only while the next-step rules can act: with a list or a loop", () => {
	it("not with an empty list; from the moment a list is written until it is cleared", async () => {
		const { pi, fire } = setup({ mode: "print", hasUI: false });
		await fire("session_start", { reason: "startup" });
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
		setTodos([todo("a")]);
		expect(pi.handlerCount("agent_before_settle")).toBe(1);
		setTodos([todo("b"), todo("c")]);
		expect(pi.handlerCount("agent_before_settle")).toBe(1);
		setTodos([]);
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
	});

	it("while a loop runs, with no list", async () => {
		const { pi, fire } = setup({ mode: "print", hasUI: false });
		await fire("session_start", { reason: "startup" });
		setLoop({ prompt: "go", max: 3, marker: DEFAULT_LOOP_MARKER, iteration: 1 });
		expect(pi.handlerCount("agent_before_settle")).toBe(1);
		setLoop(undefined);
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
	});

	it("for a list rebuilt from the session, and no longer after the session shuts down", async () => {
		const { pi, fire } = setup({ mode: "print", hasUI: false, branch: [written(TWO_ITEMS)] });
		await fire("session_start", { reason: "startup" });
		expect(pi.handlerCount("agent_before_settle")).toBe(1);
		await fire("session_shutdown");
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
		setTodos([todo("a")]);
		expect(pi.handlerCount("agent_before_settle")).toBe(0);
	});

	it("once, however often the session starts again", async () => {
		const { pi, fire } = setup({ mode: "print", hasUI: false, branch: [written(TWO_ITEMS)] });
		await fire("session_start", { reason: "startup" });
		await fire("session_start", { reason: "reload" });
		expect(pi.handlerCount("agent_before_settle")).toBe(1);
	});
});

describe("session_start reads the configuration, rebuilds the list and draws the UI", () => {
	it("takes a flag over the environment", async () => {
		const { pi, fire } = setup();
		vi.stubEnv("TIL_DONE_COUNTDOWN", "5");
		vi.stubEnv("TIL_DONE_MAX_CONTINUE", "7");
		pi.flagValues.set("til-done-countdown", "1");
		await fire("session_start", { reason: "startup" });
		expect(getConfig()).toMatchObject({ countdownSeconds: 1, maxContinuations: 7 });
	});

	it("shows each configuration warning as a notice", async () => {
		const { pi, fire, ui } = setup();
		pi.flagValues.set("til-done-max-failures", "abc");
		vi.stubEnv("TIL_DONE_PANEL", "maybe");
		await fire("session_start", { reason: "startup" });
		expect(ui.notifications).toEqual([
			{
				message: `pi-til-done: ${settingRefused("--til-done-max-failures", "abc", "a whole number from 1 to 100")}`,
				type: "warning",
			},
			{
				message: `pi-til-done: ${settingRefused("TIL_DONE_PANEL", "maybe", "one of on, true, yes, 1, off, false, no, 0")}`,
				type: "warning",
			},
		]);
		expect(getConfig().maxFailures).toBe(3);
	});

	it("writes each warning to stderr where there is no UI; pi -p then runs nothing and exits 2", async () => {
		const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		const exitCode = process.exitCode;
		const { pi, fire, ui } = setup({ hasUI: false, mode: "print" });
		pi.flagValues.set("til-done-max-failures", "abc");
		await fire("session_start", { reason: "startup" });
		try {
			expect(ui.notifications).toEqual([]);
			expect(stderr.mock.calls).toEqual([
				[
					stderrLine(
						`pi-til-done: ${settingRefused("--til-done-max-failures", "abc", "a whole number from 1 to 100")}`,
					),
				],
				[stderrLine(RUN_REFUSED)],
			]);
			expect(process.exitCode).toBe(2);
			expect(await fire("input", { source: "interactive", text: "go" })).toEqual([{ action: "handled" }]);
		} finally {
			process.exitCode = exitCode;
		}
	});

	it("says each warning once, not again at every session start", async () => {
		const { pi, fire, ui } = setup();
		pi.flagValues.set("til-done-max-failures", "abc");
		await fire("session_start", { reason: "startup" });
		await fire("session_start", { reason: "new" });
		await fire("session_start", { reason: "resume" });
		expect(ui.notifications).toHaveLength(1);
	});

	it("rebuilds the list from the branch and sets the status bar", async () => {
		const { fire, ui } = setup({ branch: [written(TWO_ITEMS)] });
		await fire("session_start", { reason: "resume" });
		expect(getTodos()).toEqual(TWO_ITEMS);
		expect(Object.fromEntries(ui.status)).toEqual({
			"til-done": "📋 0/2 [░░░░░░░░░░]",
			"til-done-active": "[0] Write schema",
		});
		expect(ui.widgets.has("til-done-panel")).toBe(false);
	});

	it("--til-done-paused starts with auto-continue paused by the user", async () => {
		const { pi, fire, ui } = setup({ branch: [written(TWO_ITEMS)] });
		pi.flagValues.set("til-done-paused", true);
		await fire("session_start", { reason: "startup" });
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "started with auto-continue off" });
		expect(ui.status.get("til-done-paused")).toBe("⏸ auto-continue paused: started with auto-continue off");
	});

	it("--til-done-panel shows the panel above the editor", async () => {
		const { pi, fire, ui } = setup({ branch: [written(TWO_ITEMS)] });
		pi.flagValues.set("til-done-panel", true);
		await fire("session_start", { reason: "startup" });
		expect(isPanelEnabled()).toBe(true);
		expect(ui.widgets.get("til-done-panel")?.lines).toEqual(["● [0] Write schema", "– [1] Write migration"]);
		expect(ui.widgetCalls.at(-1)?.options).toEqual({ placement: "aboveEditor" });
	});

	it("TIL_DONE_PANEL=off turns a panel left on by an earlier session off", async () => {
		const { fire } = setup();
		vi.stubEnv("TIL_DONE_PANEL", "on");
		await fire("session_start", { reason: "startup" });
		expect(isPanelEnabled()).toBe(true);
		vi.stubEnv("TIL_DONE_PANEL", "off");
		await fire("session_start", { reason: "new" });
		expect(isPanelEnabled()).toBe(false);
	});

	it("forgets the countdown of the session before", async () => {
		const { pi, fire, ui, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		await fire("session_start", { reason: "new" });
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});
});

/** A model pi's registry knows, in the tests of the judge's setting. */
const ACME_SMALL = { provider: "acme", id: "small", cost: { input: 0, output: 0 } };

describe("in the TUI and over RPC, a judge pi cannot call is a warning at the session's start", () => {
	it("says so once; the session goes on, and the prompt is the model's", async () => {
		vi.stubEnv("TIL_DONE_JUDGE", "acme/small");
		const { fire, ui } = setup({ mode: "rpc" });
		await fire("session_start", { reason: "startup" });
		expect(ui.notifications).toEqual([
			{
				message: judgeUnusable("acme/small", judgeUnknown("acme/small")),
				type: "warning",
			},
		]);
		expect(await fire("input", { source: "rpc", text: "Do the list" })).toEqual([{ action: "continue" }]);
	});
});

describe("a pi -p whose setting was not understood runs nothing, says how to fix it, and exits 2", () => {
	const argv = process.argv;
	const exitCode = process.exitCode;
	afterEach(() => {
		process.argv = argv;
		process.exitCode = exitCode;
		vi.restoreAllMocks();
	});

	/**
	 * A `pi -p` session starts with `args` on the command line and `flags` as pi reports them, then the user's prompt
	 * arrives: what the extension wrote to stderr, the exit status it set, what it did with the prompt, and what it sent.
	 */
	async function startPrint(
		args: string[],
		flags: Record<string, string | boolean> = {},
		options: FakeCtxOptions = {},
	) {
		const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		process.argv = ["node", "pi", ...args];
		const { pi, fire, ui } = setup({ hasUI: false, mode: "print", ...options });
		for (const [flag, value] of Object.entries(flags)) pi.flagValues.set(flag, value);
		await fire("session_start", { reason: "startup" });
		const prompt = await fire("input", { source: "interactive", text: "Do the list" });
		return {
			stderr: stderr.mock.calls.map(([text]) => text),
			exitCode: process.exitCode,
			prompt,
			notices: ui.notifications,
			sent: pi.sent,
			userMessages: pi.userMessages,
			decisions: getDecisions(),
		};
	}

	/** What a refused run shows after the setting's own line: the run refused, the prompt handled, nothing sent. */
	const refused = (line: string) => ({
		stderr: [stderrLine(line), stderrLine(RUN_REFUSED)],
		exitCode: 2,
		prompt: [{ action: "handled" }],
		notices: [],
		sent: [],
		userMessages: [],
		decisions: [],
	});

	it("a prompt pi took as a switch's value: the word is named, and how to write the switch", async () => {
		const args = ["-p", "--til-done-notify", "plan and do the work"];
		expect(await startPrint(args, { "til-done-notify": true })).toEqual(
			refused(
				'pi-til-done: --til-done-notify took "plan and do the work" as its value (pi gives a switch the word after it), which is no switch\'s word: it is refused, and that word was not sent; write --til-done-notify=on, or put the prompt before the switch',
			),
		);
	});

	it("a word no switch takes after =", async () => {
		const args = ["--til-done-paused=maybe", "-p", "Do the list"];
		expect(await startPrint(args, { "til-done-paused": true })).toEqual(
			refused(
				"pi-til-done: --til-done-paused=maybe is refused: a switch takes one of on, true, yes, 1, off, false, no, 0",
			),
		);
	});

	it("a number out of its range, in a variable: its line repeats at most 40 characters of it", async () => {
		vi.stubEnv("TIL_DONE_COUNTDOWN", "x".repeat(600));
		expect(await startPrint(["-p", "Do the list"])).toEqual(
			refused(`pi-til-done: ${settingRefused("TIL_DONE_COUNTDOWN", `${"x".repeat(39)}…`, "a number from 0 to 600")}`),
		);
	});

	it("a remote the clone cannot join: its line before any model call, nothing sent", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "til-done-remote-start-"));
		try {
			execFileSync("git", ["init", "-q", "-b", "main"], { cwd });
			const args = ["--til-done-remote", "nosuch", "-p", "Do the list"];
			expect(await startPrint(args, { "til-done-remote": "nosuch" }, { cwd })).toEqual(
				refused(`pi-til-done: ${cannotJoin("nosuch", JOIN_WHY.unknownRemote)}`),
			);
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});

	it("a followed plan file that cannot be loaded: the line names the file and its line, and the file stays as it was", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "til-done-plan-"));
		const bad = "# Plan\n\n- [ ] One\n- [ ] \n- [ ] Three\n";
		writeFileSync(join(cwd, "PLAN.md"), bad);
		try {
			expect(
				await startPrint(
					["--til-done-plan", "PLAN.md", "-p", "work through the plan"],
					{ "til-done-plan": "PLAN.md" },
					{ cwd },
				),
			).toEqual(refused(PLAN_NOTICES.loadRefused(planFileError("PLAN.md", 4, PLAN_PROBLEMS.emptyText(1)))));
			expect(getTodos()).toEqual([]);
			expect(readFileSync(join(cwd, "PLAN.md"), "utf8")).toBe(bad);
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});

	it.each([
		["pi knows no model", judgeUnknown("acme/small"), {}],
		["pi has no credentials", judgeNoAuth("acme/small"), { models: { "acme/small": ACME_SMALL }, auth: false }],
	] as [string, string, FakeCtxOptions][])(
		"a judge it cannot call, named by the setting: %s",
		async (_what, why, options) => {
			const args = ["--til-done-judge", "acme/small", "-p", "Do the list"];
			expect(await startPrint(args, { "til-done-judge": "acme/small" }, options)).toEqual(
				refused(judgeUnusable("acme/small", why)),
			);
		},
	);

	it.each([
		["a model pi knows and has credentials for", "acme/small", { models: { "acme/small": ACME_SMALL } }],
		[
			"a model of a provider registered a moment ago",
			"acme/small",
			{ models: { "acme/small": ACME_SMALL }, quickAuth: false },
		],
		["on, in a session with no model yet", "on", {}],
		["on, with the session's model", "on", { complete: async () => ({}) }],
	] as [string, string, FakeCtxOptions][])(
		"a judge setting naming %s: the prompt goes through",
		async (_what, choice, options) => {
			const started = await startPrint(
				["--til-done-judge", choice, "-p", "Do the list"],
				{ "til-done-judge": choice },
				options,
			);
			expect({ stderr: started.stderr, exitCode: started.exitCode, prompt: started.prompt }).toEqual({
				stderr: [],
				exitCode,
				prompt: [{ action: "continue" }],
			});
		},
	);

	it.each(["false", "OFF"])(
		"--til-done-paused=%s is understood: it does not pause, and the prompt goes through",
		async (word) => {
			vi.stubEnv("TIL_DONE_PAUSED", "1");
			const started = await startPrint([`--til-done-paused=${word}`, "-p", "Do the list"], { "til-done-paused": true });
			expect({ stderr: started.stderr, exitCode: started.exitCode, prompt: started.prompt }).toEqual({
				stderr: [],
				exitCode,
				prompt: [{ action: "continue" }],
			});
			expect(getChain().paused).toBe(false);
		},
	);
});

describe("session_tree rebuilds from the new branch", () => {
	it("replaces the list, redraws the status bar and cancels the countdown", async () => {
		let branch: unknown[] = [written(TWO_ITEMS)];
		const { pi, fire, ui, countDown } = setup({ branch: () => branch });
		await countDown();
		branch = [written([todo("Other", "completed")])];
		await fire("session_tree", {});
		expect(getTodos()).toEqual([todo("Other", "completed")]);
		expect(ui.status.get("til-done")).toBe("✓ Done (1 items)");
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});
});

describe("session_shutdown stops everything", () => {
	it("clears the countdown widget and sends nothing afterwards", async () => {
		const { pi, fire, ui, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		await fire("session_shutdown");
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		expect(ui.widgetCalls.at(-1)).toEqual({ key: KEY.countdown, content: undefined, options: undefined });
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});

	it("does not throw with a context that is already gone", async () => {
		const { fire, makeStale } = setup();
		makeStale();
		await expect(fire("session_shutdown")).resolves.toEqual([undefined]);
	});

	it("touches no UI without one", async () => {
		const { fire, ui } = setup({ hasUI: false });
		await fire("session_shutdown");
		expect(ui.widgetCalls).toEqual([]);
	});
});

describe("input: a prompt from the user takes over, one from an extension does not", () => {
	it("ignores input from an extension: the countdown goes on", async () => {
		const { pi, fire, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		expect(await fire("input", { text: "x", source: "extension" })).toEqual([{ action: "continue" }]);
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent.map((sent) => sent.message.customType)).toEqual([MESSAGE_TYPE.continuation]);
	});

	it.each(["interactive", "rpc"])("input from %s cancels the countdown and lets the prompt through", async (source) => {
		const { pi, fire, ui, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		expect(await fire("input", { text: "stop", source })).toEqual([{ action: "continue" }]);
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(pi.sent).toEqual([]);
	});

	it("ends a pause the model asked for and takes it off the status bar", async () => {
		const { fire, ui } = setup({ branch: [written(TWO_ITEMS)] });
		await fire("session_start", { reason: "startup" });
		pauseAutoContinue("model", "waiting for review");
		await fire("input", { text: "go on", source: "interactive" });
		expect(getChain().paused).toBe(false);
		expect(ui.statusCalls.at(-1)).toEqual({ key: "til-done-paused", text: undefined });
	});
});

describe("before_agent_start injects the list while items remain", () => {
	it("injects nothing for an empty list", async () => {
		const { fire } = setup();
		expect(await fire("before_agent_start", { prompt: "hi" })).toEqual([undefined]);
	});

	it("injects the hidden context message while an item is unfinished", async () => {
		const { fire } = setup();
		setTodos(TWO_ITEMS);
		expect(await fire("before_agent_start", { prompt: "hi" })).toEqual([
			{
				message: {
					customType: "til-done-context",
					content: [
						"[TILL-DONE ACTIVE]",
						"",
						"Current todo list:",
						"● [0] Write schema",
						"– [1] Write migration",
						"",
						"2 item(s) remaining. Continue working through the list. Call edit_todos with action 'start' on the next item before working on it, then 'complete' when done.",
					].join("\n"),
					display: false,
				},
			},
		]);
	});

	it("injects for a prompt of the user on pi 1.2+ (messageType user)", async () => {
		const { fire } = setup();
		setTodos(TWO_ITEMS);
		const [result] = await fire("before_agent_start", { messageType: "user", prompt: "hi" });
		expect(result).toMatchObject({ message: { customType: "til-done-context", display: false } });
	});

	it("injects nothing for a run a custom message starts on pi 1.2+: its prompt carries the list", async () => {
		const { fire } = setup();
		setTodos(TWO_ITEMS);
		const message = { role: "custom", customType: MESSAGE_TYPE.continuation, content: "…", display: true };
		expect(await fire("before_agent_start", { messageType: "custom", message })).toEqual([undefined]);
	});

	it("injects nothing once every item is finished", async () => {
		const { fire } = setup();
		setTodos([todo("a", "completed"), todo("b", "abandoned")]);
		expect(await fire("before_agent_start", { prompt: "hi" })).toEqual([undefined]);
	});
});

describe("context: a model call after many tool calls without a todo tool carries the reminder, for that call only", () => {
	const bashCall = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "bash", arguments: {} }] };
	const bashResult = { role: "toolResult", toolName: "bash", content: [{ type: "text", text: "ok" }] };
	/** The prompt, then `count` bash calls, each with its result. */
	const transcript = (count: number) => [
		{ role: "user", content: "Work" },
		...Array.from({ length: count }, () => [bashCall, bashResult]).flat(),
	];

	it("appends one hidden custom message of ours to the messages pi sends, leaving the rest as they are", async () => {
		const { fire } = setup();
		await fire("session_start", { reason: "startup" });
		setTodos(TWO_ITEMS);
		const messages = transcript(12);
		const [result] = await fire("context", { messages });
		expect(result).toEqual({
			messages: [
				...messages,
				{
					role: "custom",
					customType: "til-done-reminder",
					content: staleReminder(12, "● [0] Write schema", "– [1] Write migration"),
					display: false,
					timestamp: expect.any(Number),
				},
			],
		});
		expect(messages).toHaveLength(25);
	});

	it("changes nothing for a call that is not due", async () => {
		const { fire } = setup();
		await fire("session_start", { reason: "startup" });
		setTodos(TWO_ITEMS);
		expect(await fire("context", { messages: transcript(11) })).toEqual([undefined]);
		expect(await fire("context", { messages: transcript(13) })).toEqual([undefined]);
	});

	it("follows the setting read at session start: TIL_DONE_REMIND_EVERY=3 reminds after 3, 0 never", async () => {
		const { fire } = setup();
		vi.stubEnv("TIL_DONE_REMIND_EVERY", "3");
		await fire("session_start", { reason: "startup" });
		setTodos(TWO_ITEMS);
		const [result] = await fire("context", { messages: transcript(3) });
		expect(result).toMatchObject({ messages: expect.arrayContaining([expect.objectContaining({ display: false })]) });
		vi.stubEnv("TIL_DONE_REMIND_EVERY", "0");
		await fire("session_start", { reason: "reload" });
		setTodos(TWO_ITEMS);
		expect(await fire("context", { messages: transcript(12) })).toEqual([undefined]);
	});
});

describe("agent_end, agent_settled and agent_before_settle reach the engine", () => {
	it("TUI: agent_end then agent_settled start the countdown that sends the continuation", async () => {
		const { pi, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		await vi.advanceTimersByTimeAsync(3000);
		expect(pi.sent).toHaveLength(1);
		expect(must(pi.sent[0], "a sent message").options).toEqual({ triggerTurn: true });
	});

	it("print: agent_before_settle returns the continuation", async () => {
		const { fire } = setup({ mode: "print", hasUI: false, branch: [written(TWO_ITEMS)] });
		await fire("session_start", { reason: "startup" });
		const [result] = await fire("agent_before_settle", {
			entries: [],
			continue: false,
			outcome: "completed",
			context: {
				contextMessages: WORKING,
				contextEntries: [],
				llmMessages: [],
				pendingMessages: [],
				canContinue: true,
			},
		});
		expect(result).toMatchObject({
			continue: true,
			entries: [{ type: "custom_message", customType: MESSAGE_TYPE.continuation }],
		});
	});
});

describe("message_end: every model call's usage counts in the chain's spend", () => {
	it("adds an assistant message's tokens and cost; other messages change nothing", async () => {
		const { fire } = setup();
		await fire("session_start", { reason: "startup" });
		const usage = { input: 100, output: 20, cacheRead: 300, cacheWrite: 40, cost: { total: 0.5 } };
		await fire("message_end", { message: { role: "assistant", content: [], usage } });
		await fire("message_end", { message: { role: "user", content: "hi" } });
		expect(getChain().spend).toMatchObject({ tokens: 460, cost: 0.5, calls: 1, lastContext: 440 });
	});
});

describe("the decisions for /todos why are the branch's: rebuilt at every session start and tree move", () => {
	const decision = { at: 0, kind: "idle" as const, code: "aborted", text: "t", counters: countersOf(currentInput()) };
	const entry = { type: "custom", customType: "til-done-decision", data: decision };

	it.each(["startup", "new", "resume", "fork", "reload"])(
		"a session start (%s) shows the decisions its branch holds, and forgets any other",
		async (reason) => {
			const { fire } = setup({ branch: [entry] });
			recordDecision({ ...decision, at: 1, text: "of another session" });
			await fire("session_start", { reason });
			expect(getDecisions()).toEqual([decision]);
		},
	);

	it("a decision made is stored on the branch", async () => {
		const { pi, countDown } = setup({ branch: [written(TWO_ITEMS)] });
		await countDown();
		expect(
			pi.entries.filter((stored) => stored.customType === "til-done-decision").map((stored) => stored.data),
		).toEqual(getDecisions());
		expect(getDecisions()).toHaveLength(1);
	});
});

describe("registerFlags registers every setting as a CLI flag", () => {
	it("registers every setting's flag: twenty taking a value and four switches", async () => {
		const pi = createFakePi();
		registerFlags(pi.api);
		expect(Object.fromEntries([...pi.flags].map(([name, flag]) => [name, flag.type]))).toEqual({
			"til-done-countdown": "string",
			"til-done-backoff-ms": "string",
			"til-done-check-timeout": "string",
			"til-done-remind-every": "string",
			"til-done-workers": "string",
			"til-done-max-untracked-mb": "string",
			"til-done-lease": "string",
			"til-done-max-failures": "string",
			"til-done-max-same-answers": "string",
			"til-done-max-no-progress": "string",
			"til-done-spend-factor": "string",
			"til-done-max-continue": "string",
			"til-done-budget-tokens": "string",
			"til-done-budget-cost": "string",
			"til-done-model-checks": "string",
			"til-done-check": "string",
			"til-done-plan": "string",
			"til-done-judge": "string",
			"til-done-goal": "string",
			"til-done-remote": "string",
			"til-done-paused": "boolean",
			"til-done-panel": "boolean",
			"til-done-notify": "boolean",
			"til-done-checkpoints": "boolean",
		});
		expect(pi.flags.get("til-done-paused")?.description).toBe(
			"Start with auto-continue off [default off, TIL_DONE_PAUSED]",
		);
		// `  --til-done-countdown <value>` reaches pi's column of 30: its text starts on the next line, at the column.
		expect(pi.flags.get("til-done-countdown")?.description).toBe(
			`\n${" ".repeat(30)}Seconds of countdown before auto-continuing (0 = none) [default 3, TIL_DONE_COUNTDOWN]`,
		);
		expect(pi.flags.get("til-done-judge")?.description).toBe(
			"on|off|<provider>/<model>: an independent model judges a finished list against what you asked (on: the session's model) [default off, TIL_DONE_JUDGE]",
		);
		expect(pi.flags.get("til-done-check")?.description).toBe(
			"A shell command that exits 0 when the whole list is really done (the done-check) [default none, TIL_DONE_CHECK]",
		);
	});
});

describe("renderers show each custom message with its icon", () => {
	const pi = createFakePi();
	registerMessageRenderers(pi.api);
	const render = (customType: string, content: unknown, details?: unknown) =>
		textOf(
			pi.renderers.get(customType)?.(
				{ role: "custom", customType, content, details, display: true },
				{},
				taggingTheme,
			) as Component,
		);

	it("registers five message renderers and two entry renderers", async () => {
		expect([...pi.renderers.keys()]).toEqual([
			"til-done-context",
			MESSAGE_TYPE.continuation,
			"til-done-loop",
			"til-done-goal",
			"til-done-complete",
		]);
		expect([...pi.entryRenderers.keys()]).toEqual(["til-done-complete", ENTRY_TYPE.report]);
	});

	it("📋 for the context injection, dimmed", async () => {
		expect(render("til-done-context", "list")).toBe("<accent>📋</accent> <dim>list</dim>");
	});

	it("⏳ for a continuation, dimmed", async () => {
		expect(render(MESSAGE_TYPE.continuation, "go on")).toBe("<accent>⏳</accent> <dim>go on</dim>");
	});

	it("🔁 for a loop iteration, in the text colour", async () => {
		expect(render("til-done-loop", "again")).toBe("<accent>🔁</accent> <text>again</text>");
	});

	it("🎯 for a goal's prompt, in the text colour", async () => {
		expect(render("til-done-goal", "until it holds")).toBe("<accent>🎯</accent> <text>until it holds</text>");
	});

	it("⚠ for a completion message whose details.level is warning", async () => {
		expect(render("til-done-complete", "limit", { level: "warning" })).toBe(
			"<warning>⚠</warning> <warning>limit</warning>",
		);
	});

	it("✓ for a completion message with any other or no level", async () => {
		expect(render("til-done-complete", "done", { level: "success" })).toBe("<success>✓</success> <text>done</text>");
		expect(render("til-done-complete", "done")).toBe("<success>✓</success> <text>done</text>");
	});

	it("joins the text blocks of array content and skips the others", async () => {
		const content = [
			{ type: "text", text: "one" },
			{ type: "image", data: "…" },
			null,
			{ type: "text", text: 5 },
			{ type: "text", text: "two" },
		];
		expect(render(MESSAGE_TYPE.continuation, content)).toBe("<accent>⏳</accent> <dim>one\ntwo</dim>");
	});

	it("shows empty text for content that is neither a string nor an array", async () => {
		expect(render("til-done-loop", { text: "x" })).toBe("<accent>🔁</accent> <text></text>");
	});

	it("the entry renderer shows a headless breaker stop with ⚠", async () => {
		const renderEntry = (data: unknown) =>
			textOf(
				pi.entryRenderers.get("til-done-complete")?.(
					{ type: "custom", customType: "til-done-complete", data },
					{},
					taggingTheme,
				) as Component,
			);
		expect(renderEntry({ level: "warning", text: "Auto-continue limit reached" })).toBe(
			"<warning>⚠</warning> <warning>Auto-continue limit reached</warning>",
		);
		expect(renderEntry({ level: "info", text: "Every todo is finished (2): nothing to continue." })).toBe(
			"<success>✓</success> <text>Every todo is finished (2): nothing to continue.</text>",
		);
		expect(renderEntry({ text: 42 })).toBe("<warning>⚠</warning> <warning></warning>");
		expect(renderEntry(undefined)).toBe("<warning>⚠</warning> <warning></warning>");
	});

	it("a line that stays is shown as it was told, coloured by its level; a malformed one shows nothing of it", async () => {
		const renderReport = (data: unknown) =>
			textOf(
				pi.entryRenderers.get(ENTRY_TYPE.report)?.(
					{ type: "custom", customType: ENTRY_TYPE.report, data },
					{},
					taggingTheme,
				) as Component,
			);
		expect(renderReport({ level: "success", text: "✓ All 2 todos are done." })).toBe(
			"<success>✓ All 2 todos are done.</success>",
		);
		expect(renderReport({ level: "warning", text: "Worker on [0]: stopped; the item is ready again." })).toBe(
			"<warning>Worker on [0]: stopped; the item is ready again.</warning>",
		);
		expect(renderReport({ level: "info", text: "Worker on [0] started: Write a.txt" })).toBe(
			"<muted>Worker on [0] started: Write a.txt</muted>",
		);
		expect(renderReport({ level: "loud", text: 42 })).toBe("<text></text>");
		expect(renderReport(undefined)).toBe("<text></text>");
	});
});
