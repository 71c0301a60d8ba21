/**
 * The lines that stay: what the transcript keeps of the workers (each one's start, and how it ended) and of how a
 * chain ended (done, verified, not verified, a goal's or a loop's end), each with its level. A line of the session the
 * model never reads where there is a UI; a `[til-done]` line on stderr in print and JSON modes. Pure: the edges write
 * them, the words are core/texts/user.ts's.
 */

import type { FinishedWorker, WorkerEndKind, WorkerOutcome } from "../model/types.ts";
import { prefix } from "../texts/sanitize.ts";
import { GOAL_ENDS } from "../texts/user/goal.ts";
import { WORKER_TEXTS, workerWhy } from "../texts/user/workers.ts";
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

/** A worker started on item `index`. */
export const workerStartLine = (index: number, text: string): ReportLine => ({
	level: "info",
	text: WORKER_TEXTS.started(index, text),
});

/**
 * How a worker ended, as the user is told: landed; its pi could not start; given back, or, when the list no longer
 * holds its item where it was (`itemThere` false), its work kept aside.
 */
export function workerEndKind(outcome: WorkerOutcome, itemThere: boolean): WorkerEndKind {
	if (outcome.kind === "landed") return "landed";
	if (outcome.kind === "cannot-start") return "cannot-start";
	return itemThere ? "given-back" : "kept";
}

/** What a worker that ended on item `index` is remembered as: its end, time, tokens, files and last answer. */
export function finishedWorker(
	item: { index: number; text: string },
	outcome: WorkerOutcome,
	ran: { itemThere: boolean; seconds: number; tokens: number; answer: string; workKept?: boolean },
): FinishedWorker {
	const stoppedWithWork = outcome.kind === "stopped" && ran.workKept === true && ran.itemThere;
	return {
		...(stoppedWithWork ? { stoppedWithWork: true as const } : {}),
		index: item.index,
		text: item.text,
		end: workerEndKind(outcome, ran.itemThere),
		why: workerWhy(outcome),
		seconds: ran.seconds,
		tokens: ran.tokens,
		files: outcome.kind === "landed" ? outcome.files : [],
		answer: keptAnswer(ran.answer),
	};
}

/**
 * The line a worker's end leaves; undefined for a pi that could not start, which turns the workers off for the
 * session and is said once for all of them.
 */
export function workerEndLine(worker: FinishedWorker): ReportLine | undefined {
	switch (worker.end) {
		case "landed":
			return { level: "success", text: WORKER_TEXTS.landed(worker) };
		case "given-back":
			return {
				level: "warning",
				text: worker.stoppedWithWork
					? WORKER_TEXTS.stoppedWithWork(worker.index)
					: WORKER_TEXTS.givenBack(worker.index, worker.why),
			};
		case "kept":
			return { level: "warning", text: WORKER_TEXTS.workKept(worker.index, worker.why) };
		case "cannot-start":
			return undefined;
	}
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
