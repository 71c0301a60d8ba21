/**
 * The independent judge of "done": what it is asked (the user's requests, the list with its checks, the change of the
 * work tree, the tool calls as context, a goal's condition), every part bounded and handed over as data; and how its
 * answer is read (strictly, or not at all). What its verdict means is core/rules/verdict.ts's. Pure, and loaded with
 * the judge's call (edges/checks/judge.ts), which most sessions never make.
 */

import { MAX_TODOS, type TodoItem } from "../model/types.ts";
import { JUDGE_PROMPT } from "../texts/model.ts";
import { prefix } from "../texts/sanitize.ts";
import { MAX_GOAL_LENGTH } from "./settings.ts";
import { type Finding, JUDGE_WORDS, type JudgeResult, type JudgeWord } from "./verdict.ts";

/**
 * The most characters of each part of the judge's data, counted as JSON (escapes included): the prompt is bounded
 * whatever the list holds.
 */
export const JUDGE_LIMITS = {
	/** The user's requests, newest kept first; each one verbatim, or cut at its end when it alone is over. */
	requests: 6_000,
	/** The list: each item's entry is cut to its share of this. */
	list: 12_000,
	/** The checks that ran, by name. */
	checks: 2_000,
	/** The work tree's change (each finished item's diff, or the work tree's since the work began), shared fairly. */
	changes: 10_000,
	/** The tool calls with their results, newest first: context for the change, never evidence of it. */
	calls: 4_000,
	/** One tool call with its result. */
	call: 1_000,
	/** An item's text never shrinks below this: 100 items still fit. */
	itemText: 80,
	/** A reason is kept to this many characters. */
	reason: 300,
} as const;

/** The goal as JSON: never cut (a character takes at most 6 as JSON, `\u0000`). */
const MAX_GOAL_JSON = 6 * MAX_GOAL_LENGTH + 2;

/** One piece of evidence of the work: a diff (or why the work tree could not be read), or one tool call with its result. */
export interface Evidence {
	what: string;
	text: string;
}

/**
 * What the judge is given. `checks`: each check the verification ran, with how it ended. `changes`: the work tree's
 * change, what the judge reads as the work; `calls`: the tool calls with their results, oldest first, as context.
 */
export interface JudgeInput {
	requests: readonly string[];
	todos: readonly TodoItem[];
	checks: readonly { what: string; passed: boolean; ended: string }[];
	changes: readonly Evidence[];
	calls: readonly Evidence[];
	goal?: string;
}

/** The items the judge gives a verdict on: the completed ones (an abandoned item is data, not a claim of done). */
export function itemsToJudge(todos: readonly TodoItem[]): number[] {
	return todos.flatMap((todo, index) => (todo.status === "completed" ? [index] : []));
}

/** The line separators JSON leaves raw: some readers break lines at them, where a forged marker would stand alone. */
const RAW_SEPARATORS = /[\u0085\u2028\u2029]/g;

/**
 * `value` as the judge's data: JSON with every line separator escaped (JSON escapes LF and CR, never U+0085, U+2028
 * or U+2029), so no text can start a line of its own under any reader's rule of lines.
 */
function asData(value: unknown): string {
	return JSON.stringify(value).replace(
		RAW_SEPARATORS,
		(separator) => `\\u${separator.charCodeAt(0).toString(16).padStart(4, "0")}`,
	);
}

const jsonLength = (value: unknown): number => asData(value).length;

/** `text`, cut at its end (marked `…`) until it takes at most `max` characters as JSON. */
export function fitJson(text: string, max: number): string {
	let fitted = text;
	let points = Array.from(text).length;
	while (jsonLength(fitted) > max && points > 1) {
		points = Math.max(1, Math.min(points - 1, Math.floor((points * max) / jsonLength(fitted)) - 1));
		fitted = prefix(text, points);
	}
	return fitted;
}

/** Keeps `values` (newest last) from the newest back while their JSON fits `budget`; the newest alone is cut to fit. */
function newestWithin<T>(values: readonly T[], budget: number, cut: (value: T, max: number) => T): T[] {
	const kept: T[] = [];
	let left = budget;
	for (let i = values.length - 1; i >= 0; i--) {
		const value = values[i] as T;
		const fitted = kept.length === 0 ? cut(value, left) : value;
		if (jsonLength(fitted) + 1 > left) break;
		kept.unshift(fitted);
		left -= jsonLength(fitted) + 1;
	}
	return kept;
}

function listData(todos: readonly TodoItem[]): unknown[] {
	const share = Math.floor(JUDGE_LIMITS.list / Math.max(1, todos.length)) - 1;
	return todos.map((todo, index) => {
		const rest = { item: index, status: todo.status, ...(todo.check === undefined ? {} : { check: todo.check }) };
		const room = Math.max(JUDGE_LIMITS.itemText, share - jsonLength({ ...rest, text: "" }));
		return {
			item: index,
			status: todo.status,
			text: fitJson(todo.text, room),
			...(todo.check === undefined ? {} : { check: todo.check }),
		};
	});
}

const cutPiece = (piece: Evidence, max: number): Evidence => ({
	what: piece.what,
	text: fitJson(piece.text, Math.max(2, max - jsonLength({ ...piece, text: "" }))),
});

/**
 * Each piece cut to its share of `budget` as JSON, in its place: the shortest are fitted first, and what a piece
 * leaves of its share goes to the longer ones, so every finished item's diff is seen, however many there are.
 */
