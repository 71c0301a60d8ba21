/**
 * The one way to tell the user something, in every mode: a notice where there is a UI, or a line that stays in the
 * transcript (what must not be missed: a worker's start and end, how a chain ended); `[til-done]` lines on stderr where
 * there is no UI (print and JSON modes keep stdout for the model's answer and the event stream).
 */

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { REPORT_ENTRY_TYPE } from "../../core/rules/keys.ts";
import type { ReportLine } from "../../core/rules/reports.ts";
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
 * process's own session writes to its stderr: a session nested in another's process (a nested guest) has no user
 * of its own, and its lines would land in the middle of the process's own session's.
 */
export function tell(ctx: ExtensionContext, text: string, level: NoticeLevel = "info"): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else toStderr(text);
	});
}

/**
 * Tells the user a line that stays: where there is a UI, a custom entry of the session, which the transcript shows
 * (at once, and on a resume) and the model never reads, where a notice would be overwritten by the next one; else
 * what {@link tell} writes.
 */
export function tellLasting(pi: ExtensionAPI, ctx: ExtensionContext, line: ReportLine): void {
	quietly(() => {
		if (ctx.hasUI) pi.appendEntry(REPORT_ENTRY_TYPE, line);
		else toStderr(line.text);
	});
}

function toStderr(text: string): void {
	if (getRole() === "nested") return;
	writeStderr(text);
}

/**
 * Tells the user from a copy of the extension that has no session of its own (a second copy, which stands aside):
 * there is no role to read, so the line is written as the process's own session would.
 */
export function tellWithoutSession(ctx: ExtensionContext, text: string, level: NoticeLevel): void {
	quietly(() => {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else writeStderr(text);
	});
}

function writeStderr(text: string): void {
	keepGoingIfStderrCloses();
	process.stderr.write(stderrLines(text));
}

let stderrWatched = false;

/**
 * A reader of stderr that went away (`pi -p … 2>&1 | head -1`, a closed terminal) loses our lines, never the run: a
 * write to a closed pipe is an `error` event on the stream, which, with no listener, would end pi mid-work (a worker's
 * claim and tree left behind).
 */
function keepGoingIfStderrCloses(): void {
	if (stderrWatched) return;
	stderrWatched = true;
	process.stderr.on("error", () => {});
}
