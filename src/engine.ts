/**
 * The auto-continue at the edge, TUI and RPC: after a run it asks the planner what to do and, once pi has settled,
 * carries it out with a countdown the user can interrupt. Print and JSON modes are handed to headless.ts.
 */

import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import type { TilDoneConfig } from "./config.ts";
import { type Countdown, startCountdown } from "./countdown.ts";
import { backoffMessage } from "./formatting.ts";
import { quietly } from "./guard.ts";
import { continueInRun } from "./headless.ts";
import { COMPLETE_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "./keys.ts";
import { LOOP_STOPPED_BY_USER, type LoopSpec, loopPrompt } from "./loop.ts";
import { runOutcome } from "./outcome.ts";
import { type Plan, type PlanInput, planAfterRun, planNow } from "./planner.ts";
import {
	getChain,
	getLoop,
	getTodos,
	isCompletionAnnounced,
	markCompletionAnnounced,
	recordSend,
	resetChain,
	setChain,
	setLoop,
} from "./state.ts";

export interface Engine {
	/** A run ended (TUI/RPC): plan what comes next, to be done once pi has settled. */
	onRunEnd(messages: readonly unknown[], ctx: ExtensionContext): void;
	/** pi will do nothing more on its own: carry out the plan. */
	onSettled(ctx: ExtensionContext): void;
	/** Print/JSON modes: plan inside the run and ask pi for one more model call. */
	onBeforeSettle(event: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined>;
	/** The user submitted a prompt: stop any countdown or loop and start a new chain. */
	onUserInput(ctx: ExtensionContext): void;
	/** Session started, replaced, reloaded or moved in its tree: forget everything tied to the old one. */
	onSessionChange(): void;
	/** Starts a `/loop`: its first iteration goes out now (after the current run if one is going). */
	startLoop(spec: LoopSpec, ctx: ExtensionCommandContext): Promise<void>;
	/** `/todos resume`: continue now if the list still calls for it. */
	resume(ctx: ExtensionContext): void;
	/** `/todos pause`: stops a countdown that is showing, and a `/loop` (auto-continuation too). */
	pause(ctx: ExtensionContext): void;
	/** Whether a countdown is showing. */
	readonly counting: boolean;
}

/** What one engine keeps between events. */
interface EngineContext {
	pi: ExtensionAPI;
	getConfig: () => TilDoneConfig;
	countdown?: Countdown;
	/** The plan made at the end of the last run, waiting for pi to settle. */
	pending?: Plan;
	/** Bumped on every session change, so a timer from an older session can tell it is stale. */
	epoch: number;
}

/** Modes in which the process exits when the run ends, so nobody can watch or interrupt a countdown. */
export function isHeadless(ctx: ExtensionContext): boolean {
	return ctx.mode === "print" || ctx.mode === "json";
}

function planInput(engine: EngineContext): PlanInput {
	return { todos: getTodos(), chain: getChain(), loop: getLoop(), limits: engine.getConfig() };
}

function cancelCountdown(engine: EngineContext): void {
	engine.countdown?.cancel();
	engine.countdown = undefined;
}

function notify(ctx: ExtensionContext, text: string, level: "info" | "warning"): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
	});
}

function endLoop(ctx: ExtensionContext, text: string, level: "info" | "warning"): void {
	setLoop(undefined);
	notify(ctx, text, level);
}

/** A tripped breaker: a warning notice, and a warning message on the branch. */
function reportStop(engine: EngineContext, ctx: ExtensionContext, text: string): void {
	notify(ctx, text, "warning");
	quietly(() =>
		engine.pi.sendMessage(
			{ customType: COMPLETE_MESSAGE_TYPE, content: text, display: true, details: { level: "warning" } },
			{ triggerTurn: false },
		),
	);
}

/** Once per list. A notice, not a message: the TUI shows it in the chat, and the model needs no tokens for it. */
function announceCompletion(ctx: ExtensionContext): void {
	if (isCompletionAnnounced()) return;
	markCompletionAnnounced();
	notify(ctx, `✓ All ${getTodos().length} todos are done.`, "info");
}

/** At the countdown's end: asks again (the list may have changed meanwhile) and sends if pi is idle right now. */
function sendIfStillDue(engine: EngineContext, ctx: ExtensionContext): void {
	quietly(() => {
		if (!ctx.isIdle() || ctx.hasPendingMessages()) return;
		const plan = planNow(planInput(engine));
		if (plan.kind !== "send") return;
		recordSend(plan);
		engine.pi.sendMessage({ ...plan.message, display: true }, { triggerTurn: true });
	});
}

