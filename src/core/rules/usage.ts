/**
 * What a chain (the runs since the user's last prompt) has cost, from the usage pi records on every assistant
 * message, and what that says about progress: tokens per finished item, the forecast of the next continuation.
 * Pure.
 */

import type { ChainSpend } from "../model/types.ts";

export type { ChainSpend };

/** The usage fields of an assistant message this extension reads (pi-ai's `Usage`). */
export interface UsageRecord {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: { total: number };
}

/** Items whose cost the median is taken over: the latest ones, so memory stays bounded in a long chain. */
export const MAX_SPEND_SAMPLES = 200;
/** Items a chain must have finished before the progress breaker can compare against their median. */
export const MIN_FINISHED_FOR_SPEND = 2;

export const NO_SPEND: ChainSpend = {
	tokens: 0,
	cost: 0,
	calls: 0,
	lastContext: 0,
	tokensAtFinish: 0,
	perItem: [],
	workerItems: [],
	judge: { tokens: 0, cost: 0, calls: 0 },
	workers: { tokens: 0, cost: 0, calls: 0 },
};

const count = (value: unknown): number =>
	typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

/** The usage of an assistant message, or undefined when it carries none (malformed numbers count as 0). */
export function readUsage(message: unknown): UsageRecord | undefined {
	const record = message as { role?: unknown; usage?: unknown } | undefined;
	const usage = record?.usage;
	if (record?.role !== "assistant" || typeof usage !== "object" || usage === null) return undefined;
	const fields = usage as Record<string, unknown>;
	return {
		input: count(fields.input),
		output: count(fields.output),
		cacheRead: count(fields.cacheRead),
		cacheWrite: count(fields.cacheWrite),
		cost: { total: count((fields.cost as { total?: unknown } | undefined)?.total) },
	};
}

/** What a call sent as input: input, cache read and cache write. */
const contextOf = (usage: UsageRecord): number => usage.input + usage.cacheRead + usage.cacheWrite;

/** A call's tokens: what it sent and what it answered. */
export const tokensOf = (usage: UsageRecord): number => contextOf(usage) + usage.output;

/** One more model call of the session's model: the next continuation sends its context again. */
export function addUsage(spend: ChainSpend, usage: UsageRecord): ChainSpend {
	return { ...addSideUsage(spend, usage), lastContext: contextOf(usage) };
}

/**
 * One call beside the session's own (a worker's, the judge's): it counts in the chain's spend like any call, but its
 * context is not sent again, so the forecast's last context stays the session's.
 */
export function addSideUsage(spend: ChainSpend, usage: UsageRecord): ChainSpend {
	return {
		...spend,
		tokens: spend.tokens + tokensOf(usage),
		cost: spend.cost + usage.cost.total,
		calls: spend.calls + 1,
	};
}

/** Who spends beside the session, counted apart in the chain's spend too. */
export type SideSpender = "judge" | "workers";

/** One call of the judge's or of a worker's: a call beside the session's, and counted apart too. */
export function addApartUsage(spend: ChainSpend, usage: UsageRecord, by: SideSpender): ChainSpend {
	const apart = spend[by];
	const counted = {
		tokens: apart.tokens + tokensOf(usage),
		cost: apart.cost + usage.cost.total,
		calls: apart.calls + 1,
	};
	return { ...addSideUsage(spend, usage), [by]: counted };
}

/**
 * The chain's tokens but its workers': a worker's tokens are its own item's, counted when that item lands, never
 * shared out among the items that happen to finish after them.
 */
const ownTokens = (spend: ChainSpend): number => spend.tokens - spend.workers.tokens;

/**
 * `finished` items were just finished. `byWorkers`: what the worker of each item among them that a worker landed spent
 * on it, that item's spend; the rest share the chain's own tokens since the last finish.
 */
