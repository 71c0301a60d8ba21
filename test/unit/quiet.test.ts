/**
 * "Nothing happens after X": the rules an end-to-end test cannot prove without waiting on the clock. Each drives the
 * real extension through its factory (a fake pi and ctx, pi's events, the registered tools and commands), then lets a
 * day of fake time pass, far beyond every deadline (a countdown is at most 600 s), and checks that nothing more was
 * sent, shown or announced. Each also checks what only a live engine does (the decision it kept, the countdown it
 * showed, or that the next run's end is decided), so that none passes against an engine that does nothing at all.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
	allDone,
	continuationPrompt,
	failures,
	hardCap,
	KEY,
	MESSAGE_TYPE,
	noProgress,
	progressStatus,
	repeatedAnswer,
} from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { lastDecision } from "../helpers/store.ts";

type Factory = typeof import("../../src/index.ts").default;
type Store = typeof import("../../src/state.ts");
type StopReason = "stop" | "error" | "aborted";
interface Options {
	mode?: "tui" | "rpc" | "print" | "json";
	flags?: Record<string, string | boolean>;
	/** What `sessionManager.getBranch()` holds when the session starts. */
	branch?: unknown[];
}

const ENV_NAMES = ["COUNTDOWN", "MAX_CONTINUE", "MAX_NO_PROGRESS", "MAX_FAILURES", "BACKOFF_MS", "PAUSED", "PANEL"];
const A_DAY_MS = 24 * 60 * 60 * 1000;

let tilDone: Factory;
/** The store of the modules `tilDone` was loaded with. */
let store: Store;

/** Loads the factory from fresh modules, as a new pi process (or `/reload`) does: no state of an earlier test. */
async function loadFactory(): Promise<void> {
	vi.resetModules();
	tilDone = (await import("../../src/index.ts")).default;
	store = await import("../../src/state.ts");
}

/** The extension as pi loads it, after `session_start`, and ways to play pi's side. */
async function startExtension({ mode = "tui", flags = {}, branch = [] }: Options = {}) {
	const pi = createFakePi();
	for (const [name, value] of Object.entries(flags)) pi.flagValues.set(name, value);
	tilDone(pi.api);
	const getDecisions = () => store.inSession(store.sessionOf(pi.api), store.getDecisions);
	const fake = createFakeCtx({ mode, hasUI: mode === "tui" || mode === "rpc", branch });
	const fire = (event: string, payload: Record<string, unknown> = {}) => pi.fire(event, payload, fake.ctx);
	const tool = (name: string, params: Record<string, unknown>) =>
		pi.tools.get(name)?.execute("call", params as never, undefined, undefined, fake.ctx);
	await fire("session_start", { reason: "startup" });
	return {
		pi,
		...fake,
		fire,
		tool,
		command: (name: string, args: string) => pi.commands.get(name)?.handler(args, fake.commandCtx),
		/** The user submits a prompt (pi fires `input` before the run starts). */
		prompt: (text: string) => fire("input", { source: "interactive", text }),
		write: (...texts: string[]) => tool("write_todos", { mode: "replace", todos: texts.map((text) => ({ text })) }),
		complete: (...indices: number[]) => tool("edit_todos", { action: "complete", indices }),
		/** A run ends with the model's last message, and pi settles. */
		endRun: async (text = "Working on it.", stopReason: StopReason = "stop") => {
			const errorMessage = stopReason === "error" ? { errorMessage: "529 overloaded" } : {};
			const message = { role: "assistant", stopReason, ...errorMessage, content: [{ type: "text", text }] };
			await fire("agent_end", { messages: [message] });
			await fire("agent_settled");
		},
		pressKey: (key: string) => {
			for (const handler of [...fake.ui.inputHandlers]) handler(key);
		},
		continuations: () => pi.sent.filter((sent) => sent.message.customType === MESSAGE_TYPE.continuation),
		countdownShown: () => fake.ui.widgets.has(KEY.countdown),
		countdownsStarted: () => fake.ui.widgetCalls.filter((call) => call.key === KEY.countdown && call.content),
		warnings: () => fake.ui.notifications.filter((n) => n.type === "warning").map((n) => n.message),
		/** The stops: each a warning message on the branch, shown once (no notice besides). */
		stops: () =>
			pi.sent.filter((sent) => sent.message.customType === MESSAGE_TYPE.complete).map((sent) => sent.message.content),
		/** What the auto-continue decided last: a run's end that sends nothing is still decided by a live engine. */
		lastDecision: () => lastDecision(getDecisions()),
		decisions: () => getDecisions(),
	};
}

type Extension = Awaited<ReturnType<typeof startExtension>>;

