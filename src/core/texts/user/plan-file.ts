/**
 * What the user reads of plan files: a refused line's problem, and the notices of loading, following and writing
 * one. Loaded with the plan files (most sessions follow none).
 */

import type { TodoItem } from "../../model/types.ts";
import { STATUS_WORDS } from "../user.ts";

// ── Plan files: what is wrong with a line of one, and what the user reads about one ─────────────────────

/** Why a plan file's line is refused; the parser adds the line's number. */
export const PLAN_FILE_PROBLEMS = {
	notAnItem: "not a task item (`- [ ] text` or `- [x] text`) or an annotation under one",
	proseAfterItems: "text after the first item that is neither a task item nor an annotation under one",
	itemDepth: "a task item indented neither 0 spaces (an item) nor 2 (a subtask: items nest one level)",
	subtaskWithoutItem: "a subtask with no item above it",
	annotationWithoutItem: "an annotation with no item above it",
	annotationDepth: "an annotation not indented two spaces under its item",
	unknownAnnotation: (what: string) =>
		`unknown annotation ${what} (expected ● in progress, ✗ abandoned, 👁 review, ⛓ waits for <i>, …, check: \`<command>\` or ↳ subtask of <i>)`,
	twice: (what: string) => `the item's ${what} is given twice`,
	checkedNotOpen: (status: TodoItem["status"]) => `a checked item ([x]) cannot be ${STATUS_WORDS[status]}`,
	nestedWithParent: "a nested subtask cannot name another parent",
	badEscape: "a backslash that starts no escape (\\\\, \\n, \\r, \\t or \\uXXXX)",
} as const;

/**
 * The annotations under a plan file's item that the user reads there: its open status, its review mark, what it waits
 * for and its parent (core/rules/plan-file.ts writes them, and its patterns read them back).
 */
export const PLAN_FILE_ANNOTATIONS = {
	inProgress: "● in progress",
	abandoned: "✗ abandoned",
	review: "👁 review",
	waitsFor: (indices: readonly number[]) => `⛓ waits for ${indices.join(", ")}`,
	subtaskOf: (parent: number) => `↳ subtask of ${parent}`,
} as const;

/** Each kind of annotation as a problem names it: `the item's review mark is given twice`. */
export const PLAN_FILE_ANNOTATION_NAMES = {
	status: "status",
	review: "review mark",
	waits: "waits",
	check: "check",
	parent: "parent",
} as const;

/** Where a refused plan file is wrong: its name, the line's number and the problem. */
export const planFileError = (file: string, line: number, problem: string): string =>
	`${file} line ${line}: ${problem}`;

/** What the user reads about plan files. */
export const PLAN_FILE_NOTICES = {
	exported: (file: string, items: number) => `Exported ${items} item(s) to ${file}.`,
	imported: (file: string, items: number) => `Imported ${items} item(s) from ${file}.`,
	importRefused: (detail: string) => `Nothing was imported: ${detail}`,
	unreadable: (file: string, why: string) => `${file} cannot be read: ${why}`,
	missing: (file: string) => `${file} does not exist`,
	unwritable: (file: string, why: string) => `${file} cannot be written: ${why}`,
	importKept: "Nothing was imported: the list stays as it was.",
	confirmTitle: "Replace the todo list?",
	confirmBody: (open: number, file: string) => `The list has ${open} open item(s); importing ${file} replaces it.`,
	changedOnDisk: (file: string) =>
		`${file} changed on disk since the last write: it is not overwritten, and the list stays the session's. /todos import ${file} takes the file's, /todos export ${file} writes the list over it.`,
	loadRefused: (detail: string) => `The plan file is not loaded: ${detail}`,
	loaded: (file: string, items: number) => `Loaded ${items} item(s) from ${file}.`,
} as const;
