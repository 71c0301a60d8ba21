/**
 * What happens after a run, and why: the one place the auto-continue decides, for the todo chain and `/loop` alike.
 * Pure: the adapters (engine.ts for the countdown, headless.ts for print and JSON modes) carry the plan out.
 */

import { buildContinuationPrompt, describeCheckEnd, formatCheckFailures, reviewWaitIndex } from "../formatting.ts";
import { countCompletedByText, hasIncomplete } from "../list/queries.ts";
import { COUNTDOWN_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "../session/keys.ts";
import {
	type ChainSpend,
	forecastNext,
	NO_SPEND,
	noteFinished,
	spendProgress,
	spendsWithoutProgress,
} from "../spend/usage.ts";
import type { CheckRun, TodoItem } from "../types.ts";
import { type LoopEndCode, type LoopState, loopEndMessage, loopPrompt } from "./loop.ts";
import {
	type BudgetSubject,
	CHAIN_BUDGET,
	costBudgetMessage,
	errorLimitMessage,
	hardCapMessage,
	LOOP_BUDGET,
	noProgressMessage,
	repeatedAnswerMessage,
	spendMessage,
	tokenBudgetMessage,
	UNFINISHED_TAIL,
	UNVERIFIED_TAIL,
} from "./stop-texts.ts";

/** How the model's last message of a run ended, as pi reports it. */
export type StopReason = "stop" | "toolUse" | "length" | "error" | "aborted";

/** What a finished run tells the planner. */
export interface RunOutcome {
	stopReason: StopReason | undefined;
	/** Text of the model's last answer in the run. */
	answer: string;
}

/** Counters of the current continuation chain; a prompt of the user starts a new chain. */
export interface ChainState {
	/** Continuations sent since the user last prompted (the hard cap counts these). */
	continuations: number;
	/** Consecutive continuation runs after which no new item was completed. */
	noProgress: number;
	/** Consecutive runs, of the todo chain or a `/loop`, that ended in a provider error or at the output limit. */
	failures: number;
	/** Whether an item was newly completed since the last continuation was sent (abandoning is no progress). */
	progressed: boolean;
	/** Continued runs in a row that completed nothing and ended with the same answer, and that answer. */
	sameAnswers: number;
	lastAnswer?: string;
	/** What a failed verification found, for the next continuation prompt; cleared once that prompt is sent. */
	verificationReport?: string;
	/** For each text, the most items with it completed at once in this chain: completing one again is churn. */
	completedByText: ReadonlyMap<string, number>;
	/** Auto-continue switched off, and why (shown to the user). */
	paused: boolean;
	pauseReason?: string;
	/** The user's pause lasts for the session; the model's lasts until the user prompts again. */
	pausedBy?: "user" | "model";
	/** What the chain's model calls cost, and what each finished item took. */
	spend: ChainSpend;
	/** Why the chain stopped, shown until the user acts (which starts a new chain). */
	stopped?: StopCode;
}

export interface EngineLimits {
	maxContinuations: number;
	/** Continued runs in a row with the same answer after which the chain stops. */
	maxSameAnswers?: number;
	/** 0 turns the no-progress breaker off. */
	maxNoProgress: number;
	/** Consecutive failed runs (provider error, output limit) after which the engine gives up. */
	maxFailures: number;
	/** First back-off after a failed run; doubles with each further failure. */
	failureBackoffMs: number;
	/** Tokens a chain may spend, forecast before each continuation; 0 or absent: no budget. */
	budgetTokens?: number;
	/** Cost a chain may reach, in the provider's currency, forecast the same way; 0 or absent: no budget. */
	budgetCost?: number;
	/** Stop when the tokens since the last finished item exceed this many times the median per item; 0: off. */
	spendFactor?: number;
}

/** Why nothing is sent: the list needs nothing, or the user or the model said not to, or the user must review. */
export type IdleCode = "no-todos" | "all-done" | "aborted" | "paused" | "asks-user" | "review-wait";
/** A breaker that ends the chain with a warning. */
export type StopCode =
	| "hard-cap"
	| "no-progress"
	| "failures"
	| "repeated-answer"
	| "spend"
	| "budget-tokens"
	| "budget-cost";

/** One check of a verification: the done-check, or a completed item's own check (regressions). */
export interface PlannedCheck {
	/** How the check is named to the user and the model: `the done-check`, `the check of [2]`. */
	what: string;
	command: string;
	/** The item the check belongs to, for an item's check. */
	index?: number;
}

/** A message to send as a new turn: a continuation prompt or the next `/loop` iteration. */
export interface PlannedMessage {
	customType: string;
	content: string;
}

export type Plan =
	| {
			kind: "send";
			code: "continue" | "loop-next";
			message: PlannedMessage;
			/** Extra wait after a failed run, before the message goes out. */
			backoffMs: number;
			/** The counters and loop to store once the message is sent. */
			chain: ChainState;
			loop: LoopState | undefined;
	  }
	| { kind: "stop"; code: StopCode; text: string }
	| { kind: "end-loop"; code: LoopEndCode; text: string; level: "info" | "warning" }
	| { kind: "verify"; code: "verify"; checks: PlannedCheck[] }
	| { kind: "idle"; code: IdleCode; index?: number; verified?: boolean };

/** The state a plan is made from. */
export interface PlanInput {
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
}

/** Continued runs in a row with the same answer after which the chain stops, unless the limits say otherwise. */
export const DEFAULT_MAX_SAME_ANSWERS = 3;

export function initialChain(): ChainState {
	return {
		continuations: 0,
		noProgress: 0,
		failures: 0,
		progressed: false,
		sameAnswers: 0,
		completedByText: new Map(),
		paused: false,
		spend: NO_SPEND,
	};
}

/** A run that failed on the provider's side or at the output limit: retried after a back-off, and counted. */
export function isFailedRun(stopReason: StopReason | undefined): boolean {
	return stopReason === "error" || stopReason === "length";
}

/** The back-off before retrying after `failures` failed runs in a row: doubling from the configured first wait. */
export function backoffFor(failures: number, limits: EngineLimits): number {
	return failures > 0 ? limits.failureBackoffMs * 2 ** (failures - 1) : 0;
}

/** True when the model's answer ends by asking the user something: continuing would talk over the question. */
export function endsWithQuestion(text: string): boolean {
	const trimmed = text.trimEnd();
	return trimmed.endsWith("?") || trimmed.endsWith("？");
}

/**
 * Notes items newly completed in this chain (more items with some text completed than ever before in it), and the
 * tokens they took. Only a completion is progress: abandoning work, or rewriting the list without it, is not.
 */
export function noteCompleted(chain: ChainState, todos: readonly TodoItem[]): ChainState {
	let completedByText: Map<string, number> | undefined;
	let finished = 0;
	for (const [text, count] of countCompletedByText(todos)) {
		const before = chain.completedByText.get(text) ?? 0;
		if (count <= before) continue;
		completedByText ??= new Map(chain.completedByText);
		completedByText.set(text, count);
		finished += count - before;
	}
	if (!completedByText) return chain;
	return { ...chain, completedByText, progressed: true, spend: noteFinished(chain.spend, finished) };
}

/**
 * The counters after a run: failures in a row, continuation runs in a row that completed nothing, and of those the
 * ones in a row that ended with the same non-empty answer (a model repeating itself; one that completes items is not
 * stuck, and a run that ends without words has said nothing to repeat).
 */
export function assessRun(chain: ChainState, outcome: RunOutcome): ChainState {
	const failed = isFailedRun(outcome.stopReason);
	const stuck = chain.continuations > 0 && !chain.progressed;
	const answered = stuck && outcome.answer.trim() !== "";
	const repeated = answered && chain.sameAnswers > 0 && outcome.answer === chain.lastAnswer;
	return {
		...chain,
		failures: failed ? chain.failures + 1 : 0,
		noProgress: chain.progressed ? 0 : stuck && !failed ? chain.noProgress + 1 : chain.noProgress,
		sameAnswers: answered ? (repeated ? chain.sameAnswers + 1 : 1) : 0,
		lastAnswer: answered ? outcome.answer : undefined,
	};
}

/** After a run: the counters to store now, and what to do next. */
export function planAfterRun(input: PlanInput, outcome: RunOutcome): { chain: ChainState; plan: Plan } {
	const chain = assessRun(input.chain, outcome);
	return { chain, plan: decide({ ...input, chain }, outcome) };
}

/** Between runs (a countdown ran out, the user resumed): what to do now, with nothing new learned from a run. */
export function planNow(input: PlanInput): Plan {
	return decide(input, undefined);
}

/** Whether any plan can be more than idle `no-todos`: only with a list or a loop. Adapters may skip asking otherwise. */
export function canAct(todos: readonly TodoItem[], loop: LoopState | undefined): boolean {
	return loop !== undefined || todos.length > 0;
}

function decide(input: PlanInput, outcome: RunOutcome | undefined): Plan {
	if (!canAct(input.todos, input.loop)) return { kind: "idle", code: "no-todos" };
	return input.loop ? decideLoop(input.loop, input, outcome) : decideTodos(input, outcome);
}

function decideTodos(input: PlanInput, outcome: RunOutcome | undefined): Plan {
	const { todos, chain } = input;
	if (!hasIncomplete(todos)) return decideFinished(input, outcome);
	if (outcome?.stopReason === "aborted") return { kind: "idle", code: "aborted" };
	if (chain.paused) return { kind: "idle", code: "paused" };
	if (outcome?.stopReason === "stop" && endsWithQuestion(outcome.answer)) return { kind: "idle", code: "asks-user" };
	const review = reviewWaitIndex(todos);
	if (review !== undefined) return { kind: "idle", code: "review-wait", index: review };
	return tripped(input) ?? continuation(input);
}

/** A breaker that trips now, checked in this order, then the budgets; undefined when the continuation may go. */
function tripped(input: PlanInput): Plan | undefined {
	const { todos, chain, limits } = input;
	const tail = hasIncomplete(todos) ? UNFINISHED_TAIL : UNVERIFIED_TAIL;
	if (chain.failures >= limits.maxFailures) return stop("failures", errorLimitMessage(limits.maxFailures, tail));
	// Before no-progress, which trips on the same runs: it names the more particular reason.
	const maxSame = limits.maxSameAnswers ?? DEFAULT_MAX_SAME_ANSWERS;
	if (chain.sameAnswers >= maxSame) return stop("repeated-answer", repeatedAnswerMessage(maxSame, tail));
	if (limits.maxNoProgress > 0 && chain.noProgress >= limits.maxNoProgress) {
		return stop("no-progress", noProgressMessage(limits.maxNoProgress, tail));
	}
	const factor = limits.spendFactor ?? 0;
	if (spendsWithoutProgress(chain.spend, factor)) {
		return stop("spend", spendMessage(spendProgress(chain.spend), factor, tail));
	}
	if (chain.continuations >= limits.maxContinuations) {
		return stop("hard-cap", hardCapMessage(limits.maxContinuations, tail));
	}
	const overBudget = budgetCrossed(input, { ...CHAIN_BUDGET, tail });
	return overBudget ? stop(overBudget.code, overBudget.text) : undefined;
}

/** The budget the next message would cross, by the forecast of its first call; undefined when none. */
export function budgetCrossed(
	{ chain, limits, inputPrice }: PlanInput,
	subject: BudgetSubject,
): { code: "budget-tokens" | "budget-cost"; text: string } | undefined {
	const forecast = forecastNext(chain.spend, inputPrice);
	const { budgetTokens = 0, budgetCost = 0 } = limits;
	if (budgetTokens > 0 && forecast.tokens > budgetTokens) {
		return { code: "budget-tokens", text: tokenBudgetMessage(forecast, budgetTokens, chain.spend.tokens, subject) };
	}
	if (budgetCost > 0 && forecast.cost > budgetCost) {
		return { code: "budget-cost", text: costBudgetMessage(forecast, budgetCost, chain.spend.cost, subject) };
	}
	return undefined;
}

function continuation({ todos, chain, limits }: PlanInput): Plan {
	const content = buildContinuationPrompt(todos, undefined, chain.verificationReport);
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
 * run may have fixed what failed), or, between runs right after a failed verification, ask for the fix.
 */
function decideFinished(input: PlanInput, outcome: RunOutcome | undefined): Plan {
	const checks = verificationChecks(input);
	if (checks.length === 0) return { kind: "idle", code: "all-done" };
	if (input.verified) return { kind: "idle", code: "all-done", verified: true };
	if (outcome?.stopReason === "aborted") return { kind: "idle", code: "aborted" };
	if (input.chain.paused) return { kind: "idle", code: "paused" };
	if (outcome === undefined && input.chain.verificationReport !== undefined)
		return tripped(input) ?? continuation(input);
	return { kind: "verify", code: "verify", checks };
}

/** What verifies a finished list: the user's done-check, then the check of every completed item (regressions). */
export function verificationChecks({ todos, doneCheck, modelChecks }: PlanInput): PlannedCheck[] {
	const items = todos.flatMap((todo, index): PlannedCheck[] =>
		modelChecks && todo.status === "completed" && todo.check !== undefined
			? [{ what: `the check of [${index}]`, command: todo.check, index }]
			: [],
	);
	return doneCheck === undefined ? items : [{ what: "the done-check", command: doneCheck }, ...items];
}

/** What a verification found, and what follows from it. */
export interface VerificationPlan {
	passed: boolean;
	/** Each failed check, with how it ended: `the done-check (exit code 1)`. */
	failed: string[];
	/** Items whose own check failed now: they go back to in progress. */
	reopen: number[];
	/** The counters to store: a failure report for the next continuation prompt. */
	chain: ChainState;
	/** Made from the state after the items were reopened. */
	plan: Plan;
}

/** After a verification: done and verified, or the items to reopen and a continuation that asks for the fix. */
export function planAfterVerification(
	input: PlanInput,
	results: readonly [PlannedCheck, CheckRun][],
	timeoutSeconds: number,
): VerificationPlan {
	const failures = results.filter(([, run]) => !run.passed);
	if (failures.length === 0) {
		return {
			passed: true,
			failed: [],
			reopen: [],
			chain: input.chain,
			plan: { kind: "idle", code: "all-done", verified: true },
		};
	}
	const reopen = failures.flatMap(([check]) => (check.index === undefined ? [] : [check.index]));
	const todos = input.todos.map((todo, index) =>
		reopen.includes(index) ? { ...todo, status: "in_progress" as const } : todo,
	);
	const report = formatCheckFailures(
		failures.map(([check, run]): [string, CheckRun] => [check.what, run]),
		timeoutSeconds,
	);
	const chain = { ...input.chain, verificationReport: report };
	const failed = failures.map(([check, run]) => `${check.what} (${describeCheckEnd(run, timeoutSeconds)})`);
	return { passed: false, failed, reopen, chain, plan: planNow({ ...input, todos, chain }) };
}

function decideLoop(loop: LoopState, input: PlanInput, outcome: RunOutcome | undefined): Plan {
	const { chain, limits } = input;
	if (outcome?.stopReason === "aborted") return endLoop(loop, "loop-aborted");
	if (outcome?.answer.includes(loop.marker)) return endLoop(loop, "loop-done");
	if (chain.failures >= limits.maxFailures) return endLoop(loop, "loop-failures", chain.failures);
	if (loop.iteration >= loop.max) return endLoop(loop, "loop-limit");
	const overBudget = budgetCrossed(input, LOOP_BUDGET);
	if (overBudget) return { kind: "end-loop", code: "loop-budget", text: overBudget.text, level: "warning" };
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

function stop(code: StopCode, text: string): Plan {
	return { kind: "stop", code, text };
}

function endLoop(loop: LoopState, code: Exclude<LoopEndCode, "loop-budget">, failures = 0): Plan {
	const level = code === "loop-done" ? "info" : "warning";
	return { kind: "end-loop", code, text: loopEndMessage(loop, code, failures), level };
}
