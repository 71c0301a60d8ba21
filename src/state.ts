/**
 * The store: the todo list, the continuation chain, the `/loop` in progress and the panel switch. It stores and
 * tells its subscriber (the session's status-bar painter, ui.ts) about every change; it never touches the UI itself.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LoopState } from "./continue/loop.ts";
import { type ChainState, initialChain, noteCompleted, type StopCode } from "./continue/planner.ts";
import type { Decision } from "./continue/reasons.ts";
import { isAllFinished } from "./list/queries.ts";
import { lastDoneCheck, lastSnapshot } from "./session/snapshot.ts";
import { addUsage, readUsage } from "./spend/usage.ts";
import type { TodoItem, TodoStatus } from "./types.ts";
import { cloneTodos } from "./validation.ts";

/** A check that is running, for the status bar: which one (`[2]`, `the done-check`) and its command. */
export interface RunningCheck {
	what: string;
	command: string;
}

/** What the last verification of the finished list found, until the list or the done-check changes. */
export interface Verification {
	passed: boolean;
	/** Which checks failed, e.g. `the done-check (exit code 1)`, `the check of [2] (timed out after 120 s)`. */
	failed: string[];
	/** How many checks ran. */
	checks: number;
}

/** What the status bar and the panel show (ui.ts paints it). */
export interface UiView {
	todos: readonly TodoItem[];
	chain: Readonly<ChainState>;
	loop: Readonly<LoopState> | undefined;
	panelEnabled: boolean;
	checking: RunningCheck | undefined;
	verification: Verification | undefined;
}

let todos: TodoItem[] = [];
let chain: ChainState = initialChain();
let loop: LoopState | undefined;
/** Set once the finished-list notice is shown; cleared when the list has work again. */
let completionAnnounced = false;
let panelEnabled = false;
let checking: RunningCheck | undefined;
let verification: Verification | undefined;
/** The done-check set with `/todos check` on the branch: a command, null for "off", undefined when never set. */
let branchDoneCheck: string | null | undefined;
/** The latest decisions of the auto-continue, oldest first, at most {@link MAX_DECISIONS}. */
let decisions: Decision[] = [];
/** Setting warnings already shown: flags and environment do not change while pi runs, so each is said once. */
const reportedWarnings = new Set<string>();
const listeners = new Set<() => void>();

/** Calls `listener` after every change; returns the unsubscribe function. */
export function subscribe(listener: () => void): () => void {
	listeners.add(listener);
	return () => listeners.delete(listener);
}

function changed(): void {
	for (const listener of [...listeners]) listener();
}

export function getTodos(): readonly TodoItem[] {
	return todos;
}

/** A list change: noted as progress when an item is newly finished, and the completion notice re-armed. */
function listChanged(): void {
	if (!isAllFinished(todos)) completionAnnounced = false;
	chain = noteCompleted(chain, todos);
	// A pass no longer holds for a changed list; a failure stays on the status bar until the next verification.
	if (verification?.passed) verification = undefined;
	changed();
}

/** Replaces the whole list. */
export function setTodos(newTodos: readonly TodoItem[]): void {
	todos = cloneTodos(newTodos);
	listChanged();
}

/** Sets the status of every item at `indices`; the caller has validated them. */
export function updateTodoStatus(indices: readonly number[], newStatus: TodoStatus): void {
	todos = todos.map((todo, index) => (indices.includes(index) ? { ...todo, status: newStatus } : todo));
	listChanged();
}

export function appendTodos(newItems: readonly TodoItem[]): void {
	todos = [...todos, ...cloneTodos(newItems)];
	listChanged();
}

export function insertTodos(atIndex: number, newItems: readonly TodoItem[]): void {
	todos = [...todos.slice(0, atIndex), ...cloneTodos(newItems), ...todos.slice(atIndex)];
	listChanged();
}

export function getChain(): Readonly<ChainState> {
	return chain;
}

export function setChain(next: ChainState): void {
	chain = next;
	changed();
}

/** The user took the wheel (a prompt, a command, a new session): every breaker counter starts again. */
export function resetChain(): void {
	const fresh = { ...initialChain(), completedByText: noteCompleted(initialChain(), todos).completedByText };
	const keepPause = chain.paused && chain.pausedBy === "user";
	setChain(keepPause ? { ...fresh, paused: true, pauseReason: chain.pauseReason, pausedBy: "user" } : fresh);
}

