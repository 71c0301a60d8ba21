/** What a chain spent, as `/todos status` says it, and the model's price as pi knows it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** The model's price per million input tokens, when pi knows it (a model without prices says 0). */
export function modelInputPrice(ctx: ExtensionContext): number | undefined {
	try {
		const price = ctx.model?.cost?.input;
		return typeof price === "number" && price > 0 ? price : undefined;
	} catch {
		return undefined;
	}
}
