/**
 * Verifying a finished list, at the edge: running the checks a `verify` step names (the user's done-check, the
 * completed items' own checks) and applying what the next-step rules conclude: reopened items, stored on the branch, the
 * result on the status bar, and the counters for the next prompt.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { CheckRun, TodoItem } from "../../core/model/types.ts";
import type { ChainState } from "../../core/rules/chain.ts";
import { VERDICT_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { judgeVerification, type StepInput, type VerificationCheck } from "../../core/rules/next-step.ts";
import type { JudgeResult, Verification } from "../../core/rules/verdict.ts";
import { getVerification, recordVerdict, setChecking, updateTodoStatus } from "../../state.ts";
import { storeList } from "../host/commit.ts";
import { type Exec, runCheck } from "./run-check.ts";

export interface VerificationRun {
	exec: Exec;
	cwd: string;
	timeoutSeconds: number;
	signal?: AbortSignal;
}

/**
 * Runs the checks one after another, showing each on the status bar; stops early only when aborted. The last one stays
 * on show until its verdict is kept (the verdict replaces it at once: no old verdict shows in between), or, aborted,
 * until the caller clears it.
 */
export async function runVerification(
	checks: readonly VerificationCheck[],
	run: VerificationRun,
): Promise<[VerificationCheck, CheckRun][]> {
	const results: [VerificationCheck, CheckRun][] = [];
	for (const check of checks) {
		setChecking({ what: check.what, command: check.command });
		results.push([check, await runCheck(run.exec, check.command, run)]);
		if (run.signal?.aborted) break;
	}
	return results;
}

/**
 * Stores what a verification of `checked` (the list as it was checked) found. Items whose own check failed go back to
 * in progress, recorded on the branch like a `/todos` change, so a reload shows them reopened.
 */
export function applyVerification(
	pi: ExtensionAPI,
	input: StepInput,
	results: readonly [VerificationCheck, CheckRun][],
	timeoutSeconds: number,
	checked: readonly TodoItem[],
	judge?: JudgeResult,
): void {
	const verdict = judgeVerification(input, results, timeoutSeconds, judge);
	if (verdict.reopen.length > 0) {
		updateTodoStatus(verdict.reopen, "in_progress");
		storeList(pi);
	}
	const checks = results.length + (judge ? 1 : 0);
	const kept = { passed: verdict.passed, failed: verdict.failed, checks, of: checked, ...(judge ? { judge } : {}) };
	keepVerdict(pi, kept, verdict.chain);
}

/** Keeps a verdict in the store, and on the branch when the store kept it. */
export function keepVerdict(pi: ExtensionAPI, kept: Verification, chain: ChainState): void {
	recordVerdict(kept, chain);
	// On the branch, so a restart, a resume or a move in the tree shows this list's verdict (and asks no judge again).
	if (getVerification() === kept) {
		const { passed, failed, checks, judge } = kept;
		pi.appendEntry(VERDICT_ENTRY_TYPE, { passed, failed, checks, ...(judge ? { judge } : {}) });
	}
}
