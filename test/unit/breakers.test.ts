import { describe, expect, it } from "vitest";
import {
	BREAKERS,
	type BreakerInput,
	type BreakerLimits,
	breakerReport,
	costBudgetStop,
	stopWords,
	tokenBudgetStop,
	trippedBreaker,
} from "../../src/core/rules/breakers.ts";
import { NUMERIC_SETTINGS } from "../../src/core/rules/settings.ts";
import { type ChainSpend, NO_SPEND } from "../../src/core/rules/usage.ts";
import { UNFINISHED_TAIL, UNVERIFIED_TAIL } from "../../src/core/texts/user.ts";
import { costBudgetStop as costStopText, TAKE_OVER, tokenBudgetStop as tokenStopText } from "../helpers/expected.ts";

/** Every breaker off or far away: each test arms the one it is about. */
const QUIET: BreakerLimits = {
	maxFailures: 100,
	maxSameAnswers: 0,
	maxNoProgress: 0,
	spendFactor: 0,
	maxContinuations: 10_000,
	budgetTokens: 0,
	budgetCost: 0,
};
const spend = (fields: Partial<ChainSpend>): ChainSpend => ({ ...NO_SPEND, ...fields });
const input = (chain: Partial<BreakerInput["chain"]> = {}, fields: Partial<BreakerInput> = {}): BreakerInput => ({
	chain: { continuations: 0, noProgress: 0, failures: 0, sameAnswers: 0, spend: NO_SPEND, ...chain },
	tail: UNFINISHED_TAIL,
	next: "continuation",
	...fields,
});

describe("each breaker trips at its limit with a stop text that names the limit and what was left", () => {
	it.each([
		[
			"failures",
			{ failures: 3 },
			{ maxFailures: 3 },
			`Auto-continue stopped after 3 failed runs in a row (provider error or output limit). ${TAKE_OVER}`,
		],
		[
			"failures",
			{ failures: 3, lastWorkerFailure: "its check failed in its tree (exit code 1)" },
			{ maxFailures: 3 },
			`Auto-continue stopped after 3 failed runs in a row, the last a worker's (its check failed in its tree (exit code 1)). ${TAKE_OVER}`,
		],
		[
			"repeated-answer",
			{ sameAnswers: 3 },
			{ maxSameAnswers: 3 },
			`Auto-continue stopped: the last 3 continued runs ended with the same answer. ${TAKE_OVER}`,
		],
		[
			"no-progress",
			{ noProgress: 3 },
			{ maxNoProgress: 3 },
			`Auto-continue stopped: no todo was completed in the last 3 continuations. ${TAKE_OVER}`,
		],
		[
			"hard-cap",
			{ continuations: 20 },
			{ maxContinuations: 20 },
			`Auto-continue limit reached (20 iterations). ${TAKE_OVER}`,
		],
	] as const)("%s", (code, chain, limits, text) => {
		expect(trippedBreaker(input(chain), { ...QUIET, ...limits })).toEqual({ code, text });
		const below = Object.fromEntries(Object.entries(chain).map(([key, value]) => [key, value - 1]));
		expect(trippedBreaker(input(below), { ...QUIET, ...limits })).toBeUndefined();
	});

	it("ends with the failed verification when every item is finished", () => {
		expect(trippedBreaker(input({ noProgress: 3 }, { tail: UNVERIFIED_TAIL }), { ...QUIET, maxNoProgress: 3 })).toEqual(
			{
				code: "no-progress",
				text: "Auto-continue stopped: no todo was completed in the last 3 continuations. The finished list did not pass its verification. Take over manually.",
			},
		);
	});

	it("the progress breaker names the tokens since the last finished item, the factor, the median and the count", () => {
		const chain = { spend: spend({ tokens: 52_678.4, tokensAtFinish: 7000, perItem: [3456, 3456, 3456] }) };
		expect(trippedBreaker(input(chain), { ...QUIET, spendFactor: 5 })).toEqual({
			code: "spend",
			text: `Auto-continue stopped: 45,678 tokens since the last finished todo, more than 5 × the median of 3,456 tokens per finished todo (3 finished in this chain). ${TAKE_OVER}`,
		});
	});

	it("a limit of 0 turns the repeated-answer, no-progress, progress and budget breakers off", () => {
		const chain = { sameAnswers: 99, noProgress: 99, spend: spend({ tokens: 1e9, lastContext: 1e6, perItem: [1, 1] }) };
		expect(trippedBreaker(input(chain), QUIET)).toBeUndefined();
	});

	it("checks in the table's order: failures, repeated answer, no progress, spend, hard cap, then the budgets", () => {
		expect(BREAKERS.map((row) => row.code)).toEqual([
			"failures",
			"repeated-answer",
			"no-progress",
			"spend",
			"hard-cap",
			"budget-tokens",
			"budget-cost",
		]);
		const all = { failures: 3, sameAnswers: 3, noProgress: 3, continuations: 20 };
		const limits = { ...QUIET, maxFailures: 3, maxSameAnswers: 3, maxNoProgress: 3, maxContinuations: 20 };
		expect(trippedBreaker(input(all), limits)?.code).toBe("failures");
		expect(trippedBreaker(input({ ...all, failures: 0 }), limits)?.code).toBe("repeated-answer");
	});
});

