import { describe, expect, it } from "vitest";
import {
	CHAIN_BUDGET,
	costBudgetMessage,
	errorLimitMessage,
	hardCapMessage,
	LOOP_BUDGET,
	noProgressMessage,
	repeatedAnswerMessage,
	spendMessage,
	tokenBudgetMessage,
	UNVERIFIED_TAIL,
} from "../../src/continue/stop-texts.ts";
import { NO_SPEND } from "../../src/spend/usage.ts";

const TAKE_OVER = "Remaining todos were not completed. Take over manually.";

describe("the breakers' messages say what stopped and what was left", () => {
	it("words the hard-cap message as the seed does", () => {
		expect(hardCapMessage(20)).toBe(`Auto-continue limit reached (20 iterations). ${TAKE_OVER}`);
	});

	it("explains the no-progress stop: only completions count as progress", () => {
		expect(noProgressMessage(3)).toBe(
			`Auto-continue stopped: no todo was completed in the last 3 continuations. ${TAKE_OVER}`,
		);
	});

	it("explains the failure stop", () => {
		expect(errorLimitMessage(3)).toBe(
			`Auto-continue stopped after 3 failed runs in a row (provider error or output limit). ${TAKE_OVER}`,
		);
	});

	it("explains the repeated-answer stop", () => {
		expect(repeatedAnswerMessage(3)).toBe(
			`Auto-continue stopped: the last 3 continued runs ended with the same answer. ${TAKE_OVER}`,
		);
	});

	it("ends with the failed verification when every item is finished", () => {
		expect(noProgressMessage(3, UNVERIFIED_TAIL)).toBe(
			"Auto-continue stopped: no todo was completed in the last 3 continuations. The finished list did not pass its verification. Take over manually.",
		);
	});
});

describe("the progress breaker's message gives its figures", () => {
	it("names the tokens since the last finished item, the factor, the median and the count", () => {
		expect(spendMessage({ sinceFinish: 45_678.4, medianPerItem: 3456, finished: 3 }, 5)).toBe(
			`Auto-continue stopped: 45,678 tokens since the last finished todo, more than 5 × the median of 3,456 tokens per finished todo (3 finished in this chain). ${TAKE_OVER}`,
		);
	});
});

describe("a budget's message gives the forecast, the budget and how it was reached", () => {
	const forecast = { tokens: 123_456, cost: 1.2345, nextTokens: 13_456, nextCost: 0.1345 };

	it("tokens, for the todo chain", () => {
		expect(tokenBudgetMessage(forecast, 100_000, 110_000, CHAIN_BUDGET)).toBe(
			`Auto-continue stopped: the next continuation would bring this chain to about 123,456 tokens, over its budget of 100,000 (110,000 spent so far, and its first call sends the last context of 13,456 tokens again). ${TAKE_OVER}`,
		);
	});

	it("cost, priced with the model's input price", () => {
		expect(costBudgetMessage(forecast, 1, 1.1, CHAIN_BUDGET)).toBe(
			`Auto-continue stopped: the next continuation would bring this chain to a cost of about 1.2345, over its budget of 1.0000 (1.1000 spent so far; its first call sends the last context of 13,456 tokens again, about 0.1345). ${TAKE_OVER}`,
		);
	});

	it("cost, when the model's price is unknown", () => {
		expect(costBudgetMessage({ ...forecast, cost: 1.1, nextCost: undefined }, 1, 1.1, CHAIN_BUDGET)).toBe(
			`Auto-continue stopped: the next continuation would bring this chain to a cost of about 1.1000, over its budget of 1.0000 (1.1000 spent so far; the model's price for the next call is unknown). ${TAKE_OVER}`,
		);
	});

	it("a loop's next iteration, without the todo tail", () => {
		expect(
			tokenBudgetMessage({ ...forecast, tokens: 2000, nextTokens: 500 }, 1000, NO_SPEND.tokens + 1500, LOOP_BUDGET),
		).toBe(
			"Loop stopped: the next loop iteration would bring this chain to about 2,000 tokens, over its budget of 1,000 (1,500 spent so far, and its first call sends the last context of 500 tokens again).",
		);
	});
});
