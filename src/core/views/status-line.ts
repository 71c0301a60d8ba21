/**
 * Our part of pi's footer status line, fitted to the terminal's width. pi joins every extension's statuses with a
 * space, sorted by key, and cuts the line at the width; a long item text would push out what matters. So the texts
 * that come from outside are cut first, then the item in progress goes, then entries take their short forms: the
 * state (stopped, paused, review, verification) stays on screen. Pure.
 */

import {
	ACTIVE_STATUS_KEY,
	CHECK_STATUS_KEY,
	GOAL_STATUS_KEY,
	LOOP_STATUS_KEY,
	NEXT_STATUS_KEY,
	PAUSED_STATUS_KEY,
	REVIEW_STATUS_KEY,
	STATUS_KEY,
	STOP_STATUS_KEY,
	WORKERS_STATUS_KEY,
} from "../rules/keys.ts";
import { cellsOf, cutToCells } from "../texts/sanitize.ts";
import { fullText, type StatusText } from "../texts/user.ts";

/** One status-bar key and what it shows; undefined clears the key. */
export type StatusEntry = readonly [key: string, status: StatusText | undefined];

/** The width assumed where pi does not say (RPC clients), and the narrowest terminal the footer is fitted for. */
export const STATUS_WIDTH_DEFAULT = 80;
/** What a cut text keeps before anything else is cut or goes: a few words, then `…`. */
export const MIN_CUT_CELLS = 12;
/** Long texts, cut to a few words first: the items in progress, the workers', the next item of a list with waits, the goal. */
const CUT_FIRST = [ACTIVE_STATUS_KEY, WORKERS_STATUS_KEY, NEXT_STATUS_KEY, GOAL_STATUS_KEY];
/** The texts cut further, to `…`, before they go (the workers' texts go at once, their indices stay). */
const CUT_TO_NOTHING = [ACTIVE_STATUS_KEY, NEXT_STATUS_KEY, GOAL_STATUS_KEY];
/** The entries whose state is worth more than the item in progress, and whose texts are cut after it goes. */
const CUT_LAST = [PAUSED_STATUS_KEY, CHECK_STATUS_KEY];
/** The entries that take their shorter forms when nothing is left to cut, in this order; the stop goes last. */
const SHORTEN_ORDER = [
	STATUS_KEY,
	NEXT_STATUS_KEY,
	GOAL_STATUS_KEY,
	LOOP_STATUS_KEY,
	CHECK_STATUS_KEY,
	PAUSED_STATUS_KEY,
	REVIEW_STATUS_KEY,
	WORKERS_STATUS_KEY,
	STOP_STATUS_KEY,
];

/**
 * The status-bar value of each key, fitted to `width` cells together (as pi joins them: one space between). The items
 * in progress (the session's and the workers'), the next item of a list with waits and the goal's condition are cut
 * first, to a few words, and all but the workers' then to `[i] …`; the session's items in progress go, the workers
 * keep their indices and the waits' entry only its count before anything else is cut (the panel and `/todos` show
 * them); then the pause reason and the check's text are cut; then entries take their shorter forms; then the loop's
 * counter, the waits' count and the goal's mark go (`/todos status`, `/todos` and `/goal` have them), and last the
 * stop loses its "stopped:" (⏹ and the reason stay).
 * Below 80 columns pi may still cut the end.
 */
export function fitStatusLine(entries: readonly StatusEntry[], width: number): [string, string | undefined][] {
	const statuses = new Map(entries);
	const shown = new Map(entries.map(([key, status]) => [key, status && fullText(status)]));
	const over = () => lineCells([...shown.values()]) - width;
	const cut = (key: string, floor: number) => {
		const status = statuses.get(key);
		const text = shown.get(key);
		if (over() > 0 && status && text !== undefined) shown.set(key, cutParts(status, cellsOf(text) - over(), floor));
	};
	const drop = (key: string) => {
		if (over() > 0) shown.set(key, undefined);
	};
	const shorten = (key: string, form: number) => {
		const shorter = statuses.get(key)?.shorter?.[form];
		if (over() > 0 && shorter !== undefined && shown.get(key) !== undefined) shown.set(key, shorter);
	};
	for (const key of CUT_FIRST) cut(key, MIN_CUT_CELLS);
	for (const key of CUT_TO_NOTHING) cut(key, 1);
	drop(ACTIVE_STATUS_KEY);
	shorten(WORKERS_STATUS_KEY, 0);
	shorten(NEXT_STATUS_KEY, 0);
	for (const key of CUT_LAST) cut(key, MIN_CUT_CELLS);
	for (const key of CUT_LAST) cut(key, 1);
	for (const key of SHORTEN_ORDER) shorten(key, 0);
	for (const key of SHORTEN_ORDER.slice(0, -1)) shorten(key, 1);
	drop(LOOP_STATUS_KEY);
	drop(NEXT_STATUS_KEY);
	drop(GOAL_STATUS_KEY);
	shorten(STOP_STATUS_KEY, 1);
	return entries.map(([key]) => [key, shown.get(key)]);
}

/** Cells of the line pi would draw from these values. */
function lineCells(values: readonly (string | undefined)[]): number {
	const present = values.filter((value): value is string => value !== undefined);
	return present.reduce((sum, value) => sum + cellsOf(value), Math.max(0, present.length - 1));
}

/**
 * The entry in `room` cells where it can be: its fixed words whole, the room left shared among its cut texts (the
 * shortest first, so none gets more than it needs), each kept to at least `floor` cells or its own length.
 */
function cutParts(status: StatusText, room: number, floor: number): string {
	const fixed = status.parts.reduce((sum, part) => sum + (typeof part === "string" ? cellsOf(part) : 0), 0);
	const cuts = status.parts.flatMap((part, at) => (typeof part === "string" ? [] : [{ at, cells: cellsOf(part.cut) }]));
	const budget = new Map<number, number>();
	let left = room - fixed;
	cuts
		.sort((a, b) => a.cells - b.cells)
		.forEach(({ at, cells }, n) => {
			const kept = Math.min(cells, Math.max(floor, Math.floor(left / (cuts.length - n))));
			budget.set(at, kept);
			left -= kept;
		});
	return status.parts
		.map((part, at) => (typeof part === "string" ? part : cutToCells(part.cut, budget.get(at) ?? floor)))
		.join("");
}