/** Shows the countdown (longer by the back-off after a failed run), then sends what is still due. */
function schedule(engine: EngineContext, ctx: ExtensionContext, backoffMs: number): void {
	cancelCountdown(engine);
	const startedIn = engine.epoch;
	if (backoffMs > 0) notify(ctx, backoffMessage(backoffMs), "warning");
	let ui: ExtensionContext["ui"] | undefined;
	quietly(() => {
		ui = ctx.hasUI ? ctx.ui : undefined;
	});
	const stoppingLoop = getLoop() !== undefined;
	engine.countdown = startCountdown({
		seconds: engine.getConfig().countdownSeconds + backoffMs / 1000,
		ui,
		onInterrupt: stoppingLoop ? () => endLoop(ctx, LOOP_STOPPED_BY_USER, "info") : undefined,
		onFinish: () => {
			engine.countdown = undefined;
			if (startedIn === engine.epoch) sendIfStillDue(engine, ctx);
		},
	});
}

function act(engine: EngineContext, ctx: ExtensionContext, plan: Plan): void {
	if (plan.kind === "send") schedule(engine, ctx, plan.backoffMs);
	else if (plan.kind === "stop") reportStop(engine, ctx, plan.text);
	else if (plan.kind === "end-loop") endLoop(ctx, plan.text, plan.level);
	else if (plan.code === "all-done") announceCompletion(ctx);
}

/** Waits out a back-off inside the run; false when the session changed meanwhile, so nothing may be sent. */
async function waitOut(engine: EngineContext, ms: number): Promise<boolean> {
	if (ms <= 0) return true;
	const startedIn = engine.epoch;
	await new Promise((resolve) => setTimeout(resolve, ms));
	return startedIn === engine.epoch;
}

async function startLoop(engine: EngineContext, spec: LoopSpec, ctx: ExtensionCommandContext): Promise<void> {
	cancelCountdown(engine);
	engine.pending = undefined;
	// A loop is the user's new start: its runs count in a fresh chain (they share its failure count and back-off).
	resetChain();
	const first = { ...spec, iteration: 1 };
	setLoop(first);
	const message = { customType: LOOP_MESSAGE_TYPE, content: loopPrompt(first), display: true };
	// A custom message starts its run at once, so waiting for idle below really waits for the loop.
	const sent = quietly(() =>
		engine.pi.sendMessage(message, ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" }),
	);
	if (!sent) {
		setLoop(undefined);
		return;
	}
	// Print and JSON modes end the process when the command returns: the loop runs inside this one invocation.
	if (isHeadless(ctx)) await ctx.waitForIdle();
}

export function createEngine(pi: ExtensionAPI, getConfig: () => TilDoneConfig): Engine {
	const engine: EngineContext = { pi, getConfig, epoch: 0 };
	return {
		onRunEnd(messages, ctx) {
			if (isHeadless(ctx)) return;
			cancelCountdown(engine);
			const { chain, plan } = planAfterRun(planInput(engine), runOutcome(messages));
			setChain(chain);
			engine.pending = plan;
		},
		onSettled(ctx) {
			const plan = engine.pending;
			if (isHeadless(ctx) || plan === undefined) return;
			engine.pending = undefined;
			act(engine, ctx, plan);
		},
		onBeforeSettle: async (event, ctx) =>
			isHeadless(ctx) ? continueInRun(event, planInput(engine), (ms) => waitOut(engine, ms)) : undefined,
		onUserInput(ctx) {
			cancelCountdown(engine);
			engine.pending = undefined;
			resetChain();
			if (getLoop()) endLoop(ctx, LOOP_STOPPED_BY_USER, "info");
		},
		onSessionChange() {
			engine.epoch++;
			cancelCountdown(engine);
			engine.pending = undefined;
			if (getLoop()) setLoop(undefined);
		},
		startLoop: (spec, ctx) => startLoop(engine, spec, ctx),
		resume(ctx) {
			quietly(() => {
				if (ctx.isIdle() && planNow(planInput(engine)).kind === "send") schedule(engine, ctx, 0);
			});
		},
		pause(ctx) {
			cancelCountdown(engine);
			engine.pending = undefined;
			if (getLoop()) endLoop(ctx, LOOP_STOPPED_BY_USER, "info");
		},
		get counting() {
			return engine.countdown?.active ?? false;
		},
	};
}
