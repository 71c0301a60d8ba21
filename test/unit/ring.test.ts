import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { initialChain } from "../../src/core/rules/chain.ts";
import { endsChainForUser } from "../../src/core/rules/decision.ts";
import type { Step, StepInput } from "../../src/core/rules/next-step.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { ringSequence } from "../../src/edges/host/ring.ts";
import { setTodos } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import { allFinished, hardCap } from "../helpers/expected.ts";

const input = (pausedBy?: "user" | "model"): StepInput => ({
	todos: [],
	chain: { ...initialChain(), paused: pausedBy !== undefined, pausedBy },
	loop: undefined,
	limits: DEFAULT_CONFIG,
});

describe("a chain's end is rung when the user may have turned away", () => {
	it.each<[string, Step, StepInput]>([
		["done", { kind: "idle", code: "all-done" }, input()],
		["a breaker", { kind: "stop", code: "hard-cap", text: "x" }, input()],
		["no item ready", { kind: "stop", code: "blocked", text: "x" }, input()],
		["a loop's end", { kind: "end-loop", code: "loop-done", text: "x", level: "info" }, input()],
		["a review wait", { kind: "idle", code: "review-wait", index: 1 }, input()],
		["a question", { kind: "idle", code: "asks-user" }, input()],
		["the model's pause", { kind: "idle", code: "paused" }, input("model")],
	])("rings for %s", (_name, step, planInput) => {
		expect(endsChainForUser(step, planInput)).toBe(true);
	});

	it.each<[string, Step, StepInput]>([
		["a continuation", { kind: "send", code: "continue" } as Step, input()],
		["a verification", { kind: "verify", code: "verify", checks: [], judge: "off" }, input()],
		["the user's pause", { kind: "idle", code: "paused" }, input("user")],
		["Esc", { kind: "idle", code: "aborted" }, input()],
		["a key during the countdown", { kind: "idle", code: "interrupted" }, input()],
		["no list", { kind: "idle", code: "no-todos" }, input()],
	])("does not ring for %s", (_name, step, planInput) => {
		expect(endsChainForUser(step, planInput)).toBe(false);
	});
});

describe("the ring is a bell and the terminal's own notification sequence, carrying no control characters", () => {
	it("OSC 777 by default, OSC 99 in kitty", () => {
		expect(ringSequence("pi-til-done", "All done.", {})).toBe("\x07\x1b]777;notify;pi-til-done;All done.\x07");
		expect(ringSequence("pi-til-done", "All done.", { KITTY_WINDOW_ID: "1" })).toBe(
			"\x07\x1b]99;i=1:d=0;pi-til-done\x1b\\\x1b]99;i=1:p=body;All done.\x1b\\",
		);
	});

	it("a body from todo text cannot end or forge a sequence, and is cut to 160 characters", () => {
		expect(ringSequence("t", "a\x07b\x1b]777;evil\nc;d", {})).toBe("\x07\x1b]777;notify;t;a b ]777 evil c d\x07");
		expect(ringSequence("t", "x".repeat(200), {})).toBe(`\x07\x1b]777;notify;t;${"x".repeat(159)}…\x07`);
	});
});

describe("--til-done-notify rings the TUI's terminal at a chain's end, and only there", () => {
	let stdout: MockInstance<typeof process.stdout.write>;
	beforeEach(() => {
		vi.useFakeTimers();
		stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
		vi.spyOn(process.stderr, "write").mockImplementation(() => true);
	});
	afterEach(() => {
		vi.useRealTimers();
		vi.restoreAllMocks();
	});
	const rung = () => stdout.mock.calls.map((call) => String(call[0])).filter((text) => text.startsWith("\x07"));

	it("on: a finished list rings once with the decision's sentence", async () => {
		const { endRun } = startEngine({ mode: "tui" }, { notify: true });
		setTodos([{ text: "a", status: "completed" }]);
		endRun();
		await vi.waitFor(() => expect(rung()).toHaveLength(1));
		expect(rung()).toEqual([ringSequence("pi-til-done", "Every todo is finished (1): nothing to continue.")]);
	});

	it("on: a breaker's stop rings with its text", async () => {
		const { endRun } = startEngine({ mode: "tui" }, { notify: true, maxContinuations: 1 });
		setTodos([{ text: "a", status: "not_started" }]);
		endRun();
		await vi.advanceTimersByTimeAsync(60_000);
		endRun();
		await vi.advanceTimersByTimeAsync(0);
		expect(rung()).toEqual([ringSequence("pi-til-done", hardCap(1))]);
	});

	it("off, or outside the TUI, nothing is written", async () => {
		for (const [mode, notify] of [
			["tui", false],
			["rpc", true],
			// The one that rings, last: once its ring is written, one asked for before it would be too.
			["tui", true],
		] as const) {
			const { endRun } = startEngine({ mode }, { notify });
			setTodos([{ text: "a", status: "completed" }]);
			endRun();
		}
		await vi.waitFor(() => expect(rung()).toHaveLength(1));
		expect(rung()).toEqual([ringSequence("pi-til-done", "Every todo is finished (1): nothing to continue.")]);
		expect(allFinished(1)).toBe("Every todo is finished (1): nothing to continue.");
	});
});
