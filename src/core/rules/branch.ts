/**
 * Reading a session's branch: which entries hold a trustworthy snapshot of the list, the done-check, the verdict, the
 * pause, the decisions and the workers that ended, and the user's own requests (which the judge and the workers are
 * told). Pure; anything malformed is skipped, never trusted.
 */

import { cloneTodos, isValidCheck, isValidTodoItem } from "../list/items.ts";
import { linkProblem } from "../list/links.ts";
import { type Decision, type FinishedWorker, MAX_TODOS, TOOL_NAMES, type TodoItem } from "../model/types.ts";
import { oneLine, textOfContent } from "../texts/sanitize.ts";
import {
	DECISION_ENTRY_TYPE,
	DONE_CHECK_ENTRY_TYPE,
	GUEST_ENTRY_TYPE,
	PAUSE_ENTRY_TYPE,
	SNAPSHOT_ENTRY_TYPE,
	VERDICT_ENTRY_TYPE,
	WORKER_ENTRY_TYPE,
} from "./keys.ts";
import { keptAnswer } from "./reports.ts";
import { type Finding, JUDGE_WORDS, type JudgeResult, type JudgeWord } from "./verdict.ts";

/** The session that wrote a guest's boundary entry, or undefined for any other entry. */
function boundaryOf(entry: unknown): string | undefined {
	const { type, customType, data } = (entry ?? {}) as Record<string, unknown>;
	if (type !== "custom" || customType !== GUEST_ENTRY_TYPE) return undefined;
	const sessionId = (data as { sessionId?: unknown } | null)?.sessionId;
	return typeof sessionId === "string" ? sessionId : "";
}

/** The part of a branch that is this session's own: what follows the last boundary a guest wrote (edges/host/role.ts). */
export function ownBranch(branch: readonly unknown[]): readonly unknown[] {
	const last = branch.findLastIndex((entry) => boundaryOf(entry) !== undefined);
	return last === -1 ? branch : branch.slice(last + 1);
}

/**
 * Whether a guest starting session `sessionId` on `branch` inherited it: the branch holds entries, and its last boundary
 * (if any) was written by another session (a fork of a fork). A guest resumed on its own branch inherited nothing new.
 */
export function inheritsBranch(branch: readonly unknown[], sessionId: string): boolean {
	if (branch.length === 0) return false;
	const last = branch.findLast((entry) => boundaryOf(entry) !== undefined);
	return last === undefined || boundaryOf(last) !== sessionId;
}

/** The message of a branch entry, when it is one. */
export function messageOf(entry: unknown): Record<string, unknown> | undefined {
	const { type, message } = (entry ?? {}) as { type?: unknown; message?: unknown };
	return type === "message" && typeof message === "object" && message !== null
		? (message as Record<string, unknown>)
		: undefined;
}

/** The user's own prompts on the branch, oldest first, as typed (pi's and our custom messages are not the user's). */
export function userRequests(branch: readonly unknown[]): string[] {
	return branch.flatMap((entry) => {
		const message = messageOf(entry);
		return message?.role === "user" ? [textOfContent(message.content)] : [];
	});
}

/** A snapshot we may trust: an array of valid items within the list limit, whose links point into it soundly. */
function asSnapshot(value: unknown): TodoItem[] | undefined {
	if (!Array.isArray(value) || value.length > MAX_TODOS) return undefined;
	if (!value.every(isValidTodoItem) || linkProblem(value) !== undefined) return undefined;
	return cloneTodos(value);
}

/** The list in a `details` payload of a change (not a listing, not an error). */
function snapshotFromDetails(details: unknown): TodoItem[] | undefined {
	if (typeof details !== "object" || details === null) return undefined;
	const { action, todos, error } = details as Record<string, unknown>;
	if ((action !== "write" && action !== "edit") || error !== undefined) return undefined;
	return asSnapshot(todos);
}

/** The list stored by one session entry, or undefined when the entry holds no trustworthy snapshot. */
export function snapshotFromEntry(entry: unknown): TodoItem[] | undefined {
	if (typeof entry !== "object" || entry === null) return undefined;
	const { type, message, customType, data } = entry as Record<string, unknown>;
	if (type === "custom" && customType === SNAPSHOT_ENTRY_TYPE) return snapshotFromDetails(data);
	if (type !== "message" || typeof message !== "object" || message === null) return undefined;
	const { role, toolName, details, isError } = message as Record<string, unknown>;
	if (role !== "toolResult" || typeof toolName !== "string" || !TOOL_NAMES.has(toolName) || isError === true) {
		return undefined;
	}
	return snapshotFromDetails(details);
}

