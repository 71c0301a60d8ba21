/**
 * The auto-continue in print and JSON modes: nobody can watch or interrupt a countdown and the process exits when the
 * run ends, so the plan is carried out inside the run, through `agent_before_settle` returning `continue: true`.
 */

import type { AgentBeforeSettleEvent, BoundaryResult } from "@earendil-works/pi-coding-agent";
import { COMPLETE_MESSAGE_TYPE } from "../session/keys.ts";
import { markStopped, recordDecision, recordSend, setChain, setLoop } from "../state.ts";
import { stderrLines } from "../ui/tell.ts";
import { runOutcome } from "./outcome.ts";
import { type Plan, type PlanInput, type PlannedCheck, type PlannedMessage, planAfterRun } from "./planner.ts";
import { type Decision, decisionOf } from "./reasons.ts";

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

/** A script reads from `pi -p`'s exit status whether a list that has a verification ended verified. */
function setExitStatus(plan: Plan, input: PlanInput): void {
	const itemChecks = input.modelChecks === true && input.todos.some((todo) => todo.check !== undefined);
	if (input.todos.length === 0 || (input.doneCheck === undefined && !itemChecks)) return;
	const verified = plan.kind === "idle" && plan.code === "all-done" && plan.verified === true;
	process.exitCode = verified ? 0 : UNVERIFIED_EXIT_CODE;
}

/** Keeps a plan with its reason for `/todos why`, and returns that decision. */
function decide(plan: Plan, input: PlanInput): Decision {
	const decision = decisionOf(plan, input, Date.now());
	recordDecision(decision);
	return decision;
}

/** Plans at the end of a run in print/JSON mode; a result with `continue: true` makes pi call the model again. */
export async function continueInRun(event: AgentBeforeSettleEvent, run: InRun): Promise<BoundaryResult | undefined> {
	const outcome = runOutcome(event.context.contextMessages, event.outcome === "aborted");
	const input = run.input();
	const { chain, plan: first } = planAfterRun(input, outcome);
	setChain(chain);
	if (first.kind !== "verify") return carryOut(first, { ...input, chain }, run);
	decide(first, { ...input, chain });
	const plan = await run.verify(first.checks);
	return carryOut(plan, run.input(), run);
}

async function carryOut(plan: Plan, input: PlanInput, run: InRun): Promise<BoundaryResult | undefined> {
	if (plan.kind === "send") {
		// Kept once it is sent: a session change during the back-off sends nothing.
		if (!(await run.backOff(plan.backoffMs))) return undefined;
		decide(plan, input);
		recordSend(plan);
		return continueWith(plan.message);
	}
	const decision = decide(plan, input);
	setExitStatus(plan, run.input());
	if (plan.kind === "stop") markStopped(plan.code);
	if (plan.kind === "end-loop") setLoop(undefined);
	return recordEnd(decision, plan);
}

/**
 * Why the invocation ends, on stderr and as a custom entry in the session (a script reads either), unless there is
 * no list (a loop always ends with its own plan): then the extension had nothing to do with it. An entry, not a
 * message: print mode prints the last message, which must stay the model's answer.
 */
function recordEnd(decision: Decision, plan: Plan): BoundaryResult | undefined {
	if (plan.kind === "idle" && plan.code === "no-todos") return undefined;
	process.stderr.write(stderrLines(decision.text));
	const level = plan.kind === "stop" || (plan.kind === "end-loop" && plan.level === "warning") ? "warning" : "info";
	const data = { level, code: decision.code, text: decision.text, counters: decision.counters };
	return { entries: [{ type: "custom", customType: COMPLETE_MESSAGE_TYPE, data }] };
}
