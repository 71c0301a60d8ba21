/**
 * The lines that stay: what the transcript keeps of how a chain ended (done, verified, not verified, a goal's or a
 * loop's end), each with its level, and what is kept of a worker's answer (a worker's own lines are
 * worker-reports.ts'). A line of the session the model never reads where there is a UI; a `[til-done]` line on stderr
 * in print and JSON modes. Pure: the edges write them, the words are core/texts/user.ts's.
 */

import { prefix } from "../texts/sanitize.ts";
import { GOAL_ENDS } from "../texts/user/goal.ts";
import { completionNotice, type PassedBy } from "../texts/user.ts";
import type { Step } from "./next-step.ts";

/** Characters of a worker's last answer kept. */
export const MAX_WORKER_ANSWER_CHARS = 20_000;

/** A worker's last answer as it is kept: its first {@link MAX_WORKER_ANSWER_CHARS} characters. */
export const keptAnswer = (answer: string): string => prefix(answer, MAX_WORKER_ANSWER_CHARS);

/** A line that stays in the transcript: its words, and how it is shown (success, a warning, or just told). */
export interface ReportLine {
	level: "info" | "success" | "warning";
	text: string;
}

/**
 * How a chain's end stays in the transcript: a loop's or a goal's end (done or met a success, any other a warning), a
 * finished list (done, and verified by what `passed` ran), or one the judge left not verified (`decision`: its
 * sentence). Undefined for an end that is not an outcome: a stop is a message of its own, a wait a notice.
 */
export function chainEndLine(
	step: Step,
	{ decision, items, passed }: { decision: string; items: number; passed?: PassedBy },
): ReportLine | undefined {
	if (step.kind === "end-loop") return { level: step.level === "info" ? "success" : "warning", text: step.text };
	if (step.kind !== "idle") return undefined;
	if (step.code === "all-done")
		return { level: "success", text: completionNotice(items, step.verified === true ? passed : undefined) };
	if (step.code === "unverified") return { level: "warning", text: decision };
	return undefined;
}

/** A goal that ends with its list, which the judge passed. */
export const GOAL_MET_WITH_LIST: ReportLine = { level: "success", text: GOAL_ENDS.listMet };
