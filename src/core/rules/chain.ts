/**
 * The counters of a continuation chain (the runs since the user last took the wheel) and how a run moves them. Pure:
 * the next-step rules read them, the breakers trip on them, the store keeps them.
 */

import { countCompletedByText } from "../list/queries.ts";
import type { TodoItem } from "../model/types.ts";
import type { StoppedBy } from "./breakers.ts";
import { isFailedRun, type RunOutcome } from "./outcome.ts";
import { type ChainSpend, NO_SPEND, noteFinished } from "./usage.ts";

/** Counters of the current continuation chain; a prompt of the user starts a new chain. */
export interface ChainState {
	/** Continuations sent since the user last prompted (the hard cap counts these). */
	continuations: number;
	/** Consecutive continuation runs after which no new item was completed. */
	noProgress: number;
	/** Consecutive runs, of the todo chain or a `/loop`, that ended in a provider error or at the output limit, or workers that gave their item back. */
	failures: number;
	/** Why the last failed run, when it was a worker's, gave its item back (the stop says so). */
	lastWorkerFailure?: string;
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
	/** The review item the user was last told the chain waits on, so a wait is announced once. */
	reviewAnnounced?: number;
	/** What stopped the chain (a breaker, or the user's key), shown until the user acts (which starts a new chain). */
	stopped?: StoppedBy;
}

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

/**
 * Notes items newly completed in this chain (more items with some text completed than ever before in it), and the
 * tokens they took (`byWorkers`: what the worker of each one a worker landed spent on it). Only a completion is
 * progress: abandoning work, or rewriting the list without it, is not.
 */
export function noteCompleted(
	chain: ChainState,
	todos: readonly TodoItem[],
	byWorkers: readonly number[] = [],
): ChainState {
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
	return { ...chain, completedByText, progressed: true, spend: noteFinished(chain.spend, finished, byWorkers) };
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
		lastWorkerFailure: undefined,
		noProgress: chain.progressed ? 0 : stuck && !failed ? chain.noProgress + 1 : chain.noProgress,
		sameAnswers: answered ? (repeated ? chain.sameAnswers + 1 : 1) : 0,
		lastAnswer: answered ? outcome.answer : undefined,
	};
}
