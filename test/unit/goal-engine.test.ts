/**
 * Goals and the judge through the engine, with a fake pi and a fake model registry: what is sent, said and kept after
 * each run, in the interactive modes (a countdown) and in print mode (inside the run).
 */
import type { AgentBeforeSettleEvent } from "@earendil-works/pi-coding-agent";
import { describe, expect, it, vi } from "vitest";
import type { TilDoneConfig } from "../../src/core/rules/settings.ts";
import { beginSession, getGoal, getVerification, setGoal, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { startEngine, WORKING } from "../helpers/engine.ts";
import { KEY, verifiedNotice } from "../helpers/expected.ts";
import type { FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
// Loaded on first use by the extension: loaded here first, so that use needs no file read under fake timers.
import "../../src/edges/checks/evidence.ts";
import "../../src/edges/checks/judge.ts";

const CONDITION = "Every test passes.";
type Word = "met" | "not met" | "cannot tell";

/** The judge's answers, one per call, in order: a goal's word, or the words on items 0, 1, … and the goal. */
function judge(...answers: { items?: Word[]; goal?: Word; raw?: string }[]) {
	const asked: string[] = [];
	const complete = async (context: { messages: unknown[] }) => {
		asked.push(JSON.stringify(context.messages));
		const next = answers.shift() ?? {};
		const items = (next.items ?? []).map((verdict, item) => ({ item, verdict, reason: `reason ${item}` }));
		const goal = next.goal ? { goal: { verdict: next.goal, reason: `goal ${next.goal}` } } : {};
		const text = next.raw ?? JSON.stringify({ items, ...goal });
		return { role: "assistant", stopReason: "stop", content: [{ type: "text", text }] };
	};
	return { complete, asked };
}

function setup(options: FakeCtxOptions, overrides: Partial<TilDoneConfig> = {}) {
	const base = startEngine({ mode: "rpc", ...options }, { countdownSeconds: 1, ...overrides });
	beginSession("own", base.config);
	const told = () => base.ui.notifications.map((notice) => notice.message);
	/** The lines that stay in the transcript, as `level: text`. */
	const stayed = () => base.pi.reports().map((line) => `${line.level}: ${line.text}`);
	const sent = () => base.pi.sent.map((sent) => [sent.message.customType, sent.message.content]);
	const settle = async () => {
		base.endRun();
		await vi.advanceTimersByTimeAsync(0);
	};
	return { ...base, told, stayed, sent, settle };
}

fakeTimersQuietStderr();

describe("/goal in the interactive modes", () => {
	it("sends the goal, asks the judge after the run, and ends on its met with a line that stays", async () => {
		const { complete, asked } = judge({ goal: "met" });
		const s = setup({ complete });
		await s.engine.startGoal(CONDITION, s.commandCtx);
		expect(s.sent()[0]?.[0]).toBe("til-done-goal");
		expect(s.ui.status.get(KEY.goal)).toBe("🎯 goal: Every test passes.");
		await s.settle();
		expect(asked).toHaveLength(1);
		expect(s.stayed()).toEqual(["success: 🎯 Goal met after 1 run(s), by the judge's word: goal met"]);
		expect(s.told()).toEqual([]);
		expect(getGoal()).toBeUndefined();
		expect(s.ui.status.has(KEY.goal)).toBe(false);
	});

	it("not met: a countdown, then the next goal run; a key during it ends the goal", async () => {
		const { complete } = judge({ goal: "not met" }, { goal: "cannot tell" });
		const s = setup({ complete });
		await s.engine.startGoal(CONDITION, s.commandCtx);
		await s.settle();
		expect(s.counting()).toBe(true);
		await vi.advanceTimersByTimeAsync(1_100);
		expect(s.sent()).toHaveLength(2);
		expect(s.sent()[1]?.[1]).toContain("an independent judge found it not met");
		await s.settle();
		expect(s.counting()).toBe(true);
		for (const handler of [...s.ui.inputHandlers]) handler("x");
		await vi.advanceTimersByTimeAsync(0);
		expect(s.told()).toContain("Goal stopped by you.");
		expect(getGoal()).toBeUndefined();
		await vi.advanceTimersByTimeAsync(5_000);
		expect(s.sent()).toHaveLength(2);
	});

	it("/goal off ends it and what was to follow; without a goal it says so", async () => {
		const { complete } = judge({ goal: "not met" });
		const s = setup({ complete });
		await s.engine.startGoal(CONDITION, s.commandCtx);
		await s.settle();
		s.engine.endGoal(s.ctx);
		s.engine.endGoal(s.ctx);
		await vi.advanceTimersByTimeAsync(5_000);
		expect(s.told()).toEqual(["Goal stopped by you.", "No goal is in progress."]);
		expect(s.sent()).toHaveLength(1);
	});

	it("a judge with no verdict ends the goal, saying why once", async () => {
		const { complete } = judge({ raw: "Fine." });
		const s = setup({ complete });
		await s.engine.startGoal(CONDITION, s.commandCtx);
		await s.settle();
		expect(s.stayed()).toEqual(["warning: Goal stopped: the judge gave no verdict (its answer held no JSON object)."]);
		expect(getGoal()).toBeUndefined();
	});

	it("a new session, a reload or a move in the tree forgets the goal", async () => {
		const s = setup({ complete: judge().complete });
		setGoal({ condition: CONDITION, runs: 0 });
		s.engine.onSessionChange();
		expect(getGoal()).toBeUndefined();
	});

	it("a goal that cannot start (pi takes no message) is not kept", async () => {
		const s = setup({ complete: judge().complete });
		s.makeStale();
		await s.engine.startGoal(CONDITION, s.commandCtx);
		expect(getGoal()).toBeUndefined();
	});
});

describe("with a list, the goal is the list's done-check", () => {
	const finished: TodoItem[] = [{ text: "Fix the parser", status: "completed" }];

	it("verified with the list: the list's line, then the goal's", async () => {
		const { complete } = judge({ items: ["met"], goal: "met" });
		const s = setup({ complete });
		setGoal({ condition: CONDITION, runs: 0 });
		setTodos(finished);
		await s.settle();
		expect(s.stayed()).toEqual([
			`success: ${verifiedNotice(1, 0, true)}`,
			"success: 🎯 Goal met: the judge found it held with the list.",
		]);
		expect(getGoal()).toBeUndefined();
	});

	it("the judge is asked once per state of the list: a run on the same list keeps its verdict", async () => {
		const { complete, asked } = judge({ items: ["cannot tell"] }, { items: ["met"] });
		const s = setup({ complete }, { judge: "on" });
		setTodos(finished);
		await s.settle();
		await s.settle();
		expect(asked).toHaveLength(1);
		expect(getVerification()?.failed).toEqual(["the judge ([0] cannot tell: reason 0)"]);
		expect(s.ui.status.get(KEY.check)).toBe("✗ not verified: the judge ([0] cannot tell: reason 0)");
	});

	it("a judge with no verdict on a list is said once, and the list ends unverified", async () => {
		const { complete } = judge({ raw: "Fine." });
		const s = setup({ complete }, { judge: "on" });
		setTodos(finished);
		await s.settle();
		expect(s.told()).toEqual([
			"pi-til-done: the judge gave no verdict (its answer held no JSON object): the list is not verified.",
		]);
		expect(s.stayed()).toEqual([
			"warning: Every todo is finished (1), but the list is not verified: the judge (not judged: its answer held no JSON object). Nothing continues: look at the work yourself.",
		]);
		expect(getVerification()?.judge).toEqual({ judged: false, why: "its answer held no JSON object" });
	});
});

describe("a goal in print mode", () => {
	it("the next goal run goes out inside the run; met ends it with exit status 0", async () => {
		const { complete } = judge({ goal: "not met" }, { goal: "met" });
		const s = setup({ complete, mode: "print" });
		setGoal({ condition: CONDITION, runs: 0 });
		const settle = () =>
			s.engine.onBeforeSettle(
				{
					type: "agent_before_settle",
					outcome: "completed",
					context: { contextMessages: WORKING },
				} as unknown as AgentBeforeSettleEvent,
				s.ctx,
			);
		const first = await settle();
		expect(first).toMatchObject({ continue: true, entries: [{ customType: "til-done-goal" }] });
		process.exitCode = undefined;
		await settle();
		expect(process.exitCode).toBe(0);
		process.exitCode = undefined;
	});
});
