/**
 * Per-item checkpoints, the decisions: which items a change of the list starts or completes, the names of their refs,
 * the checkpoints a branch holds, whether the user's own git operation is under way, what a revert restores and
 * removes, which refs are pruned. Pure; the git effects are in edges/git/git.ts.
 */

import { itemKey } from "../list/items.ts";
import type { Checkpoint, CheckpointPhase, TodoItem } from "../model/types.ts";
import { GIT_BUSY } from "../texts/user/checkpoints.ts";
import { CHECKPOINT_ENTRY_TYPE, CHECKPOINT_REF_ROOT } from "./keys.ts";

export type { Checkpoint, CheckpointPhase };

/** Most checkpoint refs one session keeps in a repository; its oldest are deleted beyond it, never another session's. */
export const MAX_CHECKPOINT_REFS = 200;

/** A session id as a ref name may hold it: letters, digits, `-`, `_` and `.` only, not starting with `.`. */
function refSafe(word: string): string {
	const safe = word.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_");
	return safe === "" ? "_" : safe.replace(/\.\.+/g, "_").replace(/\.lock$/, "_lock");
}

/** The ref that keeps one checkpoint: `refs/til-done/<session-id>/<item-key>/<phase>`. */
export function checkpointRef(sessionId: string, key: string, phase: CheckpointPhase): string {
	return `${CHECKPOINT_REF_ROOT}${refSafe(sessionId)}/${key}/${phase}`;
}

/**
 * What a worker's refs keep: the snapshot it started from (while it works), its result (until it lands), and the work
 * of a try that did not land, kept for good (until the user cleans it), one ref per try.
 */
export type WorkerRefKind = "worker-base" | "worker-result" | "worker-kept";

/** The prefix of a kept try's ref's last part, before its commit's name. */
const KEPT_PREFIX = "worker-kept-";

/** The ref of a worker's base or result: `refs/til-done/<session-id>/<item-key>/worker-base|worker-result`. */
export function workerRef(sessionId: string, key: string, kind: WorkerRefKind): string {
	return `${CHECKPOINT_REF_ROOT}${refSafe(sessionId)}/${key}/${kind}`;
}

/** The suffix of a kept try's ref whose work is whole and checked, and only the remote was missing: it may land as is. */
const TO_LAND_SUFFIX = "-to-land";

/**
 * The ref that keeps the work of a worker's try that did not land: `…/<item-key>/worker-kept-<commit>`, named by its
 * commit, so the item's next try never takes its place; `…-to-land` when it did not land only because the remote was
 * not reached (or the stop came at the push): a later session of the clone lands it without a worker
 * ({@link keptToLand}).
 */
export function keptWorkRef(sessionId: string, key: string, commit: string, toLand = false): string {
	const name = `${KEPT_PREFIX}${commit.slice(0, 12)}${toLand ? TO_LAND_SUFFIX : ""}`;
	return `${CHECKPOINT_REF_ROOT}${refSafe(sessionId)}/${key}/${name}`;
}

/** A kept try's ref to land, as a plain kept ref: its work stays, never landed as is. */
export const unmarkedKeptRef = (ref: string): string =>
	ref.endsWith(TO_LAND_SUFFIX) ? ref.slice(0, -TO_LAND_SUFFIX.length) : ref;

/**
 * Of `refs` (any session's), the first that keeps work of item `key` to land as is; undefined when none does. Work
 * kept for any other reason (a conflict, a failed check, a breaker, a stop before the landing) is worked again.
 */
export function keptToLand(refs: readonly string[], key: string): string | undefined {
	return refs.find((ref) => {
		const read = readWorkerRef(ref);
		return read?.kind === "worker-kept" && read.key === key && ref.endsWith(TO_LAND_SUFFIX);
	});
}

/**
 * A worker base commit's message: its item, and the owner tag (edges/host/owner.ts) of the pi whose worker it is, read
 * back by {@link ownerOfWorkerBase} to tell a live worker's refs from those a gone pi left.
 */
export const workerBaseMessage = (index: number, owner: string): string =>
	`pi-til-done worker base of [${index}] (owner ${owner})`;

/** The owner tag a worker base commit's subject names; undefined when it names none. */
export function ownerOfWorkerBase(subject: string): string | undefined {
	return /^pi-til-done worker base of \[\d+\] \(owner (\d+\.\d+)\)$/.exec(subject)?.[1];
}

