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
import { COMPLETE_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "../session/keys.ts";
import type { TilDoneConfig } from "../settings/config.ts";
import { modelInputPrice } from "../spend/report.ts";
import {
	effectiveDoneCheck,
	getChain,
	getLoop,
	getTodos,
	getVerification,
	isCompletionAnnounced,
	markCompletionAnnounced,
	markStopped,
	recordDecision,
	recordSend,
	resetChain,
	setChain,
	setLoop,
} from "../state.ts";
import { loopPrompt } from "../texts/model.ts";
import { backoffMessage, completionNotice, LOOP_ENDS, reviewWaitText } from "../texts/user.ts";
import type { LoopSpec } from "../types.ts";
import { quietly } from "../ui/guard.ts";
import { tell } from "../ui/tell.ts";
import { type CheckEnv, modelChecksBlocked } from "../verify/item-checks.ts";
import { applyVerification, runVerification } from "../verify/verification.ts";
import { type Countdown, startCountdown } from "./countdown.ts";
import { continueInRun } from "./in-run.ts";
import { runOutcome } from "./outcome.ts";
import { type Plan, type PlanInput, type PlannedCheck, planAfterRun, planNow } from "./planner.ts";
import { decisionOf } from "./reasons.ts";

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
	/** The plan made at the end of the last run, and what it was made from, waiting for pi to settle. */
	pending?: { plan: Plan; input: PlanInput };
	/** Bumped on every session change, so a timer from an older session can tell it is stale. */
	epoch: number;
	/** Aborts the verification running between runs (a prompt of the user, a session change or a new run). */
	verifying?: AbortController;
	/** The review item the user was last told about, so a wait is announced once. */
	reviewNotified?: number;
}

/** Modes in which the process exits when the run ends, so nobody can watch or interrupt a countdown. */
export function isHeadless(ctx: ExtensionContext): boolean {
	return ctx.mode === "print" || ctx.mode === "json";
}

/** What running checks needs from pi. */
export function checkEnv(pi: ExtensionAPI, getConfig: () => TilDoneConfig): CheckEnv {
	return {
		exec: (command, args, options) => pi.exec(command, args, options),
		getConfig,
		activeTools: () => pi.getActiveTools(),
	};
}

/** The state a plan is made from, as it is now. */
function currentPlanInput(pi: ExtensionAPI, getConfig: () => TilDoneConfig, ctx: ExtensionContext): PlanInput {
	const config = getConfig();
	return {
		todos: getTodos(),
		chain: getChain(),
		loop: getLoop(),
		limits: config,
		doneCheck: effectiveDoneCheck(config.doneCheck),
		verified: getVerification()?.passed === true,
		modelChecks: modelChecksBlocked(checkEnv(pi, getConfig)) === undefined,
		inputPrice: modelInputPrice(ctx),
	};
}

function planInput(engine: EngineContext, ctx: ExtensionContext): PlanInput {
	return currentPlanInput(engine.pi, engine.getConfig, ctx);
}

/** Stops a countdown or a verification in progress: whatever was about to follow a run. */
function cancelCountdown(engine: EngineContext): void {
	engine.countdown?.cancel();
	engine.countdown = undefined;
	engine.verifying?.abort();
	engine.verifying = undefined;
}

function endLoop(ctx: ExtensionContext, text: string, level: "info" | "warning"): void {
	setLoop(undefined);
	tell(ctx, text, level);
}

/** A tripped breaker or budget: a warning notice, a warning message on the branch, and why on the status bar. */
function reportStop(
	engine: EngineContext,
	ctx: ExtensionContext,
	{ code, text }: Extract<Plan, { kind: "stop" }>,
): void {
	markStopped(code);
	tell(ctx, text, "warning");
	quietly(() =>
		engine.pi.sendMessage(
			{ customType: COMPLETE_MESSAGE_TYPE, content: text, display: true, details: { level: "warning" } },
			{ triggerTurn: false },
		),
	);
}

/** Once per list. A notice, not a message: the TUI shows it in the chat, and the model needs no tokens for it. */
function announceCompletion(ctx: ExtensionContext, verified: boolean): void {
	if (isCompletionAnnounced()) return;
	markCompletionAnnounced();
	tell(ctx, completionNotice(getTodos().length, verified ? getVerification()?.checks : undefined), "info");
}

/** Once per wait: the item the auto-continue waits on until the user approves it (or prompts). */
function announceReviewWait(engine: EngineContext, ctx: ExtensionContext, index: number): void {
	if (engine.reviewNotified === index) return;
	engine.reviewNotified = index;
	tell(ctx, reviewWaitText(index), "info");
}

