/** The iteration loop behind `/loop`: parse its arguments and decide, after each run, whether to go round again. Pure. */

import type { StopReason } from "./continuation.ts";

export const DEFAULT_LOOP_MAX = 10;
export const MAX_LOOP_ITERATIONS = 1000;
export const DEFAULT_LOOP_MARKER = "LOOP_DONE";
export const LOOP_MESSAGE_TYPE = "til-done-loop";

export interface LoopSpec {
	prompt: string;
	max: number;
	marker: string;
}

export interface LoopState extends LoopSpec {
	/** Iterations sent so far (the first one included). */
	iteration: number;
	/** Consecutive failed runs (provider error, output limit). */
	failures: number;
}

export type LoopDecision =
	| { kind: "done" }
	| { kind: "stop"; reason: "limit" | "aborted" | "failures" }
	| { kind: "continue"; backoffMs: number };

const MAX_FLAG = /(?:^|\s)--max\s+(\S+)/;
const UNTIL_FLAG = /(?:^|\s)--until\s+(?:"([^"]*)"|'([^']*)'|(\S+))/;

/** Reads `/loop [--max N] [--until MARKER] <prompt>`; flags may stand anywhere. */
export function parseLoopArgs(args: string): { spec?: LoopSpec; error?: string } {
	let rest = args;
	let max = DEFAULT_LOOP_MAX;
	let marker = DEFAULT_LOOP_MARKER;
	const maxMatch = MAX_FLAG.exec(rest);
	if (maxMatch) {
		const value = Number(maxMatch[1]);
		if (!/^\d+$/.test(maxMatch[1]) || value < 1 || value > MAX_LOOP_ITERATIONS) {
			return { error: `--max takes a whole number from 1 to ${MAX_LOOP_ITERATIONS}` };
		}
		max = value;
		rest = rest.replace(maxMatch[0], " ");
	}
	const untilMatch = UNTIL_FLAG.exec(rest);
	if (untilMatch) {
		marker = (untilMatch[1] ?? untilMatch[2] ?? untilMatch[3] ?? "").trim();
		if (marker.length === 0) return { error: "--until takes a non-empty marker" };
		rest = rest.replace(untilMatch[0], " ");
	}
	const prompt = rest.trim();
	if (prompt.length === 0) return { error: "usage: /loop [--max N] [--until MARKER] <prompt>" };
	return { spec: { prompt, max, marker } };
}

/** The message sent on each iteration: the user's prompt, then how to end the loop. */
export function loopPrompt(loop: LoopState): string {
	return `${loop.prompt}\n\n(Loop iteration ${loop.iteration} of ${loop.max}. When the task is fully complete, include ${loop.marker} in your answer.)`;
}

/** After a run of the loop: finished when the answer holds the marker, else round again within the limits. */
export function decideLoop(
	loop: LoopState,
	stopReason: StopReason | undefined,
	answer: string,
	limits: { maxFailures: number; failureBackoffMs: number },
): LoopDecision {
	if (stopReason === "aborted") return { kind: "stop", reason: "aborted" };
	if (answer.includes(loop.marker)) return { kind: "done" };
	if (loop.failures >= limits.maxFailures) return { kind: "stop", reason: "failures" };
	if (loop.iteration >= loop.max) return { kind: "stop", reason: "limit" };
	const backoffMs = loop.failures > 0 ? limits.failureBackoffMs * 2 ** (loop.failures - 1) : 0;
	return { kind: "continue", backoffMs };
}

export function loopStatusText(loop: LoopState): string {
	return `🔁 loop ${loop.iteration}/${loop.max}`;
}

export function loopEndMessage(loop: LoopState, decision: LoopDecision): string {
	if (decision.kind === "done") return `Loop finished: ${loop.marker} found after ${loop.iteration} iteration(s).`;
	if (decision.kind === "continue") return "";
	if (decision.reason === "limit") return `Loop stopped: ${loop.max} iteration(s) without ${loop.marker}.`;
	if (decision.reason === "failures") return `Loop stopped after ${loop.failures} failed runs in a row.`;
	return "Loop stopped: the run was aborted.";
}
