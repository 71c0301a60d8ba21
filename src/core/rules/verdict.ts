/**
 * A verification's verdict, the judge's words and what they mean, and the one rule of "verified": a pass holds only
 * for the very list it checked, never while an item is open, and, where the judge is on, only with the judge's "met"
 * on everything it was asked about. The store keeps only verdicts this rule lets through; everything that says
 * "verified" (the next-step rules' input, the status bar, the completion notice, the exit status, the session entry)
 * asks it. Pure.
 */

import { hasIncomplete } from "../list/queries.ts";
import type { TodoItem } from "../model/types.ts";

export type JudgeWord = "met" | "not met" | "cannot tell";
export const JUDGE_WORDS: readonly JudgeWord[] = ["met", "not met", "cannot tell"];

/** One finding: the judge's word on one item, and its one reason. */
export interface Finding {
	verdict: JudgeWord;
	reason: string;
}

/** What the judge said of a list (and of a goal), or why it said nothing. */
export type JudgeResult =
	| { judged: true; items: (Finding & { index: number })[]; goal?: Finding }
	| { judged: false; why: string };

/** Whether the judge passed everything it was asked: a verdict was given, and every word of it is "met". */
export function judgePassed(result: JudgeResult | undefined): boolean {
	if (!result?.judged) return false;
	return result.items.every((item) => item.verdict === "met") && (result.goal?.verdict ?? "met") === "met";
}

/** The items the judge found not met: they go back to in progress. */
export function itemsNotMet(result: JudgeResult): number[] {
	return result.judged ? result.items.filter((item) => item.verdict === "not met").map((item) => item.index) : [];
}

/** What the last verification of the finished list found. */
export interface Verification {
	passed: boolean;
	/** Which checks failed, e.g. `the done-check (exit code 1)`, `the check of [2] (timed out after 120 s)`. */
	failed: string[];
	/** How many checks ran (the judge counts as one). */
	checks: number;
	/** The list it checked (the store's own list object: any change to the list makes a new one). */
	of: readonly TodoItem[];
	/** What the judge said of this list, when it was asked (at most once per list). */
	judge?: JudgeResult;
	/** A shared plan's verdict: the branch and remote, the tip it is for, and the machine that verified it. */
	shared?: { branch: string; remote: string; tip: string; host: string };
}

/**
 * What a verification ran, as the user reads it: the checks (commands) apart from the judge, and whether the judge was
 * asked. A verdict's `checks` counts the judge as one, as its session entry keeps it.
 */
export function checksAndJudge(verification: Pick<Verification, "checks" | "judge">): {
	checks: number;
	judge: boolean;
} {
	const judge = verification.judge !== undefined;
	return { checks: judge ? Math.max(0, verification.checks - 1) : verification.checks, judge };
}

/**
 * Whether `verification` is a pass that holds for `todos`: the very list it checked, with no item open, and with the
 * judge's "met" on all of it when the judge is on (`judgeOn`) or had its say.
 */
export function passesFor(
	verification: Verification | undefined,
	todos: readonly TodoItem[],
	judgeOn = false,
): boolean {
	if (verification?.passed !== true || verification.of !== todos || hasIncomplete(todos)) return false;
	return (verification.judge === undefined && !judgeOn) || judgePassed(verification.judge);
}
