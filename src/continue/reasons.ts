/**
 * Why the auto-continue did what it did: every plan as a reason code, a plain sentence and the counters that led to
 * it, for `/todos why`, the status bar and the stderr of print and JSON modes. Pure.
 */

import { reviewWaitText } from "../formatting.ts";
import { finishedCount } from "../list/queries.ts";
import { oneLine } from "../texts/data.ts";
import { formatCost, formatTokens } from "../texts/user.ts";
import { type StopCode, stopWords } from "./breakers.ts";
import type { Plan, PlanInput } from "./planner.ts";

/** The counters a decision was made on. */
export interface Counters {
	continuations: number;
	maxContinuations: number;
	noProgress: number;
	/** 0: the no-progress breaker is off. */
	maxNoProgress: number;
	failures: number;
	maxFailures: number;
	finished: number;
	total: number;
	tokens: number;
	cost: number;
	calls: number;
}

/** One decision: what the plan was, why, and on which counters. */
export interface Decision {
	/** When it was made, in milliseconds since the epoch. */
	at: number;
	kind: Plan["kind"];
	code: string;
	text: string;
	counters: Counters;
}

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

/** The sentence for a plan: a stop says what its message says; the others say what happens next, and why. */
export function explain(plan: Plan, input: PlanInput): string {
	const { todos, chain, limits, loop } = input;
	const remaining = todos.length - finishedCount(todos);
	switch (plan.kind) {
		case "stop":
		case "end-loop":
			return plan.text;
		case "verify":
			return `Every todo is finished: ${plan.checks.length} check(s) verify the list.`;
		case "send":
			if (plan.code === "loop-next") {
				return `Loop iteration ${plan.loop?.iteration ?? 0} of ${loop?.max ?? 0} follows: the answer did not hold ${loop?.marker ?? ""}.`;
			}
			return remaining > 0
				? `${remaining} of ${todos.length} todos remain: continuation ${chain.continuations + 1} of ${limits.maxContinuations} follows.`
				: `Every todo is finished, but the list did not pass its verification: continuation ${chain.continuations + 1} of ${limits.maxContinuations} asks for the fix.`;
	}
	return explainIdle(plan, input);
}

function explainIdle(plan: Extract<Plan, { kind: "idle" }>, { todos, chain }: PlanInput): string {
	switch (plan.code) {
		case "no-todos":
			return "No todo list: nothing to continue.";
		case "all-done":
			return plan.verified
				? `Every todo is finished (${todos.length}) and the list passed its verification: nothing to continue.`
				: `Every todo is finished (${todos.length}): nothing to continue.`;
		case "aborted":
			return "The run was aborted: the auto-continue waits for you.";
		case "paused":
			return `Auto-continue is paused${chain.pauseReason ? ` (${oneLine(chain.pauseReason)})` : ""}: it waits for you.`;
		case "asks-user":
			return "The model asked a question: the auto-continue waits for your answer.";
		case "review-wait":
			return `${reviewWaitText(plan.index ?? 0)}: /todos approve ${plan.index ?? 0} completes it and goes on.`;
	}
}

export function decisionOf(plan: Plan, input: PlanInput, at: number): Decision {
	return { at, kind: plan.kind, code: plan.code, text: explain(plan, input), counters: countersOf(input) };
}

/** The counters as one bracketed line; the cost only when pi reported any. */
export function formatCounters(counters: Counters): string {
	const parts = [
		`continuations ${counters.continuations}/${counters.maxContinuations}`,
		`no progress ${counters.maxNoProgress > 0 ? `${counters.noProgress}/${counters.maxNoProgress}` : "off"}`,
		`failures ${counters.failures}/${counters.maxFailures}`,
		`${counters.finished}/${counters.total} finished`,
		`${formatTokens(counters.tokens)} tokens in ${counters.calls} call(s)`,
	];
	if (counters.cost > 0) parts.push(`cost ${formatCost(counters.cost)}`);
	return `[${parts.join(", ")}]`;
}

const twoDigits = (value: number): string => String(value).padStart(2, "0");

/** Local time of day, `HH:MM:SS`. */
export function formatClock(at: number): string {
	const date = new Date(at);
	return `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
}

export function formatDecision(decision: Decision): string {
	return `${formatClock(decision.at)} ${decision.code}: ${decision.text} ${formatCounters(decision.counters)}`;
}

/** Decisions `/todos why` shows, the newest last. */
export const WHY_SHOWN = 10;

/** `/todos why`: the last decisions, the newest last. */
export function formatWhy(decisions: readonly Decision[]): string {
	if (decisions.length === 0) return "No decision yet in this session: the auto-continue has not acted.";
	const shown = decisions.slice(-WHY_SHOWN);
	return [`The auto-continue's last ${shown.length} decision(s), the newest last:`, ...shown.map(formatDecision)].join(
		"\n",
	);
}

/** The status bar while a stopped chain waits for the user: why, and where the figures are. */
export function formatStopStatus(code: StopCode | undefined): string | undefined {
	return code === undefined ? undefined : `⏹ auto-continue stopped: ${stopWords(code)} (/todos why)`;
}
