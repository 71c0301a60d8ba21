/**
 * What `edit_todos` and `write_todos` do beyond the list operations, where they touch pi and processes: an item with a
 * check is completed only when its check passes, and walking away from open work during the auto-continue, or a
 * rewrite refused for a followed plan file's sake, is shown to the user.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { withStatus } from "../../core/list/changes.ts";
import { changeResult, errorResult, type ToolResult } from "../../core/list/list-text.ts";
import { droppedOpenItems, openItemsAt } from "../../core/list/queries.ts";
import { parentsCompletedBy } from "../../core/list/ready.ts";
import {
	ACTION_LABELS,
	ACTION_TO_STATUS,
	type EditAction,
	type TodoDetails,
	type TodoItem,
} from "../../core/model/types.ts";
import { checkFailureError, planItemsLost, readinessError, reviewError } from "../../core/rules/edit-gates.ts";
import type { ParamError } from "../../core/texts/model.ts";
import { RESULT_HEADERS, TOOL_ERRORS } from "../../core/texts/model.ts";
import { NOTICES } from "../../core/texts/user.ts";
import { getChain, getTodos, setTodos } from "../../state.ts";
import { tell } from "../host/tell.ts";
import { type CheckEnv, itemsToCheck, modelChecksBlocked, runItemChecks } from "./item-checks.ts";

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
	const lost = planItemsLost(before, after);
	if (lost.length === 0) return null;
	// The person who wrote the file hears of it too: a run that ends with the file's items open says why.
	tell(ctx, NOTICES.planRewriteRefused(planFile, lost), "warning");
	return TOOL_ERRORS.planItemsDropped(planFile, lost);
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
	const blocked =
		reviewError(getTodos(), call.action, call.indices) ?? readinessError(getTodos(), call.action, call.indices);
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
		getTodos(),
		checked.length > 0 ? { checked: runs.map(([index, run]) => ({ index, ms: Math.round(run.ms) })) } : {},
		call.action === "start" ? call.indices : [],
	);
}