/** A worker's ref, read back: its item's key and what it keeps; undefined for any other ref. */
export function readWorkerRef(ref: string): { key: string; kind: WorkerRefKind } | undefined {
	const parts = ref.slice(CHECKPOINT_REF_ROOT.length).split("/");
	if (!ref.startsWith(CHECKPOINT_REF_ROOT) || parts.length !== 3) return undefined;
	const [, key = "", last = ""] = parts;
	if (last === "worker-base" || last === "worker-result") return { key, kind: last };
	return last.startsWith(KEPT_PREFIX) && last.length > KEPT_PREFIX.length ? { key, kind: "worker-kept" } : undefined;
}

/**
 * The ref that keeps the work tree as the session's last chain started: `refs/til-done/<session-id>/chain/start`
 * (never an item's: an item's key starts with its index). Among the session's refs, so it is pruned as they are.
 */
export function chainStartRef(sessionId: string): string {
	return `${CHECKPOINT_REF_ROOT}${refSafe(sessionId)}/chain/start`;
}

/** The root of one session's refs, from one of them: `refs/til-done/<session-id>/`. */
export function sessionRootOf(ref: string): string {
	const session = ref.slice(CHECKPOINT_REF_ROOT.length).split("/")[0] ?? "";
	return `${CHECKPOINT_REF_ROOT}${session}/`;
}

/** One checkpoint a change of the list calls for. */
export interface Transition {
	index: number;
	text: string;
	phase: CheckpointPhase;
}

/**
 * The items a change of the list starts (now in progress, were not) or completes (now completed, were not), by index;
 * an item whose text changed at the same index counts as new. An item a worker holds starts when its work lands, not
 * here (`held`): its diff is then its landing alone, whatever other workers landed meanwhile.
 */
export function transitions(
	before: readonly TodoItem[],
	after: readonly TodoItem[],
	held: ReadonlySet<number> = new Set(),
): Transition[] {
	return after.flatMap((item, index): Transition[] => {
		const old = before[index];
		const was = old !== undefined && old.text === item.text ? old.status : undefined;
		if (item.status === "in_progress" && was !== "in_progress")
			return held.has(index) ? [] : [{ index, text: item.text, phase: "start" }];
		if (item.status === "completed" && was !== "completed") return [{ index, text: item.text, phase: "done" }];
		return [];
	});
}

/** Files in the git directory that say the user's own operation is under way, with what they mean. */
export const BUSY_MARKERS: readonly [string, string][] = [
	["index.lock", GIT_BUSY.indexLock],
	["MERGE_HEAD", GIT_BUSY.merge],
	["rebase-merge", GIT_BUSY.rebase],
	["rebase-apply", GIT_BUSY.rebaseOrAm],
	["CHERRY_PICK_HEAD", GIT_BUSY.cherryPick],
	["REVERT_HEAD", GIT_BUSY.revert],
	["BISECT_LOG", GIT_BUSY.bisect],
];

/** Why no checkpoint may be taken now (the first marker present), or undefined when git is free. */
export function busyReason(present: (name: string) => boolean): string | undefined {
	return BUSY_MARKERS.find(([name]) => present(name))?.[1];
}

const PHASES: ReadonlySet<unknown> = new Set(["start", "done"]);

function asCheckpoint(data: unknown): Checkpoint | undefined {
	const { key, index, text, phase, commit, ref, at, leftOut } = (data ?? {}) as Record<string, unknown>;
	if (typeof key !== "string" || typeof text !== "string" || !PHASES.has(phase)) return undefined;
	if (!Number.isSafeInteger(index) || (index as number) < 0 || typeof at !== "number") return undefined;
	if (typeof commit !== "string" || !/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
	if (typeof ref !== "string" || !ref.startsWith(CHECKPOINT_REF_ROOT)) return undefined;
	if (key !== itemKey(index as number, text)) return undefined;
	const checkpoint = { key, index: index as number, text, phase: phase as CheckpointPhase, commit, ref, at };
	const left = Array.isArray(leftOut) ? leftOut.filter((path): path is string => typeof path === "string") : [];
	return left.length === 0 ? checkpoint : { ...checkpoint, leftOut: left };
}

/** Every well-formed checkpoint on a branch, oldest first; malformed entries are skipped. */
export function checkpointsOn(branch: readonly unknown[]): Checkpoint[] {
	return branch.flatMap((entry) => {
		const { type, customType, data } = (entry ?? {}) as Record<string, unknown>;
		if (type !== "custom" || customType !== CHECKPOINT_ENTRY_TYPE) return [];
		const checkpoint = asCheckpoint(data);
		return checkpoint ? [checkpoint] : [];
	});
}

/** An item's work: its last completion, and the first start of the same item before it. */
export function itemWork(
	checkpoints: readonly Checkpoint[],
	key: string,
): { start: Checkpoint; done: Checkpoint } | undefined {
	const mine = checkpoints.filter((checkpoint) => checkpoint.key === key);
	const doneAt = mine.findLastIndex((checkpoint) => checkpoint.phase === "done");
	if (doneAt < 0) return undefined;
	const start = mine.slice(0, doneAt).find((checkpoint) => checkpoint.phase === "start");
	const done = mine[doneAt];
	return start && done ? { start, done } : undefined;
}

/** One file an item changed, from `git diff --name-status -z --no-renames`: A added, D deleted, anything else kept. */
export interface FileChange {
	status: string;
	path: string;
}

/** Reads `git diff --name-status -z --no-renames` output: status, NUL, path, NUL, … */
export function parseNameStatus(output: string): FileChange[] {
	const fields = output.split("\0");
	const changes: FileChange[] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		// Both exist: the loop stops before the last pair's end.
		const status = fields[i] as string;
		const path = fields[i + 1] as string;
		if (status !== "" && path !== "") changes.push({ status: status.slice(0, 1), path });
	}
	return changes;
}

