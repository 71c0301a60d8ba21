/** The texts of per-item checkpoints: notices, and what `/todos diff`, `revert` and `checkpoints` answer. Pure. */

import type { Checkpoint } from "../../types.ts";
import { oneLine, prefix } from "./sanitize.ts";
import { formatClock } from "./user.ts";

/** Longest item text a checkpoint line quotes. */
const ITEM_CHARS = 60;

const item = (index: number, text: string): string => `[${index}] ${prefix(oneLine(text), ITEM_CHARS)}`;
const short = (commit: string): string => commit.slice(0, 12);

/** A file name as a message shows it: on one line, quoted when it holds a space. */
const fileName = (path: string): string => (/[\s"]/.test(path) ? JSON.stringify(path) : oneLine(path));

export const CHECKPOINT_TEXTS = {
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
