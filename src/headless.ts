/**
 * The auto-continue in print and JSON modes: nobody can watch or interrupt a countdown and the process exits when the
 * run ends, so the plan is carried out inside the run, through `agent_before_settle` returning `continue: true`.
 */

import type { AgentBeforeSettleEvent, BoundaryResult } from "@earendil-works/pi-coding-agent";
import { reviewWaitText } from "./formatting.ts";
import { COMPLETE_MESSAGE_TYPE } from "./keys.ts";
import { runOutcome } from "./outcome.ts";
import { type Plan, type PlanInput, type PlannedCheck, type PlannedMessage, planAfterRun } from "./planner.ts";
import { recordSend, setChain, setLoop } from "./state.ts";

/** Exit status of `pi -p` when the list has a verification and did not end verified. */
export const UNVERIFIED_EXIT_CODE = 3;

/** What the in-run adapter needs from the engine. */
export interface InRun {
	/** The state to plan from, as it is now. */
	input: () => PlanInput;
	/** Waits out a back-off; resolves false when the session changed meanwhile, so nothing may be sent. */
	backOff: (ms: number) => Promise<boolean>;
	/** Runs a verification and returns the plan that follows from it. */
	verify: (checks: PlannedCheck[]) => Promise<Plan>;
}

/** One more model call with the message shown in the transcript. */
function continueWith(message: PlannedMessage): BoundaryResult {
	return { entries: [{ type: "custom_message", ...message, display: true }], continue: true };
}

/** Print and JSON modes have no notices: what the user must know goes to stderr, apart from the model's answer. */
function tellStderr(text: string): void {
	process.stderr.write(`[til-done] ${text}\n`);
}

/** A script reads from `pi -p`'s exit status whether a list that has a verification ended verified. */
function setExitStatus(plan: Plan, input: PlanInput): void {
	const itemChecks = input.modelChecks === true && input.todos.some((todo) => todo.check !== undefined);
	if (input.todos.length === 0 || (input.doneCheck === undefined && !itemChecks)) return;
	const verified = plan.kind === "idle" && plan.code === "all-done" && plan.verified === true;
	process.exitCode = verified ? 0 : UNVERIFIED_EXIT_CODE;
}

/** Plans at the end of a run in print/JSON mode; a result with `continue: true` makes pi call the model again. */
export async function continueInRun(event: AgentBeforeSettleEvent, run: InRun): Promise<BoundaryResult | undefined> {
	const outcome = runOutcome(event.context.contextMessages, event.outcome === "aborted");
	const { chain, plan: first } = planAfterRun(run.input(), outcome);
	setChain(chain);
	const plan = first.kind === "verify" ? await run.verify(first.checks) : first;
	return carryOut(plan, run);
}

async function carryOut(plan: Plan, run: InRun): Promise<BoundaryResult | undefined> {
	if (plan.kind === "send") {
		if (!(await run.backOff(plan.backoffMs))) return undefined;
		recordSend(plan);
		return continueWith(plan.message);
	}
	setExitStatus(plan, run.input());
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
	if (plan.kind === "idle" && plan.code === "review-wait" && plan.index !== undefined) {
		tellStderr(reviewWaitText(plan.index));
	}
	return undefined;
}
