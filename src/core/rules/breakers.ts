/**
 * The breakers: what stops a continuation chain, one row each, checked in this order. A row holds everything about
 * its breaker: its reason code, its setting, when it trips and the stop text with its figures, the status-bar words
 * and its `/todos status` line. A new breaker is one row. Pure.
 */

import { MAX_AUTO_CONTINUE, MAX_NO_PROGRESS } from "../../types.ts";
import { formatCost, formatTokens } from "../texts/user.ts";
import type { NumericSetting } from "./setting.ts";
import {
	type ChainSpend,
	type Forecast,
	forecastNext,
	MIN_FINISHED_FOR_SPEND,
	spendProgress,
	spendsWithoutProgress,
} from "./usage.ts";

/** How a stop text ends: what was left undone. */
export const UNFINISHED_TAIL = "Remaining todos were not completed. Take over manually.";
/** The same, when every item is finished but the list failed its verification. */
export const UNVERIFIED_TAIL = "The finished list did not pass its verification. Take over manually.";

/** The chain's counters a breaker reads (the chain's state has more). */
export interface ChainCounters {
	continuations: number;
	noProgress: number;
	failures: number;
	sameAnswers: number;
	spend: ChainSpend;
}

/** What a breaker is asked about. */
export interface BreakerInput {
	chain: ChainCounters;
	/** The model's price per million input tokens, when pi knows it. */
	inputPrice?: number;
	/** False when pi knows no price at all for the model: every call costs 0, so a cost budget cannot apply. */
	priced?: boolean;
	/** How the stop text ends. */
	tail: string;
	/** What a budget forecasts: the chain's next `continuation`, or a `/loop`'s next `loop iteration`. */
	next: string;
}

interface Breaker<C extends string, K extends string> {
	code: C;
	/** Why the chain stopped, in a few words for the status bar. */
	words: string;
	setting: NumericSetting<K>;
	/** The stop text when the breaker trips at this limit; undefined while it holds. */
	trip(input: BreakerInput, limit: number): string | undefined;
	/** Its line in `/todos status`: the counter against its limit, or "off". */
	report(input: BreakerInput, limit: number): string;
}

/** Keeps each row's literal code and key, so the codes and the limits' keys are derived from the table. */
function breaker<const C extends string, const K extends string>(row: Breaker<C, K>): Breaker<C, K> {
	return row;
}

const counter = (value: number, limit: number): string => (limit > 0 ? `${value}/${limit}` : "off");

