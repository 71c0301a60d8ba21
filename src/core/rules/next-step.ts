/**
 * What happens after a run, and why: the one place the auto-continue decides, for the todo chain and `/loop` alike.
 * Pure: carry-out.ts carries the step out, through the mode (a countdown, or the same run in print and JSON modes).
 */

import { buildContinuationPrompt } from "../list/list-text.ts";
import { hasIncomplete, pickNextIndex, reviewWaitIndex } from "../list/queries.ts";
import { openWaits, waitingItems, workableItems } from "../list/ready.ts";
import type { CheckRun, GoalState, LoopState, TodoItem } from "../model/types.ts";
import {
	CHECK_NAMES,
	describeCheckEnd,
	formatCheckFailures,
	GOAL_PROMPTS,
	JUDGE_PROMPT,
	loopPrompt,
} from "../texts/model.ts";
import { GOAL_ENDS } from "../texts/user/goal.ts";
import { JUDGE_TEXTS } from "../texts/user/judge.ts";
import { LOOP_ENDS } from "../texts/user/loop.ts";
import {
	blockedStop,
	claimsMalformedStop,
	failedCheck,
	NEXT_RUN,
	REMOTE_DOWN_STOP,
	STOPPED,
	sharedUnverifiedStop,
	UNFINISHED_TAIL,
	UNVERIFIED_TAIL,
	WORKERLESS_SHARED_STOP,
} from "../texts/user.ts";
import {
	type BreakerInput,
	type BreakerLimits,
	costBudgetStop,
	type StopCode,
	tokenBudgetStop,
	trippedBreaker,
} from "./breakers.ts";
import { assessRun, type ChainState } from "./chain.ts";
import { COUNTDOWN_MESSAGE_TYPE, GOAL_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "./keys.ts";
import type { LoopEndCode } from "./loop-args.ts";
import { endsWithQuestion, type RunOutcome } from "./outcome.ts";
import { itemsNotMet, type JudgeResult, judgePassed } from "./verdict.ts";
import { itemsForWorkers } from "./worker-dispatch.ts";

/** The limits the next-step rules decide with: every breaker's, and the first back-off after a failed run. */
export type EngineLimits = BreakerLimits & {
	/** First back-off after a failed run; doubles with each further failure. */
	failureBackoffMs: number;
};

/** Why a goal ends: the judge's met, a bound, the user, or a judge that gave no verdict. */
export type GoalEndCode =
	| "goal-met"
	| "goal-limit"
	| "goal-aborted"
	| "goal-failures"
	| "goal-budget"
	| "goal-unjudged";

/** Why nothing is sent: the list needs nothing, or the user or the model said not to, or the user must review. */
export type IdleCode =
	| "no-todos"
	| "tools-off"
	| "all-done"
	| "aborted"
	| "paused"
	| "asks-user"
	| "review-wait"
	| "interrupted"
	| "unverified"
	| "workers-busy";
/** One check of a verification: the done-check, or a completed item's own check (regressions). */
export interface VerificationCheck {
	/** How the check is named to the user and the model: `the done-check`, `the check of [2]`. */
	what: string;
	command: string;
	/** The item the check belongs to, for an item's check. */
	index?: number;
}

/** A message to send as a new turn: a continuation prompt or the next `/loop` iteration. */
export interface StepMessage {
	customType: string;
	content: string;
}

export type Step =
	| {
			kind: "send";
			code: "continue" | "loop-next" | "goal-next";
			message: StepMessage;
			/** Extra wait after a failed run, before the message goes out. */
			backoffMs: number;
			/** The counters and loop to store once the message is sent, and the goal when the step moves it on. */
			chain: ChainState;
			loop: LoopState | undefined;
			goal?: GoalState;
	  }
	| {
			kind: "stop";
			code: StopCode | "blocked" | "remote-down" | "claims-malformed" | "workerless-shared" | "shared-unverified";
			text: string;
	  }
	/** A `/loop` or a goal ends. */
	| { kind: "end-loop"; code: LoopEndCode | GoalEndCode; text: string; level: "info" | "warning" }
	/** Start workers on these ready items (`atWork`: how many will then be at work). */
	| { kind: "work"; code: "work"; items: number[]; atWork: number }
	| {
			kind: "verify";
			code: "verify";
			checks: VerificationCheck[];
			/** Whether the judge is asked too (once every check passed), or its verdict on this list is kept already. */
			judge: "ask" | "kept" | "off";
	  }
	| {
			kind: "idle";
			code: IdleCode;
			index?: number;
			verified?: boolean;
			/** For `interrupted`: a prompt of the user's took the countdown's place (else a key interrupted it). */
			byPrompt?: boolean;
			/** For `workers-busy`: the items the workers are at work on. */
			running?: readonly number[];
	  }
	/**
	 * Every open item this session could work is held by another session (or waits on one): it waits, then reads the
	 * plan again and tries the claims again after `lookAgainMs` (a holder that stopped renewing is taken over then).
	 */
	| { kind: "wait"; code: "held-elsewhere"; held: number[]; lookAgainMs: number };

/** The state a step is made from. */
export interface StepInput {
	todos: readonly TodoItem[];
	chain: ChainState;
	loop: LoopState | undefined;
	limits: EngineLimits;
	/** The user's done-check for the whole list, if any. */
	doneCheck?: string;
	/** Whether the finished list passed its last verification (forgotten when the list changes). */
	verified?: boolean;
	/** Whether the model's item checks may run (pi's bash tool active, model checks on); the done-check always may. */
	modelChecks?: boolean;
	/** The model's price per million input tokens, when pi knows it: the cost forecast prices the next call with it. */
	inputPrice?: number;
	/** Whether the todo tools are active in the session (false: nothing continues a list the model cannot change). */
	todoTools?: boolean;
	/** Whether the independent judge verifies a finished list. */
	judge?: boolean;
	/** The judge had its say on this very list (it is asked at most once per state): what its verification found failing. */
	judged?: { failed: readonly string[] };
	/** The goal in progress, if any: with a list it is the list's done-check, judged with it. */
	goal?: GoalState;
	/**
	 * Workers: how many may work at once, the items they are at work on, those another session holds, and how long until
	 * those are worth trying again (the shortest lease left, at most a renewal's interval).
	 */
	workers?: {
		max: number;
		running: readonly number[];
		claimed?: readonly number[];
		/** Of the items claimed elsewhere, those whose claim ref holds no claim: no lease ends it, only a release by hand. */
		malformed?: readonly number[];
		lookAgainMs?: number;
		/** A shared plan's remote has not answered the claims for a lease's time: waiting on it makes no progress. */
		remoteDown?: boolean;
		/** The plan is shared through a remote: only workers work its items (each under its claim), never the model. */
		shared?: boolean;
		/** The shared plan's verdict on this very list failed: where, on which tip, and what failed. */
		sharedFailed?: SharedFailure;
	};
}

/** A shared plan's failed verdict, as its stop names it. */
export interface SharedFailure {
	branch: string;
	remote: string;
	tip: string;
	failed: readonly string[];
}

/** The back-off before retrying after `failures` failed runs in a row: doubling from the configured first wait. */
export function backoffFor(failures: number, limits: EngineLimits): number {
	return failures > 0 ? limits.failureBackoffMs * 2 ** (failures - 1) : 0;
}

/** After a run: the counters to store now, and what to do next. */
export function stepAfterRun(input: StepInput, outcome: RunOutcome): { chain: ChainState; step: Step } {
	const chain = assessRun(input.chain, outcome);
	return { chain, step: decide({ ...input, chain }, outcome) };
}

/** Between runs (a countdown ran out, the user resumed): what to do now, with nothing new learned from a run. */
export function stepNow(input: StepInput): Step {
	return decide(input, undefined);
}

/** Whether any step can be more than idle `no-todos`: only with a list, a loop or a goal. Adapters may skip asking otherwise. */
export function canAct(todos: readonly TodoItem[], loop: LoopState | undefined, goal?: GoalState): boolean {
	return loop !== undefined || goal !== undefined || todos.length > 0;
}

function decide(input: StepInput, outcome: RunOutcome | undefined): Step {
	if (!canAct(input.todos, input.loop, input.goal)) return { kind: "idle", code: "no-todos" };
	if (input.loop) return decideLoop(input.loop, input, outcome);
	if (input.goal && input.todos.length === 0) return decideGoal(input.goal, input, outcome);
	return decideTodos(input, outcome);
}

function decideTodos(input: StepInput, outcome: RunOutcome | undefined): Step {
	const { todos, chain } = input;
	if (input.todoTools === false) return { kind: "idle", code: "tools-off" };
	if (!hasIncomplete(todos)) return finishing(input) ?? decideFinished(input, outcome);
	if (outcome?.stopReason === "aborted") return { kind: "idle", code: "aborted" };
	if (chain.paused) return { kind: "idle", code: "paused" };
	if (outcome?.stopReason === "stop" && endsWithQuestion(outcome.answer)) return { kind: "idle", code: "asks-user" };
	const review = reviewWaitIndex(todos);
	if (review !== undefined) return { kind: "idle", code: "review-wait", index: review };
	// Never a continuation that cannot make progress: with no item ready, the chain stops and says what waits on what.
	if (pickNextIndex(todos) === undefined && !input.workers?.running.length) {
		return { kind: "stop", code: "blocked", text: blockedText(todos) };
	}
	// A shared plan's items are worked under their claims, by workers only: with none that can work, nothing goes on.
	const workers = input.workers;
	if (workers?.shared && workers.max <= 0 && workers.running.length === 0)
		return { kind: "stop", code: "workerless-shared", text: WORKERLESS_SHARED_STOP };
	const dispatch = dispatchOf(input);
	const held = dispatch ? undefined : heldElsewhere(input);
	if (held && input.workers?.remoteDown && !input.workers.running.length)
		return { kind: "stop", code: "remote-down", text: REMOTE_DOWN_STOP };
	// A ref that holds no claim is freed by hand only: waiting on nothing else, the chain would wait for ever.
	const malformed = input.workers?.malformed ?? [];
	if (held?.every((index) => malformed.includes(index)))
		return { kind: "stop", code: "claims-malformed", text: claimsMalformedStop(held) };
	if (held) return { kind: "wait", code: "held-elsewhere", held, lookAgainMs: input.workers?.lookAgainMs ?? 0 };
	return tripped(input, dispatch?.forecast) ?? workStep(dispatch, input.workers?.running ?? []) ?? continuation(input);
}

/**
 * A finished list whose workers are still at work on items they landed (letting their claims go, removing their
 * trees): it is not done until they have ended. A worker whose item the list no longer holds is not waited for.
 */
function finishing({ todos, workers }: StepInput): Step | undefined {
	const running = workers?.running ?? [];
	const landing = running.filter((index) => todos[index]?.status === "completed");
	return landing.length > 0 ? { kind: "idle", code: "workers-busy", running } : undefined;
}

/** What the workers do next: the items to start, and how many workers the budgets are forecast for. */
interface Dispatch {
	items: number[];
	/** Workers the budgets forecast: those starting, or 0 while others work (only the spend so far counts), or 1. */
	forecast: number;
}

/**
 * With workers on: the ready items no worker has, as many as free workers and the budgets' forecast allow (each
 * worker forecast at the median per finished item). Undefined when workers are off, or none is at work and there is
 * nothing for one (the session's model goes on).
 */
function dispatchOf(input: StepInput): Dispatch | undefined {
	const { todos, workers } = input;
	// Workers turned off while some work: they finish their items, and none starts.
	if (!workers || (workers.max <= 0 && workers.running.length === 0)) return undefined;
	const taken = new Set([...workers.running, ...(workers.claimed ?? [])]);
	const wanted = itemsForWorkers(todos, taken, workers.max - workers.running.length);
	if (wanted.length === 0 && workers.running.length === 0) return undefined;
	const items = wanted.slice(0, affordableWorkers(input, wanted.length));
	return { items, forecast: items.length > 0 ? items.length : workers.running.length > 0 ? 0 : 1 };
}

/**
 * The items other sessions hold, when nothing open here can go on without them: none of this session's workers at
 * work, and every workable item held elsewhere (the rest wait on them). Sending the session's model on would have it
 * work another's item in the person's tree; ending would leave an item whose holder may be gone. Undefined when the
 * session has work of its own.
 */
function heldElsewhere({ todos, workers }: StepInput): number[] | undefined {
	const claimed = workers?.claimed ?? [];
	if (claimed.length === 0 || (workers?.running.length ?? 0) > 0) return undefined;
	const workable = workableItems(todos);
	return workable.every((index) => claimed.includes(index)) ? [...claimed] : undefined;
}

/** The most of `wanted` workers that may start with no budget forecast to be crossed. */
function affordableWorkers(input: StepInput, wanted: number): number {
	for (let count = wanted; count > 0; count--) if (budgetHolds(input, count)) return count;
	return 0;
}

function budgetHolds(input: StepInput, workers: number): boolean {
	return budgetStop({ ...breakerInput(input), workers }, input.limits, STOPPED.chain) === undefined;
}

/**
 * With workers: start them on the plan's items, or, when none may start, wait while others work (with none at work
 * and none starting, the budget that left none stopped the chain before this).
 */
function workStep(dispatch: Dispatch | undefined, running: readonly number[]): Step | undefined {
	if (!dispatch) return undefined;
	const { items } = dispatch;
	if (items.length > 0) return { kind: "work", code: "work", items, atWork: running.length + items.length };
	return { kind: "idle", code: "workers-busy", running };
}

/** The stop text of a list whose open items all wait: each one, with the items it waits for and their states. */
function blockedText(todos: readonly TodoItem[]): string {
	const waiting = waitingItems(todos).map((index): [number, [number, TodoItem["status"]][]] => [
		index,
		openWaits(todos, index).map((at): [number, TodoItem["status"]] => [at, todos[at]?.status ?? "abandoned"]),
	]);
	return blockedStop(waiting);
}

/** What the breakers are asked about a chain's next continuation (or a loop's next iteration). */
function breakerInput({ todos, chain, inputPrice }: StepInput, next: string = NEXT_RUN.chain): BreakerInput {
	return { chain, inputPrice, next, tail: hasIncomplete(todos) ? UNFINISHED_TAIL : UNVERIFIED_TAIL };
}

/** A breaker that trips now, in the table's order (`workers`: the workers about to start); undefined when it may go. */
function tripped(input: StepInput, workers?: number): Step | undefined {
	const stop = trippedBreaker({ ...breakerInput(input), workers }, input.limits);
	return stop ? { kind: "stop", ...stop } : undefined;
}

/** The budget a loop's or a goal's next run would cross, by the forecast of its first call; undefined when none. */
function runBudgetStop(input: StepInput, next: string, stopped: string): string | undefined {
	return budgetStop({ ...breakerInput(input, next), tail: "" }, input.limits, stopped);
}

/** The stop text of the first budget `subject`'s forecast would cross (tokens, then cost); undefined when both hold. */
function budgetStop(subject: BreakerInput, limits: EngineLimits, stopped: string): string | undefined {
	return tokenBudgetStop(subject, limits.budgetTokens, stopped) ?? costBudgetStop(subject, limits.budgetCost, stopped);
}

function continuation({ todos, chain, limits, workers }: StepInput): Step {
	// An item another session holds is never the model's next action: it would work it in the person's tree.
	const content = buildContinuationPrompt(todos, undefined, chain.verificationReport, workers?.claimed ?? []);
	return {
		kind: "send",
		code: "continue",
		message: { customType: COUNTDOWN_MESSAGE_TYPE, content },
		backoffMs: backoffFor(chain.failures, limits),
		chain: { ...chain, continuations: chain.continuations + 1, progressed: false, verificationReport: undefined },
		loop: undefined,
	};
}

/**
 * Every item is finished. Done, when nothing verifies the list or it passed; otherwise verify it (after each run: the
 * run may have fixed what failed), or, between runs right after a failed verification, ask for the fix. A verdict of
 * the judge's that asks for nothing (it could not tell, or gave none) ends the chain: asking again would say the same.
 */
function decideFinished(input: StepInput, outcome: RunOutcome | undefined): Step {
	const checks = verificationChecks(input);
	// A goal is the list's done-check, and only the judge can say it holds.
	const judgeOn = input.judge === true || input.goal !== undefined;
	if (checks.length === 0 && !judgeOn) return { kind: "idle", code: "all-done" };
	if (input.verified) return { kind: "idle", code: "all-done", verified: true };
	if (outcome?.stopReason === "aborted") return { kind: "idle", code: "aborted" };
	if (input.chain.paused) return { kind: "idle", code: "paused" };
	const shared = sharedStop(input.workers);
	if (shared) return shared;
	if (outcome === undefined && input.chain.verificationReport !== undefined)
		return tripped(input) ?? continuation(input);
	if (outcome === undefined && input.judged) return { kind: "idle", code: "unverified" };
	// A goal is judged after every run (the run may have made it hold); a list alone once per state of the list.
	const judge = !judgeOn ? "off" : input.judged && !input.goal ? "kept" : "ask";
	return { kind: "verify", code: "verify", checks, judge };
}

/**
 * A shared plan's finished list that cannot be verified here: its verdict failed (its items are landed on the branch,
 * so reopening one would send a worker to work what can no longer land), or the remote has not answered for a lease.
 */
function sharedStop(workers: StepInput["workers"]): Step | undefined {
	if (!workers?.shared) return undefined;
	const failure = workers.sharedFailed;
	if (failure) {
		const text = sharedUnverifiedStop(failure.branch, failure.remote, failure.tip, failure.failed);
		return { kind: "stop", code: "shared-unverified", text };
	}
	return workers.remoteDown ? { kind: "stop", code: "remote-down", text: REMOTE_DOWN_STOP } : undefined;
}

/** What verifies a finished list: the user's done-check, then the check of every completed item (regressions). */
export function verificationChecks({ todos, doneCheck, modelChecks }: StepInput): VerificationCheck[] {
	const items = todos.flatMap((todo, index): VerificationCheck[] =>
		modelChecks && todo.status === "completed" && todo.check !== undefined
			? [{ what: CHECK_NAMES.item(index), command: todo.check, index }]
			: [],
	);
	return doneCheck === undefined ? items : [{ what: CHECK_NAMES.doneCheck, command: doneCheck }, ...items];
}

/** What a verification found, and what follows from it. */
export interface VerificationFindings {
	passed: boolean;
	/** Each failed check, with how it ended: `the done-check (exit code 1)`. */
	failed: string[];
	/** Items whose own check failed now: they go back to in progress. */
	reopen: number[];
	/** The counters to store: a failure report for the next continuation prompt. */
	chain: ChainState;
}

/**
 * What a verification found: passed, or which checks failed, the items to reopen and the report the next continuation
 * carries. What follows is decided from the store once the verdict is kept (the store decides whether a pass holds).
 * `judge`: what the judge said of the list, when it was asked (or its verdict on this list was kept).
 */
export function judgeVerification(
	input: StepInput,
	results: readonly [VerificationCheck, CheckRun][],
	timeoutSeconds: number,
	judge?: JudgeResult,
): VerificationFindings {
	const failures = results.filter(([, run]) => !run.passed);
	const judged = judgeFindings(judge);
	if (failures.length === 0 && judged.failed.length === 0) {
		return { passed: true, failed: [], reopen: [], chain: input.chain };
	}
	// A shared plan's items are landed on its branch: its verdict stops every session alike, and reopens none.
	const shared = input.workers?.shared === true;
	const reopen = shared
		? []
		: [...failures.flatMap(([check]) => (check.index === undefined ? [] : [check.index])), ...judged.reopen];
	const checkReport =
		failures.length === 0
			? undefined
			: formatCheckFailures(
					failures.map(([check, run]): [string, CheckRun] => [check.what, run]),
					timeoutSeconds,
				);
	const report = [checkReport, judged.report].filter((part) => part !== undefined).join("\n");
	const chain = report === "" || shared ? input.chain : { ...input.chain, verificationReport: report };
	const failed = [
		...failures.map(([check, run]) => failedCheck(check.what, describeCheckEnd(run, timeoutSeconds))),
		...judged.failed,
	];
	return { passed: false, failed, reopen: [...new Set(reopen)].sort((a, b) => a - b), chain };
}

/** What the judge's verdict says failed, as a verification lists it. */
export function judgeFailures(judge: JudgeResult): string[] {
	return judgeFindings(judge).failed;
}

/** The judge's verdict as a verification counts it: what failed, the items not met, and the working model's report. */
function judgeFindings(judge: JudgeResult | undefined): { failed: string[]; reopen: number[]; report?: string } {
	if (judge === undefined || judgePassed(judge)) return { failed: [], reopen: [] };
	if (!judge.judged) return { failed: [JUDGE_TEXTS.notJudged(judge.why)], reopen: [] };
	const unmet = judge.items.filter((item) => item.verdict !== "met");
	const failed = unmet.map((item) => JUDGE_TEXTS.itemFailed(item.index, item.verdict, item.reason));
	if (judge.goal && judge.goal.verdict !== "met") failed.push(JUDGE_TEXTS.goalFailed(judge.goal));
	const notMet = unmet.filter((item) => item.verdict === "not met");
	const reports = [
		...(notMet.length === 0 ? [] : [JUDGE_PROMPT.report(notMet)]),
		...(judge.goal?.verdict === "not met" ? [GOAL_PROMPTS.report(judge.goal.verdict, judge.goal.reason)] : []),
	];
	return { failed, reopen: itemsNotMet(judge), report: reports.length === 0 ? undefined : reports.join("\n") };
}

function decideLoop(loop: LoopState, input: StepInput, outcome: RunOutcome | undefined): Step {
	const { chain, limits } = input;
	if (outcome?.stopReason === "aborted") return endLoop("loop-aborted", LOOP_ENDS.aborted);
	if (outcome?.answer.includes(loop.marker)) return endLoop("loop-done", LOOP_ENDS.done(loop.marker, loop.iteration));
	if (chain.failures >= limits.maxFailures) return endLoop("loop-failures", LOOP_ENDS.failures(chain.failures));
	if (loop.iteration >= loop.max) return endLoop("loop-limit", LOOP_ENDS.limit(loop.max, loop.marker));
	const overBudget = runBudgetStop(input, NEXT_RUN.loop, STOPPED.loop);
	if (overBudget) return { kind: "end-loop", code: "loop-budget", text: overBudget, level: "warning" };
	const next = { ...loop, iteration: loop.iteration + 1 };
	return {
		kind: "send",
		code: "loop-next",
		message: { customType: LOOP_MESSAGE_TYPE, content: loopPrompt(next) },
		backoffMs: backoffFor(chain.failures, limits),
		chain,
		loop: next,
	};
}

function endLoop(code: Exclude<LoopEndCode, "loop-budget">, text: string): Step {
	return { kind: "end-loop", code, text, level: code === "loop-done" ? "info" : "warning" };
}

/** The judge decides a goal after every run; what it said decides what follows (a goal without a list). */
function decideGoal(goal: GoalState, input: StepInput, outcome: RunOutcome | undefined): Step {
	const { chain, limits } = input;
	if (outcome?.stopReason === "aborted") return endGoal("goal-aborted", GOAL_ENDS.aborted);
	if (chain.paused) return { kind: "idle", code: "paused" };
	if (outcome && chain.failures >= limits.maxFailures)
		return endGoal("goal-failures", GOAL_ENDS.failures(chain.failures));
	const verdict = outcome ? undefined : goal.verdict;
	if (verdict === undefined) return { kind: "verify", code: "verify", checks: [], judge: "ask" };
	if ("why" in verdict) return endGoal("goal-unjudged", GOAL_ENDS.unjudged(verdict.why));
	if (verdict.word === "met") return endGoal("goal-met", GOAL_ENDS.met(goal.runs + 1, verdict.reason));
	if (goal.runs >= limits.maxContinuations) return endGoal("goal-limit", GOAL_ENDS.limit(goal.runs + 1));
	const overBudget = runBudgetStop(input, NEXT_RUN.goal, STOPPED.goal);
	if (overBudget) return { kind: "end-loop", code: "goal-budget", text: overBudget, level: "warning" };
	const next: GoalState = { condition: goal.condition, runs: goal.runs + 1 };
	const content = GOAL_PROMPTS.next(
		goal.condition,
		verdict.word,
		verdict.reason,
		next.runs + 1,
		limits.maxContinuations + 1,
	);
	return {
		kind: "send",
		code: "goal-next",
		message: { customType: GOAL_MESSAGE_TYPE, content },
		backoffMs: backoffFor(chain.failures, limits),
		chain: { ...chain, continuations: chain.continuations + 1 },
		loop: undefined,
		goal: next,
	};
}

function endGoal(code: Exclude<GoalEndCode, "goal-budget">, text: string): Step {
	return { kind: "end-loop", code, text, level: code === "goal-met" ? "info" : "warning" };
}

/**
 * Whether a step ends the goal in progress: its own end, a stop, a finished list (verified or not), the user's key, an
 * aborted run. A pause, a question or a review wait leave it for when the chain goes on.
 */
export function endsGoal(step: Step): boolean {
	if (step.kind === "end-loop" || step.kind === "stop") return true;
	return step.kind === "idle" && ["all-done", "unverified", "interrupted", "aborted"].includes(step.code);
}
