import { beforeEach, describe, expect, it } from "vitest";
import { initialChain } from "../../src/core/rules/chain.ts";
import { countersOf } from "../../src/core/rules/decision.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { NO_SPEND, spendProgress } from "../../src/core/rules/usage.ts";
import { workerOverspends } from "../../src/core/rules/workers.ts";
import {
	addWorker,
	allowStoreOutsideSessions,
	allowWorkers,
	appendTodos,
	completeWorkerItem,
	effectiveDoneCheck,
	getBranchDoneCheck,
	getChain,
	getDecisions,
	getEndedWorkers,
	getLoop,
	getState,
	getTodos,
	getVerification,
	inSession,
	insertTodos,
	isCompletionAnnounced,
	isVerified,
	MAX_DECISIONS,
	markCompletionAnnounced,
	markStopped,
	markWorkersRefused,
	pauseAutoContinue,
	reconstructState,
	recordDecision,
	recordSend,
	recordUsage,
	recordVerdict,
	recordWorkerUsage,
	resetChain,
	resetState,
	resumeAutoContinue,
	sessionOf,
	setBranchDoneCheck,
	setChecking,
	setLoop,
	setPanelEnabled,
	setTodos,
	subscribe,
	takeUnreported,
	updateTodoStatus,
	workersAllowed,
} from "../../src/state.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { ENTRY_TYPE, STORE_OUTSIDE_SESSIONS } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { endedWorker, sendContinuation } from "../helpers/store.ts";

const todo = (text: string, status: TodoStatus = "not_started"): TodoItem => ({ text, status });

/** A session entry holding one tool result, shaped as pi stores it. */
function toolResult(toolName: string, details: unknown, isError = false): unknown {
	return { type: "message", id: `e${Math.random()}`, message: { role: "toolResult", toolName, details, isError } };
}
const write = (todos: unknown[]) => toolResult("write_todos", { action: "write", todos });
const edit = (todos: unknown[]) => toolResult("edit_todos", { action: "edit", todos });
const userMessage = { type: "message", message: { role: "user", content: "hello" } };

/** Rebuilds the store from a branch and returns the list it now holds. */
function rebuild(branch: readonly unknown[] | (() => readonly unknown[])): TodoItem[] {
	reconstructState(createFakeCtx({ branch }).ctx);
	return [...getTodos()];
}

beforeEach(() => {
	resetState();
});

describe("mutators change the list and nothing aliases it", () => {
	it("starts empty", () => {
		expect(getTodos()).toEqual([]);
	});

	it("setTodos replaces the list with copies of the items", () => {
		const first = todo("a");
		const items = [first, todo("b")];
		setTodos(items);
		first.status = "completed";
		items.push(todo("c"));
		expect(getTodos()).toEqual([todo("a"), todo("b")]);
	});

	it("appendTodos adds to the end", () => {
		setTodos([todo("a", "in_progress")]);
		appendTodos([todo("b"), todo("c")]);
		expect(getTodos()).toEqual([todo("a", "in_progress"), todo("b"), todo("c")]);
	});

	it.each([
		[0, ["x", "a", "b"]],
		[1, ["a", "x", "b"]],
		[2, ["a", "b", "x"]],
	])("insertTodos at %i puts the items there", (index, texts) => {
		setTodos([todo("a"), todo("b")]);
		insertTodos(index, [todo("x")]);
		expect(getTodos().map((item) => item.text)).toEqual(texts);
	});

	it("updateTodoStatus sets every named index and leaves the rest alone", () => {
		setTodos([todo("a"), todo("b"), todo("c")]);
		updateTodoStatus([0, 2], "completed");
		expect(getTodos()).toEqual([todo("a", "completed"), todo("b"), todo("c", "completed")]);
	});

	it("resetState empties the list and the chain", () => {
		setTodos([todo("a")]);
		sendContinuation();
		resetState();
		expect(getTodos()).toEqual([]);
		expect(getChain()).toEqual(initialChain());
	});
});

