/**
 * Landing a worker's work in the user's work tree, file by file: what a 3-way merge of the worker's change (from the
 * snapshot it started on) with the user's tree as it is now does to each file. Pure: edges/git/land.ts reads the
 * bytes, asks, and writes only when no file conflicts (a landing is all or nothing).
 */

/** One file the worker changed, as the edge sees it: which sides hold it, and how the user's copy compares. */
export interface FileSides {
	/** In the snapshot the worker started from. */
	base: boolean;
	/** In the worker's result (false: the worker deleted it). */
	theirs: boolean;
	/** In the user's work tree now. */
	ours: boolean;
	/** The user's bytes are the snapshot's (the user left it alone). */
	oursIsBase: boolean;
	/** The user's bytes are the worker's already. */
	oursIsTheirs: boolean;
	/** A regular file on every side that holds it (a symbolic link or a submodule is never merged). */
	regular: boolean;
}

/**
 * What landing does to one file: `write` the worker's bytes, `delete` it, `keep` the user's (already the result),
 * `merge` the three with `git merge-file` (the result, unless it conflicts), or `conflict`: the file is named and
 * nothing of the landing is written.
 */
export type FileLanding = "write" | "delete" | "keep" | "merge" | "conflict";

export function landFile(sides: FileSides): FileLanding {
	if (sides.ours && sides.oursIsTheirs) return "keep";
	if (!sides.theirs) {
		if (!sides.ours) return "keep";
		return sides.oursIsBase ? "delete" : "conflict";
	}
	if (!sides.ours) return sides.base ? "conflict" : "write";
	if (sides.oursIsBase) return "write";
	if (!sides.base || !sides.regular) return "conflict";
	return "merge";
}

/**
 * What a landing found: the files it wrote or deleted, the files that conflict, or a stop that came before it wrote
 * (nothing was written in either of those).
 */
export type Landing = { landed: string[] } | { conflicts: string[] } | { stopped: true };
