/**
 * The auto-continue engine at the edge: it turns the pure decisions of `continuation.ts` and `loop.ts` into a
 * countdown and a continuation message (TUI and RPC), or into an in-run continuation (print and JSON modes, where
 * nobody can watch or interrupt a countdown and the process exits at the end of the run).
 */

import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ExtensionAPI,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import type { TilDoneConfig } from "./config.ts";
import {
	assessRun,
	type Decision,
	decideNext,
	endsWithQuestion,
	lastAssistantText,
	lastStopReason,
	type StopKind,
	type StopReason,
} from "./continuation.ts";
import { type Countdown, startCountdown } from "./countdown.ts";
import {
	backoffMessage,
	buildContinuationPrompt,
	errorLimitMessage,
	hardCapMessage,
	noProgressMessage,
} from "./formatting.ts";
import {
	decideLoop,
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
	setChain,
	setLoop,
} from "./state.ts";
import { COMPLETE_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE, LOOP_STATUS_KEY } from "./types.ts";

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

/** The user-facing text for a tripped breaker. */
export function stopMessage(stop: StopKind, config: TilDoneConfig): string {
	if (stop === "hard-cap") return hardCapMessage(config.maxContinuations);
	if (stop === "no-progress") return noProgressMessage(config.maxNoProgress);
	return errorLimitMessage(config.maxFailures);
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

export function createEngine(pi: ExtensionAPI, getConfig: () => TilDoneConfig): Engine {
	let countdown: Countdown | undefined;
	let pending: Pending | undefined;
	/** Bumped on every session change, so a timer from an older session can tell it is stale. */
	let epoch = 0;

	const cancelCountdown = () => {
		countdown?.cancel();
		countdown = undefined;
	};

	const decideTodo = (messages: readonly unknown[], stopReason: StopReason | undefined): Decision => {
		setChain(assessRun(getChain(), stopReason));
		const asksUser = stopReason === "stop" && endsWithQuestion(lastAssistantText(messages));
		return decideNext(getTodos(), getChain(), stopReason, getConfig(), { asksUser });
	};

	const decideLoopRun = (loop: LoopState, messages: readonly unknown[], stopReason: StopReason | undefined) => {
		const failed = stopReason === "error" || stopReason === "length";
		const assessed = { ...loop, failures: failed ? loop.failures + 1 : 0 };
		setLoop(assessed);
		return decideLoop(assessed, stopReason, lastAssistantText(messages), getConfig());
	};

	const postMessage = (customType: string, content: string, level?: "warning" | "success") =>
		quietly(() =>
			pi.sendMessage(
				{ customType, content, display: true, details: level ? { level } : undefined },
				{ triggerTurn: false },
			),
		);

	const report = (ctx: ExtensionContext, stop: StopKind) => {
		const text = stopMessage(stop, getConfig());
		notify(ctx, text, "warning");
		postMessage(COMPLETE_MESSAGE_TYPE, text, "warning");
	};

	const announceCompletion = (ctx: ExtensionContext) => {
		if (isCompletionAnnounced()) return;
		markCompletionAnnounced();
		// A notice, not a message: the TUI already shows it in the chat, and the model needs no tokens for it.
		notify(ctx, `✓ All ${getTodos().length} todos are done.`, "info");
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

	const sendTodoContinuation = () => {
		const decision = decideNext(getTodos(), getChain(), undefined, getConfig());
		if (decision.kind !== "continue") return;
		incrementAutoContinue();
		pi.sendMessage(
			{ customType: COUNTDOWN_MESSAGE_TYPE, content: buildContinuationPrompt(getTodos()), display: true },
			{ triggerTurn: true },
		);
	};

	const sendLoopIteration = (ctx: ExtensionContext) => {
		const loop = getLoop();
		if (!loop) return;
		const next = { ...loop, iteration: loop.iteration + 1 };
		setLoop(next);
		setLoopStatus(ctx, next);
		pi.sendMessage({ customType: LOOP_MESSAGE_TYPE, content: loopPrompt(next), display: true }, { triggerTurn: true });
	};

	const endLoop = (ctx: ExtensionContext, text: string, level: "info" | "warning") => {
		setLoop(undefined);
		setLoopStatus(ctx, undefined);
		notify(ctx, text, level);
	};

	const actOnTodo = (ctx: ExtensionContext, decision: Decision) => {
		if (decision.kind === "stop") report(ctx, decision.stop);
		else if (decision.kind === "continue") schedule(ctx, decision.backoffMs, sendTodoContinuation);
		else if (decision.reason === "all-done") announceCompletion(ctx);
	};

	const actOnLoop = (ctx: ExtensionContext, decision: LoopDecision) => {
		const loop = getLoop();
		if (!loop) return;
		if (decision.kind !== "continue") {
			endLoop(ctx, loopEndMessage(loop, decision), decision.kind === "done" ? "info" : "warning");
			return;
		}
		schedule(
			ctx,
			decision.backoffMs,
			() => sendLoopIteration(ctx),
			() => endLoop(ctx, "Loop stopped by the user.", "info"),
		);
	};

	/** Waits out a back-off inside the run; false when the session changed meanwhile, so nothing may be sent. */
	const backOff = async (ms: number): Promise<boolean> => {
		if (ms <= 0) return true;
		const startedIn = epoch;
		await new Promise((resolve) => setTimeout(resolve, ms));
		return startedIn === epoch;
	};

	const headlessTodo = async (messages: readonly unknown[], stopReason: StopReason | undefined) => {
		const decision = decideTodo(messages, stopReason);
		if (decision.kind === "stop") {
			const text = stopMessage(decision.stop, getConfig());
			process.stderr.write(`[til-done] ${text}\n`);
			// A custom entry, not a message: print mode prints the last message, which must stay the model's answer.
			const data = { level: "warning", text };
			return { entries: [{ type: "custom" as const, customType: COMPLETE_MESSAGE_TYPE, data }] };
		}
		if (decision.kind !== "continue") return undefined;
		if (!(await backOff(decision.backoffMs))) return undefined;
		incrementAutoContinue();
		const content = buildContinuationPrompt(getTodos());
		return {
			entries: [{ type: "custom_message" as const, customType: COUNTDOWN_MESSAGE_TYPE, content, display: true }],
			continue: true,
		};
	};

	const headlessLoop = async (loop: LoopState, messages: readonly unknown[], stopReason: StopReason | undefined) => {
		const decision = decideLoopRun(loop, messages, stopReason);
		if (decision.kind !== "continue") {
			process.stderr.write(`[til-done] ${loopEndMessage(getLoop() ?? loop, decision)}\n`);
			setLoop(undefined);
			return undefined;
		}
		if (!(await backOff(decision.backoffMs))) return undefined;
		const next = { ...(getLoop() ?? loop), iteration: (getLoop() ?? loop).iteration + 1 };
		setLoop(next);
		return {
			entries: [
				{ type: "custom_message" as const, customType: LOOP_MESSAGE_TYPE, content: loopPrompt(next), display: true },
			],
			continue: true,
		};
	};

	return {
		onRunEnd(messages, ctx) {
			if (isHeadless(ctx)) return;
			cancelCountdown();
			const stopReason = lastStopReason(messages);
			const loop = getLoop();
			pending = loop
				? { kind: "loop", decision: decideLoopRun(loop, messages, stopReason) }
				: { kind: "todo", decision: decideTodo(messages, stopReason) };
		},
		onSettled(ctx) {
			if (isHeadless(ctx) || pending === undefined) return;
			const settled = pending;
			pending = undefined;
			if (settled.kind === "loop") actOnLoop(ctx, settled.decision);
			else actOnTodo(ctx, settled.decision);
		},
		async onBeforeSettle(event, ctx) {
			if (!isHeadless(ctx)) return undefined;
			const messages = event.context.contextMessages;
			const stopReason = event.outcome === "aborted" ? "aborted" : lastStopReason(messages);
			const loop = getLoop();
			return loop ? headlessLoop(loop, messages, stopReason) : headlessTodo(messages, stopReason);
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
				if (decision.kind === "continue") schedule(ctx, 0, sendTodoContinuation);
			});
		},
		cancelCountdown,
		get counting() {
			return countdown?.active ?? false;
		},
	};
}
