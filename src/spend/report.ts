/** What a chain spent, as `/todos status` says it, and the model's price as pi knows it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { formatCost, formatTokens } from "../texts/user.ts";
import type { ChainSpend } from "./usage.ts";

export function spentLine(spend: ChainSpend): string {
	const cost = spend.cost > 0 ? `, cost ${formatCost(spend.cost)}` : "";
	return `Spent this chain: ${formatTokens(spend.tokens)} tokens in ${spend.calls} call(s)${cost}`;
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
