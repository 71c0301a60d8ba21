/**
 * Print and JSON modes: nobody can watch or interrupt a countdown and the process exits when the run ends, so the
 * continuation happens inside the run, through `agent_before_settle` returning `continue: true`.
 */

import type { AgentBeforeSettleEvent, BoundaryResult } from "@earendil-works/pi-coding-agent";
import { decideAfterLoopRun, decideAfterTodoRun, stopMessage } from "./assess.ts";
import type { TilDoneConfig } from "./config.ts";
import { lastStopReason, type StopReason } from "./continuation.ts";
import { buildContinuationPrompt } from "./formatting.ts";
import { LOOP_MESSAGE_TYPE, type LoopState, loopEndMessage, loopPrompt } from "./loop.ts";
import { getLoop, getTodos, incrementAutoContinue, setLoop } from "./state.ts";
import { COMPLETE_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE } from "./types.ts";

/** Waits out a back-off; resolves false when the session changed meanwhile, so nothing may be sent. */
export type BackOff = (ms: number) => Promise<boolean>;

/** One more model call with `content` as a displayed custom message. */
function continueWith(customType: string, content: string): BoundaryResult {
	return { entries: [{ type: "custom_message", customType, content, display: true }], continue: true };
}

async function continueTodos(
	messages: readonly unknown[],
	stopReason: StopReason | undefined,
	config: TilDoneConfig,
	backOff: BackOff,
): Promise<BoundaryResult | undefined> {
	const decision = decideAfterTodoRun(messages, stopReason, config);
	if (decision.kind === "stop") {
		const text = stopMessage(decision.stop, config);
		process.stderr.write(`[til-done] ${text}\n`);
		// A custom entry, not a message: print mode prints the last message, which must stay the model's answer.
		return { entries: [{ type: "custom", customType: COMPLETE_MESSAGE_TYPE, data: { level: "warning", text } }] };
	}
	if (decision.kind !== "continue" || !(await backOff(decision.backoffMs))) return undefined;
	incrementAutoContinue();
	return continueWith(COUNTDOWN_MESSAGE_TYPE, buildContinuationPrompt(getTodos()));
}

async function continueLoop(
	loop: LoopState,
	messages: readonly unknown[],
	stopReason: StopReason | undefined,
	config: TilDoneConfig,
	backOff: BackOff,
): Promise<BoundaryResult | undefined> {
	const decision = decideAfterLoopRun(loop, messages, stopReason, config);
	const assessed = getLoop() ?? loop;
	if (decision.kind !== "continue") {
		process.stderr.write(`[til-done] ${loopEndMessage(assessed, decision)}\n`);
		setLoop(undefined);
		return undefined;
	}
	if (!(await backOff(decision.backoffMs))) return undefined;
	const next = { ...assessed, iteration: assessed.iteration + 1 };
	setLoop(next);
	return continueWith(LOOP_MESSAGE_TYPE, loopPrompt(next));
}

/** Decides at the end of a run in print/JSON mode; a result with `continue: true` makes pi call the model again. */
export function continueInRun(
	event: AgentBeforeSettleEvent,
	config: TilDoneConfig,
	backOff: BackOff,
): Promise<BoundaryResult | undefined> {
	const messages = event.context.contextMessages;
	const stopReason = event.outcome === "aborted" ? "aborted" : lastStopReason(messages);
	const loop = getLoop();
	return loop
		? continueLoop(loop, messages, stopReason, config, backOff)
		: continueTodos(messages, stopReason, config, backOff);
}
