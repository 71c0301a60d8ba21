/** `/loop`: its arguments, the prompt of each iteration and the texts that end it. Pure; planner.ts decides. */

export const DEFAULT_LOOP_MAX = 10;
export const MAX_LOOP_ITERATIONS = 1000;
export const DEFAULT_LOOP_MARKER = "LOOP_DONE";

export interface LoopSpec {
	prompt: string;
	max: number;
	marker: string;
}

/** Why a `/loop` ends. */
export type LoopEndCode = "loop-done" | "loop-limit" | "loop-aborted" | "loop-failures" | "loop-budget";

export interface LoopState extends LoopSpec {
	/** Iterations sent so far (the first one included). */
	iteration: number;
}

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

export function loopStatusText(loop: LoopState): string {
	return `🔁 loop ${loop.iteration}/${loop.max}`;
}

/** What the user reads when a loop ends. */
export function loopEndMessage(loop: LoopState, code: Exclude<LoopEndCode, "loop-budget">, failures: number): string {
	if (code === "loop-done") return `Loop finished: ${loop.marker} found after ${loop.iteration} iteration(s).`;
	if (code === "loop-limit") return `Loop stopped: ${loop.max} iteration(s) without ${loop.marker}.`;
	if (code === "loop-failures") return `Loop stopped after ${failures} failed runs in a row.`;
	return "Loop stopped: the run was aborted.";
}

/** The user interrupted the loop (a key during its countdown, or a prompt). */
export const LOOP_STOPPED_BY_USER = "Loop stopped by the user.";
