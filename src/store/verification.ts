/** The store's verification: the check on show, the verdict of the list, the judge's switch, the branch's done-check. */

import type { ChainState } from "../core/rules/chain.ts";
import { passesFor, type Verification } from "../core/rules/verdict.ts";
import type { RunningCheck } from "../core/views/status-entries.ts";
import { getState, setState } from "./scope.ts";

/** Shows a check as running (undefined: none is). */
export function setChecking(checking: RunningCheck | undefined): void {
	setState({ checking });
}

export function getVerification(): Verification | undefined {
	return getState().verification;
}

/**
 * Keeps a verdict with the chain it leaves, which ends the check on show; a pass for another list, or for a list with
 * an item open, says nothing and is not kept. A failure re-arms the completion notice: the first pass after it is
 * news, even for a list that was announced done before it had a verification.
 */
export function recordVerdict(verification: Verification, chain: ChainState): void {
	const { todos, completionAnnounced } = getState();
	const kept =
		verification.passed && !passesFor(verification, todos, judgeIsOn()) ? getState().verification : verification;
	setState({
		verification: kept,
		checking: undefined,
		chain,
		completionAnnounced: kept?.passed === false ? false : completionAnnounced,
	});
}

/** Whether the list, as it is now, passed its verification. */
export function isVerified(): boolean {
	return passesFor(getState().verification, getState().todos, judgeIsOn());
}

/** Whether this session's settings have the judge verify a finished list. */
export function judgeIsOn(): boolean {
	return getState().config.judge !== "off";
}

/** Whether the judge had its say on the list as it is now: it is asked at most once per state of the list. */
export function isJudged(): boolean {
	const { verification, todos } = getState();
	return verification?.judge !== undefined && verification.of === todos;
}

/** The done-check the user set on this branch, if they did (null: they turned it off). */
export function getBranchDoneCheck(): string | null | undefined {
	return getState().branchDoneCheck;
}

/** The done-check in force: the one set on the branch (null: turned off there), else the configured one. */
export function effectiveDoneCheck(configured: string | undefined): string | undefined {
	const branch = getState().branchDoneCheck;
	return branch === undefined ? configured : (branch ?? undefined);
}

/** `/todos check`: a new done-check (or null for none) also makes the finished list unverified again. */
export function setBranchDoneCheck(command: string | null): void {
	setState({ branchDoneCheck: command, verification: undefined });
}
