/**
 * Why the auto-continue did what it did: every step as a decision, with its reason code, its sentence (worded in
 * core/texts/user.ts) and the counters that led to it, for `/todos why` and the stderr of print and JSON modes. Pure.
 */

import { finishedCount } from "../list/queries.ts";
import type { Counters, Decision } from "../model/types.ts";
import { SENTENCES } from "../texts/user.ts";
import type { Step, StepInput } from "./next-step.ts";

export type { Counters, Decision };

export function countersOf({ todos, chain, limits }: StepInput): Counters {
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

/** The sentence for a step: a stop says what its text says; the others say what happens next, and why. */
export function explain(step: Step, input: StepInput): string {
	const { todos, chain, limits, loop } = input;
	const next = chain.continuations + 1;
	switch (step.kind) {
		case "stop":
		case "end-loop":
			return step.text;
		case "work":
			return SENTENCES.work(step.items, step.atWork);
		case "wait":
			return SENTENCES.heldElsewhere(step.held, step.lookAgainMs);
		case "verify":
			if (input.goal && todos.length === 0) return SENTENCES.judgeGoal;
			return SENTENCES.verify(step.checks.length, step.judge !== "off");
		case "send": {
			if (step.code === "goal-next") return SENTENCES.goalNext((step.goal?.runs ?? 0) + 1, limits.maxContinuations + 1);
			if (step.code === "loop-next") {
				return SENTENCES.loopNext(step.loop?.iteration ?? 0, loop?.max ?? 0, loop?.marker ?? "");
			}
			const remaining = todos.length - finishedCount(todos);
			return remaining > 0
				? SENTENCES.continuation(remaining, todos.length, next, limits.maxContinuations)
				: SENTENCES.fixContinuation(next, limits.maxContinuations);
		}
	}
	return explainIdle(step, input);
}

function explainIdle(step: Extract<Step, { kind: "idle" }>, input: StepInput): string {
	const { todos, chain, judged } = input;
	switch (step.code) {
		case "no-todos":
			return SENTENCES.noTodos;
		case "tools-off":
			return SENTENCES.toolsOff;
		case "all-done":
			return SENTENCES.allDone(todos.length, step.verified === true);
		case "aborted":
			return SENTENCES.aborted;
		case "paused":
			return SENTENCES.paused(chain.pauseReason);
		case "asks-user":
			return SENTENCES.asksUser;
		case "review-wait":
			return SENTENCES.reviewWait(step.index ?? 0);
		case "interrupted":
			return step.byPrompt ? SENTENCES.promptedOver : SENTENCES.interrupted;
		case "unverified":
			return SENTENCES.unverified(todos.length, judged?.failed ?? []);
		case "workers-busy":
			return SENTENCES.workersBusy(step.running ?? []);
	}
}

export function decisionOf(step: Step, input: StepInput, at: number): Decision {
	return { at, kind: step.kind, code: step.code, text: explain(step, input), counters: countersOf(input) };
}

/** The idle ends after which the chain waits for the user, who may have turned away: worth a ring. */
const WAITS_FOR_USER: ReadonlySet<string> = new Set(["all-done", "unverified", "review-wait", "asks-user"]);

/**
 * Whether a decision ends the chain in a way the user should hear about when away: done, stopped (a breaker, a
 * budget, nothing ready), a loop's end, or waiting for the user's review or answer (a question, the model's pause).
 * Not the user's own acts (Esc, a key, their pause), and not a chain that goes on.
 */
export function endsChainForUser(step: Step, input: StepInput): boolean {
	if (step.kind === "stop" || step.kind === "end-loop") return true;
	if (step.kind !== "idle") return false;
	if (step.code === "paused") return input.chain.pausedBy === "model";
	return WAITS_FOR_USER.has(step.code);
}
