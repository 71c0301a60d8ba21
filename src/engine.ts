/**
 * The auto-continue engine at the edge: it turns the pure decisions of `continuation.ts` into a countdown and a
 * continuation message (TUI and RPC), or into an in-run continuation (print and JSON modes, which exit at the end
 * of the run and so can never wait for a timer).
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
import { getChain, getTodos, incrementAutoContinue, resetChain, setChain } from "./state.ts";
import { COMPLETE_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE } from "./types.ts";

export interface Engine {
	/** A run ended (TUI/RPC): assess it and remember what to do once pi has settled. */
	onRunEnd(messages: readonly unknown[], ctx: ExtensionContext): void;
	/** pi will do nothing more on its own: act on the remembered decision. */
	onSettled(ctx: ExtensionContext): void;
	/** Print/JSON modes: decide inside the run and ask pi for one more model call. */
	onBeforeSettle(event: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined>;
	/** The user submitted a prompt: stop any countdown and start a new chain. */
	onUserInput(): void;
	/** Session started, replaced, reloaded or moved in its tree: forget everything tied to the old one. */
	onSessionChange(): void;
	/** Whether a countdown is showing. */
	readonly counting: boolean;
}

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

export function createEngine(pi: ExtensionAPI, getConfig: () => TilDoneConfig): Engine {
	let countdown: Countdown | undefined;
	let pending: Decision | undefined;
	/** Bumped on every session change, so a timer from an older session can tell it is stale. */
	let epoch = 0;

	const cancelCountdown = () => {
		countdown?.cancel();
		countdown = undefined;
	};

	const decideAfter = (messages: readonly unknown[], stopReason: StopReason | undefined): Decision => {
		setChain(assessRun(getChain(), stopReason));
		const asksUser = stopReason === "stop" && endsWithQuestion(lastAssistantText(messages));
		return decideNext(getTodos(), getChain(), stopReason, getConfig(), { asksUser });
	};

	const report = (ctx: ExtensionContext, stop: StopKind) => {
		const text = stopMessage(stop, getConfig());
		quietly(() => {
			if (ctx.hasUI) ctx.ui.notify(text, "warning");
		});
		quietly(() =>
			pi.sendMessage(
				{ customType: COMPLETE_MESSAGE_TYPE, content: text, display: true, details: { level: "warning" } },
				{ triggerTurn: false },
			),
		);
	};

	/** Sends the continuation if, at this very moment, pi is idle and the list still calls for one. */
	const sendContinuation = (ctx: ExtensionContext, startedIn: number) => {
		countdown = undefined;
		if (startedIn !== epoch) return;
		quietly(() => {
			if (!ctx.isIdle() || ctx.hasPendingMessages()) return;
			const decision = decideNext(getTodos(), getChain(), undefined, getConfig());
			if (decision.kind !== "continue") return;
			incrementAutoContinue();
			pi.sendMessage(
				{ customType: COUNTDOWN_MESSAGE_TYPE, content: buildContinuationPrompt(getTodos()), display: true },
				{ triggerTurn: true },
			);
		});
	};

	const startContinuation = (ctx: ExtensionContext, backoffMs: number) => {
		cancelCountdown();
		const startedIn = epoch;
		if (backoffMs > 0) quietly(() => ctx.hasUI && ctx.ui.notify(backoffMessage(backoffMs), "warning"));
		let ui: ExtensionContext["ui"] | undefined;
		quietly(() => {
			ui = ctx.hasUI ? ctx.ui : undefined;
		});
		countdown = startCountdown({
			seconds: getConfig().countdownSeconds + backoffMs / 1000,
			ui,
			onFinish: () => sendContinuation(ctx, startedIn),
		});
	};

	return {
		onRunEnd(messages, ctx) {
			if (isHeadless(ctx)) return;
			cancelCountdown();
			pending = decideAfter(messages, lastStopReason(messages));
		},
		onSettled(ctx) {
			if (isHeadless(ctx) || pending === undefined) return;
			const decision = pending;
			pending = undefined;
			if (decision.kind === "stop") report(ctx, decision.stop);
			else if (decision.kind === "continue") startContinuation(ctx, decision.backoffMs);
		},
		async onBeforeSettle(event, ctx) {
			if (!isHeadless(ctx)) return undefined;
			const messages = event.context.contextMessages;
			const decision = decideAfter(messages, event.outcome === "aborted" ? "aborted" : lastStopReason(messages));
			if (decision.kind === "stop") {
				const text = stopMessage(decision.stop, getConfig());
				process.stderr.write(`[til-done] ${text}\n`);
				return {
					entries: [
						{
							type: "custom_message",
							customType: COMPLETE_MESSAGE_TYPE,
							content: text,
							display: true,
							details: { level: "warning" },
						},
					],
				};
			}
			if (decision.kind !== "continue") return undefined;
			if (decision.backoffMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.backoffMs));
			incrementAutoContinue();
			const content = buildContinuationPrompt(getTodos());
			return {
				entries: [{ type: "custom_message", customType: COUNTDOWN_MESSAGE_TYPE, content, display: true }],
				continue: true,
			};
		},
		onUserInput() {
			cancelCountdown();
			pending = undefined;
			resetChain();
		},
		onSessionChange() {
			epoch++;
			cancelCountdown();
			pending = undefined;
		},
		get counting() {
			return countdown?.active ?? false;
		},
	};
}
