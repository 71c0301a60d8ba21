/**
 * What happens after a run, and why: the one place the auto-continue decides, for the todo chain and `/loop` alike.
 * Pure: the adapters (engine.ts for the countdown, headless.ts for print and JSON modes) carry the plan out.
 */

import { buildContinuationPrompt, errorLimitMessage, hardCapMessage, noProgressMessage } from "./formatting.ts";
import { COUNTDOWN_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "./keys.ts";
import { type LoopEndCode, type LoopState, loopEndMessage, loopPrompt } from "./loop.ts";
import { countFinishedByText, hasIncomplete } from "./queries.ts";
import type { TodoItem } from "./types.ts";

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
	/** Consecutive continuation runs after which no new item was finished. */
	noProgress: number;
	/** Consecutive runs, of the todo chain or a `/loop`, that ended in a provider error or at the output limit. */
	failures: number;
	/** Whether an item was newly finished since the last continuation was sent. */
	progressed: boolean;
	/** For each text, the most items with it that were finished at once in this chain: finishing one again is churn. */
	finishedByText: ReadonlyMap<string, number>;
	/** Auto-continue switched off, and why (shown to the user). */
	paused: boolean;
	pauseReason?: string;
	/** The user's pause lasts for the session; the model's lasts until the user prompts again. */
	pausedBy?: "user" | "model";
}

export interface EngineLimits {
	maxContinuations: number;
	/** 0 turns the no-progress breaker off. */
	maxNoProgress: number;
	/** Consecutive failed runs (provider error, output limit) after which the engine gives up. */
	maxFailures: number;
	/** First back-off after a failed run; doubles with each further failure. */
	failureBackoffMs: number;
}

/** Why nothing is sent: the list needs nothing, or the user or the model said not to. */
export type IdleCode = "no-todos" | "all-done" | "aborted" | "paused" | "asks-user";
/** A breaker that ends the chain with a warning. */
export type StopCode = "hard-cap" | "no-progress" | "failures";

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
	| { kind: "idle"; code: IdleCode };

/** The state a plan is made from. */
export interface PlanInput {
	todos: readonly TodoItem[];
	chain: ChainState;
	loop: LoopState | undefined;
	limits: EngineLimits;
}

export function initialChain(): ChainState {
	return { continuations: 0, noProgress: 0, failures: 0, progressed: false, finishedByText: new Map(), paused: false };
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

/** Notes items newly finished in this chain (more items with some text finished than ever before in it). */
export function noteFinished(chain: ChainState, todos: readonly TodoItem[]): ChainState {
	let finishedByText: Map<string, number> | undefined;
	for (const [text, count] of countFinishedByText(todos)) {
		if (count <= (chain.finishedByText.get(text) ?? 0)) continue;
		finishedByText ??= new Map(chain.finishedByText);
		finishedByText.set(text, count);
	}
	return finishedByText ? { ...chain, finishedByText, progressed: true } : chain;
}

/** The counters after a run: failures in a row, and continuation runs in a row that finished nothing. */
export function assessRun(chain: ChainState, outcome: RunOutcome): ChainState {
	const failed = isFailedRun(outcome.stopReason);
	const stalled = chain.continuations > 0 && !chain.progressed && !failed;
	return {
		...chain,
		failures: failed ? chain.failures + 1 : 0,
		noProgress: chain.progressed ? 0 : stalled ? chain.noProgress + 1 : chain.noProgress,
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

function decide(input: PlanInput, outcome: RunOutcome | undefined): Plan {
	return input.loop ? decideLoop(input.loop, input, outcome) : decideTodos(input, outcome);
}

function decideTodos({ todos, chain, limits }: PlanInput, outcome: RunOutcome | undefined): Plan {
	if (todos.length === 0) return { kind: "idle", code: "no-todos" };
	if (!hasIncomplete(todos)) return { kind: "idle", code: "all-done" };
	if (outcome?.stopReason === "aborted") return { kind: "idle", code: "aborted" };
	if (chain.paused) return { kind: "idle", code: "paused" };
	if (outcome?.stopReason === "stop" && endsWithQuestion(outcome.answer)) return { kind: "idle", code: "asks-user" };
	if (chain.failures >= limits.maxFailures) return stop("failures", errorLimitMessage(limits.maxFailures));
	if (limits.maxNoProgress > 0 && chain.noProgress >= limits.maxNoProgress) {
		return stop("no-progress", noProgressMessage(limits.maxNoProgress));
	}
	if (chain.continuations >= limits.maxContinuations) return stop("hard-cap", hardCapMessage(limits.maxContinuations));
	return {
		kind: "send",
		code: "continue",
		message: { customType: COUNTDOWN_MESSAGE_TYPE, content: buildContinuationPrompt(todos) },
		backoffMs: backoffFor(chain.failures, limits),
		chain: { ...chain, continuations: chain.continuations + 1, progressed: false },
		loop: undefined,
	};
}

function decideLoop(loop: LoopState, { chain, limits }: PlanInput, outcome: RunOutcome | undefined): Plan {
	if (outcome?.stopReason === "aborted") return endLoop(loop, "loop-aborted");
	if (outcome?.answer.includes(loop.marker)) return endLoop(loop, "loop-done");
	if (chain.failures >= limits.maxFailures) return endLoop(loop, "loop-failures", chain.failures);
	if (loop.iteration >= loop.max) return endLoop(loop, "loop-limit");
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

function endLoop(loop: LoopState, code: LoopEndCode, failures = 0): Plan {
	const level = code === "loop-done" ? "info" : "warning";
	return { kind: "end-loop", code, text: loopEndMessage(loop, code, failures), level };
}
