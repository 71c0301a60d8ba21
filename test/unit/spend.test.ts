import { describe, expect, it } from "vitest";
import {
	addUsage,
	type ChainSpend,
	forecastNext,
	MAX_SPEND_SAMPLES,
	median,
	NO_SPEND,
	noteFinished,
	readUsage,
	spendProgress,
	spendsWithoutProgress,
	type UsageRecord,
} from "../../src/core/rules/usage.ts";

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, cost = 0): UsageRecord => ({
	input,
	output,
	cacheRead,
	cacheWrite,
	cost: { total: cost },
});

describe("a model call's usage is read from its assistant message, and malformed numbers count as nothing", () => {
	it("reads the four token counts and the cost total", () => {
		const message = {
			role: "assistant",
			usage: { input: 10, output: 5, cacheRead: 100, cacheWrite: 20, totalTokens: 135, cost: { total: 0.25 } },
		};
		expect(readUsage(message)).toStrictEqual(usage(10, 5, 100, 20, 0.25));
	});

	it.each([
		["a user message", { role: "user", usage: { input: 1 } }],
		["an assistant message without usage", { role: "assistant" }],
		["usage that is not an object", { role: "assistant", usage: "lots" }],
		["nothing", undefined],
	])("ignores %s", (_name, message) => {
		expect(readUsage(message)).toBeUndefined();
	});

	it("counts negative, non-finite and non-numeric fields as 0", () => {
		const message = {
			role: "assistant",
			usage: { input: -5, output: Number.NaN, cacheRead: "9", cost: { total: -1 } },
		};
		expect(readUsage(message)).toStrictEqual(usage(0, 0, 0, 0, 0));
	});
});

describe("a chain's spend adds up every call: tokens are input + output + cache read + cache write", () => {
	it("adds tokens, cost and calls, and keeps the last call's context (what it sent as input)", () => {
		const spend = addUsage(addUsage(NO_SPEND, usage(100, 10, 0, 50, 0.01)), usage(20, 30, 150, 5, 0.02));
		expect(spend).toStrictEqual({ ...NO_SPEND, tokens: 365, cost: 0.03, calls: 2, lastContext: 175 });
	});
});

describe("tokens per finished item", () => {
	const at = (tokens: number, from: ChainSpend = NO_SPEND): ChainSpend => ({ ...from, tokens });

	it("gives a finished item the tokens since the last finish, and several finished at once an equal share", () => {
		let spend = noteFinished(at(1000), 1);
		spend = noteFinished(at(1600, spend), 2);
		expect(spend.perItem).toEqual([1000, 300, 300]);
		expect(spend.tokensAtFinish).toBe(1600);
	});

	it("gives an item a worker landed what its worker spent, and the rest a share of the chain's own tokens", () => {
		const withWorkers = (tokens: number, workers: number, from: ChainSpend = NO_SPEND): ChainSpend => ({
			...from,
			tokens,
			workers: { ...from.workers, tokens: workers },
		});
		let spend = noteFinished(withWorkers(10_000, 9_000), 1, [4_000]);
		expect(spend.perItem).toEqual([4_000]);
		expect(spend.tokensAtFinish).toBe(1_000);
		spend = noteFinished(withWorkers(11_600, 9_000, spend), 2);
		expect(spend.perItem).toEqual([4_000, 800, 800]);
		expect(spend.tokensAtFinish).toBe(2_600);
	});

	it("changes nothing when nothing was finished", () => {
		const spend = at(500);
		expect(noteFinished(spend, 0)).toBe(spend);
	});

	it(`keeps only the last ${MAX_SPEND_SAMPLES} items`, () => {
		let spend = NO_SPEND;
		for (let i = 1; i <= MAX_SPEND_SAMPLES + 5; i++) spend = noteFinished(at(i * 10, spend), 1);
		expect(spend.perItem).toHaveLength(MAX_SPEND_SAMPLES);
	});

	it("takes the median of an odd and an even count", () => {
		expect(median([5, 1, 3])).toBe(3);
		expect(median([4, 1, 3, 2])).toBe(2.5);
		expect(median([])).toBe(0);
	});
});

describe("the progress breaker: tokens since the last finished item against K × the median per finished item", () => {
	const spend = (perItem: number[], sinceFinish: number): ChainSpend => ({
		...NO_SPEND,
		perItem,
		tokensAtFinish: 10_000,
		tokens: 10_000 + sinceFinish,
	});

	it("trips only above K × the median", () => {
		expect(spendsWithoutProgress(spend([1000, 2000, 3000], 10_000), 5)).toBe(false);
		expect(spendsWithoutProgress(spend([1000, 2000, 3000], 10_001), 5)).toBe(true);
	});

	it("waits until the chain has finished 2 items", () => {
		expect(spendsWithoutProgress(spend([1000], 1_000_000), 5)).toBe(false);
		expect(spendsWithoutProgress(spend([1000, 1000], 5001), 5)).toBe(true);
	});

	it("never trips against a median of 0: items finished for nothing are no yardstick", () => {
		expect(spendsWithoutProgress(spend([0, 0, 0], 1), 5)).toBe(false);
		expect(spendsWithoutProgress(spend([0, 0, 1], 6), 5)).toBe(false);
	});

	it("is off with a factor of 0", () => {
		expect(spendsWithoutProgress(spend([1000, 1000], 1_000_000), 0)).toBe(false);
	});

	it("reports its figures", () => {
		expect(spendProgress(spend([1000, 2000, 3000], 4500))).toStrictEqual({
			sinceFinish: 4500,
			medianPerItem: 2000,
			finished: 3,
		});
	});
});

describe("the forecast of the next continuation's first call: the spend plus the last context sent again", () => {
	const spent: ChainSpend = { ...NO_SPEND, tokens: 50_000, cost: 0.5, calls: 4, lastContext: 12_000 };

	it("prices the next call with the model's input price per million tokens", () => {
		expect(forecastNext(spent, 3)).toStrictEqual({ tokens: 62_000, cost: 0.536, nextTokens: 12_000, nextCost: 0.036 });
	});

	it("without a price, forecasts the cost as what was spent", () => {
		expect(forecastNext(spent, undefined)).toStrictEqual({
			tokens: 62_000,
			cost: 0.5,
			nextTokens: 12_000,
			nextCost: undefined,
		});
	});
});