export const BREAKERS = [
	breaker({
		code: "failures",
		words: "failed runs",
		setting: {
			key: "maxFailures",
			flag: "til-done-max-failures",
			env: "TIL_DONE_MAX_FAILURES",
			description: "Give up after this many failed runs in a row (provider error, output limit)",
			default: 3,
			min: 1,
			max: 100,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			chain.failures >= limit
				? `Auto-continue stopped after ${limit} failed runs in a row (provider error or output limit). ${tail}`
				: undefined,
		report: ({ chain }, limit) => `Failed runs in a row: ${counter(chain.failures, limit)}`,
	}),
	// Before no-progress, which trips on the same runs: it names the more particular reason.
	breaker({
		code: "repeated-answer",
		words: "the same answer again and again",
		setting: {
			key: "maxSameAnswers",
			flag: "til-done-max-same-answers",
			env: "TIL_DONE_MAX_SAME_ANSWERS",
			description:
				"Stop after this many continued runs in a row complete nothing and end with the same answer (0 = off)",
			default: 3,
			min: 0,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			limit > 0 && chain.sameAnswers >= limit
				? `Auto-continue stopped: the last ${limit} continued runs ended with the same answer. ${tail}`
				: undefined,
		report: ({ chain }, limit) => `Same answer in a row: ${counter(chain.sameAnswers, limit)}`,
	}),
	breaker({
		code: "no-progress",
		words: "no todo completed",
		setting: {
			key: "maxNoProgress",
			flag: "til-done-max-no-progress",
			env: "TIL_DONE_MAX_NO_PROGRESS",
			description: "Stop after this many continuations in a row complete no item (0 = off)",
			default: MAX_NO_PROGRESS,
			min: 0,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			limit > 0 && chain.noProgress >= limit
				? `Auto-continue stopped: no todo was completed in the last ${limit} continuations. ${tail}`
				: undefined,
		report: ({ chain }, limit) => `Continuations without progress: ${counter(chain.noProgress, limit)}`,
	}),
	breaker({
		code: "spend",
		words: "spending without progress",
		setting: {
			key: "spendFactor",
			flag: "til-done-spend-factor",
			env: "TIL_DONE_SPEND_FACTOR",
			description:
				"Stop when the tokens since the last finished item exceed this many times the median per item (0 = off)",
			default: 5,
			min: 0,
			max: 1000,
			integer: false,
		},
		trip: ({ chain, tail }, factor) => {
			if (!spendsWithoutProgress(chain.spend, factor)) return undefined;
			const { sinceFinish, medianPerItem, finished } = spendProgress(chain.spend);
			return `Auto-continue stopped: ${formatTokens(sinceFinish)} tokens since the last finished todo, more than ${factor} × the median of ${formatTokens(medianPerItem)} tokens per finished todo (${finished} finished in this chain). ${tail}`;
		},
		report: ({ chain }, factor) => {
			if (factor <= 0) return "Progress breaker: off";
			const { sinceFinish, medianPerItem, finished } = spendProgress(chain.spend);
			const figures =
				finished < MIN_FINISHED_FOR_SPEND
					? `armed once ${MIN_FINISHED_FOR_SPEND} todos are finished, ${finished} so far`
					: `median ${formatTokens(medianPerItem)}, ${formatTokens(sinceFinish)} since the last finished todo`;
			return `Progress breaker: ${factor} × the median tokens per finished todo; ${figures}`;
		},
	}),
	breaker({
		code: "hard-cap",
		words: "continuation limit reached",
		setting: {
			key: "maxContinuations",
			flag: "til-done-max-continue",
			env: "TIL_DONE_MAX_CONTINUE",
			description: "Hard cap on continuations per user prompt",
			default: MAX_AUTO_CONTINUE,
			min: 1,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			chain.continuations >= limit ? `Auto-continue limit reached (${limit} iterations). ${tail}` : undefined,
		report: ({ chain }, limit) => `Continuations this prompt: ${chain.continuations}/${limit}`,
	}),
	breaker({
		code: "budget-tokens",
		words: "token budget",
		setting: {
			key: "budgetTokens",
			flag: "til-done-budget-tokens",
			env: "TIL_DONE_BUDGET_TOKENS",
			description: "Tokens a chain may spend; a continuation forecast to cross it is not sent (0 = no budget)",
			default: 0,
			min: 0,
			max: 1e12,
			integer: true,
		},
		trip: (input, budget) => tokenBudgetStop(input, budget, "Auto-continue stopped"),
		report: ({ chain, inputPrice, next }, budget) =>
			budget > 0
				? `Token budget: ${formatTokens(budget)} (next ${next}: about ${formatTokens(forecastNext(chain.spend, inputPrice).tokens)})`
				: "Token budget: none",
	}),
	breaker({
		code: "budget-cost",
		words: "cost budget",
		setting: {
			key: "budgetCost",
			flag: "til-done-budget-cost",
			env: "TIL_DONE_BUDGET_COST",
			description: "Cost a chain may reach, in the provider's currency; forecast the same way (0 = no budget)",
			default: 0,
			min: 0,
			max: 1e6,
			integer: false,
		},
		trip: (input, budget) => costBudgetStop(input, budget, "Auto-continue stopped"),
		report: ({ chain, inputPrice, next, priced }, budget) => {
			if (budget <= 0) return "Cost budget: none";
			if (priced === false)
				return `Cost budget: ${formatCost(budget)} (cannot apply: pi knows no price for this model)`;
			const forecast = forecastNext(chain.spend, inputPrice);
			const unknown = forecast.nextCost === undefined ? ", the next call's price unknown" : "";
			return `Cost budget: ${formatCost(budget)} (next ${next}: about ${formatCost(forecast.cost)}${unknown})`;
		},
	}),
] as const;

export type StopCode = (typeof BREAKERS)[number]["code"];
export type BreakerKey = (typeof BREAKERS)[number]["setting"]["key"];
/** Each breaker's limit, by its setting's key. */
export type BreakerLimits = Record<BreakerKey, number>;

/** The first breaker that trips, in the table's order, with its stop text; undefined when the chain may go on. */
export function trippedBreaker(
	input: BreakerInput,
	limits: BreakerLimits,
): { code: StopCode; text: string } | undefined {
	for (const row of BREAKERS) {
		const text = row.trip(input, limits[row.setting.key]);
		if (text !== undefined) return { code: row.code, text };
	}
	return undefined;
}

/** What stopped a chain: a breaker, every open item waiting for one that is not completed, or the user's key. */
export type StoppedBy = StopCode | "blocked" | "interrupted";

/** Why a chain stopped, in a few words for the status bar. */
export function stopWords(code: StoppedBy): string {
	if (code === "interrupted") return "interrupted by you";
	if (code === "blocked") return "no item is ready";
	return BREAKERS.find((row) => row.code === code)?.words ?? code;
}

/** Every breaker's `/todos status` line, in the table's order. */
export function breakerReport(input: BreakerInput, limits: BreakerLimits): string[] {
	return BREAKERS.map((row) => row.report(input, limits[row.setting.key]));
}

function withTail(text: string, tail: string): string {
	return tail === "" ? text : `${text} ${tail}`;
}

/** The token budget's stop when the next message's first call would cross it; `stopped` names what stops. */
export function tokenBudgetStop(input: BreakerInput, budget: number, stopped: string): string | undefined {
	const { chain, inputPrice, next, tail } = input;
	const forecast: Forecast = forecastNext(chain.spend, inputPrice);
	if (budget <= 0 || forecast.tokens <= budget) return undefined;
	const text = `${stopped}: the next ${next} would bring this chain to about ${formatTokens(forecast.tokens)} tokens, over its budget of ${formatTokens(budget)} (${formatTokens(chain.spend.tokens)} spent so far, and its first call sends the last context of ${formatTokens(forecast.nextTokens)} tokens again).`;
	return withTail(text, tail);
}

/** The cost budget's stop, forecast the same way, with the next call priced at the model's input price when known. */
export function costBudgetStop(input: BreakerInput, budget: number, stopped: string): string | undefined {
	const { chain, inputPrice, next: what, tail } = input;
	const forecast = forecastNext(chain.spend, inputPrice);
	if (budget <= 0 || forecast.cost <= budget) return undefined;
	const next =
		forecast.nextCost === undefined
			? "the model's price for the next call is unknown"
			: `its first call sends the last context of ${formatTokens(forecast.nextTokens)} tokens again, about ${formatCost(forecast.nextCost)}`;
	const text = `${stopped}: the next ${what} would bring this chain to a cost of about ${formatCost(forecast.cost)}, over its budget of ${formatCost(budget)} (${formatCost(chain.spend.cost)} spent so far; ${next}).`;
	return withTail(text, tail);
}
