/** Why a chain stops, in the words the user reads: the breakers, the progress breaker and the budgets. Pure. */

import type { Forecast, SpendProgress } from "../spend/usage.ts";

/** How a breaker's message ends: what was left undone. */
export const UNFINISHED_TAIL = "Remaining todos were not completed. Take over manually.";
/** The same, when every item is finished but the list failed its verification. */
export const UNVERIFIED_TAIL = "The finished list did not pass its verification. Take over manually.";

export function hardCapMessage(limit: number, tail = UNFINISHED_TAIL): string {
	return `Auto-continue limit reached (${limit} iterations). ${tail}`;
}

export function noProgressMessage(limit: number, tail = UNFINISHED_TAIL): string {
	return `Auto-continue stopped: no todo was completed in the last ${limit} continuations. ${tail}`;
}

export function repeatedAnswerMessage(limit: number, tail = UNFINISHED_TAIL): string {
	return `Auto-continue stopped: the last ${limit} continued runs ended with the same answer. ${tail}`;
}

export function errorLimitMessage(limit: number, tail = UNFINISHED_TAIL): string {
	return `Auto-continue stopped after ${limit} failed runs in a row (provider error or output limit). ${tail}`;
}

export const formatTokens = (tokens: number): string => Math.round(tokens).toLocaleString("en-US");
/** Money in the provider's currency (pi does not say which), to four decimals. */
export const formatCost = (cost: number): string => cost.toFixed(4);

export function spendMessage(progress: SpendProgress, factor: number, tail = UNFINISHED_TAIL): string {
	const { sinceFinish, medianPerItem, finished } = progress;
	return `Auto-continue stopped: ${formatTokens(sinceFinish)} tokens since the last finished todo, more than ${factor} × the median of ${formatTokens(medianPerItem)} tokens per finished todo (${finished} finished in this chain). ${tail}`;
}

/** What stops: the todo chain's next continuation, or a `/loop`'s next iteration. */
export interface BudgetSubject {
	/** `Auto-continue stopped`, `Loop stopped`. */
	stopped: string;
	/** `continuation`, `loop iteration`. */
	next: string;
	/** What is left undone, or "" for a loop. */
	tail: string;
}

export const CHAIN_BUDGET: BudgetSubject = {
	stopped: "Auto-continue stopped",
	next: "continuation",
	tail: UNFINISHED_TAIL,
};
export const LOOP_BUDGET: BudgetSubject = { stopped: "Loop stopped", next: "loop iteration", tail: "" };

function withTail(text: string, tail: string): string {
	return tail === "" ? text : `${text} ${tail}`;
}

export function tokenBudgetMessage(forecast: Forecast, budget: number, spent: number, subject: BudgetSubject): string {
	const text = `${subject.stopped}: the next ${subject.next} would bring this chain to about ${formatTokens(forecast.tokens)} tokens, over its budget of ${formatTokens(budget)} (${formatTokens(spent)} spent so far, and its first call sends the last context of ${formatTokens(forecast.nextTokens)} tokens again).`;
	return withTail(text, subject.tail);
}

export function costBudgetMessage(forecast: Forecast, budget: number, spent: number, subject: BudgetSubject): string {
	const next =
		forecast.nextCost === undefined
			? "the model's price for the next call is unknown"
			: `its first call sends the last context of ${formatTokens(forecast.nextTokens)} tokens again, about ${formatCost(forecast.nextCost)}`;
	const text = `${subject.stopped}: the next ${subject.next} would bring this chain to a cost of about ${formatCost(forecast.cost)}, over its budget of ${formatCost(budget)} (${formatCost(spent)} spent so far; ${next}).`;
	return withTail(text, subject.tail);
}
