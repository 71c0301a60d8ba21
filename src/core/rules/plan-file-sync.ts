/** What following a plan file does at a session's start and after a change of the list. Pure. */

import type { TodoItem } from "../model/types.ts";
import { type ParsedPlan, parsePlanMarkdown, planToMarkdown, preambleOf } from "./plan-file.ts";

/** After a change of the list: write the file, leave it (it already holds the list), or keep off a changed file. */
export type SaveDecision = "write" | "unchanged" | "changed-on-disk";

/**
 * Whether the list's text (hash `next`) may go to the file: it may when the file is what we last wrote or read, or
 * is missing and we never knew it; when the file already holds it there is nothing to do; anything else is a change
 * made on disk since, not ours to overwrite (a file we cannot read, `null`, counts as one).
 */
export function decideSave(known: string | undefined, onDisk: string | undefined | null, next: string): SaveDecision {
	if (onDisk === next) return "unchanged";
	if (onDisk === undefined && known === undefined) return "write";
	return onDisk !== null && onDisk === known ? "write" : "changed-on-disk";
}

/** At a session's start: load the file's list, count the file as ours, say why it is not loaded, or do nothing. */
export type StartDecision =
	| { kind: "load"; todos: TodoItem[] }
	| { kind: "known" }
	| { kind: "refused"; line: number; problem: string }
	| { kind: "nothing" };

/**
 * A session without a list takes the file's; a session with one keeps it, and counts the file as ours only when it
 * holds that very list (else the first write finds it changed). A missing file is made at the first change.
 */
export function decideStart(session: readonly TodoItem[], fileText: string | undefined): StartDecision {
	if (fileText === undefined) return { kind: "nothing" };
	if (session.length > 0)
		return planToMarkdown(session, preambleOf(fileText)) === fileText ? { kind: "known" } : { kind: "nothing" };
	const parsed: ParsedPlan = parsePlanMarkdown(fileText);
	if (!parsed.ok) return { kind: "refused", line: parsed.line, problem: parsed.problem };
	return parsed.todos.length > 0 ? { kind: "load", todos: parsed.todos } : { kind: "known" };
}

/**
 * The session's list with the completions the plan file holds: another session on the same plan checked there the
 * items it landed. Only a file that is this list as we write it, some boxes checked (its heading aside), is taken so;
 * an item this session completed since it last wrote or read the file (`known`) may be open there still, and an open
 * item's "in progress" mark is either session's (the one that works it). Any other change (an item unchecked, a
 * text, a note, an item more) is the user's, left to them. Undefined for such a file, or one not understood; the list
 * itself (the same array) when the file completes nothing it has open.
 */
export function withCompletionsOf(
	session: readonly TodoItem[],
	fileText: string,
	known?: string,
): readonly TodoItem[] | undefined {
	const parsed = parsePlanMarkdown(fileText);
	if (!parsed.ok || parsed.todos.length !== session.length) return undefined;
	const before = known === undefined ? undefined : parsePlanMarkdown(known);
	const file = parsed.todos;
	const done = (todos: readonly TodoItem[] | undefined, index: number) => todos?.[index]?.status === "completed";
	const landed = (index: number) => done(file, index) && !done(session, index);
	const completedSince = (index: number) =>
		done(session, index) && !done(file, index) && before?.ok === true && !done(before.todos, index);
	// Whether an item is at work is each session's own: a mark the other wrote (or took away) is no change of the plan.
	const open = (todo: TodoItem | undefined) => todo?.status === "not_started" || todo?.status === "in_progress";
	const asFile = session.map((todo, index): TodoItem => {
		const there = file[index];
		if (landed(index)) return { ...todo, status: "completed" };
		if (there && (completedSince(index) || (open(todo) && open(there)))) return { ...todo, status: there.status };
		return todo;
	});
	if (planToMarkdown(asFile, preambleOf(fileText)) !== fileText.replace(/\r\n/g, "\n")) return undefined;
	if (!session.some((_, index) => landed(index))) return session;
	return session.map((todo, index): TodoItem => (landed(index) ? { ...todo, status: "completed" } : todo));
}