/** The last trustworthy snapshot on a branch (leaf first), or [] when there is none. */
export function lastSnapshot(branch: readonly unknown[]): TodoItem[] {
	for (let i = branch.length - 1; i >= 0; i--) {
		const snapshot = snapshotFromEntry(branch[i]);
		if (snapshot) return snapshot;
	}
	return [];
}

/**
 * The done-check the user set with `/todos check` on a branch (leaf first): a command, null when they turned it off,
 * undefined when they never set one here. A malformed entry is skipped.
 */
export function lastDoneCheck(branch: readonly unknown[]): string | null | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: unknown; customType?: unknown; data?: unknown } | null;
		if (entry?.type !== "custom" || entry.customType !== DONE_CHECK_ENTRY_TYPE) continue;
		const command = (entry.data as { command?: unknown } | null)?.command;
		if (command === null) return null;
		if (isValidCheck(command)) return command;
	}
	return undefined;
}

/** What a verification found, as a session entry keeps it. */
export interface StoredVerdict {
	passed: boolean;
	failed: string[];
	checks: number;
	judge?: JudgeResult;
}

function asFindingOf(value: unknown): Finding | undefined {
	const { verdict, reason } = (value ?? {}) as Record<string, unknown>;
	return JUDGE_WORDS.includes(verdict as JudgeWord) && typeof reason === "string"
		? { verdict: verdict as JudgeWord, reason }
		: undefined;
}

/** A judge's verdict as an entry keeps it; undefined when malformed (the whole verdict is then not trusted). */
export function asJudgeResult(value: unknown): JudgeResult | undefined {
	const { judged, why, items, goal } = (value ?? {}) as Record<string, unknown>;
	if (judged === false) return typeof why === "string" ? { judged, why } : undefined;
	if (judged !== true || !Array.isArray(items)) return undefined;
	const findings = items.map((item) => {
		const index = (item as { index?: unknown } | null)?.index;
		const finding = asFindingOf(item);
		return Number.isSafeInteger(index) && finding ? { index: index as number, ...finding } : undefined;
	});
	if (!findings.every((finding) => finding !== undefined)) return undefined;
	const goalFinding = goal === undefined ? undefined : asFindingOf(goal);
	if (goal !== undefined && !goalFinding) return undefined;
	return goalFinding ? { judged, items: findings, goal: goalFinding } : { judged, items: findings };
}

function asVerdict(data: unknown): StoredVerdict | undefined {
	const { passed, failed, checks, judge } = (data ?? {}) as Record<string, unknown>;
	if (typeof passed !== "boolean" || !Number.isSafeInteger(checks) || (checks as number) < 0) return undefined;
	if (!Array.isArray(failed) || !failed.every((what) => typeof what === "string")) return undefined;
	if (passed !== (failed.length === 0)) return undefined;
	const judgement = judge === undefined ? undefined : asJudgeResult(judge);
	if (judge !== undefined && !judgement) return undefined;
	const verdict = { passed, failed: [...failed], checks: checks as number };
	return judgement ? { ...verdict, judge: judgement } : verdict;
}

/**
 * The verdict of the list as the branch leaves it: the last `til-done-verdict` entry, unless a later entry changed the
 * list or the done-check (then the list has not been verified since). A malformed entry is skipped.
 */
export function lastVerdict(branch: readonly unknown[]): StoredVerdict | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: unknown; customType?: unknown; data?: unknown } | null;
		if (snapshotFromEntry(entry) !== undefined) return undefined;
		if (entry?.type !== "custom") continue;
		if (entry.customType === DONE_CHECK_ENTRY_TYPE) return undefined;
		if (entry.customType !== VERDICT_ENTRY_TYPE) continue;
		const verdict = asVerdict(entry.data);
		if (verdict) return verdict;
	}
	return undefined;
}

