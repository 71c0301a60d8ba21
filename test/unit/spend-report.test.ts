import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { modelInputPrice, modelPriced, warnOfInertBudget } from "../../src/edges/host/model-price.ts";
import { inertCostBudget } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { freshStore } from "../helpers/store.ts";

/** A context whose session model is `model` (undefined: none), or whose model getter throws (a stale context). */
function ctxWith(model: unknown | "stale") {
	const fake = createFakeCtx({ mode: "rpc" });
	Object.defineProperty(fake.ctx, "model", {
		get: () => {
			if (model === "stale") throw new Error("stale context");
			return model;
		},
	});
	return { ctx: fake.ctx as ExtensionContext, warnings: () => fake.ui.notifications.map((n) => n.message) };
}

const PRICED = { provider: "acme", id: "big", cost: { input: 3, output: 15 } };
const FREE = { provider: "local", id: "llama", cost: { input: 0, output: 0 } };
const limits = (budgetCost: number, budgetTokens = 0) => ({ ...DEFAULT_CONFIG, budgetCost, budgetTokens });

beforeEach(() => freshStore());

describe("a model is priced when pi knows a price above 0 for its input or output", () => {
	it("priced, free, none, or a stale context", () => {
		expect(modelPriced(ctxWith(PRICED).ctx)).toBe(true);
		expect(modelPriced(ctxWith({ ...FREE, cost: { input: 0, output: 2 } }).ctx)).toBe(true);
		expect(modelPriced(ctxWith(FREE).ctx)).toBe(false);
		expect(modelPriced(ctxWith(undefined).ctx)).toBe(false);
		expect(modelPriced(ctxWith("stale").ctx)).toBe(false);
	});

	it("the input price is the model's price per million input tokens, none when it is 0 or unknown", () => {
		expect(modelInputPrice(ctxWith(PRICED).ctx)).toBe(3);
		expect(modelInputPrice(ctxWith(FREE).ctx)).toBeUndefined();
		expect(modelInputPrice(ctxWith(undefined).ctx)).toBeUndefined();
		expect(modelInputPrice(ctxWith("stale").ctx)).toBeUndefined();
	});
});

describe("a cost budget that cannot apply says so once, naming the model and what still applies", () => {
	it("an unpriced model with a cost budget: one warning, not repeated", () => {
		const { ctx, warnings } = ctxWith(FREE);
		warnOfInertBudget(ctx, limits(0.5));
		warnOfInertBudget(ctx, limits(0.5));
		expect(warnings()).toEqual([inertCostBudget("0.5000", "local/llama")]);
	});

	it("names the token budget when there is one", () => {
		const { ctx, warnings } = ctxWith(FREE);
		warnOfInertBudget(ctx, limits(2, 50_000));
		expect(warnings()).toEqual([inertCostBudget("2.0000", "local/llama", "50,000")]);
	});

	it("a stale context or no model: the model is named generically", () => {
		const stale = ctxWith("stale");
		warnOfInertBudget(stale.ctx, limits(1));
		expect(stale.warnings()).toEqual([inertCostBudget("1.0000", "this model")]);
		freshStore();
		const none = ctxWith(undefined);
		warnOfInertBudget(none.ctx, limits(1));
		expect(none.warnings()).toEqual([inertCostBudget("1.0000", "this model")]);
	});

	it("no cost budget, or a priced model: nothing is said", () => {
		const free = ctxWith(FREE);
		warnOfInertBudget(free.ctx, limits(0));
		const priced = ctxWith(PRICED);
		warnOfInertBudget(priced.ctx, limits(1));
		expect([...free.warnings(), ...priced.warnings()]).toEqual([]);
	});
});