/** A revert: the files to bring back from the start snapshot, and the files the item created, to delete. */
export function filesToRevert(changes: readonly FileChange[]): { restore: string[]; remove: string[] } {
	return {
		restore: changes.filter((change) => change.status !== "A").map((change) => change.path),
		remove: changes.filter((change) => change.status === "A").map((change) => change.path),
	};
}

/** The most paths a checkpoint names as left out of its snapshot: what a revert must not take for the item's own. */
export const MAX_LEFT_OUT_NAMED = 200;

/**
 * The files a revert would remove as the item's own that the item's start snapshot left out (they were there, too big
 * or in a repository with no commit): their state before the item is unknown, so the revert is refused for them.
 */
export function leftOutAtStart(start: Checkpoint, remove: readonly string[]): string[] {
	const left = start.leftOut ?? [];
	const under = (path: string) => left.some((out) => path === out || path.startsWith(`${out}/`));
	return remove.filter(under);
}

/** The refs to delete so at most `max` remain, given every ref oldest first. */
export function refsToPrune(refsOldestFirst: readonly string[], max = MAX_CHECKPOINT_REFS): string[] {
	return refsOldestFirst.slice(0, Math.max(0, refsOldestFirst.length - max));
}

/** Bytes in one MB of `--til-done-max-untracked-mb`. */
export const BYTES_PER_MB = 1_000_000;

/** An untracked file a snapshot leaves out for its size. */
export interface LeftOut {
	path: string;
	bytes: number;
}

/** The untracked files over `maxMb` MB, biggest first (0 MB: none is left out). */
export function filesLeftOut(untracked: readonly LeftOut[], maxMb: number): LeftOut[] {
	if (maxMb <= 0) return [];
	return untracked.filter((file) => file.bytes > maxMb * BYTES_PER_MB).sort((a, b) => b.bytes - a.bytes);
}

/** The untracked bytes a snapshot reads in all, as so many times the bound on one file. */
export const UNTRACKED_TOTAL_FACTOR = 10;

/**
 * Of the untracked files within the bound, those left out so the rest stay within {@link UNTRACKED_TOTAL_FACTOR} times
 * `maxMb` MB in all: the smallest are kept, the biggest left out, biggest first (0 MB: none is left out).
 */
export function filesBeyondTotal(untracked: readonly LeftOut[], maxMb: number): LeftOut[] {
	if (maxMb <= 0) return [];
	let room = maxMb * UNTRACKED_TOTAL_FACTOR * BYTES_PER_MB;
	const beyond: LeftOut[] = [];
	for (const file of [...untracked].sort((a, b) => a.bytes - b.bytes || (a.path < b.path ? -1 : 1))) {
		if (file.bytes <= room) room -= file.bytes;
		else beyond.push(file);
	}
	return beyond.reverse();
}

/**
 * Lines of git's exclude file that name exactly `paths`: each anchored at the top, git's pattern characters and a
 * trailing space escaped. A path with a line break cannot be named there and is left to the snapshot.
 */
export function excludeLines(paths: readonly string[]): string {
	return paths
		.filter((path) => !/[\n\r]/.test(path))
		.map((path) => `/${path.replace(/[\\*?[]/g, "\\$&").replace(/ $/, "\\ ")}\n`)
		.join("");
}
