/**
 * What the user reads of a goal: how one ends, and what `/goal` answers (its description is in ../user.ts, registered
 * at every start).
 */

import { oneLine, prefix } from "../sanitize.ts";
import { JUDGE_REASON_SHOWN } from "./judge.ts";

/** How a goal ends, as the user reads it. */
export const GOAL_ENDS = {
	met: (runs: number, reason: string) =>
		`🎯 Goal met after ${runs} run(s), by the judge's word: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`,
	limit: (runs: number) => `Goal stopped: ${runs} run(s) and the judge has not found it met.`,
	failures: (failures: number) => `Goal stopped after ${failures} failed runs in a row.`,
	aborted: `Goal stopped: the run was aborted.`,
	unjudged: (why: string) => `Goal stopped: the judge gave no verdict (${why}).`,
	/** `/goal off`, or a key during a countdown. */
	byUser: `Goal stopped by you.`,
	/** The goal of a list the judge passed, with the list. */
	listMet: "🎯 Goal met: the judge found it held with the list.",
	/** `/goal off` with no goal in progress. */
	none: "No goal is in progress.",
} as const;

/** What `/goal` alone answers (the goal in progress, or that there is none), and the usage its refusals end with. */
export const GOAL_ANSWERS = {
	current: (condition: string, runs: number) => `🎯 Goal in progress (run ${runs + 1}): ${oneLine(condition)}`,
	none: "No goal is in progress: /goal <condition> starts one.",
	usage: (max: number) =>
		`usage: /goal <condition> | /goal off  (the condition: 1 to ${max} characters; after every run the judge decides whether it holds, and the goal ends when it does, at a breaker or budget, on /goal off or a key)`,
	tooLong: (length: number, max: number) => `/goal: the condition has ${length} characters, more than ${max}`,
} as const;
