/** The store as a unit test needs it: emptied, and painted into a fake context the way a session paints it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { getChain, getLoop, getState, recordSend, resetState, subscribe } from "../../src/state.ts";
import { createPainter } from "../../src/ui/painter.ts";

/** Empties the store; with `ctx`, every later change is painted into its UI, as a session's painter does. */
export function freshStore(ctx?: ExtensionContext): void {
	resetState();
	if (ctx) subscribe(createPainter(ctx, () => ({ ...getState(), toVerify: false })));
}

/** What sending a continuation stores: one more continuation, and no progress yet since it. */
export function sendContinuation(): void {
	const chain = getChain();
	recordSend({ chain: { ...chain, continuations: chain.continuations + 1, progressed: false }, loop: getLoop() });
}
