/** The store rebuilt from the session branch, at `session_start` and `session_tree`. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { isAllFinished } from "../core/list/queries.ts";
import {
	lastDecisions,
	lastDoneCheck,
	lastEndedWorkers,
	lastPause,
	lastSnapshot,
	lastVerdict,
	ownBranch,
} from "../core/rules/branch.ts";
import { initialChain } from "../core/rules/chain.ts";
import { passesFor } from "../core/rules/verdict.ts";
import { MAX_ENDED_WORKERS } from "../core/rules/worker-dispatch.ts";
import { STARTED_PAUSED } from "../core/texts/user.ts";
import { freshChain, MAX_DECISIONS } from "./chain.ts";
import { setState } from "./scope.ts";
import { judgeIsOn } from "./verification.ts";

/**
 * Rebuilds the store from the current branch, this session's own part of it (a guest's inherited part is its parent's):
 * the last trustworthy list, done-check, verdict, the user's pause, the decisions and the workers that ended, and a
 * fresh chain; an unreadable branch gives an empty list. What belongs to the session's start (its role, settings,
 * warnings shown, the panel switch, the plan files' hashes, whether its workers were refused or cannot start) is kept.
 * `inherited`: the whole branch is a parent's (a guest that just marked it); `startPaused`: the session starts paused
 * where the branch does not say otherwise.
 */
export function reconstructState(ctx: ExtensionContext, { inherited = false, startPaused = false } = {}): void {
	let branch: readonly unknown[] = [];
	try {
		branch = inherited ? [] : ownBranch(ctx.sessionManager.getBranch());
	} catch {
		branch = [];
	}
	const todos = lastSnapshot(branch);
	const verdict = lastVerdict(branch);
	const verification = verdict && { ...verdict, of: todos };
	// `--til-done-paused` starts a session paused unless the branch has the user's own word on it (a pause or a resume).
	const pause = lastPause(branch) ?? (startPaused ? { paused: true, reason: STARTED_PAUSED } : undefined);
	const chain = freshChain(initialChain(), todos);
	setState({
		todos,
		decisions: lastDecisions(branch, MAX_DECISIONS),
		// The user's pause is the branch's: a `/todos pause` stays through a restart, a reload or a move in the tree.
		chain: pause?.paused ? { ...chain, paused: true, pausedBy: "user", pauseReason: pause.reason } : chain,
		branchDoneCheck: lastDoneCheck(branch),
		// The last verdict of this very list; a pass the rule does not let through (an item open) says nothing.
		verification: verification?.passed && !passesFor(verification, todos, judgeIsOn()) ? undefined : verification,
		checking: undefined,
		// A finished list needs no fresh "all done" notice, unless it failed its verification: its pass is news.
		completionAnnounced: isAllFinished(todos) && verdict?.passed !== false,
		// The workers that ended on this branch, until the user's next prompt starts a chain; another branch's are not its own.
		endedWorkers: lastEndedWorkers(branch, MAX_ENDED_WORKERS),
	});
}
