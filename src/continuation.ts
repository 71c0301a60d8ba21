/** Pure decisions of the auto-continue engine: what to do after a run, and why. No timers, no host calls. */

import { pickNextIndex, textOfContent } from "./formatting.ts";
import type { TodoItem } from "./types.ts";
import { isIncomplete } from "./validation.ts";

/** How the model's last message of a run ended, as pi reports it. */
export type StopReason = "stop" | "toolUse" | "length" | "error" | "aborted";

/** Counters of the current continuation chain; a user prompt starts a new chain. */
export interface ChainState {
	/** Continuations sent since the user last prompted (the hard cap counts these). */
	continuations: number;
	/** Consecutive continuation runs after which no new item was finished. */
	noProgress: number;
	/** Consecutive runs that ended in a provider error or at the output limit. */
	failures: number;
	/** Whether the run now ending was started by a continuation. */
	runIsContinuation: boolean;
	/** Whether an item was newly finished since the last continuation was sent. */
	progressed: boolean;
	/** Auto-continue switched off, and why (shown to the user). */
	paused: boolean;
	pauseReason?: string;
	/** The user's pause lasts for the session; the model's lasts until the user prompts again. */
	pausedBy?: "user" | "model";
}

export interface EngineLimits {
	maxContinuations: number;
	/** 0 turns the no-progress breaker off. */
	maxNoProgress: number;
	/** Consecutive failed runs (provider error, output limit) after which the engine gives up. */
	maxFailures: number;
	/** First back-off after a failed run; doubles with each further failure. */
	failureBackoffMs: number;
}

export type SkipReason = "no-todos" | "all-done" | "paused" | "aborted" | "asks-user";
export type StopKind = "hard-cap" | "no-progress" | "failures";

export type Decision =
	| { kind: "skip"; reason: SkipReason }
	| { kind: "stop"; stop: StopKind }
	| { kind: "continue"; nextIndex: number; backoffMs: number };

export function initialChain(): ChainState {
	return { continuations: 0, noProgress: 0, failures: 0, runIsContinuation: false, progressed: false, paused: false };
}

/** Updates the failure and no-progress counters with the facts of the run that just ended. */
export function assessRun(chain: ChainState, stopReason: StopReason | undefined): ChainState {
	const failed = stopReason === "error" || stopReason === "length";
	const stalled = chain.runIsContinuation && !chain.progressed && !failed;
	return {
		...chain,
		failures: failed ? chain.failures + 1 : 0,
		noProgress: chain.progressed ? 0 : stalled ? chain.noProgress + 1 : chain.noProgress,
	};
}

/** What to do now that a run has ended, given the list and the assessed chain. */
export function decideNext(
	todos: readonly TodoItem[],
	chain: ChainState,
	stopReason: StopReason | undefined,
	limits: EngineLimits,
	options: { asksUser?: boolean } = {},
): Decision {
	if (todos.length === 0) return { kind: "skip", reason: "no-todos" };
	if (!todos.some((todo) => isIncomplete(todo.status))) return { kind: "skip", reason: "all-done" };
	if (stopReason === "aborted") return { kind: "skip", reason: "aborted" };
	if (chain.paused) return { kind: "skip", reason: "paused" };
	if (options.asksUser) return { kind: "skip", reason: "asks-user" };
	if (chain.failures >= limits.maxFailures) return { kind: "stop", stop: "failures" };
	if (limits.maxNoProgress > 0 && chain.noProgress >= limits.maxNoProgress)
		return { kind: "stop", stop: "no-progress" };
	if (chain.continuations >= limits.maxContinuations) return { kind: "stop", stop: "hard-cap" };
	const backoffMs = chain.failures > 0 ? limits.failureBackoffMs * 2 ** (chain.failures - 1) : 0;
	return { kind: "continue", nextIndex: pickNextIndex(todos) ?? 0, backoffMs };
}

const ABORTED_ERROR = /\babort(ed)?\b/i;

/** Reads the stop reason of the last assistant message among a run's messages. */
export function lastStopReason(messages: readonly unknown[]): StopReason | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown; stopReason?: unknown; errorMessage?: unknown } | null;
		if (message?.role !== "assistant") continue;
		// Esc during a tool that ignores the signal ends the run as an "error" that says it was aborted.
		if (message.stopReason === "error" && ABORTED_ERROR.test(String(message.errorMessage ?? ""))) return "aborted";
		return typeof message.stopReason === "string" ? (message.stopReason as StopReason) : undefined;
	}
	return undefined;
}

/** Text of the last assistant message among a run's messages (text blocks joined). */
export function lastAssistantText(messages: readonly unknown[]): string {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown; content?: unknown } | null;
		if (message?.role !== "assistant") continue;
		return textOfContent(message.content);
	}
	return "";
}

/** True when the model's answer ends by asking the user something: continuing would talk over the question. */
export function endsWithQuestion(text: string): boolean {
	const trimmed = text.trimEnd();
	return trimmed.endsWith("?") || trimmed.endsWith("？");
}
