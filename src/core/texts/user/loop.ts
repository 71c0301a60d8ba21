/**
 * What the user reads of a `/loop`: how one ends, its usage and refusals (its description is in ../user.ts).
 */

import { DEFAULT_LOOP_MARKER, DEFAULT_LOOP_MAX, MAX_LOOP_ITERATIONS } from "../../model/types.ts";

/** What the user reads when a `/loop` ends (a budget's end is that budget's stop text). */
export const LOOP_ENDS = {
	done: (marker: string, iterations: number) => `Loop finished: ${marker} found after ${iterations} iteration(s).`,
	limit: (max: number, marker: string) => `Loop stopped: ${max} iteration(s) without ${marker}.`,
	failures: (failures: number) => `Loop stopped after ${failures} failed runs in a row.`,
	aborted: "Loop stopped: the run was aborted.",
	/** A key during its countdown, or a prompt. */
	byUser: "Loop stopped by the user.",
} as const;

// ── /loop: its usage and refusals (its ends are LOOP_ENDS) ─────────────────────────────────────────────

/** What `/loop --help`, and every refusal, shows. */
export const LOOP_USAGE = `usage: /loop [--max N] [--until MARKER] [--] <prompt>  (N: 1 to ${MAX_LOOP_ITERATIONS}, default ${DEFAULT_LOOP_MAX}; MARKER: what the answer holds when the task is done, default ${DEFAULT_LOOP_MARKER}, quoted when it has spaces; -- starts a prompt that holds --max or --until itself)`;

/** Why `/loop`'s arguments are refused; `option` is `--max` or `--until` as written. */
export const LOOP_ARG_REFUSALS = {
	needsValue: (option: string) => `${option} needs a value`,
	quoteNotClosed: (option: string, quote: string) => `${option}: the quote ${quote} is not closed`,
	givenTwice: (option: string) => `${option} is given twice`,
	max: `--max takes a whole number from 1 to ${MAX_LOOP_ITERATIONS}`,
	emptyMarker: "--until takes a non-empty marker",
	notAnOption: (word: string) => `${word} is not an option of /loop`,
	noPrompt: "what should the loop send? Give a prompt",
} as const;

/** A refused `/loop`: why, then its usage. */
export const loopRefused = (why: string): string => `/loop: ${why}\n${LOOP_USAGE}`;
