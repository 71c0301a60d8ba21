/** After a run: fold its outcome into the stored counters and return what the pure rules decide. */

import type { TilDoneConfig } from "./config.ts";
import {
	assessRun,
	type Decision,
	decideNext,
	endsWithQuestion,
	lastAssistantText,
	type StopKind,
	type StopReason,
} from "./continuation.ts";
import { errorLimitMessage, hardCapMessage, noProgressMessage } from "./formatting.ts";
import { decideLoop, type LoopDecision, type LoopState } from "./loop.ts";
import { getChain, getTodos, setChain, setLoop } from "./state.ts";

/** The user-facing text for a tripped breaker. */
export function stopMessage(stop: StopKind, config: TilDoneConfig): string {
	if (stop === "hard-cap") return hardCapMessage(config.maxContinuations);
	if (stop === "no-progress") return noProgressMessage(config.maxNoProgress);
	return errorLimitMessage(config.maxFailures);
}

/** Counts the run against the chain and decides about the todo list. */
export function decideAfterTodoRun(
	messages: readonly unknown[],
	stopReason: StopReason | undefined,
	config: TilDoneConfig,
): Decision {
	setChain(assessRun(getChain(), stopReason));
	const asksUser = stopReason === "stop" && endsWithQuestion(lastAssistantText(messages));
	return decideNext(getTodos(), getChain(), stopReason, config, { asksUser });
}

/** Counts the run against the `/loop` and decides whether it goes round again. */
export function decideAfterLoopRun(
	loop: LoopState,
	messages: readonly unknown[],
	stopReason: StopReason | undefined,
	config: TilDoneConfig,
): LoopDecision {
	const failed = stopReason === "error" || stopReason === "length";
	const assessed = { ...loop, failures: failed ? loop.failures + 1 : 0 };
	setLoop(assessed);
	return decideLoop(assessed, stopReason, lastAssistantText(messages), config);
}