describe("reconstructState rebuilds the list from the last trustworthy snapshot on the branch", () => {
	it("returns [] for an empty branch", () => {
		setTodos([todo("stale")]);
		expect(rebuild([])).toEqual([]);
		expect(getTodos()).toEqual([]);
	});

	it("takes the last snapshot when there are several", () => {
		const branch = [write([todo("old")]), userMessage, edit([todo("new", "in_progress")]), userMessage];
		expect(rebuild(branch)).toEqual([todo("new", "in_progress")]);
		expect(getTodos()).toEqual([todo("new", "in_progress")]);
	});

	it("skips list results, even one that claims a non-empty list", () => {
		const branch = [
			write([todo("real")]),
			toolResult("list_todos", { action: "list", todos: [], view: [todo("view")] }),
			toolResult("list_todos", { action: "list", todos: [todo("forged")] }),
		];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("skips error results, even one that carries todos", () => {
		const branch = [
			write([todo("real")]),
			toolResult("write_todos", { action: "write", todos: [], error: "text too long" }),
			toolResult("edit_todos", { action: "edit", todos: [todo("forged")], error: "no todos exist" }),
		];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("skips results pi marked isError", () => {
		const branch = [write([todo("real")]), toolResult("write_todos", { action: "write", todos: [todo("x")] }, true)];
		expect(rebuild(branch)).toEqual([todo("real")]);
	});

	it("keeps an empty replace snapshot: a cleared list stays cleared (defect 5)", () => {
		expect(rebuild([write([todo("old")]), write([])])).toEqual([]);
	});

	it("skips a snapshot with one invalid item as a whole", () => {
		const branch = [write([todo("good")]), edit([todo("fine"), { text: "", status: "completed" }])];
		expect(rebuild(branch)).toEqual([todo("good")]);
	});

	it.each([
		["an unknown status", { text: "a", status: "done" }],
		["an extra key", { text: "a", status: "not_started", x: 1 }],
		["an oversized text", { text: "x".repeat(1001), status: "not_started" }],
		["a null item", null],
	])("skips a snapshot holding %s", (_name, item) => {
		expect(rebuild([write([todo("good")]), write([todo("fine"), item])])).toEqual([todo("good")]);
	});

	it("skips a snapshot of more than 100 items", () => {
		const tooMany = Array.from({ length: 101 }, (_, i) => todo(`t${i}`));
		expect(rebuild([write([todo("good")]), write(tooMany)])).toEqual([todo("good")]);
	});

	it("skips details that are not a snapshot", () => {
		const branch = [
			write([todo("good")]),
			toolResult("write_todos", undefined),
			toolResult("write_todos", "text"),
			toolResult("write_todos", { action: "write", todos: "not an array" }),
			toolResult("edit_todos", { action: "other", todos: [todo("x")] }),
		];
		expect(rebuild(branch)).toEqual([todo("good")]);
	});

	it("accepts a custom entry of type til-done-snapshot", () => {
		const custom = { type: "custom", customType: ENTRY_TYPE.snapshot, data: { action: "edit", todos: [todo("mine")] } };
		expect(rebuild([write([todo("tool")]), custom])).toEqual([todo("mine")]);
	});

	it("ignores custom entries of other types", () => {
		const other = { type: "custom", customType: "someone-else", data: { action: "write", todos: [todo("x")] } };
		expect(rebuild([write([todo("tool")]), other])).toEqual([todo("tool")]);
	});

	it("ignores results of other tools with the same shape", () => {
		const branch = [write([todo("mine")]), toolResult("bash", { action: "write", todos: [todo("theirs")] })];
		expect(rebuild(branch)).toEqual([todo("mine")]);
	});

	it("ignores entries that are not tool results", () => {
		const branch = [
			write([todo("mine")]),
			null,
			"junk",
			{ type: "message", message: null },
			{ type: "message", message: { role: "assistant", details: { action: "write", todos: [todo("x")] } } },
			{ type: "compaction", details: { action: "write", todos: [todo("x")] } },
		];
		expect(rebuild(branch)).toEqual([todo("mine")]);
	});

	it("returns [] for an unreadable branch", () => {
		setTodos([todo("stale")]);
		const unreadable = () => {
			throw new Error("session file gone");
		};
		expect(rebuild(unreadable)).toEqual([]);
		expect(getTodos()).toEqual([]);
	});

	it("starts a fresh chain", () => {
		setTodos([todo("a")]);
		sendContinuation();
		rebuild([write([todo("a")])]);
		expect(getChain()).toEqual(initialChain());
	});
});

describe("chain counters", () => {
	it("recordSend stores the counters and the loop a sent plan carries", () => {
		const loop = { prompt: "p", max: 3, marker: "M", iteration: 2 };
		recordSend({ chain: { ...initialChain(), continuations: 2 }, loop });
		expect(getChain()).toEqual({ ...initialChain(), continuations: 2 });
		expect(getLoop()).toEqual(loop);
	});

	it("resetChain starts every counter again", () => {
		sendContinuation();
		sendContinuation();
		resetChain();
		expect(getChain()).toEqual(initialChain());
	});

	it("a write or edit does not reset the continuation count (defect 9: churn is not progress)", () => {
		setTodos([todo("a"), todo("b")]);
		sendContinuation();
		updateTodoStatus([0], "in_progress");
		appendTodos([todo("c")]);
		insertTodos(0, [todo("d")]);
		setTodos([todo("e")]);
		expect(getChain().continuations).toBe(1);
	});

	it("completing an item sets progressed", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		sendContinuation();
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(true);
	});

	it("abandoning an item is no progress: only a completion is", () => {
		setTodos([todo("a")]);
		resetChain();
		sendContinuation();
		updateTodoStatus([0], "abandoned");
		expect(getChain().progressed).toBe(false);
	});

	it("starting an item, appending or rewriting the list is not progress", () => {
		setTodos([todo("a")]);
		resetChain();
		sendContinuation();
		updateTodoStatus([0], "in_progress");
		appendTodos([todo("b")]);
		insertTodos(0, [todo("c")]);
		setTodos([todo("d")]);
		expect(getChain().progressed).toBe(false);
	});

	it("re-completing the same text in the same chain is not progress", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		updateTodoStatus([0], "completed");
		sendContinuation();
		updateTodoStatus([0], "in_progress");
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});

	it("rewriting the list with a finished text and finishing it again is not progress", () => {
		setTodos([todo("a")]);
		resetChain();
		updateTodoStatus([0], "completed");
		sendContinuation();
		setTodos([todo("a")]);
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});

	it("items already finished when the chain starts are not progress", () => {
		setTodos([todo("a"), todo("b")]);
		updateTodoStatus([0], "completed");
		resetChain();
		sendContinuation();
		setTodos([todo("a", "completed"), todo("b")]);
		expect(getChain().progressed).toBe(false);
	});

	it("resetChain keeps a pause the user asked for and ends one the model asked for", () => {
		pauseAutoContinue("user", "busy");
		resetChain();
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "busy" });
		pauseAutoContinue("model", "question");
		resetChain();
		expect(getChain().paused).toBe(false);
	});
});

