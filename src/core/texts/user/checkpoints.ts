/**
 * What the user reads of per-item checkpoints: notices, and what `/todos diff`, `revert` and `checkpoints` answer.
 * Loaded with the checkpoints (off unless asked for).
 */

import type { Checkpoint } from "../../model/types.ts";
import { oneLine, prefix } from "../sanitize.ts";
import { formatClock } from "../user.ts";

// ── Per-item checkpoints: notices, and what `/todos diff`, `revert` and `checkpoints` answer ────────────

/** Longest item text a checkpoint line quotes. */
const ITEM_CHARS = 60;

const item = (index: number, text: string): string => `[${index}] ${prefix(oneLine(text), ITEM_CHARS)}`;
const short = (commit: string): string => commit.slice(0, 12);

/** A file name as a message shows it: on one line, quoted when it holds a space. */
const fileName = (path: string): string => (/[\s"]/.test(path) ? JSON.stringify(path) : oneLine(path));

/** Why git is busy with the user's own operation, so a checkpoint waits (CHECKPOINT_TEXTS.busy says so). */
export const GIT_BUSY = {
	indexLock: "another git process holds the index",
	merge: "a merge is in progress",
	rebase: "a rebase is in progress",
	rebaseOrAm: "a rebase or git am is in progress",
	cherryPick: "a cherry-pick is in progress",
	revert: "a revert is in progress",
	bisect: "a bisect is in progress",
} as const;

/** A size in MB, as the bound on untracked files counts it (1 MB: 1,000,000 bytes). */
const megabytes = (bytes: number): string =>
	`${(bytes / 1_000_000).toLocaleString("en-US", { maximumFractionDigits: 1 })} MB`;

/** Files a notice names in full; the rest are counted. */
const NAMED_FILES = 5;

type SizedFile = { path: string; bytes: number };

/** `"a.bin" (60 MB), "b.bin" (55 MB) and 3 more`: the first {@link NAMED_FILES} named with their sizes. */
function namedWithSizes(files: readonly SizedFile[]): string {
	const named = files
		.slice(0, NAMED_FILES)
		.map((file) => `${JSON.stringify(oneLine(file.path))} (${megabytes(file.bytes)})`);
	const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : "";
	return `${named.join(", ")}${more}`;
}

export const CHECKPOINT_TEXTS = {
	/** The untracked files over the bound, said once: they are in no snapshot, so no worker's tree nor checkpoint has them. */
	leftOut: (files: readonly SizedFile[], maxMb: number) =>
		`pi-til-done: ${files.length} untracked file(s) over ${maxMb.toLocaleString("en-US")} MB left out of snapshots (workers' trees, checkpoints, the judge's evidence): ${namedWithSizes(files)}. --til-done-max-untracked-mb sets the bound.`,
	/** The untracked files past the bound in all, said once: the biggest, so a snapshot's time stays bounded. */
	beyondTotal: (files: readonly SizedFile[], totalMb: number) => {
		const total = totalMb.toLocaleString("en-US");
		return `pi-til-done: ${files.length} untracked file(s) left out of snapshots (workers' trees, checkpoints, the judge's evidence) beyond ${total} MB of untracked files in all, the biggest first: ${namedWithSizes(files)}. --til-done-max-untracked-mb sets the bound (${total} MB is ten times it).`;
	},
	/** Repositories nested in the tree with no commit yet: git cannot take them into a snapshot, so they are left out. */
	emptyRepositories: (paths: readonly string[]) =>
		`pi-til-done: ${paths.map((path) => JSON.stringify(oneLine(path))).join(", ")} ${paths.length === 1 ? "is a repository" : "are repositories"} with no commit yet, left out of snapshots (workers' trees, checkpoints, the judge's evidence) until ${paths.length === 1 ? "it has" : "they have"} one.`,
	/** A revert that would remove, as the item's own, files its start snapshot left out: what they were is unknown. */
	revertLeftOut: (index: number, paths: readonly string[]) =>
		`Not reverted: ${paths.map((path) => JSON.stringify(oneLine(path))).join(", ")} ${paths.length === 1 ? "was" : "were"} there when [${index}] started, but left out of its snapshot (over the bound, or a repository with no commit), so what ${paths.length === 1 ? "it was" : "they were"} before it is unknown. Nothing was changed.`,
	/** The message of a checkpoint's commit, as `git log` shows it under `refs/til-done/`. */
	commitMessage: (phase: string, index: number) => `til-done ${phase} [${index}]`,
	/** The message of the snapshot of the work tree taken as a chain starts (what the judge reads the change from). */
	chainStartMessage: "til-done chain start",
	notGitTree: (cwd: string) =>
		`Checkpoints are on, but ${oneLine(cwd)} is not in a git work tree: no checkpoint is taken.`,
	busy: (reason: string) => `Checkpoint skipped: ${reason}; git is left alone until it ends.`,
	failed: "A checkpoint failed: git refused to snapshot the work tree, so some items may have none.",
	noRepo: (cwd: string) => `${oneLine(cwd)} is not in a git work tree: there are no checkpoints here.`,
	noWork: (index: number) =>
		`No checkpoints of [${index}] on this branch: it needs a start and a completion taken with checkpoints on (/todos checkpoints lists them).`,
	gone: (index: number) => `The checkpoints of [${index}] are gone from the repository (/todos checkpoints clean?).`,
	diffHead: (index: number, text: string, start: string, done: string) =>
		`Changes of ${item(index, text)} (${short(start)} → ${short(done)}):`,
	noChanges: (index: number, text: string) => `${item(index, text)} changed no file.`,
	revertRefused: (index: number, paths: readonly string[]) =>
		`Not reverted: ${paths.map(fileName).join(", ")} changed since [${index}] was completed. Nothing was changed; commit or undo those changes first.`,
	reverted: (index: number, restored: readonly string[], removed: readonly string[]) =>
		[
			`Reverted ${restored.length + removed.length} file(s) [${index}] changed to their state before it.`,
			...(restored.length > 0 ? [`Restored: ${restored.map(fileName).join(", ")}`] : []),
			...(removed.length > 0 ? [`Removed: ${removed.map(fileName).join(", ")}`] : []),
		].join("\n"),
	revertFailed: (index: number) => `Reverting [${index}] failed: git could not write the files back.`,
	none: "No checkpoint on this branch.",
	list: (checkpoints: readonly Checkpoint[]) =>
		[
			`Checkpoints on this branch (${checkpoints.length}), the newest last:`,
			...checkpoints.map(
				(c) => `  ${formatClock(c.at)} ${c.phase.padEnd(5)} ${short(c.commit)} ${item(c.index, c.text)}`,
			),
		].join("\n"),
	cleaned: (count: number) => `Deleted ${count} checkpoint ref(s) under refs/til-done/.`,
	cleanFailed: "git refused to delete the checkpoint refs.",
} as const;

/** Most lines of a diff `/todos diff` shows; the rest is named, with the command that shows it all. */
export const MAX_DIFF_LINES = 500;

/**
 * Each line of a diff as data: control characters (but the line breaks) become spaces; past `max` lines it is cut,
 * and the last line says how many more there are and how to see them.
 */
export function diffAsData(diff: string, start: string, done: string, max = MAX_DIFF_LINES): string {
	const lines = diff
		.replace(/\n$/, "")
		.split("\n")
		.map((line) => oneLine(line));
	if (lines.length <= max) return lines.join("\n");
	const more = `… ${lines.length - max} more line(s): git diff ${short(start)} ${short(done)}`;
	return [...lines.slice(0, max), more].join("\n");
}
