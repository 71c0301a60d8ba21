/** The spend lines of `/todos status`: what the chain cost, its budgets with the next forecast, the progress breaker. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { EngineLimits } from "../continue/planner.ts";
import { formatCost, formatTokens } from "../continue/stop-texts.ts";
import { type ChainSpend, forecastNext, MIN_FINISHED_FOR_SPEND, spendProgress } from "./usage.ts";

function spentLine(spend: ChainSpend): string {
	const cost = spend.cost > 0 ? `, cost ${formatCost(spend.cost)}` : "";
	return `Spent this chain: ${formatTokens(spend.tokens)} tokens in ${spend.calls} call(s)${cost}`;
}

function budgetLine(spend: ChainSpend, limits: EngineLimits, inputPrice: number | undefined, next: string): string {
	const { budgetTokens = 0, budgetCost = 0 } = limits;
	if (budgetTokens <= 0 && budgetCost <= 0) return "Budget: none";
	const forecast = forecastNext(spend, inputPrice);
	const parts: string[] = [];
	if (budgetTokens > 0) {
		parts.push(`${formatTokens(budgetTokens)} tokens (next ${next}: about ${formatTokens(forecast.tokens)})`);
	}
	if (budgetCost > 0) {
		const priced = forecast.nextCost === undefined ? ", the next call's price unknown" : "";
		parts.push(`cost ${formatCost(budgetCost)} (next ${next}: about ${formatCost(forecast.cost)}${priced})`);
	}
	return `Budget: ${parts.join("; ")}`;
}

function progressLine(spend: ChainSpend, factor: number): string {
	if (factor <= 0) return "Progress breaker: off";
	const { sinceFinish, medianPerItem, finished } = spendProgress(spend);
	const figures =
		finished < MIN_FINISHED_FOR_SPEND
			? `armed once ${MIN_FINISHED_FOR_SPEND} todos are finished, ${finished} so far`
			: `median ${formatTokens(medianPerItem)}, ${formatTokens(sinceFinish)} since the last finished todo`;
	return `Progress breaker: ${factor} × the median tokens per finished todo; ${figures}`;
}

/** `next` names what a budget is forecast for: the chain's next `continuation`, or a `/loop`'s next `loop iteration`. */
export function formatSpendLines(
	spend: ChainSpend,
	limits: EngineLimits,
	inputPrice: number | undefined,
	next = "continuation",
): string[] {
	return [spentLine(spend), budgetLine(spend, limits, inputPrice, next), progressLine(spend, limits.spendFactor ?? 0)];
}

/** The model's price per million input tokens, when pi knows it (a model without prices says 0). */
export function modelInputPrice(ctx: ExtensionContext): number | undefined {
	try {
		const price = ctx.model?.cost?.input;
		return typeof price === "number" && price > 0 ? price : undefined;
	} catch {
		return undefined;
	}
}