describe("the chain's spend, why it stopped, and the decisions kept for /todos why", () => {
	const assistantCall = (input: number, output: number) => ({
		role: "assistant",
		usage: { input, output, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } },
	});
	const workerCall = (input: number, output: number) => ({
		input,
		output,
		cacheRead: 0,
		cacheWrite: 0,
		cost: { total: 0 },
	});

	it("recordUsage adds a model call to the chain; a message without usage changes nothing", () => {
		recordUsage(assistantCall(100, 10));
		recordUsage({ role: "assistant" });
		expect(getChain().spend).toStrictEqual({ ...NO_SPEND, tokens: 110, calls: 1, lastContext: 100 });
	});

	it("a completion shares the tokens since the last one among the items it finished", () => {
		setTodos([todo("a"), todo("b")]);
		resetChain();
		recordUsage(assistantCall(900, 100));
		updateTodoStatus([0, 1], "completed");
		expect(getChain().spend.perItem).toEqual([500, 500]);
	});

	it("a worker's landed item takes what its worker spent, however many others spent meanwhile", () => {
		const texts = Array.from({ length: 16 }, (_, i) => `Write ${i}.txt`);
		setTodos(texts.map((text) => todo(text)));
		resetChain();
		const workers = texts.map((_, index) => ({ index, key: `${index}-k`, startedAt: 0, tokens: 0, dir: "" }));
		for (const worker of workers) addWorker(worker);
		// Sixteen workers each spend 5,328 tokens, then their items land one after another.
		for (const worker of workers) recordWorkerUsage(worker.key, workerCall(5_000, 328));
		for (const worker of workers) completeWorkerItem(worker.key, worker.index);
		expect(getChain().spend.perItem).toEqual(Array.from({ length: 16 }, () => 5_328));
		expect(getChain().spend.tokens).toBe(16 * 5_328);
		expect(spendProgress(getChain().spend).sinceFinish).toBe(0);
		expect(workerOverspends(5_328, getChain().spend, 5)).toBeUndefined();
	});

	it("the workers' tokens are no part of the chain's tokens since its last finished item", () => {
		setTodos([todo("a"), todo("b"), todo("c")]);
		resetChain();
		recordUsage(assistantCall(900, 100));
		updateTodoStatus([0], "completed");
		addWorker({ index: 1, key: "1-b", startedAt: 0, tokens: 0, dir: "" });
		recordWorkerUsage("1-b", workerCall(40_000, 0));
		recordUsage(assistantCall(150, 50));
		expect(spendProgress(getChain().spend).sinceFinish).toBe(200);
		completeWorkerItem("1-b", 1);
		expect(getChain().spend.perItem).toEqual([1_000, 40_000]);
		expect(spendProgress(getChain().spend).sinceFinish).toBe(0);
	});

	it("why the chain stopped stays until the user acts (a new chain)", () => {
		markStopped("budget-tokens");
		expect(getChain().stopped).toBe("budget-tokens");
		resetChain();
		expect(getChain().stopped).toBeUndefined();
	});

	it("the user's pause is the user acting: the stop leaves the status bar; the model's pause keeps it", () => {
		markStopped("interrupted");
		pauseAutoContinue("model", "asked a question");
		expect(getChain().stopped).toBe("interrupted");
		pauseAutoContinue("user");
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", stopped: undefined });
	});

	it(`keeps the last ${MAX_DECISIONS} decisions, the oldest first`, () => {
		const counters = countersOf({ todos: [], chain: initialChain(), loop: undefined, limits: DEFAULT_CONFIG });
		for (let i = 0; i < MAX_DECISIONS + 3; i++) {
			recordDecision({ at: i, kind: "idle", code: "aborted", text: `${i}`, counters });
		}
		expect(getDecisions().map((decision) => decision.at)).toEqual(
			Array.from({ length: MAX_DECISIONS }, (_, i) => i + 3),
		);
	});
});