/** The user asked, the model wrote a two-item list and its run is still going. */
async function working(options: Options = {}): Promise<Extension> {
	const ext = await startExtension(options);
	await ext.prompt("go");
	await ext.write("a", "b");
	return ext;
}

/** The first run stopped half way: its countdown is showing. */
async function countingDown(options: Options = {}): Promise<Extension> {
	const ext = await working(options);
	await ext.endRun();
	expect(ext.countdownShown()).toBe(true);
	return ext;
}

/** Lets a day of fake time pass, timers and the promises they start included. */
const aDayLater = () => vi.advanceTimersByTimeAsync(A_DAY_MS);

beforeEach(async () => {
	await loadFactory();
	vi.useFakeTimers();
	for (const name of ENV_NAMES) vi.stubEnv(`TIL_DONE_${name}`, undefined);
	vi.spyOn(process.stderr, "write").mockImplementation(() => true);
});

afterEach(() => {
	vi.clearAllTimers();
	vi.useRealTimers();
	vi.unstubAllEnvs();
	vi.restoreAllMocks();
});

describe("after the list is done, nothing is sent", () => {
	it("the run that finishes it starts no countdown; 25 more runs send nothing; the done line comes once", async () => {
		const ext = await working();
		await ext.complete(0, 1);
		await ext.endRun("All done.");
		await aDayLater();
		for (let run = 0; run < 25; run++) {
			await ext.prompt(`question ${run}`);
			await ext.endRun(`reply ${run}`);
			await aDayLater();
		}
		expect(ext.countdownsStarted()).toEqual([]);
		expect(ext.pi.sent).toEqual([]);
		expect(ext.pi.reports()).toEqual([{ level: "success", text: allDone(2) }]);
		expect(ext.ui.notifications).toEqual([]);
	});
});

describe("with no list, nothing is sent", () => {
	it("runs without a list start no countdown and send nothing", async () => {
		const ext = await startExtension();
		for (const text of ["hi", "hi again"]) {
			await ext.prompt(text);
			await ext.endRun("hello");
		}
		await aDayLater();
		expect(ext.countdownsStarted()).toEqual([]);
		expect(ext.pi.sent).toEqual([]);
		// No decision is kept without a list; the same extension, given one, counts down after the next run.
		expect(ext.lastDecision()).toBeUndefined();
		await ext.write("a");
		await ext.endRun();
		expect(ext.countdownShown()).toBe(true);
	});
});

describe("a countdown a keypress cancelled sends nothing", () => {
	it("its deadline passes without a continuation", async () => {
		const ext = await countingDown();
		ext.pressKey("x");
		expect(ext.countdownShown()).toBe(false);
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
	});
});

describe("a countdown the user's prompt cancelled sends nothing", () => {
	it("its deadline passes without a continuation; the user's own run then decides afresh", async () => {
		const ext = await countingDown();
		await ext.prompt("wait, what about the tests?");
		expect(ext.countdownShown()).toBe(false);
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);

		await ext.endRun("Looked at the tests.");
		await aDayLater();
		expect(ext.continuations()).toHaveLength(1);
	});
});

describe("a countdown that runs out while pi is busy drops its continuation", () => {
	it("nothing is sent then or later, until the busy run ends and its own countdown runs out", async () => {
		const ext = await countingDown();
		// Another run started without the user typing (a queued message, another extension).
		ext.setIdle(false);
		await aDayLater();
		ext.setIdle(true);
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);

		await ext.endRun("Did the other work.");
		await aDayLater();
		expect(ext.continuations()).toHaveLength(1);
	});
});

describe("one continuation per run end", () => {
	it("after the continuation is sent, nothing more is sent until its run ends", async () => {
		const ext = await countingDown();
		await aDayLater();
		await aDayLater();
		expect(ext.pi.sent).toHaveLength(1);
		expect(ext.continuations()).toHaveLength(1);
	});
});

describe("after a breaker trips, nothing more is sent", () => {
	it("no-progress: after 3 continuations that finish nothing, one warning and then silence", async () => {
		const ext = await countingDown();
		for (let run = 0; run < 3; run++) {
			await aDayLater();
			await ext.endRun(`Still thinking (${run}).`);
		}
		await aDayLater();
		expect(ext.continuations()).toHaveLength(3);
		expect(ext.stops()).toEqual([noProgress(3)]);
		expect(ext.warnings()).toEqual([]);
	});

	it("repeated answer: after 3 continuations that finish nothing and say the same, one warning and then silence", async () => {
		const ext = await countingDown();
		for (let run = 0; run < 3; run++) {
			await aDayLater();
			await ext.endRun("Still thinking.");
		}
		await aDayLater();
		expect(ext.continuations()).toHaveLength(3);
		expect(ext.stops()).toEqual([repeatedAnswer(3)]);
	});

	it("hard cap: after the last allowed continuation, one warning and then silence", async () => {
		const ext = await countingDown({ flags: { "til-done-max-continue": "2" } });
		await aDayLater();
		await ext.complete(0);
		await ext.endRun("Finished item 0.");
		await aDayLater();
		await ext.endRun("Working on b.");
		await aDayLater();
		expect(ext.continuations()).toHaveLength(2);
		expect(ext.stops()).toEqual([hardCap(2)]);
	});

	it("failures: after 3 failed runs in a row, one warning and then silence", async () => {
		const ext = await working();
		for (let run = 0; run < 3; run++) {
			await ext.endRun("", "error");
			await aDayLater();
		}
		expect(ext.continuations()).toHaveLength(2);
		expect(ext.stops()).toEqual([failures(3)]);
	});
});

