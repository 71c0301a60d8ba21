/**
 * The auto-continue in print and JSON modes: nobody can watch or interrupt a countdown and the process exits when the
 * run ends, so the plan is carried out inside the run, through `agent_before_settle` returning `continue: true`.
 */

import type { AgentBeforeSettleEvent, BoundaryResult } from "@earendil-works/pi-coding-agent";
import { COMPLETE_MESSAGE_TYPE } from "./keys.ts";
import { runOutcome } from "./outcome.ts";
import { type PlanInput, type PlannedMessage, planAfterRun } from "./planner.ts";
import { recordSend, setChain, setLoop } from "./state.ts";

/** Waits out a back-off; resolves false when the session changed meanwhile, so nothing may be sent. */
export type BackOff = (ms: number) => Promise<boolean>;

/** One more model call with the message shown in the transcript. */
function continueWith(message: PlannedMessage): BoundaryResult {
	return { entries: [{ type: "custom_message", ...message, display: true }], continue: true };
}

/** Print and JSON modes have no notices: what the user must know goes to stderr, apart from the model's answer. */
function tellStderr(text: string): void {
	process.stderr.write(`[til-done] ${text}\n`);
}

/** Plans at the end of a run in print/JSON mode; a result with `continue: true` makes pi call the model again. */
export async function continueInRun(
	event: AgentBeforeSettleEvent,
	input: PlanInput,
	backOff: BackOff,
): Promise<BoundaryResult | undefined> {
	const { chain, plan } = planAfterRun(input, runOutcome(event.context.contextMessages, event.outcome === "aborted"));
	setChain(chain);
	if (plan.kind === "send") {
		if (!(await backOff(plan.backoffMs))) return undefined;
		recordSend(plan);
		return continueWith(plan.message);
	}
	if (plan.kind === "stop") {
		tellStderr(plan.text);
		// A custom entry, not a message: print mode prints the last message, which must stay the model's answer.
		return {
			entries: [{ type: "custom", customType: COMPLETE_MESSAGE_TYPE, data: { level: "warning", text: plan.text } }],
		};
	}
	if (plan.kind === "end-loop") {
		tellStderr(plan.text);
		setLoop(undefined);
	}
	return undefined;
}
