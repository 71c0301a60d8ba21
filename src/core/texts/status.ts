/**
 * The status bar's texts, in parts: fixed words, and text that may be cut when the footer is narrow (an item, a
 * reason, a command), with shorter forms for when even that does not fit (core/views/status-line.ts fits them). Pure.
 */

import type { TodoItem } from "../../types.ts";
import { oneLine, prefix } from "./sanitize.ts";
import { reviewWaitText } from "./user.ts";

/** Fixed words, or text that may be cut (`{ cut }`). */
export type StatusPart = string | { readonly cut: string };

/** One status-bar entry: its parts, and the shorter forms it takes, in turn, when its cut parts still do not fit. */
export interface StatusText {
	readonly parts: readonly StatusPart[];
	readonly shorter?: readonly string[];
}

/** The whole text of an entry, nothing cut. */
export function fullText(status: StatusText): string;
export function fullText(status: StatusText | undefined): string | undefined;
export function fullText(status: StatusText | undefined): string | undefined {
	return status?.parts.map((part) => (typeof part === "string" ? part : part.cut)).join("");
}

const whole = (text: string, ...shorter: string[]): StatusText => ({ parts: [text], shorter });

/** Longest command shown on the status bar while its check runs. */
const STATUS_COMMAND_CHARS = 60;

/** The check status while a finished list waits for its verification. */
export const VERIFICATION_PENDING = "🔎 not verified yet";

/**
 * The check status: a check running, else what the last verification found, else `pending` when a finished list
 * waits for one; nothing otherwise.
 */
export function checkStatus(
	checking: { what: string; command: string } | undefined,
	verification: { passed: boolean; failed: readonly string[]; checks: number } | undefined,
	pending = false,
): StatusText | undefined {
	if (checking) {
		const command = prefix(oneLine(checking.command), STATUS_COMMAND_CHARS);
		const shorter = [`🔎 checking ${checking.what}`, `🔎 ${checking.what}`];
		return { parts: [`🔎 checking ${checking.what}: `, { cut: command }], shorter };
	}
	if (!verification) return pending ? whole(VERIFICATION_PENDING) : undefined;
	if (verification.passed) return whole(`✓ verified (${verification.checks} check(s) passed)`, "✓ verified");
	return { parts: ["✗ not verified: ", { cut: verification.failed.join("; ") }], shorter: ["✗ not verified"] };
}

/** `👁 [i] waits for your review` while the auto-continue waits on item `index`. */
export function reviewStatus(index: number | undefined): StatusText | undefined {
	return index === undefined ? undefined : whole(reviewWaitText(index), `👁 [${index}] review`, `👁 [${index}]`);
}

/** Width of the status-bar progress bar, in cells. */
export const PROGRESS_BAR_CELLS = 10;

/**
 * The list's status: `📋 2/5 [████░░░░░░]` (progress, once) while items remain or the finished list is not yet known
 * to be done, `✓ Done (N items)` once it is (`done`: finished, and verified where it has a verification); nothing for
 * an empty list.
 */
export function progressStatus(finished: number, total: number, done: boolean): StatusText | undefined {
	if (total === 0) return undefined;
	if (done) return whole(`✓ Done (${total} items)`);
	const filled = Math.round((finished / total) * PROGRESS_BAR_CELLS);
	const bar = `${"█".repeat(filled)}${"░".repeat(PROGRESS_BAR_CELLS - filled)}`;
	return whole(`📋 ${finished}/${total} [${bar}]`, `📋 ${finished}/${total}`);
}

/** While auto-continue is paused, with the reason the user or the model gave. */
export function pausedStatus(reason: string | undefined): StatusText {
	if (!reason) return whole("⏸ auto-continue paused", "⏸ paused");
	return { parts: ["⏸ auto-continue paused: ", { cut: oneLine(reason) }], shorter: ["⏸ paused"] };
}

/** `[i] text` for each item in progress, or nothing. */
export function activeStatus(todos: readonly TodoItem[]): StatusText | undefined {
	const parts = todos.flatMap((todo, index): StatusPart[] =>
		todo.status === "in_progress" ? [`[${index}] `, { cut: oneLine(todo.text) }, " "] : [],
	);
	return parts.length > 0 ? { parts: parts.slice(0, -1) } : undefined;
}

/** While a stopped chain waits for the user: why (`words`), and where the figures are. */
export function stopStatus(words: string | undefined): StatusText | undefined {
	return words === undefined
		? undefined
		: whole(`⏹ auto-continue stopped: ${words} (/todos why)`, `⏹ stopped: ${words}`, `⏹ ${words}`);
}

/**
 * In a plan with waits or subtasks: `▶ [i] text` for the next item ready to start (one in progress is already on the
 * bar), then `⛓ N waiting` for the open items that wait; nothing when there is neither.
 */
export function planStatus(next: [number, TodoItem] | undefined, waiting: number): StatusText | undefined {
	const ahead = next === undefined || next[1].status !== "not_started" ? undefined : next;
	const count = waiting > 0 ? `⛓ ${waiting} waiting` : "";
	if (ahead === undefined) return count === "" ? undefined : whole(count, `⛓ ${waiting}`);
	const [index, todo] = ahead;
	const parts: StatusPart[] = [`▶ [${index}] `, { cut: oneLine(todo.text) }];
	if (count === "") return { parts, shorter: [`▶ [${index}]`] };
	return { parts: [...parts, ` ${count}`], shorter: [`▶ [${index}] ⛓ ${waiting}`, `⛓ ${waiting}`] };
}

export function loopStatus(iteration: number, max: number): StatusText {
	return whole(`🔁 loop ${iteration}/${max}`, `🔁 ${iteration}/${max}`);
}
