/** What a chain spent, as `/todos status` says it, and the model's price as pi knows it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { EngineLimits } from "../../core/rules/next-step.ts";
import { NOTICES, UNNAMED_MODEL } from "../../core/texts/user.ts";
import { takeUnreported } from "../../state.ts";
import { tell } from "./tell.ts";

/** Whether pi knows any price for the session's model: without one every call costs 0 and a cost budget is inert. */
export function modelPriced(ctx: ExtensionContext): boolean {
	try {
		const cost = ctx.model?.cost;
		return [cost?.input, cost?.output].some((price) => typeof price === "number" && price > 0);
	} catch {
		return false;
	}
}

/**
 * Says once, when a chain starts, that a cost budget cannot apply because pi knows no price for the model, and what
 * still stops the chain. Once per model and budget in this process: the words are the same until either changes.
 */
export function warnOfInertBudget(ctx: ExtensionContext, limits: EngineLimits): void {
	if (limits.budgetCost <= 0 || modelPriced(ctx)) return;
	let model = UNNAMED_MODEL;
	try {
		if (ctx.model) model = `${ctx.model.provider}/${ctx.model.id}`;
	} catch {
		// A stale context: the generic name will do.
	}
	for (const text of takeUnreported([NOTICES.inertCostBudget(limits.budgetCost, model, limits.budgetTokens)])) {
		tell(ctx, text, "warning");
	}
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
