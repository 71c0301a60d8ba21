/**
 * The lines a worker leaves in the transcript: its start, and how it ended (its kind of end, what it is remembered
 * as), each with its level. Pure; loaded with the workers.
 */

import type { FinishedWorker, WorkerEndKind, WorkerOutcome } from "../model/types.ts";
import { WORKER_TEXTS, workerWhy } from "../texts/user/workers.ts";
import { keptAnswer, type ReportLine } from "./reports.ts";

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
	// Another session landed the item: it is done, not ready again; this work stays under its ref.
	if (outcome.kind === "landed-elsewhere") return "kept";
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
