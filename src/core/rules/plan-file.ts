/**
 * Plan files: a todo list as a GitHub task list (`- [ ] text`, `- [x] text`), and back. What a box cannot say hangs
 * under its item as an annotation (`  - ● in progress`, `  - ⛓ waits for 0, 2`, ``  - check: `npm test` ``);
 * subtasks nest two spaces under their parent. Indices are the list's, from 0, as `/todos` shows them. Todo text is
 * data: what would break a line is escaped. Reading is strict: a line that looks like an item or an annotation and
 * is not one is refused with its number, and the list read must pass the checks of `write_todos`. Pure.
 */

import { cloneTodos } from "../list/items.ts";
import { linkProblem } from "../list/links.ts";
import type { TodoItem } from "../model/types.ts";
import { linkError } from "../texts/model.ts";
import {
	PLAN_FILE_ANNOTATION_NAMES as NAMES,
	PLAN_FILE_ANNOTATIONS as NOTES,
	PLAN_FILE_PROBLEMS as PROBLEMS,
} from "../texts/user/plan-file.ts";
import { checkWriteParams } from "./tool-params.ts";

/** A plan file read: its list, or the first line that is wrong and what is wrong with it. */
export type ParsedPlan = { ok: true; todos: TodoItem[] } | { ok: false; line: number; problem: string };

/** The first line of a plan file this extension writes. */
export const PLAN_HEADING = "# Plan";

