/**
 * The breakers: what stops a continuation chain, one row each, checked in this order. A row holds everything about
 * its breaker: its reason code, its setting, when it trips, and which of its texts (its entry in BREAKER_TEXTS, in
 * core/texts/user.ts) says so with which figures: the stop text, the status-bar words and its `/todos status` line.
 * A new breaker is one row, and one entry of texts. Pure.
 */

import { MAX_AUTO_CONTINUE, MAX_NO_PROGRESS } from "../model/types.ts";
import { BREAKER_TEXTS, STOP_WORDS, STOPPED, type WorkersBudgetStop } from "../texts/user.ts";
import type { NumericSetting } from "./setting.ts";
import {
	type ChainSpend,
	type Forecast,
	forecastNext,
	forecastWorkers,
	MIN_FINISHED_FOR_SPEND,
	spendProgress,
	spendsWithoutProgress,
	workerForecast,
} from "./usage.ts";

/** The chain's counters a breaker reads (the chain's state has more). */
export interface ChainCounters {
	continuations: number;
	noProgress: number;
	failures: number;
	/** Why the last failed run, a worker's, gave its item back. */
	lastWorkerFailure?: string;
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
	/** What a budget forecasts (NEXT_RUN): the chain's next `continuation`, or a `/loop`'s next `loop iteration`. */
	next: string;
	/** Workers about to start: the budgets forecast them instead of a continuation (0: only the spend so far counts). */
	workers?: number;
	/** Every todo is done (finished, and verified where something verifies it): no chain is left to be stuck. */
	listDone?: boolean;
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

/** Each row's texts, by its breaker. */
const { failures, repeatedAnswer, noProgress, spend, hardCap, budgetTokens, budgetCost } = BREAKER_TEXTS;

export const BREAKERS = [
	breaker({
		code: "failures",
		words: failures.words,
		setting: {
			key: "maxFailures",
			flag: "til-done-max-failures",
			env: "TIL_DONE_MAX_FAILURES",
			description: failures.description,
			default: 3,
			min: 1,
			max: 100,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			chain.failures >= limit ? failures.stop(limit, tail, chain.lastWorkerFailure) : undefined,
		report: ({ chain }, limit) => failures.report(chain.failures, limit),
	}),
	// Before no-progress, which trips on the same runs: it names the more particular reason.
	breaker({
		code: "repeated-answer",
		words: repeatedAnswer.words,
		setting: {
			key: "maxSameAnswers",
			flag: "til-done-max-same-answers",
			env: "TIL_DONE_MAX_SAME_ANSWERS",
			description: repeatedAnswer.description,
			default: 3,
			min: 0,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			limit > 0 && chain.sameAnswers >= limit ? repeatedAnswer.stop(limit, tail) : undefined,
		report: ({ chain }, limit) => repeatedAnswer.report(chain.sameAnswers, limit),
	}),
	breaker({
		code: "no-progress",
		words: noProgress.words,
		setting: {
			key: "maxNoProgress",
			flag: "til-done-max-no-progress",
			env: "TIL_DONE_MAX_NO_PROGRESS",
			description: noProgress.description,
			default: MAX_NO_PROGRESS,
			min: 0,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) =>
			limit > 0 && chain.noProgress >= limit ? noProgress.stop(limit, tail) : undefined,
		report: ({ chain, listDone }, limit) => (listDone ? noProgress.done : noProgress.report(chain.noProgress, limit)),
	}),
	breaker({
		code: "spend",
		words: spend.words,
		setting: {
			key: "spendFactor",
			flag: "til-done-spend-factor",
			env: "TIL_DONE_SPEND_FACTOR",
			description: spend.description,
			default: 5,
			min: 0,
			max: 1000,
			integer: false,
		},
		trip: ({ chain, tail }, factor) => {
			if (!spendsWithoutProgress(chain.spend, factor)) return undefined;
			const { sinceFinish, medianPerItem, finished } = spendProgress(chain.spend);
			return spend.stop(factor, sinceFinish, medianPerItem, finished, tail);
		},
		report: ({ chain, listDone }, factor) => {
			if (factor <= 0) return spend.off;
			const { sinceFinish, medianPerItem, finished } = spendProgress(chain.spend);
			if (finished < MIN_FINISHED_FOR_SPEND)
				return spend.report(factor, spend.armedAt(MIN_FINISHED_FOR_SPEND, finished));
			// A done list has no "since the last finished todo": what its last run spent after it is no stuck chain.
			return spend.report(factor, listDone ? spend.done : spend.figures(medianPerItem, sinceFinish));
		},
	}),
	breaker({
		code: "hard-cap",
		words: hardCap.words,
		setting: {
			key: "maxContinuations",
			flag: "til-done-max-continue",
			env: "TIL_DONE_MAX_CONTINUE",
			description: hardCap.description,
			default: MAX_AUTO_CONTINUE,
			min: 1,
			max: 10_000,
			integer: true,
		},
		trip: ({ chain, tail }, limit) => (chain.continuations >= limit ? hardCap.stop(limit, tail) : undefined),
		report: ({ chain }, limit) => hardCap.report(chain.continuations, limit),
	}),
	breaker({
		code: "budget-tokens",
		words: budgetTokens.words,
		setting: {
			key: "budgetTokens",
			flag: "til-done-budget-tokens",
			env: "TIL_DONE_BUDGET_TOKENS",
			description: budgetTokens.description,
			default: 0,
			min: 0,
			max: 1e12,
			integer: true,
		},
		trip: (input, budget) => tokenBudgetStop(input, budget, STOPPED.chain),
		report: ({ chain, inputPrice, next }, budget) =>
			budget > 0 ? budgetTokens.report(budget, next, forecastNext(chain.spend, inputPrice).tokens) : budgetTokens.none,
	}),
	breaker({
		code: "budget-cost",
		words: budgetCost.words,
		setting: {
			key: "budgetCost",
			flag: "til-done-budget-cost",
			env: "TIL_DONE_BUDGET_COST",
			description: budgetCost.description,
			default: 0,
			min: 0,
			max: 1e6,
			integer: false,
		},
		trip: (input, budget) => costBudgetStop(input, budget, STOPPED.chain),
		report: ({ chain, inputPrice, next, priced }, budget) => {
			if (budget <= 0) return budgetCost.none;
			if (priced === false) return budgetCost.unpriced(budget);
			const forecast = forecastNext(chain.spend, inputPrice);
			return budgetCost.report(budget, next, forecast.cost, forecast.nextCost !== undefined);
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

/**
 * What stopped a chain: a breaker, every open item waiting for one that is not completed, a shared plan's remote that
 * does not answer, or the user's key.
 */
export type StoppedBy =
	| StopCode
	| "blocked"
	| "remote-down"
	| "claims-malformed"
	| "workerless-shared"
	| "shared-unverified"
	| "interrupted";

/** Why a chain stopped, in a few words for the status bar. */
export function stopWords(code: StoppedBy): string {
	if (Object.hasOwn(STOP_WORDS, code)) return STOP_WORDS[code as keyof typeof STOP_WORDS];
	return BREAKERS.find((row) => row.code === code)?.words ?? code;
}

/** Every breaker's `/todos status` line, in the table's order. */
export function breakerReport(input: BreakerInput, limits: BreakerLimits): string[] {
	return BREAKERS.map((row) => row.report(input, limits[row.setting.key]));
}

/** The forecast a budget is held to: the next message's first call, or the workers about to start. */
function forecastOf({ chain, inputPrice, workers }: BreakerInput): Forecast {
	return workers === undefined
		? forecastNext(chain.spend, inputPrice)
		: forecastWorkers(chain.spend, workers, inputPrice);
}

/** The figures of a budget's stop by `workers` workers: how many, and what each one is forecast at and on what basis. */
function workersFigures(spend: ChainSpend, workers: number): Pick<WorkersBudgetStop, "workers" | "each" | "finished"> {
	return { workers, each: workerForecast(spend), finished: spend.perItem.length > 0 };
}

/** The token budget's stop when the next message's first call (or the workers) would cross it; `stopped` names what stops. */
export function tokenBudgetStop(input: BreakerInput, budget: number, stopped: string): string | undefined {
	const { chain, next, tail } = input;
	const forecast = forecastOf(input);
	if (budget <= 0 || forecast.tokens <= budget) return undefined;
	const { tokens, nextTokens: context } = forecast;
	const spent = chain.spend.tokens;
	if (input.workers !== undefined) {
		const figures = workersFigures(chain.spend, input.workers);
		return budgetTokens.workersStop({ stopped, forecast: tokens, budget, spent, tail, ...figures });
	}
	return budgetTokens.stop({ stopped, next, forecast: tokens, budget, spent, context, tail });
}

/** The cost budget's stop, forecast the same way, with the next call priced at the model's input price when known. */
export function costBudgetStop(input: BreakerInput, budget: number, stopped: string): string | undefined {
	const { chain, next, tail } = input;
	const forecast = forecastOf(input);
	if (budget <= 0 || forecast.cost <= budget) return undefined;
	const { cost, nextCost, nextTokens: context } = forecast;
	const spent = chain.spend.cost;
	if (input.workers !== undefined) {
		const figures = workersFigures(chain.spend, input.workers);
		return budgetCost.workersStop({ stopped, forecast: cost, budget, spent, nextCost, tail, ...figures });
	}
	return budgetCost.stop({ stopped, next, forecast: cost, budget, spent, context, nextCost, tail });
}