/** Switches auto-continue off; a model's pause ends with the user's next prompt, a user's with `resume`. */
export function pauseAutoContinue(by: "user" | "model", reason?: string): void {
	setChain({ ...chain, paused: true, pausedBy: by, pauseReason: reason });
}

export function resumeAutoContinue(): void {
	setChain({ ...chain, paused: false, pausedBy: undefined, pauseReason: undefined });
}

/** A model call ended: its usage counts in the chain's spend (a message without usage changes nothing). */
export function recordUsage(message: unknown): void {
	const usage = readUsage(message);
	if (usage) setChain({ ...chain, spend: addUsage(chain.spend, usage) });
}

/** A breaker or a budget stopped the chain: the status bar says why until the user acts. */
export function markStopped(code: StopCode): void {
	setChain({ ...chain, stopped: code });
}

/** Decisions kept for `/todos why`: enough for a long chain's end, bounded so a long session does not grow. */
export const MAX_DECISIONS = 50;

export function recordDecision(decision: Decision): void {
	decisions = [...decisions.slice(-(MAX_DECISIONS - 1)), decision];
}

export function getDecisions(): readonly Decision[] {
	return decisions;
}

/** A new session (not a reload or a move in the tree): the old one's decisions are not its own. */
export function clearDecisions(): void {
	decisions = [];
}

/** The `/loop` in progress, if any. */
export function getLoop(): Readonly<LoopState> | undefined {
	return loop;
}

export function setLoop(next: LoopState | undefined): void {
	loop = next ? { ...next } : undefined;
	changed();
}

/** Stores what a sent continuation or loop iteration changes: the chain's counters and the loop. */
export function recordSend(sent: { chain: ChainState; loop: LoopState | undefined }): void {
	chain = sent.chain;
	loop = sent.loop;
	changed();
}

/** Whether the "all done" notice was already shown for the current list. */
export function isCompletionAnnounced(): boolean {
	return completionAnnounced;
}

export function markCompletionAnnounced(): void {
	completionAnnounced = true;
}

/** The warnings among `warnings` not shown yet, now counted as shown. */
export function takeUnreported(warnings: readonly string[]): string[] {
	const fresh = warnings.filter((warning) => !reportedWarnings.has(warning));
	for (const warning of fresh) reportedWarnings.add(warning);
	return fresh;
}

export function setPanelEnabled(enabled: boolean): void {
	panelEnabled = enabled;
	changed();
}

export function isPanelEnabled(): boolean {
	return panelEnabled;
}

/** Shows a check as running (undefined: none is). */
export function setChecking(next: RunningCheck | undefined): void {
	checking = next;
	changed();
}

export function getVerification(): Verification | undefined {
	return verification;
}

export function setVerification(next: Verification | undefined): void {
	verification = next;
	changed();
}

/** The done-check the user set on this branch, if they did (null: they turned it off). */
export function getBranchDoneCheck(): string | null | undefined {
	return branchDoneCheck;
}

/** The done-check in force: the one set on the branch (null: turned off there), else the configured one. */
export function effectiveDoneCheck(configured: string | undefined): string | undefined {
	return branchDoneCheck === undefined ? configured : (branchDoneCheck ?? undefined);
}

/** `/todos check`: a new done-check (or null for none) also makes the finished list unverified again. */
export function setBranchDoneCheck(command: string | null): void {
	branchDoneCheck = command;
	verification = undefined;
	changed();
}

/** What the status bar and the panel show, as of now. */
export function currentView(): UiView {
	return { todos, chain, loop, panelEnabled, checking, verification };
}

/** Testing only: back to an empty list and fresh counters, with no subscriber. */
export function resetState(): void {
	todos = [];
	chain = initialChain();
	loop = undefined;
	completionAnnounced = false;
	panelEnabled = false;
	checking = undefined;
	verification = undefined;
	branchDoneCheck = undefined;
	decisions = [];
	reportedWarnings.clear();
	listeners.clear();
}

/** Rebuilds the list from the last trustworthy snapshot on the current branch; an unreadable branch gives []. */
export function reconstructState(ctx: ExtensionContext): void {
	let branch: readonly unknown[] = [];
	try {
		branch = ctx.sessionManager.getBranch();
	} catch {
		branch = [];
	}
	todos = lastSnapshot(branch);
	branchDoneCheck = lastDoneCheck(branch);
	verification = undefined;
	checking = undefined;
	// A list that was already finished when the session was opened needs no fresh "all done" notice.
	completionAnnounced = isAllFinished(todos);
	resetChain();
}
