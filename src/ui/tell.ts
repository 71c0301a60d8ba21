/** Telling the user something in any mode: a notice where there is a UI, a `[til-done]` line on stderr where not. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { quietly } from "./guard.ts";

export type NoticeLevel = "info" | "warning" | "error";

/** Print and JSON modes keep stdout for the model's answer and the event stream; a notice goes to stderr there. */
export function tellUser(ctx: ExtensionContext, text: string, level: NoticeLevel): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`[til-done] ${text}\n`);
	});
}
