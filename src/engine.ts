/**
 * The auto-continue engine at the edge: it turns the decisions of `assess.ts` into a countdown and a continuation
 * message (TUI and RPC), and hands print and JSON modes, where nobody can watch a countdown, to `headless.ts`.
 */

import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ExtensionAPI,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import { decideAfterLoopRun, decideAfterTodoRun, stopMessage } from "./assess.ts";
import type { TilDoneConfig } from "./config.ts";
import { type Decision, decideNext, lastStopReason, type StopKind } from "./continuation.ts";
import { type Countdown, startCountdown } from "./countdown.ts";
import { backoffMessage, buildContinuationPrompt } from "./formatting.ts";
import { continueInRun } from "./headless.ts";
import {
	LOOP_MESSAGE_TYPE,
	type LoopDecision,
	type LoopState,
	loopEndMessage,
	loopPrompt,
	loopStatusText,
} from "./loop.ts";
import {
	getChain,
	getLoop,
	getTodos,
	incrementAutoContinue,
	isCompletionAnnounced,
	markCompletionAnnounced,
	resetChain,
	setLoop,
} from "./state.ts";
import { COMPLETE_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE, LOOP_STATUS_KEY } from "./types.ts";

export { stopMessage };

export interface Engine {
	/** A run ended (TUI/RPC): assess it and remember what to do once pi has settled. */
	onRunEnd(messages: readonly unknown[], ctx: ExtensionContext): void;
	/** pi will do nothing more on its own: act on the remembered decision. */
	onSettled(ctx: ExtensionContext): void;
	/** Print/JSON modes: decide inside the run and ask pi for one more model call. */
	onBeforeSettle(event: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined>;
	/** The user submitted a prompt: stop any countdown or loop and start a new chain. */
	onUserInput(ctx: ExtensionContext): void;
	/** Session started, replaced, reloaded or moved in its tree: forget everything tied to the old one. */
	onSessionChange(): void;
	/** Starts a `/loop`: its first iteration goes out now (or after the current run). */
	startLoop(loop: LoopState, ctx: ExtensionContext): void;
	/** `/todos resume`: continue now if the list still calls for it. */
	resume(ctx: ExtensionContext): void;
	/** Stops a countdown that is showing (for `/todos pause`). */
	cancelCountdown(): void;
	/** Whether a countdown is showing. */
	readonly counting: boolean;
}

type Pending = { kind: "todo"; decision: Decision } | { kind: "loop"; decision: LoopDecision };

/** Modes in which the process exits when the run ends, so nobody can watch or interrupt a countdown. */
export function isHeadless(ctx: ExtensionContext): boolean {
	return ctx.mode === "print" || ctx.mode === "json";
}

/** Runs a host call that may throw on a stale context after the session is gone. */
function quietly(call: () => void): void {
	try {
		call();
	} catch {
		// The session this belonged to has been replaced; there is nobody left to tell.
	}
}

function notify(ctx: ExtensionContext, text: string, level: "info" | "warning"): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
	});
}

function setLoopStatus(ctx: ExtensionContext, loop: LoopState | undefined): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.setStatus(LOOP_STATUS_KEY, loop ? loopStatusText(loop) : undefined);
	});
}