describe("pause and completion notice (beyond the seed)", () => {
	it("pauseAutoContinue records who paused and why; resumeAutoContinue clears it", () => {
		pauseAutoContinue("model", "need an API key");
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "model", pauseReason: "need an API key" });
		resumeAutoContinue();
		expect(getChain()).toMatchObject({ paused: false, pausedBy: undefined, pauseReason: undefined });
	});

	it("forgets the completion notice once the list has work again", () => {
		setTodos([todo("a")]);
		markCompletionAnnounced();
		expect(isCompletionAnnounced()).toBe(true);
		appendTodos([todo("b")]);
		expect(isCompletionAnnounced()).toBe(false);
	});

	it("treats a list that was already finished when the session opened as announced", () => {
		rebuild([write([todo("a", "completed")])]);
		expect(isCompletionAnnounced()).toBe(true);
		rebuild([write([todo("a")])]);
		expect(isCompletionAnnounced()).toBe(false);
	});
});

describe("the /loop in progress (beyond the seed)", () => {
	it("stores a copy, clears with undefined and is forgotten by resetState", () => {
		const loop = { prompt: "tidy up", max: 5, marker: "DONE", iteration: 1 };
		setLoop(loop);
		loop.iteration = 99;
		expect(getLoop()).toEqual({ prompt: "tidy up", max: 5, marker: "DONE", iteration: 1 });
		setLoop(undefined);
		expect(getLoop()).toBeUndefined();
		setLoop(loop);
		resetState();
		expect(getLoop()).toBeUndefined();
	});
});

describe("the store tells its subscriber about every change, and nothing else", () => {
	it("calls the subscriber once per change of the list, the chain, the loop or the panel switch", () => {
		let calls = 0;
		const unsubscribe = subscribe(() => calls++);
		setTodos([todo("a")]);
		updateTodoStatus([0], "in_progress");
		appendTodos([todo("b")]);
		insertTodos(0, [todo("c")]);
		pauseAutoContinue("user");
		resumeAutoContinue();
		resetChain();
		setLoop({ prompt: "p", max: 2, marker: "M", iteration: 1 });
		setPanelEnabled(true);
		sendContinuation();
		expect(calls).toBe(10);
		unsubscribe();
		setTodos([]);
		expect(calls).toBe(10);
	});

	it("tells it after a rebuild from the branch", () => {
		let calls = 0;
		subscribe(() => calls++);
		rebuild([write([todo("a")])]);
		expect(calls).toBe(1);
	});

	it("a read does not tell it", () => {
		let calls = 0;
		subscribe(() => calls++);
		getTodos();
		getChain();
		getLoop();
		getState();
		expect(calls).toBe(0);
	});

	it("every write tells it, the completion mark included", () => {
		let calls = 0;
		subscribe(() => calls++);
		markCompletionAnnounced();
		setPanelEnabled(true);
		expect(calls).toBe(2);
	});
});

