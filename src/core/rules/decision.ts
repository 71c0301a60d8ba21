/**
 * Why the auto-continue did what it did: every plan as a decision, with its reason code, its sentence (worded in
 * core/texts/user.ts) and the counters that led to it, for `/todos why` and the stderr of print and JSON modes. Pure.
 */

import type { Counters, Decision } from "../../types.ts";
import { finishedCount } from "../list/queries.ts";
import { SENTENCES } from "../texts/user.ts";
import type { Plan, PlanInput } from "./next-step.ts";

export type { Counters, Decision };

export function countersOf({ todos, chain, limits }: PlanInput): Counters {
	return {
		continuations: chain.continuations,
		maxContinuations: limits.maxContinuations,
		noProgress: chain.noProgress,
		maxNoProgress: limits.maxNoProgress,
		failures: chain.failures,
		maxFailures: limits.maxFailures,
		finished: finishedCount(todos),
		total: todos.length,
		tokens: chain.spend.tokens,
		cost: chain.spend.cost,
		calls: chain.spend.calls,
	};
}

/** The sentence for a plan: a stop says what its text says; the others say what happens next, and why. */
export function explain(plan: Plan, input: PlanInput): string {
	const { todos, chain, limits, loop } = input;
	const next = chain.continuations + 1;
	switch (plan.kind) {
		case "stop":
		case "end-loop":
			return plan.text;
		case "verify":
			return SENTENCES.verify(plan.checks.length);
		case "send": {
			if (plan.code === "loop-next") {
				return SENTENCES.loopNext(plan.loop?.iteration ?? 0, loop?.max ?? 0, loop?.marker ?? "");
			}
			const remaining = todos.length - finishedCount(todos);
			return remaining > 0
				? SENTENCES.continuation(remaining, todos.length, next, limits.maxContinuations)
				: SENTENCES.fixContinuation(next, limits.maxContinuations);
		}
	}
	return explainIdle(plan, input);
}

function explainIdle(plan: Extract<Plan, { kind: "idle" }>, { todos, chain }: PlanInput): string {
	switch (plan.code) {
		case "no-todos":
			return SENTENCES.noTodos;
		case "tools-off":
			return SENTENCES.toolsOff;
		case "all-done":
			return SENTENCES.allDone(todos.length, plan.verified === true);
		case "aborted":
			return SENTENCES.aborted;
		case "paused":
			return SENTENCES.paused(chain.pauseReason);
		case "asks-user":
			return SENTENCES.asksUser;
		case "review-wait":
			return SENTENCES.reviewWait(plan.index ?? 0);
		case "interrupted":
			return plan.byPrompt ? SENTENCES.promptedOver : SENTENCES.interrupted;
	}
}

export function decisionOf(plan: Plan, input: PlanInput, at: number): Decision {
	return { at, kind: plan.kind, code: plan.code, text: explain(plan, input), counters: countersOf(input) };
}

/** The idle ends after which the chain waits for the user, who may have turned away: worth a ring. */
const WAITS_FOR_USER: ReadonlySet<string> = new Set(["all-done", "review-wait", "asks-user"]);

/**
 * Whether a decision ends the chain in a way the user should hear about when away: done, stopped (a breaker, a
 * budget, nothing ready), a loop's end, or waiting for the user's review or answer (a question, the model's pause).
 * Not the user's own acts (Esc, a key, their pause), and not a chain that goes on.
 */
export function endsChainForUser(plan: Plan, input: PlanInput): boolean {
	if (plan.kind === "stop" || plan.kind === "end-loop") return true;
	if (plan.kind !== "idle") return false;
	if (plan.code === "paused") return input.chain.pausedBy === "model";
	return WAITS_FOR_USER.has(plan.code);
}