describe("after an aborted run (Esc), nothing is sent", () => {
	it("the run's end starts no countdown and nothing follows", async () => {
		const ext = await working();
		await ext.endRun("", "aborted");
		await aDayLater();
		expect(ext.countdownsStarted()).toEqual([]);
		expect(ext.pi.sent).toEqual([]);
		expect(ext.lastDecision()).toEqual({ kind: "idle", code: "aborted" });
	});
});

describe("after the model asks the user a question, nothing is sent", () => {
	it("the run's end starts no countdown and nothing follows", async () => {
		const ext = await working();
		await ext.endRun("Should I use Postgres or SQLite?");
		await aDayLater();
		expect(ext.countdownsStarted()).toEqual([]);
		expect(ext.pi.sent).toEqual([]);
		expect(ext.lastDecision()).toEqual({ kind: "idle", code: "asks-user" });
	});
});

describe("while auto-continue is paused, nothing is sent", () => {
	it("/todos pause during a countdown stops it, and later runs send nothing", async () => {
		const ext = await countingDown();
		await ext.command("todos", "pause");
		expect(ext.countdownShown()).toBe(false);
		await aDayLater();
		await ext.prompt("go on");
		await ext.endRun();
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
	});

	it("pause_todos from the model: its run's end sends nothing", async () => {
		const ext = await working();
		await ext.tool("pause_todos", { reason: "need the database password" });
		await ext.endRun("I need the password.");
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
		expect(ext.lastDecision()).toEqual({ kind: "idle", code: "paused" });
	});

	it("--til-done-paused: runs send nothing", async () => {
		const ext = await working({ flags: { "til-done-paused": true } });
		await ext.endRun();
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
		expect(ext.lastDecision()).toEqual({ kind: "idle", code: "paused" });
	});
});

describe("a session change during a countdown: the old countdown sends nothing", () => {
	it.each(["quit", "new", "resume", "fork"])("session_shutdown (%s)", async (reason) => {
		const ext = await countingDown();
		await ext.fire("session_shutdown", { reason });
		expect(ext.countdownShown()).toBe(false);
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
	});

	it("/reload: neither the old runtime nor the new one sends anything", async () => {
		const old = await countingDown();
		await old.fire("session_shutdown", { reason: "reload" });
		await loadFactory();
		const reloaded = await startExtension();
		await aDayLater();
		expect(old.pi.sent).toEqual([]);
		expect(reloaded.pi.sent).toEqual([]);
	});

	it("session_tree (tree navigation)", async () => {
		const ext = await countingDown();
		await ext.fire("session_tree");
		expect(ext.countdownShown()).toBe(false);
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
	});
});

describe("a second session in the process, made while the first's countdown runs", () => {
	it("each countdown sends its own session's continuation; each list stays its own", async () => {
		const first = await countingDown();
		const second = await startExtension();
		await second.prompt("go");
		await second.write("x", "y", "z");
		await second.complete(0);
		await second.endRun();
		expect(second.countdownShown()).toBe(true);
		await aDayLater();
		const listOf = (ext: Extension) =>
			store.inSession(store.sessionOf(ext.pi.api), () => store.getTodos().map((todo) => `${todo.text} ${todo.status}`));
		expect(listOf(first)).toEqual(["a not_started", "b not_started"]);
		expect(listOf(second)).toEqual(["x completed", "y not_started", "z not_started"]);
		const contents = (ext: Extension) => ext.continuations().map((sent) => sent.message.content);
		expect(contents(first)).toEqual([
			continuationPrompt(["– [0] a", "– [1] b"], "Next action: edit_todos with action 'start' and indices [0]"),
		]);
		expect(contents(second)).toEqual([
			continuationPrompt(["– [1] y", "– [2] z"], "Next action: edit_todos with action 'start' and indices [1]"),
		]);
	});
});

/** A second session in the process whose first run stopped half way over its own two items: its countdown shows. */
async function secondCountingDown(): Promise<Extension> {
	const second = await startExtension();
	await second.prompt("go");
	await second.write("x", "y");
	await second.endRun();
	return second;
}