describe("progress counts items, not just texts", () => {
	beforeEach(() => resetState());

	it("finishing a second item with the same text as one already finished is progress", () => {
		setTodos([
			{ text: "run the tests", status: "completed" },
			{ text: "run the tests", status: "not_started" },
		]);
		resetChain();
		sendContinuation();
		updateTodoStatus([1], "completed");
		expect(getChain().progressed).toBe(true);
	});

	it("re-finishing the same single item after reopening it is not progress", () => {
		setTodos([{ text: "run the tests", status: "completed" }]);
		resetChain();
		updateTodoStatus([0], "in_progress");
		sendContinuation();
		updateTodoStatus([0], "completed");
		expect(getChain().progressed).toBe(false);
	});
});

describe("the verification of a finished list, and the done-check set on the branch", () => {
	it("a passed verification is forgotten when the list changes; a failed one stays on show", () => {
		setTodos([todo("a", "completed")]);
		recordVerdict({ passed: true, failed: [], checks: 1, of: getTodos() }, getChain());
		expect(isVerified()).toBe(true);
		updateTodoStatus([0], "in_progress");
		expect(getVerification()).toBeUndefined();
		expect(isVerified()).toBe(false);
		const failed = { passed: false, failed: ["the done-check (exit code 1)"], checks: 1, of: getTodos() };
		recordVerdict(failed, getChain());
		updateTodoStatus([0], "completed");
		expect(getVerification()).toEqual(failed);
		expect(isVerified()).toBe(false);
	});

	it("a pass for another list, or for a list with an item open, is not kept: verified is never true then", () => {
		setTodos([todo("a", "completed")]);
		const checked = getTodos();
		setTodos([todo("a", "completed")]);
		recordVerdict({ passed: true, failed: [], checks: 1, of: checked }, getChain());
		expect(getVerification()).toBeUndefined();
		setTodos([todo("a", "completed"), todo("b")]);
		recordVerdict({ passed: true, failed: [], checks: 1, of: getTodos() }, getChain());
		expect(getVerification()).toBeUndefined();
		expect(isVerified()).toBe(false);
	});

	it("the done-check on the branch wins over the configured one; off there means none", () => {
		expect(effectiveDoneCheck("make check")).toBe("make check");
		setBranchDoneCheck("npm test");
		expect(effectiveDoneCheck("make check")).toBe("npm test");
		setBranchDoneCheck(null);
		expect(effectiveDoneCheck("make check")).toBeUndefined();
	});

	it("setting a done-check makes the finished list unverified again", () => {
		recordVerdict({ passed: true, failed: [], checks: 1, of: getTodos() }, getChain());
		setBranchDoneCheck("npm test");
		expect(getVerification()).toBeUndefined();
	});

	it("a rebuild from the branch reads the last done-check entry and forgets the verification", () => {
		recordVerdict({ passed: false, failed: ["x"], checks: 1, of: getTodos() }, getChain());
		setBranchDoneCheck("old");
		rebuild([write([todo("a")]), { type: "custom", customType: "til-done-check", data: { command: "npm test" } }]);
		expect(getBranchDoneCheck()).toBe("npm test");
		expect(getVerification()).toBeUndefined();
		rebuild([write([todo("a")])]);
		expect(getBranchDoneCheck()).toBeUndefined();
	});
});

describe("resetting the store replaces the whole state", () => {
	it("after writes to every part, a reset gives the same state as a fresh store", () => {
		resetState();
		const fresh = getState();
		setTodos([{ text: "a", status: "completed" }]);
		pauseAutoContinue("user", "why");
		setLoop({ prompt: "p", max: 2, marker: "M", iteration: 1 });
		recordDecision({
			at: 1,
			kind: "idle",
			code: "paused",
			text: "t",
			counters: countersOf({ todos: [], chain: initialChain(), loop: undefined, limits: DEFAULT_CONFIG }),
		});
		setPanelEnabled(true);
		setChecking({ what: "the done-check", command: "true" });
		recordVerdict({ passed: false, failed: ["x"], checks: 1, of: getTodos() }, getChain());
		setBranchDoneCheck("npm test");
		markCompletionAnnounced();
		takeUnreported(["a warning"]);
		markWorkersRefused();
		resetState();
		expect(getState()).toEqual(fresh);
	});
});

