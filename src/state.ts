/** The one place that mutates: the todo list, the continuation chain and the status bar it feeds. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type ChainState, initialChain } from "./continuation.ts";
import { formatActiveText, formatPausedText, formatProgressBar, formatStatusText, PLAIN_STYLE } from "./formatting.ts";
import type { LoopState } from "./loop.ts";
import { formatPanelLines } from "./panel.ts";
import {
	ACTIVE_STATUS_KEY,
	MAX_TODOS,
	PANEL_WIDGET_ID,
	PAUSED_STATUS_KEY,
	PROGRESS_STATUS_KEY,
	STATUS_KEY,
	TOOL_NAMES,
	type TodoItem,
	type TodoStatus,
} from "./types.ts";
import { cloneTodos, isFinished, isValidTodoItem } from "./validation.ts";

/** Custom session entry that stores a list changed by the user (not by a tool), so reconstruction replays it. */
export const SNAPSHOT_ENTRY_TYPE = "til-done-snapshot";

let todos: TodoItem[] = [];
let chain: ChainState = initialChain();
/** For each text, the most items with it that were finished at once in this chain: re-finishing one is churn. */
let finishedInChain = new Map<string, number>();
/** Set once the finished-list notice is shown; cleared when the list has work again. */
let completionAnnounced = false;
let panelEnabled = false;
let panelShown = false;
let loop: LoopState | undefined;

export function getTodos(): readonly TodoItem[] {
	return todos;
}

/** Replaces the whole list. */
export function setTodos(newTodos: readonly TodoItem[]): void {
	todos = cloneTodos(newTodos);
	noteProgress();
}

/** Sets the status of every item at `indices`; the caller has validated them. */
export function updateTodoStatus(indices: readonly number[], newStatus: TodoStatus): void {
	for (const index of indices) todos[index].status = newStatus;
	noteProgress();
}

export function appendTodos(newItems: readonly TodoItem[]): void {
	todos = [...todos, ...cloneTodos(newItems)];
	noteProgress();
}

export function insertTodos(atIndex: number, newItems: readonly TodoItem[]): void {
	todos = [...todos.slice(0, atIndex), ...cloneTodos(newItems), ...todos.slice(atIndex)];
	noteProgress();
}

/** Counts one continuation sent and returns the new total. */
export function incrementAutoContinue(): number {
	chain = { ...chain, continuations: chain.continuations + 1, runIsContinuation: true, progressed: false };
	return chain.continuations;
}

export function getChain(): Readonly<ChainState> {
	return chain;
}

export function setChain(next: ChainState): void {
	chain = { ...next };
}

/** The user took the wheel (a prompt, a command, a new session): every breaker counter starts again. */
export function resetChain(): void {
	const keepPause = chain.paused && chain.pausedBy === "user";
	chain = keepPause
		? { ...initialChain(), paused: true, pauseReason: chain.pauseReason, pausedBy: "user" }
		: initialChain();
	finishedInChain = countFinished(todos);
}

/** Switches auto-continue off; a model's pause ends with the user's next prompt, a user's with `resume`. */
export function pauseAutoContinue(by: "user" | "model", reason?: string): void {
	chain = { ...chain, paused: true, pausedBy: by, pauseReason: reason };
}

export function resumeAutoContinue(): void {
	chain = { ...chain, paused: false, pausedBy: undefined, pauseReason: undefined };
}

/** Whether the "all done" notice was already shown for the current list. */
export function isCompletionAnnounced(): boolean {
	return completionAnnounced;
}

export function markCompletionAnnounced(): void {
	completionAnnounced = true;
}

/** The `/loop` in progress, if any. */
export function getLoop(): Readonly<LoopState> | undefined {
	return loop;
}

export function setLoop(next: LoopState | undefined): void {
	loop = next ? { ...next } : undefined;
}

export function setPanelEnabled(enabled: boolean): void {
	panelEnabled = enabled;
}

export function isPanelEnabled(): boolean {
	return panelEnabled;
}

/** Testing only: back to an empty list and fresh counters. */
export function resetState(): void {
	todos = [];
	chain = initialChain();
	finishedInChain = new Map();
	completionAnnounced = false;
	panelEnabled = false;
	panelShown = false;
	loop = undefined;
}

