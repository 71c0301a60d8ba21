/**
 * A plan shared through a remote without a plan file: the list of the session that shares it first, kept on the
 * remote under `refs/til-done/lists/<plan>` as a commit whose message holds it, read strictly (it comes from another
 * machine); and which of its items landed, read from the landing trailers of the branch's commits since the list was
 * shared. A list whose items all landed is finished, and the next session's own list takes its place.
 */

import { cloneTodo, isValidTodoItem, itemKey } from "../list/items.ts";
import { linkProblem } from "../list/links.ts";
import { INITIAL_STATUS, MAX_TODOS, type TodoItem } from "../model/types.ts";
import { isRefName } from "./leases.ts";
import { isCommitName, isRecordName, readRecord, recordMessage } from "./records.ts";

/** Where a shared plan's list lives, locally and on a remote: `refs/til-done/lists/<plan>`. */
export const LIST_ROOT = "refs/til-done/lists/";

/** The first line of a shared list commit's message: what it is, and the version of the record after it. */
export const LIST_HEADER = "pi-til-done list v1";

/** The ref of a plan's shared list. */
export const listRef = (plan: string): string => `${LIST_ROOT}${plan}`;

/** A shared list as its commit holds it. */
export interface SharedList {
	plan: string;
	/** The branch's tip when it was shared: only landings after it count for its items. */
	since: string;
	/** Its items, every one as it was written (not started): what landed is read from the branch. */
	items: TodoItem[];
	/** The sharing session and its machine, as they name themselves: shown, never judged. */
	session: string;
	host: string;
}

/** The items of `todos` as a shared list holds them: each not started, its text, check, review and links kept. */
export function itemsToShare(todos: readonly TodoItem[]): TodoItem[] {
	return todos.map((todo) => ({ ...cloneTodo(todo), status: INITIAL_STATUS }));
}

/** A shared list's commit message: the header, a blank line, the record as one line of JSON. */
export function listMessage(list: SharedList): string {
	return recordMessage(LIST_HEADER, list);
}

const FIELDS = new Set(["plan", "since", "items", "session", "host"]);

/**
 * The list a shared list commit's message holds, read strictly: the header, one line of JSON with exactly the record's
 * fields, naming `plan`, at most {@link MAX_TODOS} valid items, none started, whose links hold; anything else is none.
 */
export function readListMessage(message: string, plan: string): SharedList | undefined {
	const fields = readRecord(message, LIST_HEADER, FIELDS);
	if (fields === undefined || fields.plan !== plan || !isRefName(plan) || !isCommitName(fields.since)) return undefined;
	if (!isRecordName(fields.session) || !isRecordName(fields.host)) return undefined;
	const items = fields.items;
	if (!Array.isArray(items) || items.length === 0 || items.length > MAX_TODOS) return undefined;
	if (!items.every((item) => isValidTodoItem(item) && item.status === INITIAL_STATUS)) return undefined;
	if (linkProblem(items) !== undefined) return undefined;
	return fields as unknown as SharedList;
}

/** Whether two lists hold the same items in the same order: text, check, review and links (statuses aside). */
export function sameItems(a: readonly TodoItem[], b: readonly TodoItem[]): boolean {
	const shape = (todos: readonly TodoItem[]) => JSON.stringify(itemsToShare(todos).map(orderedFields));
	return a.length === b.length && shape(a) === shape(b);
}

const orderedFields = ({ text, check, review, blockedBy, parent }: TodoItem) => [
	text,
	check,
	review,
	blockedBy,
	parent,
];

/** The item keys a `git log --format=%(trailers:key=…,valueonly)` output names, one a line. */
export function landedKeysOf(log: string): Set<string> {
	return new Set(
		log
			.split("\n")
			.map((line) => line.trim())
			.filter((line) => isRefName(line)),
	);
}

/** Whether every item of `list` landed (its key among `landed`): a finished list, which another may take the place of. */
export function isListLanded(items: readonly TodoItem[], landed: ReadonlySet<string>): boolean {
	return items.every((todo, index) => landed.has(itemKey(index, todo.text)));
}

/** The shared list as this session holds it: each item that landed completed, the others as written. */
export function adoptedList(items: readonly TodoItem[], landed: ReadonlySet<string>): TodoItem[] {
	return items.map((todo, index) => ({
		...cloneTodo(todo),
		status: landed.has(itemKey(index, todo.text)) ? "completed" : todo.status,
	}));
}

/**
 * What a session does about a plan's list before its workers start: share its own where none is shared (or the one
 * shared has landed whole), keep it where it is the one shared, or take the shared one in its place.
 */
export type ListStep = { kind: "share" } | { kind: "keep" } | { kind: "adopt"; todos: TodoItem[]; from: SharedList };

export function listStep(
	ours: readonly TodoItem[],
	shared: SharedList | undefined,
	landed: ReadonlySet<string>,
): ListStep {
	if (shared === undefined) return ours.length > 0 ? { kind: "share" } : { kind: "keep" };
	if (sameItems(ours, shared.items)) return { kind: "keep" };
	// A finished list is the last plan's: a session with a list of its own shares it, one without stays empty.
	if (isListLanded(shared.items, landed)) return ours.length > 0 ? { kind: "share" } : { kind: "keep" };
	return { kind: "adopt", todos: adoptedList(shared.items, landed), from: shared };
}

/**
 * The tip a session's list is shared since. Where the list ref lost the list mid-run (deleted, or spoiled by hand) and
 * the tip the session's list was shared at is still on the branch, that tip (`known`), so the items landed meanwhile
 * still count and are not worked again; once the session's list landed whole since it, the branch's tip.
 */
export function shareSince(
	tip: string,
	ours: readonly TodoItem[],
	known: { since: string; landed: ReadonlySet<string> } | undefined,
): string {
	return known === undefined || isListLanded(ours, known.landed) ? tip : known.since;
}
