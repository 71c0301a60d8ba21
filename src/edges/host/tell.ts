/**
 * The one way to tell the user something, in every mode: a notice where there is a UI, `[til-done]` lines on stderr
 * where there is none (print and JSON modes keep stdout for the model's answer and the event stream).
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { getRole } from "../../state.ts";
import { quietly } from "./quietly.ts";

export type NoticeLevel = "info" | "warning" | "error";

/** What starts every stderr line of ours, so a script can tell them from pi's. */
export const STDERR_PREFIX = "[til-done] ";

/** Every line prefixed, so a script that keeps our lines keeps all of a several-line message. */
export function stderrLines(text: string): string {
	return text
		.split("\n")
		.map((line) => `${STDERR_PREFIX}${line}\n`)
		.join("");
}

/**
 * Tells the user; a context gone stale (its session was replaced) is nobody left to tell. Without a UI, only the
 * process's own session writes to its stderr: a session nested in another's process (an in-process subagent) has no
 * user of its own, and its lines would land in the middle of the parent's.
 */
export function tell(ctx: ExtensionContext, text: string, level: NoticeLevel = "info"): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else if (getRole() !== "nested") process.stderr.write(stderrLines(text));
	});
}
