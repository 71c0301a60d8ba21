/** The one way a command of the user's says no: `/todos`, `/goal` and `/loop` refuse through it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { tell } from "../host/tell.ts";
import type { Engine } from "../run/engine.ts";
import { exitRefused } from "../run/modes.ts";

/**
 * Refuses a command: `text` says why, and nothing of it is done. Where the process ends with the invocation (`pi -p`,
 * JSON mode) it exits 2, so a script never reads success from a command that did nothing.
 */
export function refuseCommand(engine: Pick<Engine, "actsBeforeSettle">, ctx: ExtensionContext, text: string): void {
	tell(ctx, text, "error");
	if (engine.actsBeforeSettle) exitRefused();
}