export function noteFinished(spend: ChainSpend, finished: number, byWorkers: readonly number[] = []): ChainSpend {
	if (finished <= 0) return spend;
	const landed = byWorkers.slice(0, finished);
	const own = finished - landed.length;
	const each = own > 0 ? (ownTokens(spend) - spend.tokensAtFinish) / own : 0;
	const shares = Array.from({ length: own }, () => each);
	const perItem = [...spend.perItem, ...landed, ...shares].slice(-MAX_SPEND_SAMPLES);
	const workerItems = [...spend.workerItems, ...landed].slice(-MAX_SPEND_SAMPLES);
	return { ...spend, tokensAtFinish: ownTokens(spend), perItem, workerItems };
}

export function median(values: readonly number[]): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** What the progress breaker compares: tokens since the last finished item against the median per finished item. */
export interface SpendProgress {
	sinceFinish: number;
	medianPerItem: number;
	finished: number;
}

export function spendProgress(spend: ChainSpend): SpendProgress {
	return {
		sinceFinish: ownTokens(spend) - spend.tokensAtFinish,
		medianPerItem: median(spend.perItem),
		finished: spend.perItem.length,
	};
}

/**
 * The progress rule: true when `tokens` spent on unfinished work pass `factor` times the chain's median per finished
 * item, once that median is armed (a factor of 0 turns it off). A median of 0 (items finished for nothing) is no
 * yardstick: nothing spent could stay under it.
 */
export function overMedianSpend(tokens: number, spend: ChainSpend, factor: number): boolean {
	return overMedianOf(tokens, spend.perItem, factor);
}

/** The progress rule over `samples` (tokens per finished item): armed once two, and never against a median of 0. */
export function overMedianOf(tokens: number, samples: readonly number[], factor: number): boolean {
	if (factor <= 0 || samples.length < MIN_FINISHED_FOR_SPEND) return false;
	const perItem = median(samples);
	return perItem > 0 && tokens > factor * perItem;
}

/** True when the chain spends more than `factor` times its median per finished item without finishing another. */
export function spendsWithoutProgress(spend: ChainSpend, factor: number): boolean {
	return overMedianSpend(spendProgress(spend).sinceFinish, spend, factor);
}

/** The next continuation's first call, before it is sent: the spend so far plus the last context sent again. */
export interface Forecast {
	tokens: number;
	/** The cost so far plus the next call's, or only the cost so far when the model's input price is unknown. */
	cost: number;
	/** What the next call adds: the last context, in tokens, and priced when the price is known. */
	nextTokens: number;
	nextCost: number | undefined;
}

/**
 * The spend so far plus `tokens` more, priced as input tokens when the price is known: every forecast a budget is held
 * to (the next continuation, the workers about to start, the judge's call). `inputPrice` is the model's price per
 * million input tokens, when pi knows it.
 */
export function forecastSpend(spend: ChainSpend, tokens: number, inputPrice: number | undefined): Forecast {
	const nextCost = inputPrice !== undefined && inputPrice > 0 ? (tokens * inputPrice) / 1_000_000 : undefined;
	return { tokens: spend.tokens + tokens, cost: spend.cost + (nextCost ?? 0), nextTokens: tokens, nextCost };
}

/** The next continuation's first call: it sends the last context again. */
export function forecastNext(spend: ChainSpend, inputPrice: number | undefined): Forecast {
	return forecastSpend(spend, spend.lastContext, inputPrice);
}

/**
 * What one more worker is forecast to spend, in tokens: the median per finished item, or before any is finished the
 * session's last context (a worker's first call sends about what a first call of the session does).
 */
export function workerForecast(spend: ChainSpend): number {
	if (spend.workerItems.length > 0) return median(spend.workerItems);
	return spend.perItem.length > 0 ? median(spend.perItem) : spend.lastContext;
}

/** `workers` more workers, before they start: the spend so far plus each one's forecast, priced as input when known. */
export function forecastWorkers(spend: ChainSpend, workers: number, inputPrice: number | undefined): Forecast {
	return forecastSpend(spend, workers * workerForecast(spend), inputPrice);
}
