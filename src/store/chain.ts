import type { ChainStart, GoalState, LoopState, TodoItem } from "../core/model/types.ts";
import type { StoppedBy } from "../core/rules/breakers.ts";
import { type ChainState, initialChain, noteCompleted } from "../core/rules/chain.ts";
import type { Decision } from "../core/rules/decision.ts";
import type { RunOutcome } from "../core/rules/outcome.ts";
import { addApartUsage, addUsage, readUsage } from "../core/rules/usage.ts";
import { getState, setState } from "./scope.ts";

export function getChain(): Readonly<ChainState> {
	return getState().chain;
}

export function setChain(chain: ChainState): void {
	setState({ chain });
}

/** A run ended: the chain's counters as the next-step rules left them. */
export function recordRun(chain: ChainState): void {
	setChain(chain);
}

/** The review wait on item `index` was announced, once per wait in a chain. */
export function markReviewAnnounced(index: number): void {
	setChain({ ...getState().chain, reviewAnnounced: index });
}

/** The user took the wheel (a prompt, a command, a new session): every breaker counter starts again. */
export function resetChain(): void {
	setState({
		chain: freshChain(getState().chain, getState().todos),
		claimedElsewhere: [],
		claimsMalformed: [],
		lookAgainMs: undefined,
		remoteSilentSince: undefined,
		endedWorkers: [],
	});
}

/** A new chain over `todos`: what is completed now is not progress, and a pause of the user's lasts. */
export function freshChain(old: ChainState, todos: readonly TodoItem[]): ChainState {
	const fresh = { ...initialChain(), completedByText: noteCompleted(initialChain(), todos).completedByText };
	const keepPause = old.paused && old.pausedBy === "user";
	return keepPause ? { ...fresh, paused: true, pauseReason: old.pauseReason, pausedBy: "user" } : fresh;
}

/**
 * Switches auto-continue off; a model's pause ends with the user's next prompt, a user's with `resume`. The user's
 * pause is the user acting: a stop shown until then leaves the status bar (`/todos why` keeps it).
 */
export function pauseAutoContinue(by: "user" | "model", reason?: string): void {
	const stopped = by === "user" ? undefined : getState().chain.stopped;
	setChain({ ...getState().chain, paused: true, pausedBy: by, pauseReason: reason, stopped });
}

export function resumeAutoContinue(): void {
	setChain({ ...getState().chain, paused: false, pausedBy: undefined, pauseReason: undefined });
}

/** A model call ended: its usage counts in the chain's spend (a message without usage changes nothing). */
export function recordUsage(message: unknown): void {
	const usage = readUsage(message);
	if (usage) setChain({ ...getState().chain, spend: addUsage(getState().chain.spend, usage) });
}

/** A call of the judge ended: it counts in the chain's spend, and in the judge's own. */
export function recordJudgeUsage(message: unknown): void {
	const usage = readUsage(message);
	if (usage) setChain({ ...getState().chain, spend: addApartUsage(getState().chain.spend, usage, "judge") });
}

/** A breaker, a budget or the user's key stopped the chain: the status bar says why until the user acts. */
export function markStopped(code: StoppedBy): void {
	setChain({ ...getState().chain, stopped: code });
}

/** Decisions kept for `/todos why`: enough for a long chain's end, bounded so a long session does not grow. */
export const MAX_DECISIONS = 50;

export function recordDecision(decision: Decision): void {
	setState({ decisions: [...getState().decisions.slice(-(MAX_DECISIONS - 1)), decision] });
}

export function getDecisions(): readonly Decision[] {
	return getState().decisions;
}

/** The `/loop` in progress, if any. */
export function getLoop(): Readonly<LoopState> | undefined {
	return getState().loop;
}

export function setLoop(next: LoopState | undefined): void {
	setState({ loop: next ? { ...next } : undefined });
}

/** Stores what a sent continuation, loop iteration or goal run changes: the chain's counters, the loop, the goal. */
export function recordSend(sent: { chain: ChainState; loop: LoopState | undefined; goal?: GoalState }): void {
	setState({ chain: sent.chain, loop: sent.loop, ...(sent.goal ? { goal: sent.goal } : {}) });
}

/** The goal in progress, if any. */
export function getGoal(): Readonly<GoalState> | undefined {
	return getState().goal;
}

/** Starts a goal (`{ condition, runs: 0 }`), or ends it (undefined). */
export function setGoal(goal: GoalState | undefined): void {
	setState({ goal: goal ? { ...goal } : undefined });
}

/** What the judge said of the goal after the last run; ignored when no goal is in progress. */
export function recordGoalVerdict(verdict: NonNullable<GoalState["verdict"]>): void {
	const { goal } = getState();
	if (goal) setState({ goal: { ...goal, verdict }, checking: undefined });
}

/** Holds the outcome of a run that ended until pi settles (undefined: forget it). */
export function holdEndedRun(outcome: RunOutcome | undefined): void {
	if (outcome !== getState().endedRun) setState({ endedRun: outcome });
}

/** The outcome of the run that ended, now taken: it is carried out once. */
export function takeEndedRun(): RunOutcome | undefined {
	const outcome = getState().endedRun;
	holdEndedRun(undefined);
	return outcome;
}

/** A chain's work started: the work tree as it was then (or why it could not be taken). */
export function recordChainStart(start: ChainStart): void {
	setState({ chainStart: start });
}

/** The work tree as the last chain started; undefined when no snapshot was taken in this session. */
export function getChainStart(): ChainStart | undefined {
	return getState().chainStart;
}