const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const UNESCAPES: Readonly<Record<string, string>> = { "\\": "\\", n: "\n", r: "\r", t: "\t" };
/** A backslash, a control character, a line separator, or half a surrogate pair. */
const TO_ESCAPE =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
	/[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as a plan file's line holds it: on one line, every backslash doubled. */
export function escapeData(text: string): string {
	return text.replace(
		TO_ESCAPE,
		(char) => NAMED_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
}

/** The text a line holds, escapes undone; undefined when a backslash starts no escape. */
export function unescapeData(text: string): string | undefined {
	let bad = false;
	const plain = text.replace(/\\(u[0-9a-fA-F]{4}|[\\nrt]|)/g, (_, code: string) => {
		if (code === "") bad = true;
		return code.length === 5 ? String.fromCharCode(Number.parseInt(code.slice(1), 16)) : (UNESCAPES[code] ?? "");
	});
	return bad ? undefined : plain;
}

/** The annotations of one item, in the order they are written. */
function annotations(todo: TodoItem, nested: boolean): string[] {
	const notes: string[] = [];
	if (todo.status === "in_progress") notes.push(NOTES.inProgress);
	if (todo.status === "abandoned") notes.push(NOTES.abandoned);
	if (todo.review) notes.push(NOTES.review);
	if (todo.blockedBy !== undefined) notes.push(NOTES.waitsFor(todo.blockedBy));
	if (todo.check !== undefined) notes.push(`check: \`${escapeData(todo.check)}\``);
	if (!nested && todo.parent !== undefined) notes.push(NOTES.subtaskOf(todo.parent));
	return notes;
}

/**
 * The list as a plan file: the preamble (the file's own heading and notes, or {@link PLAN_HEADING}), then one task
 * item per item in list order. A subtask is nested under its parent when it follows it (or its siblings); elsewhere it
 * stands at the margin and names its parent.
 */
export function planToMarkdown(todos: readonly TodoItem[], preamble = PLAN_HEADING): string {
	const lines = [preamble, ""];
	let top = -1;
	for (const [index, todo] of todos.entries()) {
		const nested = todo.parent !== undefined && todo.parent === top;
		if (!nested) top = index;
		const pad = nested ? "  " : "";
		lines.push(`${pad}- [${todo.status === "completed" ? "x" : " "}] ${escapeData(todo.text)}`);
		lines.push(...annotations(todo, nested).map((note) => `${pad}  - ${note}`));
	}
	return `${lines.join("\n")}\n`;
}

/** An item being read, with where it stands and which annotations it had. */
interface Draft {
	todo: TodoItem;
	line: number;
	nested: boolean;
	seen: Set<string>;
}

/** A task item: its indent, its box and its text. */
const ITEM = /^( *)[-*+] \[([ xX])\](?: (.*))?$/;
/** A line that means to be a task item and is not one: a bullet, then a box of some kind. */
const LIKE_ITEM = /^\s*[-*+]\s*\[[^\]]{0,3}\]/;
/** Any other list line: an annotation, or something that looks like one. */
const BULLET = /^( *)[-*+](?: (.*))?$/;

/** What a plan file holds above its first list line (its heading, a note), kept when the list is written over it. */
export function preambleOf(text: string | undefined): string {
	const lines = (text ?? "").split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
	const first = lines.findIndex((line) => LIKE_ITEM.test(line) || BULLET.test(line));
	const preamble = (first === -1 ? lines : lines.slice(0, first)).join("\n").trim();
	return preamble === "" ? PLAN_HEADING : preamble;
}

/** A plan file's list, or the first line that is wrong. */
export function parsePlanMarkdown(text: string): ParsedPlan {
	const drafts: Draft[] = [];
	for (const [at, raw] of text.split("\n").entries()) {
		const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
		const problem = readLine(line, at + 1, drafts);
		if (problem !== undefined) return { ok: false, line: at + 1, problem };
	}
	return validated(drafts);
}

/** Reads one line into `drafts`; the problem when it is wrong. Prose before the first item is skipped. */
function readLine(line: string, number: number, drafts: Draft[]): string | undefined {
	if (line.trim() === "") return undefined;
	const item = ITEM.exec(line);
	if (item) return readItem(item[1] ?? "", item[2] === " ", item[3] ?? "", number, drafts);
	if (LIKE_ITEM.test(line)) return PROBLEMS.notAnItem;
	const bullet = BULLET.exec(line);
	if (bullet) return readAnnotation((bullet[1] ?? "").length, bullet[2] ?? "", drafts);
	return drafts.length > 0 ? PROBLEMS.proseAfterItems : undefined;
}

function readItem(indent: string, open: boolean, raw: string, line: number, drafts: Draft[]): string | undefined {
	if (indent !== "" && indent !== "  ") return PROBLEMS.itemDepth;
	const text = unescapeData(raw);
	if (text === undefined) return PROBLEMS.badEscape;
	const todo: TodoItem = { text, status: open ? "not_started" : "completed" };
	const nested = indent === "  ";
	if (nested) {
		const top = drafts.findLastIndex((draft) => !draft.nested);
		if (top === -1) return PROBLEMS.subtaskWithoutItem;
		todo.parent = top;
	}
	drafts.push({ todo, line, nested, seen: new Set() });
	return undefined;
}

/**
 * An annotation: what it is called in a refusal, what it looks like (the pattern reads back what {@link annotations}
 * writes), and what it sets (or why it cannot).
 */
interface Annotation {
	name: string;
	pattern: RegExp;
	apply(draft: Draft, match: RegExpExecArray): string | undefined;
}

/** Sets an open status a box cannot show; a checked box is completed, so it cannot also be open. */
function openStatus(status: "in_progress" | "abandoned"): Annotation["apply"] {
	return ({ todo }) => {
		if (todo.status === "completed") return PROBLEMS.checkedNotOpen(status);
		todo.status = status;
		return undefined;
	};
}

// The marks are written as escapes (● ✗ 👁 ⛓ ↳), so the built bundle stays ASCII, which every start reads as one-byte
// text.
const ANNOTATIONS: readonly Annotation[] = [
	{ name: NAMES.status, pattern: /^\u25cf in progress$/, apply: openStatus("in_progress") },
	{ name: NAMES.status, pattern: /^\u2717 abandoned$/, apply: openStatus("abandoned") },
	{
		name: NAMES.review,
		pattern: /^\u{1f441} review$/u,
		apply: ({ todo }) => {
			todo.review = true;
			return undefined;
		},
	},
	{
		name: NAMES.waits,
		pattern: /^\u26d3 waits for (\d+(?:, \d+)*)$/,
		apply: ({ todo }, match) => {
			todo.blockedBy = (match[1] ?? "").split(", ").map(Number);
			return undefined;
		},
	},
	{
		name: NAMES.check,
		pattern: /^check: `(.*)`$/,
		apply: ({ todo }, match) => {
			const check = unescapeData(match[1] ?? "");
			if (check === undefined) return PROBLEMS.badEscape;
			todo.check = check;
			return undefined;
		},
	},
	{
		name: NAMES.parent,
		pattern: /^\u21b3 subtask of (\d+)$/,
		apply: ({ todo, nested }, match) => {
			if (nested) return PROBLEMS.nestedWithParent;
			todo.parent = Number(match[1]);
			return undefined;
		},
	},
];

function readAnnotation(indent: number, content: string, drafts: Draft[]): string | undefined {
	const draft = drafts.at(-1);
	if (!draft) return PROBLEMS.annotationWithoutItem;
	if (indent !== (draft.nested ? 4 : 2)) return PROBLEMS.annotationDepth;
	for (const annotation of ANNOTATIONS) {
		const match = annotation.pattern.exec(content);
		if (!match) continue;
		if (draft.seen.has(annotation.name)) return PROBLEMS.twice(annotation.name);
		draft.seen.add(annotation.name);
		return annotation.apply(draft, match);
	}
	return PROBLEMS.unknownAnnotation(JSON.stringify(content.length > 40 ? `${content.slice(0, 39)}…` : content));
}

/** An error of `write_todos` as a plan file's problem: the same words, without the leading `Error: `. */
const asProblem = (message: string): string => message.replace(/^Error: /, "");

/** The list read, if it passes what `write_todos` checks (limits, then links); else the line of the first item wrong. */
function validated(drafts: readonly Draft[]): ParsedPlan {
	const todos = drafts.map((draft) => draft.todo);
	const lineOf = (index: number): number => drafts[index]?.line ?? 1;
	if (checkWriteParams({ mode: "replace", todos }, 0) !== null) {
		// The first item whose list up to it is refused is the one the refusal names.
		for (let end = 1; end <= todos.length; end++) {
			const error = checkWriteParams({ mode: "replace", todos: todos.slice(0, end) }, 0);
			if (error) return { ok: false, line: lineOf(end - 1), problem: asProblem(error.message) };
		}
	}
	const problem = linkProblem(todos);
	if (problem === undefined) return { ok: true, todos: cloneTodos(todos) };
	const index = problem.kind === "cycle" ? (problem.steps[0]?.from ?? 0) : problem.index;
	return { ok: false, line: lineOf(index), problem: asProblem(linkError(problem, todos.length).message) };
}
