/**
 * A worker: what it is told, its end as a kind, whether the list still holds its item, and what `/todos workers` reads
 * of one. A worker gets a fresh context that holds only its item, the user's request and the list, compact and marked
 * as data. Pure, and loaded with the workers (edges/workers/session-workers.ts, edges/commands/workers.ts); which items go to workers and when they stop is
 * core/rules/worker-dispatch.ts's.
 */

import { getPlainIcon } from "../list/list-text.ts";
import type { CheckRun, TodoItem, WorkerOutcome } from "../model/types.ts";
import { NOT_DONE_MARK, WORKER_PROMPT } from "../texts/model.ts";
import { oneLine, prefix } from "../texts/sanitize.ts";
import { type ChainSpend, median, overMedianOf } from "./usage.ts";

/** The most characters of the list and of the user's request a worker's prompt carries; an item's text goes whole. */
export const WORKER_LIMITS = { list: 6_000, request: 4_000, line: 60 } as const;

/** The list as a worker sees it: one line per item (its state, index and text cut), within the list's budget. */
function listLines(todos: readonly TodoItem[]): string[] {
	const lines: string[] = [];
	let left = WORKER_LIMITS.list;
	for (const [index, todo] of todos.entries()) {
		const line = `${getPlainIcon(todo.status)} [${index}] ${prefix(oneLine(todo.text), WORKER_LIMITS.line)}`;
		if (line.length + 1 > left) break;
		lines.push(line);
		left -= line.length + 1;
	}
	return lines;
}

/** The prompt of the worker of item `index`: everything it knows of the session. */
export function workerPrompt(todos: readonly TodoItem[], index: number, request: string, lastTry?: string): string {
	const todo = todos[index];
	if (!todo) return "";
	return [
		WORKER_PROMPT.head,
		"",
		WORKER_PROMPT.item(index, todo.text),
		...(todo.check === undefined ? [] : [WORKER_PROMPT.check(todo.check)]),
		...(lastTry === undefined ? [] : [WORKER_PROMPT.lastTry(prefix(lastTry, WORKER_LIMITS.request))]),
		"",
		WORKER_PROMPT.request(prefix(request, WORKER_LIMITS.request)),
		"",
		WORKER_PROMPT.list,
		...listLines(todos),
		"",
		WORKER_PROMPT.end,
	].join("\n");
}

/**
 * The progress breaker, per item: a worker is stopped for what it spent on its one item, more than `factor` times the
 * median of what the workers of the chain's landed items spent (once two landed): a worker is held to workers, never
 * to items the session's model finished in a burst; undefined while it holds.
 */
export function workerOverspends(tokens: number, spend: ChainSpend, factor: number): WorkerOutcome | undefined {
	if (!overMedianOf(tokens, spend.workerItems, factor)) return undefined;
	return { kind: "overspent", tokens, factor, median: median(spend.workerItems) };
}

/** Characters of a worker's own reason the user and its next try are told. */
const NOT_DONE_REASON_CHARS = 200;

/**
 * A worker that ended on its own with its item unfinished: its answer was cut at the output limit, or its last line
 * says `NOT DONE:` and why. Undefined when it ended with its item done, in its own word.
 */
export function unfinishedOutcome(answer: string, stopReason: string | undefined): WorkerOutcome | undefined {
	if (stopReason === "length") return { kind: "unfinished" };
	const whole = answer.trim();
	const last = whole.slice(whole.lastIndexOf("\n") + 1).trim();
	if (!last.startsWith(NOT_DONE_MARK)) return undefined;
	return { kind: "unfinished", said: prefix(oneLine(last.slice(NOT_DONE_MARK.length).trim()), NOT_DONE_REASON_CHARS) };
}

/** How a worker's process ended, as the session reads it off its process. */
export interface WorkerProcessEnd {
	aborted: boolean;
	timedOut: boolean;
	/** Its exit code, or null when a signal ended it. */
	code: number | null;
	/** Its model calls: none, and it could not start. */
	calls: number;
	answer: string;
	stopReason?: string;
	/** The provider's error of its last model call, when that call failed. */
	errorMessage?: string;
	stderr: string;
}

/**
 * Why a worker's process ended without its item done, or undefined when it ended with an answer that says it is done.
 * `stoppedAs`: what stopped it, when it was stopped (the user, or the progress breaker).
 */