describe("a budget stops the message whose first call, forecast, would cross it", () => {
	const chain = { spend: spend({ tokens: 110_000, cost: 1.1, lastContext: 13_456 }) };

	it("tokens: the spend so far plus the last context sent again", () => {
		expect(tokenBudgetStop(input(chain), 100_000, "Auto-continue stopped")).toBe(
			`${tokenStopText(123_456, 100_000, 110_000, 13_456)}`,
		);
		expect(tokenBudgetStop(input(chain), 123_456, "Auto-continue stopped")).toBeUndefined();
	});

	it("cost: the next call priced at the model's input price", () => {
		const priced = input(chain, { inputPrice: 10 });
		expect(costBudgetStop(priced, 1, "Auto-continue stopped")).toBe(
			costStopText(1.1 + 0.13456, 1, 1.1, 13_456, 0.13456),
		);
	});

	it("cost, when the model's price is unknown: the spend so far", () => {
		expect(costBudgetStop(input(chain), 1, "Auto-continue stopped")).toBe(
			`Auto-continue stopped: the next continuation would bring this chain to a cost of about 1.1000, over its budget of 1.0000 (1.1000 spent so far; the model's price for the next call is unknown). ${TAKE_OVER}`,
		);
	});

	it("a loop's next iteration, without the todo tail", () => {
		const loop = input({ spend: spend({ tokens: 1500, lastContext: 500 }) }, { tail: "", next: "loop iteration" });
		expect(tokenBudgetStop(loop, 1000, "Loop stopped")).toBe(
			"Loop stopped: the next loop iteration would bring this chain to about 2,000 tokens, over its budget of 1,000 (1,500 spent so far, and its first call sends the last context of 500 tokens again).",
		);
	});
});

describe("every breaker has its setting, its status-bar words and its /todos status line", () => {
	it("a cost budget for a model without a price says it cannot apply", () => {
		const lines = breakerReport(input({}, { priced: false }), { ...QUIET, budgetCost: 0.5 });
		expect(lines.at(-1)).toBe("Cost budget: 0.5000 (cannot apply: pi knows no price for this model)");
	});

	it("each row's setting is a numeric setting of the configuration", () => {
		for (const row of BREAKERS) expect(NUMERIC_SETTINGS).toContainEqual(row.setting);
	});

	it("the status bar's words name why the chain stopped", () => {
		expect(BREAKERS.map((row) => [row.code, stopWords(row.code)])).toEqual([
			["failures", "failed runs"],
			["repeated-answer", "the same answer again and again"],
			["no-progress", "no todo completed"],
			["spend", "spending without progress"],
			["hard-cap", "continuation limit reached"],
			["budget-tokens", "token budget"],
			["budget-cost", "cost budget"],
		]);
	});

	it("the status bar's words for a stop no breaker made", () => {
		const codes = ["blocked", "remote-down", "claims-malformed", "workerless-shared", "interrupted"] as const;
		expect(codes.map((code) => stopWords(code))).toEqual([
			"no item is ready",
			"the remote does not answer",
			"a claim ref holds no claim",
			"a shared plan has no worker",
			"interrupted by you",
		]);
	});

	it("the status lines, in the table's order, with off for a limit of 0", () => {
		const limits = { ...QUIET, maxFailures: 3, maxContinuations: 20, spendFactor: 5, budgetTokens: 1000 };
		const chain = { failures: 1, continuations: 2, spend: spend({ tokens: 400, lastContext: 100 }) };
		expect(breakerReport(input(chain), limits)).toEqual([
			"Failed runs in a row: 1/3",
			"Same answer in a row: off",
			"Continuations without progress: off",
			"Progress breaker: 5 × the median tokens per finished todo; armed once 2 todos are finished, 0 so far",
			"Continuations this prompt: 2/20",
			"Token budget: 1,000 (next continuation: about 500)",
			"Cost budget: none",
		]);
	});
});
