/**
 * Landing a worker's work in the user's work tree, file by file: what a 3-way merge of the worker's change (from the
 * snapshot it started on) with the user's tree as it is now does to each file, its bytes and its mode. Pure:
 * edges/git/land.ts reads the facts, asks git, and writes only when no file conflicts (a landing is all or nothing).
 * A landing keeps the user's: it never widens their permission bits, never writes or deletes through a symbolic link
 * of theirs, and never changes a submodule.
 */

/** Git's modes of a tree entry. */
export const GIT_MODE = {
	file: "100644",
	executable: "100755",
	link: "120000",
	submodule: "160000",
} as const;

/** The user's copy of a file on disk now, as far as a landing needs it. */
export type OnDisk =
	| { kind: "absent" }
	/** A regular file: its permission bits; whether its bytes are the snapshot's and the worker's. */
	| { kind: "file"; mode: number; sameAsBase: boolean; sameAsTheirs: boolean }
	/** A symbolic link: whether its target is the snapshot's and the worker's. */
	| { kind: "link"; sameAsBase: boolean; sameAsTheirs: boolean }
	/** A folder, or anything else that is not a file. */
	| { kind: "other" };

/** One file the worker changed, and what the edge read of the user's tree around it. */
export interface FileSides {
	/** Its path in the work tree. */
	path: string;
	/** Git's mode of it in the snapshot the worker started from ({@link GIT_MODE}); undefined: not there. */
	base?: string;
	/** Git's mode of it in the worker's result; undefined: the worker deleted it. */
	theirs?: string;
	/** The user's copy now. */
	ours: OnDisk;
	/** What the folders above it are on disk: folders (or not there yet), or the first that is a link or a file. */
	parents: "folders" | "link" | "file";
	/** The submodule of the user's repository it is, or is inside (its path), as the index or the disk say. */
	submodule?: string;
	/** The process's umask: a new file gets the mode a new file of the user's would. */
	umask: number;
}

/**
 * What landing does to one file: `keep` the user's (already the result); `write` the worker's bytes with `mode`;
 * `link` the worker's symbolic link; `merge` the three with `git merge-file` (the result, unless it conflicts) and
 * write it with `mode`; `chmod` the user's file to `mode` (the worker changed its mode alone); `delete` it;
 * `conflict`: the file is named and nothing of the landing is written; `submodule`: the worker changed the submodule
 * at that path, which never lands.
 */
export type FileLanding =
	| { action: "keep" | "link" | "delete" | "conflict" }
	| { action: "write" | "merge" | "chmod"; mode: number }
	| { action: "submodule"; submodule: string };

const isRegular = (mode: string | undefined): boolean => mode === GIT_MODE.file || mode === GIT_MODE.executable;
const isExecutable = (mode: string | undefined): boolean => mode === GIT_MODE.executable;

export function landFile(sides: FileSides): FileLanding {
	if (sides.submodule !== undefined) return { action: "submodule", submodule: sides.submodule };
	if (sides.base === GIT_MODE.submodule || sides.theirs === GIT_MODE.submodule)
		return { action: "submodule", submodule: sides.path };
	// Git itself refuses a path beyond a symbolic link; a file where a folder must be cannot hold one.
	if (sides.parents !== "folders" || sides.ours.kind === "other") return { action: "conflict" };
	const bytes = landBytes(sides.base, sides.theirs, sides.ours);
	if (bytes === "keep") return keepOrChmod(sides);
	if (bytes === "write" && sides.theirs === GIT_MODE.link) return { action: "link" };
	if (bytes === "write" || bytes === "merge") return { action: bytes, mode: modeOf(sides) };
	return { action: bytes };
}

/** The user's copy where there is one to compare. */
type Present = Extract<OnDisk, { kind: "file" | "link" }>;

/** Whether the user's copy is what a side holds: the same kind of file with the same bytes. */
function sameAs(ours: Present, mode: string | undefined, side: "base" | "theirs"): boolean {
	const sameKind = ours.kind === "file" ? isRegular(mode) : mode === GIT_MODE.link;
	return sameKind && (side === "base" ? ours.sameAsBase : ours.sameAsTheirs);
}

/** The 3-way rule on the bytes (and the kind of file): keep, write, merge, delete or conflict. */
function landBytes(
	base: string | undefined,
	theirs: string | undefined,
	ours: Present | { kind: "absent" },
): "keep" | "write" | "merge" | "delete" | "conflict" {
	if (ours.kind === "absent") {
		if (theirs === undefined) return "keep";
		return base === undefined ? "write" : "conflict";
	}
	if (theirs === undefined) return sameAs(ours, base, "base") ? "delete" : "conflict";
	if (sameAs(ours, theirs, "theirs")) return "keep";
	if (sameAs(ours, base, "base")) return "write";
	const merges = base !== undefined && isRegular(base) && isRegular(theirs) && ours.kind === "file";
	return merges ? "merge" : "conflict";
}

/** The user's file kept: as it is, or with the execute bits the worker changed. */
function keepOrChmod(sides: FileSides): FileLanding {
	if (sides.ours.kind !== "file" || !isRegular(sides.theirs)) return { action: "keep" };
	const mode = modeOf(sides);
	return mode === sides.ours.mode ? { action: "keep" } : { action: "chmod", mode };
}

/**
 * The permission bits a regular file lands with. The user's file keeps its own, and only the execute bits change, and
 * only where the worker changed them: `+x` adds them where the file has the read bits (600 → 700), `-x` removes them.
 * A file the user does not have gets what a new file of theirs would under their umask, executable when git says so.
 */
function modeOf(sides: FileSides): number {
	const { base, theirs, ours, umask } = sides;
	const executable = isExecutable(theirs);
	if (ours.kind !== "file") return (executable ? 0o777 : 0o666) & ~umask;
	const askedByWorker = executable !== isExecutable(base);
	const isNow = (ours.mode & 0o100) !== 0;
	if (!askedByWorker || isNow === executable) return ours.mode;
	return executable ? ours.mode | ((ours.mode & 0o444) >> 2) : ours.mode & ~0o111;
}

/**
 * What a landing found: the files it wrote or deleted, the files that conflict, the submodules it would change, a stop
 * that came before it wrote, or the files it may not write (nothing was written but in the first).
 */
export type Landing =
	| { landed: string[] }
	| { conflicts: string[] }
	| { submodules: string[] }
	| { stopped: true }
	/** Files the process may not write (a folder or file that is read-only or immutable to it). */
	| { unwritable: string[] }
	/** The user's own git operation is under way (a merge, a rebase…): why, and nothing was written. */
	| { busy: string };

/** A landing's files as a whole: refused for the submodules it would change, then for its conflicts, or landed. */
export function landingOf(files: readonly { path: string; landing: FileLanding }[]): Landing {
	const submodules = [
		...new Set(files.flatMap(({ landing }) => (landing.action === "submodule" ? [landing.submodule] : []))),
	];
	if (submodules.length > 0) return { submodules };
	const conflicts = files.filter(({ landing }) => landing.action === "conflict").map(({ path }) => path);
	if (conflicts.length > 0) return { conflicts };
	return { landed: files.filter(({ landing }) => landing.action !== "keep").map(({ path }) => path) };
}
