/**
 * Following a plan file (`--til-done-plan`): at a session's start a session without a list takes the file's; after
 * every change of the list the file is written again, unless it changed on disk since we last wrote or read it: then
 * it is left alone, the user is told once, and the session's list stands until `/todos import` or `/todos export`. A
 * file changed only in that another session on the plan checked items of the very same list is no such change: its
 * completions are taken into the list, and the write goes on. The decisions are core/rules/plan-file-sync.ts's; this
 * module only reads, writes and tells.
 */

import { resolve } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { planToMarkdown, preambleOf } from "../../core/rules/plan-file.ts";
import { decideSave, decideStart, withCompletionsOf } from "../../core/rules/plan-file-sync.ts";
import { PLAN_FILE_NOTICES, planFileError } from "../../core/texts/user/plan-file.ts";
import { getTodos, planFileHash, planFileText, setTodos, subscribe } from "../../state.ts";
import { commitUserList } from "../host/commit.ts";
import { tell } from "../host/tell.ts";
import { hashOf, hashOfRead, readPlanFile, remember, textOf, underPlanLock, writePlanFile } from "./plan-file-io.ts";

/**
 * Loads the file into a session without a list, or counts it as ours when it holds the session's list. Why it is not
 * loaded when it cannot be read or is not understood (the user has been told), else undefined.
 */
function startFollowing(pi: ExtensionAPI, ctx: ExtensionContext, file: string, path: string): string | undefined {
	const read = readPlanFile(path);
	if ("error" in read) return refused(ctx, PLAN_FILE_NOTICES.unreadable(file, read.error));
	const text = textOf(read);
	const decision = decideStart(getTodos(), text);
	if (decision.kind === "refused") return refused(ctx, planFileError(file, decision.line, decision.problem));
	if (text !== undefined && decision.kind !== "nothing") remember(path, text);
	if (decision.kind !== "load") return undefined;
	setTodos(decision.todos);
	commitUserList(pi);
	tell(ctx, PLAN_FILE_NOTICES.loaded(file, decision.todos.length));
	return undefined;
}

/** Tells why the plan file is not loaded, and returns it. */
function refused(ctx: ExtensionContext, why: string): string {
	const text = PLAN_FILE_NOTICES.loadRefused(why);
	tell(ctx, text, "warning");
	return text;
}

/** A plan file followed: why it was not loaded at the start (if it was not), and the function that stops following. */
export interface FollowedPlan {
	problem: string | undefined;
	stop: () => void;
}

/** Follows `file` (relative to the session's folder) from now on. */
export function followPlanFile(pi: ExtensionAPI, ctx: ExtensionContext, file: string): FollowedPlan {
	const path = resolve(ctx.cwd, file);
	const problem = startFollowing(pi, ctx, file, path);
	let last = getTodos();
	/** Whether the user was told the file is left alone; said again only after a write went through. */
	let told = false;
	const warnOnce = (text: string) => {
		if (!told) tell(ctx, text, "warning");
		told = true;
	};
	const stop = subscribe(() => {
		const todos = getTodos();
		if (todos === last) return;
		last = todos;
		underPlanLock(path, () => {
			// One read serves both: the file's own preamble to keep, and whether it changed since we last wrote it.
			const onDisk = readPlanFile(path);
			const text = planToMarkdown(todos, preambleOf(textOf(onDisk)));
			const decision = decideSave(planFileHash(path), hashOfRead(onDisk), hashOf(text));
			if (decision === "changed-on-disk" && takeCompletions(pi, path, textOf(onDisk))) return;
			if (decision === "changed-on-disk") return warnOnce(PLAN_FILE_NOTICES.changedOnDisk(file));
			if (decision === "unchanged") remember(path, text);
			const error = decision === "write" ? writePlanFile(path, text) : undefined;
			if (error !== undefined) return warnOnce(PLAN_FILE_NOTICES.unwritable(file, error));
			told = false;
		});
	});
	return { problem, stop };
}

/**
 * Takes into the list the completions a file of the same items holds (another session checked them there), and counts
 * the file as read, so the list's next write keeps them; false when the file holds another list (or none).
 */
function adoptCompletions(pi: ExtensionAPI, path: string, text: string | undefined): boolean {
	if (text === undefined) return false;
	const todos = getTodos();
	const merged = withCompletionsOf(todos, text, planFileText(path));
	if (merged === undefined) return false;
	remember(path, text);
	if (merged !== todos) {
		setTodos([...merged]);
		commitUserList(pi);
	}
	return true;
}

/**
 * {@link adoptCompletions} while the list is being written: a list it changed writes the file again (its subscriber);
 * unchanged, the list is written now.
 */
function takeCompletions(pi: ExtensionAPI, path: string, text: string | undefined): boolean {
	const todos = getTodos();
	if (text === undefined || !adoptCompletions(pi, path, text)) return false;
	if (getTodos() === todos) writePlanFile(path, planToMarkdown(todos, preambleOf(text)));
	return true;
}

/**
 * The plan file read again (once an item is claimed, and while the session waits on items others hold): the items
 * another session completed there are completed in the list too. A file of other items is left to the user.
 */
export function readPlanAgain(pi: ExtensionAPI, ctx: ExtensionContext, file: string): void {
	const path = resolve(ctx.cwd, file);
	adoptCompletions(pi, path, textOf(readPlanFile(path)));
}