export function processOutcome(
	end: WorkerProcessEnd,
	stoppedAs: WorkerOutcome,
	limitMinutes: number,
): WorkerOutcome | undefined {
	if (end.aborted) return stoppedAs;
	if (end.timedOut) return { kind: "timed-out", minutes: limitMinutes };
	// An error exit before any model call: its pi could not start. A signal is someone's stop, not the start's fault.
	if (end.code !== null && end.code !== 0 && end.calls === 0)
		return { kind: "cannot-start", code: end.code, stderr: end.stderr };
	// pi -p may exit 0 after its model call failed: the call's error is the reason, not the exit code.
	if (end.stopReason === "error")
		return { kind: "failed", code: end.code, stderr: end.stderr, error: end.errorMessage ?? "" };
	if (end.code !== 0) return { kind: "failed", code: end.code, stderr: end.stderr };
	return unfinishedOutcome(end.answer, end.stopReason);
}

/** Exit codes above this are a signal's: a shell reports a command killed by signal N as 128 + N. */
const SIGNAL_BASE = 128;

/** Why an item's check in its worker's tree failed, or undefined when it passed. A stopped check is the stop's. */
export function checkOutcome(
	run: CheckRun,
	timeoutSeconds: number,
	stoppedAs: WorkerOutcome,
): WorkerOutcome | undefined {
	if (run.aborted) return stoppedAs;
	if (run.passed) return undefined;
	if (run.timedOut || run.code === null)
		return { kind: "check-failed", end: { kind: "timed-out", seconds: timeoutSeconds } };
	if (run.code > SIGNAL_BASE && run.code < SIGNAL_BASE + 65)
		return { kind: "check-failed", end: { kind: "signal", signal: run.code - SIGNAL_BASE } };
	return { kind: "check-failed", end: { kind: "exit", code: run.code } };
}

/**
 * Whether a try's work that did not land may land as is later: it was whole and checked (its landing had begun), and
 * only the remote was missing, not reached or its answer lost (`not-on-branch` "unreachable"), or the user's stop came
 * at the push. Any other end (a conflict, a failed check, a breaker, a claim lost) is worked again.
 */
export function keptToLandAfter(outcome: WorkerOutcome, landingBegun: boolean): boolean {
	if (!landingBegun) return false;
	return outcome.kind === "stopped" || (outcome.kind === "not-on-branch" && outcome.why === "unreachable");
}

/**
 * Whether a worker's end counts as a failed run (the failures breaker bounds the retries): a stop, a landing, a pi
 * that could not start (no model was asked: the session's model works the list instead), a claim another session
 * took over, or an item another session landed first (no fault of the model's) does not.
 */
export function countsAsFailedRun(outcome: WorkerOutcome): boolean {
	return !["stopped", "landed", "cannot-start", "claim-lost", "landed-elsewhere"].includes(outcome.kind);
}

/**
 * A worker's end with nothing in it that the worker itself wrote (its words, its stderr, its files' names): how the
 * chain keeps the last failure, which the session's model reads in the failures breaker's stop. The user has the whole
 * of it in the worker's own line.
 */
export function withoutWorkerWords(outcome: WorkerOutcome): WorkerOutcome {
	switch (outcome.kind) {
		case "failed":
			return { ...outcome, stderr: "", ...(outcome.error === undefined ? {} : { error: "" }) };
		case "cannot-start":
			return { ...outcome, stderr: "" };
		case "unfinished":
			return outcome.said === undefined ? outcome : { kind: "unfinished", said: "" };
		case "conflict":
		case "unwritable":
			return { ...outcome, files: [] };
		case "submodules":
			return { ...outcome, paths: [] };
		default:
			return outcome;
	}
}

/**
 * Whether the list still holds a worker's item where it was when the worker started: the same text at its index. A
 * change of the list meanwhile (an item inserted, removed, moved or rewritten) never lets its work land on another.
 */
export function stillHolds(todos: readonly TodoItem[], item: { index: number; text: string }): boolean {
	return todos[item.index]?.text === item.text;
}

/** A worker's tokens so far: its model calls that ended, and what the one in progress has spent as it streams. */
export const tokensSoFar = (worker: { tokens: number; streaming?: number }): number =>
	worker.tokens + (worker.streaming ?? 0);

/** The last worker of item `index`: the one at work on it, else the last that ended; undefined when none had it. */
export function lastWorkerOf<AtWork extends { index: number }, Ended extends { index: number }>(
	index: number,
	atWork: readonly AtWork[],
	ended: readonly Ended[],
): { atWork: AtWork } | { ended: Ended } | undefined {
	const live = atWork.find((worker) => worker.index === index);
	if (live) return { atWork: live };
	const last = ended.findLast((worker) => worker.index === index);
	return last && { ended: last };
}