/** The user's pause as the branch leaves it: the last well-formed `til-done-pause` entry; undefined when none. */
export function lastPause(branch: readonly unknown[]): { paused: boolean; reason?: string } | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: unknown; customType?: unknown; data?: unknown } | null;
		if (entry?.type !== "custom" || entry.customType !== PAUSE_ENTRY_TYPE) continue;
		const { paused, reason } = (entry.data ?? {}) as Record<string, unknown>;
		if (typeof paused !== "boolean" || (reason !== undefined && typeof reason !== "string")) continue;
		return reason === undefined ? { paused } : { paused, reason };
	}
	return undefined;
}

const DECISION_KINDS: ReadonlySet<unknown> = new Set(["send", "stop", "end-loop", "verify", "idle", "work"]);
const COUNTER_KEYS = [
	"continuations",
	"maxContinuations",
	"noProgress",
	"maxNoProgress",
	"failures",
	"maxFailures",
	"finished",
	"total",
	"tokens",
	"cost",
	"calls",
] as const;

function asDecision(data: unknown): Decision | undefined {
	const { at, kind, code, text, counters } = (data ?? {}) as Record<string, unknown>;
	if (typeof at !== "number" || !DECISION_KINDS.has(kind) || typeof code !== "string" || typeof text !== "string") {
		return undefined;
	}
	const figures = (counters ?? {}) as Record<string, unknown>;
	if (!COUNTER_KEYS.every((key) => typeof figures[key] === "number")) return undefined;
	const kept = Object.fromEntries(COUNTER_KEYS.map((key) => [key, figures[key]])) as unknown as Decision["counters"];
	return { at, kind: kind as Decision["kind"], code, text, counters: kept };
}

/** The last `max` well-formed decisions on a branch, oldest first; malformed entries are skipped. */
export function lastDecisions(branch: readonly unknown[], max: number): Decision[] {
	const found: Decision[] = [];
	for (let i = branch.length - 1; i >= 0 && found.length < max; i--) {
		const entry = branch[i] as { type?: unknown; customType?: unknown; data?: unknown } | null;
		if (entry?.type !== "custom" || entry.customType !== DECISION_ENTRY_TYPE) continue;
		const decision = asDecision(entry.data);
		if (decision) found.push(decision);
	}
	return found.reverse();
}

const WORKER_END_KINDS: ReadonlySet<unknown> = new Set(["landed", "given-back", "kept", "cannot-start"]);

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function asFinishedWorker(data: unknown): FinishedWorker | undefined {
	const { index, text, end, why, seconds, tokens, files, answer, stoppedWithWork } = (data ?? {}) as Record<
		string,
		unknown
	>;
	if (!isCount(index) || !isCount(seconds) || !isCount(tokens) || !WORKER_END_KINDS.has(end)) return undefined;
	if (typeof text !== "string" || typeof why !== "string" || typeof answer !== "string") return undefined;
	if (!Array.isArray(files) || !files.every((file) => typeof file === "string")) return undefined;
	// Kept as the live list keeps them: the reason on one line, the answer within its bound.
	const kept = { why: oneLine(why), answer: keptAnswer(answer) };
	const stopped = stoppedWithWork === true ? { stoppedWithWork: true as const } : {};
	return { index, text, end: end as FinishedWorker["end"], seconds, tokens, files: [...files], ...kept, ...stopped };
}

/** Whether a branch entry is a prompt of the user's: the chain starts again there. */
function isUserPrompt(entry: unknown): boolean {
	const { type, message } = (entry ?? {}) as { type?: unknown; message?: { role?: unknown } | null };
	return type === "message" && message?.role === "user";
}

/**
 * The last `max` well-formed workers that ended on a branch since the user's last prompt (the chain they ended in), in
 * the order they ended; malformed entries are skipped.
 */
export function lastEndedWorkers(branch: readonly unknown[], max: number): FinishedWorker[] {
	const found: FinishedWorker[] = [];
	for (let i = branch.length - 1; i >= 0 && found.length < max && !isUserPrompt(branch[i]); i--) {
		const entry = branch[i] as { type?: unknown; customType?: unknown; data?: unknown } | null;
		if (entry?.type !== "custom" || entry.customType !== WORKER_ENTRY_TYPE) continue;
		const worker = asFinishedWorker(entry.data);
		if (worker) found.push(worker);
	}
	return found.reverse();
}