/** A tripped breaker: a warning notice, and a warning message on the branch (the seed's `til-done-complete`). */
function reportStop(pi: ExtensionAPI, ctx: ExtensionContext, stop: StopKind, config: TilDoneConfig): void {
	const text = stopMessage(stop, config);
	notify(ctx, text, "warning");
	quietly(() =>
		pi.sendMessage(
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

/** Sends the continuation prompt if the list, read again at this moment, still calls for one. */
function sendTodoContinuation(pi: ExtensionAPI, config: TilDoneConfig): void {
	if (decideNext(getTodos(), getChain(), undefined, config).kind !== "continue") return;
	incrementAutoContinue();
	pi.sendMessage(
		{ customType: COUNTDOWN_MESSAGE_TYPE, content: buildContinuationPrompt(getTodos()), display: true },
		{ triggerTurn: true },
	);
}

function sendLoopIteration(pi: ExtensionAPI, ctx: ExtensionContext): void {
	const loop = getLoop();
	if (!loop) return;
	const next = { ...loop, iteration: loop.iteration + 1 };
	setLoop(next);
	setLoopStatus(ctx, next);
	pi.sendMessage({ customType: LOOP_MESSAGE_TYPE, content: loopPrompt(next), display: true }, { triggerTurn: true });
}

function endLoop(ctx: ExtensionContext, text: string, level: "info" | "warning"): void {
	setLoop(undefined);
	setLoopStatus(ctx, undefined);
	notify(ctx, text, level);
}

export function createEngine(pi: ExtensionAPI, getConfig: () => TilDoneConfig): Engine {
	let countdown: Countdown | undefined;
	let pending: Pending | undefined;
	/** Bumped on every session change, so a timer from an older session can tell it is stale. */
	let epoch = 0;

	const cancelCountdown = () => {
		countdown?.cancel();
		countdown = undefined;
	};

	/** Shows the countdown, then runs `send` if pi is idle at that very moment. */
	const schedule = (ctx: ExtensionContext, backoffMs: number, send: () => void, onInterrupt?: () => void) => {
		cancelCountdown();
		const startedIn = epoch;
		if (backoffMs > 0) notify(ctx, backoffMessage(backoffMs), "warning");
		let ui: ExtensionContext["ui"] | undefined;
		quietly(() => {
			ui = ctx.hasUI ? ctx.ui : undefined;
		});
		countdown = startCountdown({
			seconds: getConfig().countdownSeconds + backoffMs / 1000,
			ui,
			onInterrupt,
			onFinish: () => {
				countdown = undefined;
				if (startedIn !== epoch) return;
				quietly(() => {
					if (ctx.isIdle() && !ctx.hasPendingMessages()) send();
				});
			},
		});
	};

	const actOnTodo = (ctx: ExtensionContext, decision: Decision) => {
		if (decision.kind === "stop") reportStop(pi, ctx, decision.stop, getConfig());
		else if (decision.kind === "continue")
			schedule(ctx, decision.backoffMs, () => sendTodoContinuation(pi, getConfig()));
		else if (decision.reason === "all-done") announceCompletion(ctx);
	};

	const actOnLoop = (ctx: ExtensionContext, decision: LoopDecision) => {
		const loop = getLoop();
		if (!loop) return;
		if (decision.kind !== "continue") {
			endLoop(ctx, loopEndMessage(loop, decision), decision.kind === "done" ? "info" : "warning");
			return;
		}
		const stopByUser = () => endLoop(ctx, "Loop stopped by the user.", "info");
		schedule(ctx, decision.backoffMs, () => sendLoopIteration(pi, ctx), stopByUser);
	};

	/** Waits out a back-off inside the run; false when the session changed meanwhile, so nothing may be sent. */
	const backOff = async (ms: number): Promise<boolean> => {
		if (ms <= 0) return true;
		const startedIn = epoch;
		await new Promise((resolve) => setTimeout(resolve, ms));
		return startedIn === epoch;
	};

	return {
		onRunEnd(messages, ctx) {
			if (isHeadless(ctx)) return;
			cancelCountdown();
			const stopReason = lastStopReason(messages);
			const loop = getLoop();
			pending = loop
				? { kind: "loop", decision: decideAfterLoopRun(loop, messages, stopReason, getConfig()) }
				: { kind: "todo", decision: decideAfterTodoRun(messages, stopReason, getConfig()) };
		},
		onSettled(ctx) {
			if (isHeadless(ctx) || pending === undefined) return;
			const settled = pending;
			pending = undefined;
			if (settled.kind === "loop") actOnLoop(ctx, settled.decision);
			else actOnTodo(ctx, settled.decision);
		},
		async onBeforeSettle(event, ctx) {
			return isHeadless(ctx) ? continueInRun(event, getConfig(), backOff) : undefined;
		},
		onUserInput(ctx) {
			cancelCountdown();
			pending = undefined;
			resetChain();
			if (getLoop()) endLoop(ctx, "Loop stopped by the user.", "info");
		},
		onSessionChange() {
			epoch++;
			cancelCountdown();
			pending = undefined;
			setLoop(undefined);
		},
		startLoop(loop, ctx) {
			cancelCountdown();
			pending = undefined;
			const first = { ...loop, iteration: 1, failures: 0 };
			setLoop(first);
			setLoopStatus(ctx, first);
			quietly(() => {
				if (ctx.isIdle()) pi.sendUserMessage(loopPrompt(first));
				else pi.sendUserMessage(loopPrompt(first), { deliverAs: "followUp" });
			});
		},
		resume(ctx) {
			quietly(() => {
				if (!ctx.isIdle()) return;
				const decision = decideNext(getTodos(), getChain(), undefined, getConfig());
				if (decision.kind === "continue") schedule(ctx, 0, () => sendTodoContinuation(pi, getConfig()));
			});
		},
		cancelCountdown,
		get counting() {
			return countdown?.active ?? false;
		},
	};
}
