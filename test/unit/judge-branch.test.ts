import { describe, expect, it } from "vitest";
import { lastVerdict } from "../../src/core/rules/branch.ts";
import { VERDICT_ENTRY_TYPE } from "../../src/core/rules/keys.ts";
import { addApartUsage, NO_SPEND } from "../../src/core/rules/usage.ts";

const verdict = (data: unknown) => [{ type: "custom", customType: VERDICT_ENTRY_TYPE, data }];
const failed = { passed: false, failed: ["the judge ([0] cannot tell: r)"], checks: 1 };

describe("the judge's verdict is read back from the branch, or not trusted at all", () => {
	it.each([
		[
			"judged, with a goal",
			{
				judged: true,
				items: [{ index: 0, verdict: "cannot tell", reason: "r" }],
				goal: { verdict: "met", reason: "g" },
			},
		],
		["judged", { judged: true, items: [{ index: 0, verdict: "not met", reason: "r" }] }],
		["not judged", { judged: false, why: "the call failed: boom" }],
	])("%s: kept", (_name, judge) => {
		expect(lastVerdict(verdict({ ...failed, judge }))).toEqual({ ...failed, judge });
	});

	it.each([
		["a word of its own", { judged: true, items: [{ index: 0, verdict: "done", reason: "r" }] }],
		["no reason", { judged: true, items: [{ index: 0, verdict: "met" }] }],
		["an index that is no index", { judged: true, items: [{ index: -0.5, verdict: "met", reason: "r" }] }],
		["no items", { judged: true }],
		["a malformed goal", { judged: true, items: [], goal: { verdict: "yes" } }],
		["not judged, without why", { judged: false }],
		["neither", { judged: "maybe" }],
	])("%s: the whole verdict is skipped", (_name, judge) => {
		expect(lastVerdict(verdict({ ...failed, judge }))).toBeUndefined();
	});
});

describe("the judge's spend", () => {
	it("counts in the chain's and its own, and leaves the working model's last context for the forecast", () => {
		const spend = { ...NO_SPEND, tokens: 1_000, calls: 2, lastContext: 400 };
		const usage = { input: 300, output: 50, cacheRead: 20, cacheWrite: 10, cost: { total: 0.25 } };
		expect(addApartUsage(spend, usage, "judge")).toEqual({
			...spend,
			tokens: 1_380,
			cost: 0.25,
			calls: 3,
			judge: { tokens: 380, cost: 0.25, calls: 1 },
		});
	});

	it("a worker's call likewise counts in the chain's and in the workers' own, apart from the judge's", () => {
		const spend = { ...NO_SPEND, tokens: 1_000, calls: 2, lastContext: 400 };
		const usage = { input: 300, output: 50, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } };
		expect(addApartUsage(addApartUsage(spend, usage, "workers"), usage, "workers")).toEqual({
			...spend,
			tokens: 1_700,
			calls: 4,
			workers: { tokens: 700, cost: 0, calls: 2 },
		});
	});
});