/** How many finished items carry each text. */
function countFinished(list: readonly TodoItem[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const todo of list) if (isFinished(todo.status)) counts.set(todo.text, (counts.get(todo.text) ?? 0) + 1);
	return counts;
}

/** Marks the chain as having progressed when more items with some text are finished than ever before in it. */
function noteProgress(): void {
	if (todos.some((todo) => !isFinished(todo.status))) completionAnnounced = false;
	for (const [text, count] of countFinished(todos)) {
		if (count > (finishedInChain.get(text) ?? 0)) {
			finishedInChain.set(text, count);
			chain = { ...chain, progressed: true };
		}
	}
}

/** A snapshot we may trust: an array of valid items within the list limit. */
function asSnapshot(value: unknown): TodoItem[] | undefined {
	if (!Array.isArray(value) || value.length > MAX_TODOS) return undefined;
	return value.every(isValidTodoItem) ? cloneTodos(value) : undefined;
}

/** The list stored by one session entry, or undefined when the entry holds no trustworthy snapshot. */
export function snapshotFromEntry(entry: unknown): TodoItem[] | undefined {
	if (typeof entry !== "object" || entry === null) return undefined;
	const { type, message, customType, data } = entry as Record<string, unknown>;
	if (type === "custom" && customType === SNAPSHOT_ENTRY_TYPE) return snapshotFromDetails(data);
	if (type !== "message" || typeof message !== "object" || message === null) return undefined;
	const { role, toolName, details, isError } = message as Record<string, unknown>;
	if (role !== "toolResult" || typeof toolName !== "string" || !TOOL_NAMES.has(toolName) || isError === true) {
		return undefined;
	}
	return snapshotFromDetails(details);
}

function snapshotFromDetails(details: unknown): TodoItem[] | undefined {
	if (typeof details !== "object" || details === null) return undefined;
	const { action, todos: items, error } = details as Record<string, unknown>;
	if ((action !== "write" && action !== "edit") || error !== undefined) return undefined;
	return asSnapshot(items);
}

/** Rebuilds the list from the last trustworthy snapshot on the current branch; an unreadable branch gives []. */
export function reconstructState(ctx: ExtensionContext): TodoItem[] {
	let branch: readonly unknown[] = [];
	try {
		branch = ctx.sessionManager.getBranch();
	} catch {
		branch = [];
	}
	let rebuilt: TodoItem[] = [];
	for (let i = branch.length - 1; i >= 0; i--) {
		const snapshot = snapshotFromEntry(branch[i]);
		if (snapshot) {
			rebuilt = snapshot;
			break;
		}
	}
	todos = rebuilt;
	// A list that was already finished when the session was opened needs no fresh "all done" notice.
	completionAnnounced = todos.length > 0 && todos.every((todo) => isFinished(todo.status));
	resetChain();
	return cloneTodos(todos);
}

/** Writes the status-bar values and the panel; a no-op without a UI. */
export function updateUI(ctx: ExtensionContext, list: readonly TodoItem[]): void {
	if (!ctx.hasUI) return;
	ctx.ui.setStatus(STATUS_KEY, formatStatusText(list));
	ctx.ui.setStatus(ACTIVE_STATUS_KEY, formatActiveText(list));
	ctx.ui.setStatus(PROGRESS_STATUS_KEY, formatProgressBar(list));
	ctx.ui.setStatus(PAUSED_STATUS_KEY, chain.paused ? formatPausedText(chain.pauseReason) : undefined);
	if (panelEnabled && list.length > 0) {
		// Escape codes only where a terminal draws them; RPC clients get plain lines.
		const style = ctx.mode === "tui" ? ctx.ui.theme : PLAIN_STYLE;
		ctx.ui.setWidget(PANEL_WIDGET_ID, formatPanelLines(list, style), { placement: "aboveEditor" });
		panelShown = true;
	} else if (panelShown) {
		ctx.ui.setWidget(PANEL_WIDGET_ID, undefined);
		panelShown = false;
	}
}
