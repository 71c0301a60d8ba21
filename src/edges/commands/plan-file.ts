/**
 * `/todos export` and `/todos import`: the list to a plan file, and a plan file's list in its place. A file that
 * cannot be read or is not understood changes nothing and is named with its line and problem.
 */

import { resolve } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { hasIncomplete, incompleteIndices } from "../../core/list/queries.ts";
import { parsePlanMarkdown, planToMarkdown, preambleOf } from "../../core/rules/plan-file.ts";
import { PLAN_FILE_NOTICES as NOTICES, planFileError } from "../../core/texts/user/plan-file.ts";
import { getTodos, setTodos } from "../../state.ts";
import { readPlanFile, readPlanText, remember, writePlanFile } from "../files/plan-file-io.ts";
import { tell } from "../host/tell.ts";

/**
 * Writes the list to `file` (relative to the session's folder) over the list it holds, the user said so; its own
 * heading and notes above the list stay. A file that cannot be written is refused (`refuse`).
 */
export function exportPlan(ctx: ExtensionCommandContext, file: string, refuse: (text: string) => void): void {
	const todos = getTodos();
	const path = resolve(ctx.cwd, file);
	const error = writePlanFile(path, planToMarkdown(todos, preambleOf(readPlanText(path))));
	if (error === undefined) tell(ctx, NOTICES.exported(file, todos.length));
	else refuse(NOTICES.unwritable(file, error));
}

/** In the TUI, whether the user lets a list with open items be replaced. */
async function mayReplace(ctx: ExtensionCommandContext, file: string): Promise<boolean> {
	const todos = getTodos();
	if (ctx.mode !== "tui" || !hasIncomplete(todos)) return true;
	return ctx.ui.confirm(NOTICES.confirmTitle, NOTICES.confirmBody(incompleteIndices(todos).length, file));
}

/**
 * Replaces the list with the one in `file` and returns what to tell the user; undefined when nothing changed (the
 * file cannot be read or is not understood, which `refuse` says; or the user said no), which the user has been told.
 */
export async function importPlan(
	ctx: ExtensionCommandContext,
	file: string,
	refuse: (text: string) => void,
): Promise<string | undefined> {
	const path = resolve(ctx.cwd, file);
	const read = readPlanFile(path);
	if (!("text" in read)) {
		const why = "error" in read ? NOTICES.unreadable(file, read.error) : NOTICES.missing(file);
		refuse(NOTICES.importRefused(why));
		return undefined;
	}
	const parsed = parsePlanMarkdown(read.text);
	if (!parsed.ok) {
		refuse(NOTICES.importRefused(planFileError(file, parsed.line, parsed.problem)));
		return undefined;
	}
	if (!(await mayReplace(ctx, file))) {
		tell(ctx, NOTICES.importKept);
		return undefined;
	}
	remember(path, read.text);
	setTodos(parsed.todos);
	return NOTICES.imported(file, parsed.todos.length);
}