/** Runs a verification between runs, then carries out what follows from it, unless something came in between. */
function verify(engine: EngineContext, ctx: ExtensionContext, checks: PlannedCheck[]): void {
	cancelCountdown(engine);
	const controller = new AbortController();
	engine.verifying = controller;
	const timeoutSeconds = engine.getConfig().checkTimeoutSeconds;
	const run = {
		exec: checkEnv(engine.pi, engine.getConfig).exec,
		cwd: ctx.cwd,
		timeoutSeconds,
		signal: controller.signal,
	};
	void runVerification(checks, run).then((results) => {
		if (engine.verifying !== controller || controller.signal.aborted) return;
		engine.verifying = undefined;
		quietly(() => {
			const after = applyVerification(engine.pi, planInput(engine, ctx), results, timeoutSeconds);
			act(engine, ctx, after, planInput(engine, ctx));
		});
	});
}

/**
 * At the countdown's end: asks again (the list or the spend may have changed meanwhile) and sends if pi is idle right
 * now; a plan that is no longer a send is carried out instead (the list got finished, a budget would be crossed).
 */
function sendIfStillDue(engine: EngineContext, ctx: ExtensionContext): void {
	quietly(() => {
		if (!ctx.isIdle() || ctx.hasPendingMessages()) return;
		const input = planInput(engine, ctx);
		const plan = planNow(input);
		if (plan.kind !== "send") return act(engine, ctx, plan, input);
		recordSend(plan);
		engine.pi.sendMessage({ ...plan.message, display: true }, { triggerTurn: true });
	});
}

/** Shows the countdown (longer by the back-off after a failed run), then sends what is still due. */
function schedule(engine: EngineContext, ctx: ExtensionContext, backoffMs: number): void {
	cancelCountdown(engine);
	const startedIn = engine.epoch;
	if (backoffMs > 0) tell(ctx, backoffMessage(backoffMs), "warning");
	let ui: ExtensionContext["ui"] | undefined;
	quietly(() => {
		ui = ctx.hasUI ? ctx.ui : undefined;
	});
	const stoppingLoop = getLoop() !== undefined;
	engine.countdown = startCountdown({
		seconds: engine.getConfig().countdownSeconds + backoffMs / 1000,
		ui,
		onInterrupt: stoppingLoop ? () => endLoop(ctx, LOOP_ENDS.byUser, "info") : undefined,
		onFinish: () => {
			engine.countdown = undefined;
			if (startedIn === engine.epoch) sendIfStillDue(engine, ctx);
		},
	});
}

/** Carries out a plan, and keeps it with its reason for `/todos why`. */
function act(engine: EngineContext, ctx: ExtensionContext, plan: Plan, input: PlanInput): void {
	recordDecision(decisionOf(plan, input, Date.now()));
	if (plan.kind === "send") schedule(engine, ctx, plan.backoffMs);
	else if (plan.kind === "stop") reportStop(engine, ctx, plan);
	else if (plan.kind === "end-loop") endLoop(ctx, plan.text, plan.level);
	else if (plan.kind === "verify") verify(engine, ctx, plan.checks);
	else if (plan.code === "all-done") announceCompletion(ctx, plan.verified === true);
	else if (plan.code === "review-wait" && plan.index !== undefined) announceReviewWait(engine, ctx, plan.index);
}

/** Print/JSON: verifies inside the run and returns the plan that follows. */
async function verifyInRun(engine: EngineContext, ctx: ExtensionContext, checks: PlannedCheck[]): Promise<Plan> {
	const timeoutSeconds = engine.getConfig().checkTimeoutSeconds;
	const exec = checkEnv(engine.pi, engine.getConfig).exec;
	const results = await runVerification(checks, { exec, cwd: ctx.cwd, timeoutSeconds });
	return applyVerification(engine.pi, planInput(engine, ctx), results, timeoutSeconds);
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
			const input = planInput(engine, ctx);
			const { chain, plan } = planAfterRun(input, runOutcome(messages));
			setChain(chain);
			engine.pending = { plan, input: { ...input, chain } };
		},
		onSettled(ctx) {
			const pending = engine.pending;
			if (isHeadless(ctx) || pending === undefined) return;
			engine.pending = undefined;
			act(engine, ctx, pending.plan, pending.input);
		},
		onBeforeSettle: async (event, ctx) =>
			isHeadless(ctx)
				? continueInRun(event, {
						input: () => planInput(engine, ctx),
						backOff: (ms) => waitOut(engine, ms),
						verify: (checks) => verifyInRun(engine, ctx, checks),
					})
				: undefined,
		onUserInput(ctx) {
			cancelCountdown(engine);
			engine.pending = undefined;
			engine.reviewNotified = undefined;
			resetChain();
			if (getLoop()) endLoop(ctx, LOOP_ENDS.byUser, "info");
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
				if (!ctx.isIdle()) return;
				const input = planInput(engine, ctx);
				const plan = planNow(input);
				if (plan.kind === "send" || plan.kind === "verify") act(engine, ctx, plan, input);
			});
		},
		pause(ctx) {
			cancelCountdown(engine);
			engine.pending = undefined;
			if (getLoop()) endLoop(ctx, LOOP_ENDS.byUser, "info");
		},
		get counting() {
			return engine.countdown?.active ?? false;
		},
	};
}
