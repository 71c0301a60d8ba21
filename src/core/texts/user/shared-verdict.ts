/**
 * What the user reads of a shared plan's verdict: whose verdict every session took, the stop of a plan whose verdict
 * failed, and a verdict ref that holds no verdict.
 */

import { oneLine, prefix } from "../sanitize.ts";
import { remoteShown } from "../user.ts";

/** How a tip is shown: its first 7 characters, as git's short form. */
const short = (tip: string) => tip.slice(0, 7);

/** The plan as a line names it: its branch on its remote. */
const planOn = (branch: string, remote: string) => `the shared plan on ${oneLine(branch)} of ${remoteShown(remote)}`;

/** The most characters of another machine's name shown. */
const HOST_CHARS = 40;

/** What a verdict found, in a few words: passed with its checks counted, or what failed. */
function found(passed: boolean, failed: readonly string[], checks: number): string {
	return passed ? `passed (${checks} check${checks === 1 ? "" : "s"})` : `failed: ${failed.join(", ")}`;
}

/** Where a verdict is from: the plan's branch and remote, the tip it is for, the machine that verified it. */
export interface VerdictOrigin {
	branch: string;
	remote: string;
	tip: string;
	host: string;
}

export const SHARED_VERDICT_TEXTS = {
	/** Said by every session as it applies the verdict: whose it is, for which tip, and what it found. */
	taken: (on: VerdictOrigin, passed: boolean, failed: readonly string[], checks: number) =>
		`The shared plan on ${oneLine(on.branch)} of ${remoteShown(on.remote)} verified at ${short(on.tip)} by ${prefix(oneLine(on.host), HOST_CHARS)}: ${found(passed, failed, checks)}.`,
	/** A verdict ref whose commit holds no verdict: said once, and the tip verified again. */
	malformed: (branch: string, remote: string) =>
		`pi-til-done: the verdict ref of ${planOn(branch, remote)} holds no verdict this pi can read: the branch is verified again.`,
};
