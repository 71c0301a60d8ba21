/**
 * What `edit_todos` and `write_todos` do beyond the list operations: an item the user must review is never closed by
 * the model, an item with a check is completed only when its check passes, and walking away from open work during
 * the auto-continue is shown to the user.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { withStatus } from "../../core/list/changes.ts";
import { droppedOpenItems, openItemsAt, pickNextIndex } from "../../core/list/queries.ts";
import { parentsCompletedBy, unready } from "../../core/list/ready.ts";
import { LONG_LIST_NOTE, RESULT_HEADERS, TOOL_ERRORS } from "../../core/texts/model.ts";
import { NOTICES } from "../../core/texts/user.ts";
import { fitsInResults, formatChangeBody } from "../../formatting.ts";
import { getChain, getTodos, setTodos } from "../../state.ts";
import {
	ACTION_LABELS,
	ACTION_TO_STATUS,
	type CheckRun,
	type EditAction,
	type TodoDetails,
	type TodoItem,
} from "../../types.ts";
import { cloneTodos, isIncomplete, type ParamError } from "../../validation.ts";
import { tell } from "../host/tell.ts";
import { type CheckEnv, itemsToCheck, modelChecksBlocked, runItemChecks } from "./item-checks.ts";

export type ToolResult<D> = { content: { type: "text"; text: string }[]; details: D };

export function textResult<D>(text: string, details: D): ToolResult<D> {
	return { content: [{ type: "text", text }], details };
}

export function errorResult(action: TodoDetails["action"], error: ParamError): ToolResult<TodoDetails> {
	return textResult(error.message, { action, todos: [], error: error.detail });
}

/**
 * A successful change: the header, then the list while it is short, else what changed and what comes next (a write
 * also says where the whole list is), and a full snapshot for replay.
 */
export function changeResult(
	action: "write" | "edit",
	header: string,
	extra: object = {},
	started: readonly number[] = [],
): ToolResult<TodoDetails> {
	const todos = getTodos();
	const note = action === "write" && !fitsInResults(todos) ? `\n${LONG_LIST_NOTE}` : "";
	const text = `${header}\n\n${formatChangeBody(todos, started)}${note}`;
	return textResult(text, { action, todos: cloneTodos(todos), ...extra });
}

/** During an auto-continued chain, open items the model abandons are shown to the user with its reason. */
export function noticeAbandoned(ctx: ExtensionContext, items: readonly [number, TodoItem][], reason?: string): void {
	if (items.length === 0 || getChain().continuations === 0) return;
	tell(ctx, NOTICES.abandoned(items, reason), "warning");
}

/** During an auto-continued chain, open items a rewrite of the list drops are shown to the user. */
export function noticeDropped(ctx: ExtensionContext, before: readonly TodoItem[]): void {
	const dropped = droppedOpenItems(before, getTodos());
	if (dropped.length === 0 || getChain().continuations === 0) return;
	tell(ctx, NOTICES.dropped(dropped), "warning");
}

/** Items the model may not close because the user must review them; null when there are none. */
export function reviewError(action: EditAction, indices: readonly number[]): ParamError | null {
	if (action === "start") return null;
	const review = [...new Set(indices)].sort((a, b) => a - b).filter((index) => getTodos()[index]?.review);
	if (review.length === 0) return null;
	return TOOL_ERRORS.reviewItems(review);
}

/**
 * The open items of `before` that `keeps` counts that a rewrite to `after` loses: each needs an item of its own in
 * the new list with its text (and whatever `keeps` asks of it). New items start not started, so a rewrite cannot
 * complete one.
 */
function lostInRewrite(
	before: readonly TodoItem[],
	after: readonly TodoItem[],
	keeps: (todo: TodoItem) => boolean,
): [number, TodoItem][] {
	const kept = new Map<string, number>();
	for (const todo of after) if (keeps(todo)) kept.set(todo.text, (kept.get(todo.text) ?? 0) + 1);
	return before.flatMap((todo, index): [number, TodoItem][] => {
		if (!keeps(todo) || !isIncomplete(todo.status)) return [];
		const left = kept.get(todo.text) ?? 0;
		kept.set(todo.text, left - 1);
		return left > 0 ? [] : [[index, todo]];
	});
}

