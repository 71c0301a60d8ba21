/**
 * What the status bar shows for a session's state: one entry per key, composed from the list, the chain, the loop and
 * the verification (edges/host/painter.ts paints them). Pure.
 */

import { hasLinks } from "../list/links.ts";
import { finishedCount, isAllFinished, pickNextIndex, reviewWaitIndex } from "../list/queries.ts";
import { waitingItems } from "../list/ready.ts";
import type { GoalState, LoopState, TodoItem } from "../model/types.ts";
import { stopWords } from "../rules/breakers.ts";
import type { ChainState } from "../rules/chain.ts";
import {
	ACTIVE_STATUS_KEY,
	CHECK_STATUS_KEY,
	GOAL_STATUS_KEY,
	LOOP_STATUS_KEY,
	NEXT_STATUS_KEY,
	PAUSED_STATUS_KEY,
	REVIEW_STATUS_KEY,
	STATUS_KEY,
	STOP_STATUS_KEY,
	WORKERS_STATUS_KEY,
} from "../rules/keys.ts";
import { checksAndJudge, passesFor, type Verification } from "../rules/verdict.ts";
import {
	activeStatus,
	checkStatus,
	goalStatus,
	loopStatus,
	nextStatus,
	pausedStatus,
	progressStatus,
	reviewStatus,
	type StatusText,
	stopStatus,
	workersStatus,
} from "../texts/user.ts";
import type { StatusEntry } from "./status-line.ts";

/** A check that is running, for the status bar: which one (`[2]`, `the done-check`) and its command. */
export interface RunningCheck {
	what: string;
	command: string;
}

/** What the status bar and the panel show, read off the store. */
export interface UiView {
	todos: readonly TodoItem[];
	chain: Pick<ChainState, "paused" | "pauseReason" | "stopped">;
	loop: LoopState | undefined;
	/** The goal in progress, if any. */
	goal?: GoalState;
	/** The workers at work. */
	workers?: readonly { index: number }[];
	panelEnabled: boolean;
	checking: RunningCheck | undefined;
	verification: Verification | undefined;
	/** Whether a finished list has a verification to pass before it is done (a done-check, item checks, the judge). */
	toVerify: boolean;
	/** Whether the judge is on: no pass holds without its "met". */
	judgeOn?: boolean;
}

/** The list's progress entry: `done` once it is finished and verified where it has a verification. */
export function progressOf(todos: readonly TodoItem[], done: boolean): StatusText | undefined {
	return progressStatus(finishedCount(todos), todos.length, done);
}

/** The review entry: the item the auto-continue waits on for the user's review, if any. */
export function reviewOf(todos: readonly TodoItem[]): StatusText | undefined {
	return reviewStatus(reviewWaitIndex(todos));
}

/**
 * Every status-bar entry by key. pi's footer shows them sorted by key, which is this order: what is open or done
 * (progress once), the item in progress, the verification, then why the chain waits or stopped, and the workers. Each
 * item in progress is named once: by the review wait, by its worker, or else as the session's own item in progress.
 */
export function statusEntries(view: UiView): StatusEntry[] {
	const verified = passesFor(view.verification, view.todos, view.judgeOn);
	// A finished list waits while it has a verification to pass, or failed its last one, whatever the settings say now.
	const unverified = view.toVerify || view.verification?.passed === false;
	const waitsForVerification = isAllFinished(view.todos) && unverified && !verified;
	const workers = workerItems(view);
	const review = reviewWaitIndex(view.todos);
	const elsewhere = new Set([...workers.map(([index]) => index), ...(review === undefined ? [] : [review])]);
	return [
		[STATUS_KEY, progressOf(view.todos, isAllFinished(view.todos) && !waitsForVerification)],
		[ACTIVE_STATUS_KEY, activeStatus(view.todos, elsewhere)],
		[CHECK_STATUS_KEY, checkStatus(view.checking, verdictToShow(view, verified), waitsForVerification)],
		[GOAL_STATUS_KEY, view.goal ? goalStatus(view.goal.condition) : undefined],
		[LOOP_STATUS_KEY, view.loop ? loopStatus(view.loop.iteration, view.loop.max) : undefined],
		[PAUSED_STATUS_KEY, view.chain.paused ? pausedStatus(view.chain.pauseReason) : undefined],
		[NEXT_STATUS_KEY, nextEntry(view.todos)],
		[REVIEW_STATUS_KEY, reviewOf(view.todos)],
		[STOP_STATUS_KEY, stopStatus(view.chain.stopped && stopWords(view.chain.stopped))],
		[WORKERS_STATUS_KEY, workers.length > 0 ? workersStatus(workers) : undefined],
	];
}

/** The workers' items with their texts, by index: the store keeps workers in the order they started, which changes. */
function workerItems({ todos, workers = [] }: UiView): [number, string | undefined][] {
	return workers
		.map(({ index }): [number, string | undefined] => [index, todos[index]?.text])
		.sort(([a], [b]) => a - b);
}

/** What a list with waits or subtasks adds to the bar; a list without links adds nothing. */
function nextEntry(todos: readonly TodoItem[]): StatusText | undefined {
	if (!hasLinks(todos)) return undefined;
	const next = pickNextIndex(todos);
	const todo = next === undefined ? undefined : todos[next];
	return nextStatus(next === undefined || todo === undefined ? undefined : [next, todo], waitingItems(todos).length);
}

/** The verdict the status bar may show: a failure, or a pass that holds for the list as it is now. */
function verdictToShow({ verification }: UiView, verified: boolean) {
	if (!verification || (verification.passed && !verified)) return undefined;
	return { passed: verification.passed, failed: verification.failed, ...checksAndJudge(verification) };
}