describe("a rebuild restores the last verdict of the list", () => {
	const verdict = (data: object) => ({ type: "custom", customType: "til-done-verdict", data });
	const FINISHED = [todo("a", "completed"), todo("b", "completed")];

	it("a failed verdict is shown again, and a later pass will be announced", () => {
		rebuild([write(FINISHED), verdict({ passed: false, failed: ["the done-check (exit code 1)"], checks: 1 })]);
		expect(getVerification()).toEqual({
			passed: false,
			failed: ["the done-check (exit code 1)"],
			checks: 1,
			of: getTodos(),
		});
		expect(isCompletionAnnounced()).toBe(false);
	});

	it("a pass holds for the rebuilt list: verified, and already announced", () => {
		rebuild([write(FINISHED), verdict({ passed: true, failed: [], checks: 2 })]);
		expect(isVerified()).toBe(true);
		expect(isCompletionAnnounced()).toBe(true);
	});

	it("a pass stored beside a list with an open item is not trusted", () => {
		rebuild([write([todo("a", "completed"), todo("b")]), verdict({ passed: true, failed: [], checks: 2 })]);
		expect(getVerification()).toBeUndefined();
		expect(isVerified()).toBe(false);
	});
});

describe("a rebuild restores the user's pause from the branch", () => {
	const pause = (data: object) => ({ type: "custom", customType: "til-done-pause", data });

	it("the last pause of the user on the branch holds, with its reason; a later resume lifts it", () => {
		rebuild([pause({ paused: true, reason: "not now" })]);
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user", pauseReason: "not now" });
		rebuild([pause({ paused: true, reason: "not now" }), pause({ paused: false })]);
		expect(getChain().paused).toBe(false);
	});

	it("a malformed entry is skipped for the one before it", () => {
		rebuild([pause({ paused: true }), pause({ paused: "yes" }), pause({ paused: false, reason: 3 })]);
		expect(getChain()).toMatchObject({ paused: true, pausedBy: "user" });
	});
});

describe("a rebuild (a resume, a fork, a move in the tree) lists the workers that ended on its branch, no other", () => {
	const ended = { index: 0, text: "Write a.txt", end: "landed", why: "it landed", seconds: 1, tokens: 9 } as const;
	const workerEntry = (data: object) => ({ type: "custom", customType: "til-done-worker", data });

	it("the workers that ended in the chain before are not the rebuilt branch's: a branch without any lists none", () => {
		endedWorker({ ...ended, files: ["a.txt"], answer: "Done." });
		expect(getEndedWorkers()).toHaveLength(1);
		rebuild([write([todo("Write a.txt")])]);
		expect(getEndedWorkers()).toEqual([]);
	});

	it("a branch's own workers come back, in the order they ended, with their whole answers, until the user's next prompt", () => {
		const first = { ...ended, files: ["a.txt"], answer: "Done.".repeat(100) };
		const second = { ...ended, index: 1, text: "Write b.txt", end: "given-back", files: [], answer: "" } as const;
		rebuild([write([todo("Write a.txt"), todo("Write b.txt")]), workerEntry(first), workerEntry(second)]);
		expect(getEndedWorkers()).toEqual([first, second]);
		resetChain();
		expect(getEndedWorkers()).toEqual([]);
	});
});

describe("workers refused for want of a git work tree stay refused for the session, and only for it", () => {
	it("kept through a rebuild from the branch (a move in the tree); another session's part knows nothing of it", () => {
		expect(getState().workersRefused).toBe(false);
		markWorkersRefused();
		rebuild([write([todo("a")])]);
		expect(getState().workersRefused).toBe(true);
		expect(inSession(sessionOf({}), () => getState().workersRefused)).toBe(false);
	});

	it("none may work then, whatever the setting or /todos workers said: the dispatch and /todos status read it alike", () => {
		allowWorkers(3);
		expect(workersAllowed(2)).toBe(3);
		markWorkersRefused();
		expect(workersAllowed(2)).toBe(0);
	});
});

describe("outside any session the store is nobody's: a read or a write is an error, never a part of another's", () => {
	it("with no session and none allowed, a read and a write fail with the error; a session's own part still works", () => {
		allowStoreOutsideSessions(false);
		try {
			expect(() => getTodos()).toThrow(STORE_OUTSIDE_SESSIONS);
			expect(() => resetChain()).toThrow(STORE_OUTSIDE_SESSIONS);
			expect(inSession(sessionOf({}), () => getTodos())).toEqual([]);
		} finally {
			allowStoreOutsideSessions();
		}
	});
});