function fairShares(pieces: readonly Evidence[], budget: number): Evidence[] {
	const fitted = [...pieces];
	const shortestFirst = pieces.map((_, index) => index).sort((a, b) => jsonLength(pieces[a]) - jsonLength(pieces[b]));
	let left = budget;
	for (const [fittedSoFar, index] of shortestFirst.entries()) {
		const share = Math.floor(left / (pieces.length - fittedSoFar)) - 1;
		const piece = cutPiece(pieces[index] as Evidence, share);
		fitted[index] = piece;
		left -= jsonLength(piece) + 1;
	}
	return fitted;
}

/**
 * The judge's prompt: the fixed instructions as the system prompt, and one user message whose data is JSON between
 * two marker lines. JSON keeps every text whole (the user's words verbatim), and {@link asData} keeps it unable to
 * start a line of its own.
 */
export function buildJudgePrompt(input: JudgeInput): { system: string; prompt: string } {
	const asked = itemsToJudge(input.todos);
	const calls = input.calls.map((call) => cutPiece(call, JUDGE_LIMITS.call));
	const data = {
		requests: newestWithin(input.requests, JUDGE_LIMITS.requests, fitJson),
		...(input.goal === undefined ? {} : { goal: fitJson(input.goal, MAX_GOAL_JSON) }),
		list: listData(input.todos),
		checks: newestWithin(input.checks, JUDGE_LIMITS.checks, (check) => check),
		changes: fairShares(input.changes, JUDGE_LIMITS.changes),
		calls: newestWithin(calls, JUDGE_LIMITS.calls, cutPiece),
	};
	const lines = Object.entries(data).map(([key, value]) => `${JSON.stringify(key)}: ${asData(value)}`);
	const prompt = [
		JUDGE_PROMPT.ask(asked, input.goal !== undefined),
		JUDGE_PROMPT.dataStart,
		`{${lines.join(",\n")}}`,
		JUDGE_PROMPT.dataEnd,
	].join("\n");
	return { system: JUDGE_PROMPT.system, prompt };
}

/**
 * Characters the data's frame takes beyond its parts: keys, brackets, separators, the item entries' least room, and
 * the least a change takes when its share is smaller (its name, an item's and the work tree's).
 */
const FRAME_CHARS = 200 + MAX_TODOS * (JUDGE_LIMITS.itemText + 60) + (MAX_TODOS + 1) * 80;

/** The most characters the prompt can take, whatever the list: what the bounds above add up to. */
export const MAX_JUDGE_PROMPT_CHARS =
	JUDGE_PROMPT.system.length +
	JUDGE_PROMPT.ask(
		Array.from({ length: MAX_TODOS }, (_, index) => index),
		true,
	).length +
	JUDGE_LIMITS.requests +
	MAX_GOAL_JSON +
	JUDGE_LIMITS.list +
	JUDGE_LIMITS.checks +
	JUDGE_LIMITS.changes +
	JUDGE_LIMITS.calls +
	FRAME_CHARS;

function asFinding(value: unknown): Finding | undefined {
	const { verdict, reason } = (value ?? {}) as Record<string, unknown>;
	if (!JUDGE_WORDS.includes(verdict as JudgeWord) || typeof reason !== "string" || reason.trim() === "") return;
	return { verdict: verdict as JudgeWord, reason: prefix(reason.trim(), JUDGE_LIMITS.reason) };
}

/** The JSON object an answer holds: all of it, or the part from its first `{` to its last `}` (a fenced answer). */
function objectIn(text: string): Record<string, unknown> | undefined {
	const start = text.indexOf("{");
	const end = text.lastIndexOf("}");
	if (start < 0 || end < start) return undefined;
	try {
		const value: unknown = JSON.parse(text.slice(start, end + 1));
		return typeof value === "object" && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * Reads the judge's answer strictly: one verdict with a reason for each item asked about and none other, and the goal's
 * when one was asked. Anything else is no verdict at all (`why` says what was wrong).
 */
export function readJudgeAnswer(text: string, asked: readonly number[], goal: boolean): JudgeResult {
	const answer = objectIn(text);
	if (!answer) return { judged: false, why: JUDGE_PROMPT.unread.notJson };
	const listed = Array.isArray(answer.items) ? answer.items : [];
	const items: (Finding & { index: number })[] = [];
	for (const entry of listed) {
		const index = (entry as { item?: unknown } | null)?.item;
		const finding = asFinding(entry);
		if (typeof index !== "number" || !asked.includes(index) || !finding) {
			return { judged: false, why: JUDGE_PROMPT.unread.badItem };
		}
		if (items.some((item) => item.index === index)) return { judged: false, why: JUDGE_PROMPT.unread.badItem };
		items.push({ index, ...finding });
	}
	if (items.length !== asked.length) return { judged: false, why: JUDGE_PROMPT.unread.missing(asked.length) };
	items.sort((a, b) => a.index - b.index);
	if (!goal) return { judged: true, items };
	const goalFinding = asFinding(answer.goal);
	return goalFinding ? { judged: true, items, goal: goalFinding } : { judged: false, why: JUDGE_PROMPT.unread.noGoal };
}

/** Tokens a judge call is expected to take before it is made: its prompt (4 characters a token) and its answer. */
export function judgeForecastTokens(promptChars: number, asked: number): number {
	return Math.ceil(promptChars / 4) + JUDGE_ANSWER_TOKENS_PER_ITEM * (asked + 1);
}

/** Tokens of the judge's answer per verdict, for the forecast of its call. */
export const JUDGE_ANSWER_TOKENS_PER_ITEM = 60;
/** The most tokens the judge may answer with: a verdict and a reason for each of the longest list's items. */
export const JUDGE_MAX_ANSWER_TOKENS = 2 * JUDGE_ANSWER_TOKENS_PER_ITEM * (MAX_TODOS + 1);