describe("a key of the first session's countdown, pressed while the host runs the second's work", () => {
	it("stops the first's countdown only: the second's goes on and sends its continuation", async () => {
		const first = await countingDown();
		const second = await secondCountingDown();
		store.inSession(store.sessionOf(second.pi.api), () => first.pressKey("q"));
		await aDayLater();
		expect(first.continuations()).toEqual([]);
		expect(first.countdownShown()).toBe(false);
		expect(second.continuations().map((sent) => sent.message.content)).toEqual([
			continuationPrompt(["– [0] x", "– [1] y"], "Next action: edit_todos with action 'start' and indices [0]"),
		]);
		const stoppedOf = (ext: Extension) =>
			store.inSession(store.sessionOf(ext.pi.api), () => store.getState().chain.stopped);
		expect([stoppedOf(first), stoppedOf(second)]).toEqual(["interrupted", undefined]);
	});
});

describe("a key of the second session's countdown, pressed outside any session's work", () => {
	it("stops the second's countdown only: the first's goes on and sends its continuation", async () => {
		const first = await countingDown();
		const second = await secondCountingDown();
		second.pressKey("q");
		await aDayLater();
		expect(second.continuations()).toEqual([]);
		expect(first.continuations().map((sent) => sent.message.content)).toEqual([
			continuationPrompt(["– [0] a", "– [1] b"], "Next action: edit_todos with action 'start' and indices [0]"),
		]);
		const stoppedOf = (ext: Extension) =>
			store.inSession(store.sessionOf(ext.pi.api), () => store.getState().chain.stopped);
		expect([stoppedOf(first), stoppedOf(second)]).toEqual([undefined, "interrupted"]);
	});
});

describe("restoring a session with an unfinished list sends nothing", () => {
	it("session_start shows the list and starts no countdown; the next run's end does", async () => {
		const todos = [
			{ text: "a", status: "completed" },
			{ text: "b", status: "not_started" },
		];
		const toolResult = { role: "toolResult", toolName: "edit_todos", details: { action: "edit", todos } };
		const ext = await startExtension({ branch: [{ type: "message", message: toolResult }] });
		expect(ext.ui.status.get(KEY.status)).toBe(progressStatus(1, 2));
		await aDayLater();
		expect(ext.countdownsStarted()).toEqual([]);
		expect(ext.pi.sent).toEqual([]);
		expect(ext.decisions()).toEqual([]);
		await ext.prompt("go on");
		await ext.endRun();
		expect(ext.lastDecision()).toEqual({ kind: "send", code: "continue" });
		expect(ext.countdownShown()).toBe(true);
	});
});

describe("after a /loop ends, nothing more is sent", () => {
	/** Every iteration's prompt, however it was sent (a user message or a `til-done-loop` message). */
	const iterations = (ext: Extension) => [
		...ext.pi.userMessages,
		...ext.pi.sent.filter((sent) => sent.message.customType === "til-done-loop"),
	];

	it("the answer holds the marker", async () => {
		const ext = await startExtension();
		await ext.command("loop", "--until SHIPPED polish the README");
		await ext.endRun("step 1");
		await aDayLater();
		await ext.endRun("all good: SHIPPED");
		await aDayLater();
		expect(iterations(ext)).toHaveLength(2);
	});

	it("--max iterations have run", async () => {
		const ext = await startExtension();
		await ext.command("loop", "--max 2 keep refining");
		await ext.endRun("a");
		await aDayLater();
		await ext.endRun("b");
		await aDayLater();
		expect(iterations(ext)).toHaveLength(2);
	});

	it("a keypress during the countdown", async () => {
		const ext = await startExtension();
		await ext.command("loop", "again and again");
		await ext.endRun("a");
		expect(ext.countdownShown()).toBe(true);
		ext.pressKey("q");
		await aDayLater();
		expect(iterations(ext)).toHaveLength(1);
	});
});

describe("in print and json mode, a run's end starts no timer", () => {
	it.each(["print", "json"] as const)("%s: agent_end and agent_settled send nothing, then or later", async (mode) => {
		const ext = await working({ mode });
		await ext.endRun();
		await aDayLater();
		expect(ext.pi.sent).toEqual([]);
		expect(ext.decisions()).toEqual([]);
		// The run goes on inside, at agent_before_settle.
		const answer = { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Working on it." }] };
		const context = { contextMessages: [answer], contextEntries: [], llmMessages: [], pendingMessages: [] };
		const [result] = await ext.fire("agent_before_settle", { outcome: "completed", context });
		expect(result).toMatchObject({ continue: true, entries: [{ customType: MESSAGE_TYPE.continuation }] });
	});
});