/** A rewrite may not drop or unmark an open item the user must review. Null when every one is kept. */
export function rewriteReviewError(before: readonly TodoItem[], after: readonly TodoItem[]): ParamError | null {
	const lost = lostInRewrite(before, after, (todo) => todo.review === true);
	return lost.length === 0 ? null : TOOL_ERRORS.reviewRewritten(lost);
}

/**
 * A list that follows a plan file holds what the person wrote there: a rewrite may not drop or reword its open items
 * (they would be gone from the file). Null when every one is kept, or when no plan file is followed.
 */
export function rewritePlanError(
	ctx: ExtensionContext,
	planFile: string | undefined,
	before: readonly TodoItem[],
	after: readonly TodoItem[],
): ParamError | null {
	if (planFile === undefined) return null;
	const lost = lostInRewrite(before, after, () => true);
	if (lost.length === 0) return null;
	// The person who wrote the file hears of it too: a run that ends with the file's items open says why.
	tell(ctx, NOTICES.planRewriteRefused(planFile, lost), "warning");
	return TOOL_ERRORS.planItemsDropped(planFile, lost);
}

/** Items the model may not start or complete yet (core/list/ready.ts's rule); null when every item may go. */
export function readinessError(
	todos: readonly TodoItem[],
	action: EditAction,
	indices: readonly number[],
): ParamError | null {
	if (action === "abandon") return null;
	const why = unready(todos, action === "complete", indices);
	if (why === undefined) return null;
	if (why.kind === "waiting") return TOOL_ERRORS.notReady(why.waiting, pickNextIndex(todos));
	return TOOL_ERRORS.openSubtasks(why.parent, why.open);
}

function checkFailureError(runs: readonly [number, CheckRun][], timeoutSeconds: number): ParamError {
	return TOOL_ERRORS.checksFailed(
		runs.filter(([, run]) => !run.passed),
		timeoutSeconds,
	);
}

/** What running an edit needs from the tool call. */
export interface EditCall {
	action: EditAction;
	indices: number[];
	reason?: string;
	ctx: ExtensionContext;
	signal?: AbortSignal;
	onUpdate?: (text: string) => void;
}

/**
 * Completes, starts or abandons items once every check of an item to complete has passed; a parent whose last open
 * subtask this finishes completes with it (after its own check, unless the user must review it).
 */
export async function runEdit(call: EditCall, env: CheckEnv): Promise<ToolResult<TodoDetails>> {
	const blocked = reviewError(call.action, call.indices) ?? readinessError(getTodos(), call.action, call.indices);
	if (blocked) return errorResult("edit", blocked);
	const list = getTodos();
	const status = ACTION_TO_STATUS[call.action];
	const parents = parentsCompletedBy(list, call.indices, status).filter((parent) => !list[parent]?.review);
	const completing = call.action === "complete" ? [...call.indices, ...parents] : parents;
	const toCheck = itemsToCheck(list, completing);
	const checkBlock = toCheck.length > 0 ? modelChecksBlocked(env) : undefined;
	if (checkBlock) {
		return errorResult("edit", TOOL_ERRORS.checkCannotRun(toCheck[0] ?? 0, checkBlock));
	}
	const runs = await runItemChecks(list, toCheck, env, {
		cwd: call.ctx.cwd,
		signal: call.signal,
		progress: (text) => call.onUpdate?.(text),
	});
	if (runs.some(([, run]) => !run.passed))
		return errorResult("edit", checkFailureError(runs, env.getConfig().checkTimeoutSeconds));
	if (getTodos() !== list) {
		return errorResult("edit", TOOL_ERRORS.listChanged);
	}
	const abandoned = call.action === "abandon" ? openItemsAt(list, call.indices) : [];
	setTodos(withStatus(list, call.indices, status, parents));
	noticeAbandoned(call.ctx, abandoned, call.reason);
	const checked = runs.map(([index]) => index);
	const header = RESULT_HEADERS.edited(ACTION_LABELS[call.action], call.indices, checked, parents);
	return changeResult(
		"edit",
		header,
		checked.length > 0 ? { checked: runs.map(([index, run]) => ({ index, ms: Math.round(run.ms) })) } : {},
		call.action === "start" ? call.indices : [],
	);
}
