/** `/loop`: its arguments and defaults. Pure; planner.ts decides what follows each iteration. */

import type { LoopSpec } from "../types.ts";

export const DEFAULT_LOOP_MAX = 10;
export const MAX_LOOP_ITERATIONS = 1000;
export const DEFAULT_LOOP_MARKER = "LOOP_DONE";

/** Why a `/loop` ends. */
export type LoopEndCode = "loop-done" | "loop-limit" | "loop-aborted" | "loop-failures" | "loop-budget";

const MAX_FLAG = /(?:^|\s)--max\s+(\S+)/;
const UNTIL_FLAG = /(?:^|\s)--until\s+(?:"([^"]*)"|'([^']*)'|(\S+))/;

/** Reads `/loop [--max N] [--until MARKER] <prompt>`; flags may stand anywhere. */
export function parseLoopArgs(args: string): { spec?: LoopSpec; error?: string } {
	let rest = args;
	let max = DEFAULT_LOOP_MAX;
	let marker = DEFAULT_LOOP_MARKER;
	const maxMatch = MAX_FLAG.exec(rest);
	if (maxMatch) {
		const raw = maxMatch[1] ?? "";
		const value = Number(raw);
		if (!/^\d+$/.test(raw) || value < 1 || value > MAX_LOOP_ITERATIONS) {
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
