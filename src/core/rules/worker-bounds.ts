/**
 * A worker's bounds: it writes inside its tree only. A `write` or `edit` whose path leads outside the tree (an
 * absolute path, `..`, a symbolic link that leads out) is refused, and a path of the person's repository is named as
 * the same file in the tree; the worker's whole pi runs in bubblewrap, where it can write only its tree and its TMPDIR.
 * Pure: the edge reads pi's spelling of the path and resolves its links (edges/workers/confine.ts). Paths are POSIX:
 * workers run where bash and process groups do.
 */

import type { WritableRefusal } from "../model/types.ts";
import { WORKER_BOUNDS_TEXTS } from "../texts/model.ts";

/** Where a worker works. */
export interface WorkerPlace {
	/** Its tree, its pi's folder: as pi names it, and with its links resolved. */
	tree: string;
	realTree: string;
	/** The top of the person's repository its tree is a copy of, links resolved (undefined: not known). */
	repo: string | undefined;
}

/** The path a write names: resolved against the tree as written ({@link resolveIn}), and with its links resolved. */
export interface WriteTarget {
	absolute: string;
	real: string;
}

/** Where a write reaches: inside the tree, so it may go ahead, or where the refusal says it would. */
export type WriteReach =
	| { kind: "inside" }
	/** A file of the person's repository: `instead` is the same file in the tree. */
	| { kind: "in-repo"; instead: string }
	/** A path in the tree that leads out through a symbolic link, to `real`. */
	| { kind: "through-link"; real: string }
	| { kind: "outside" };

/** `path` read against `cwd`, with `.` and `..` read off by name, as the write tool resolves it (before links). */
export function resolveIn(cwd: string, path: string): string {
	const parts: string[] = [];
	for (const part of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
		if (part === "..") parts.pop();
		else if (part !== "" && part !== ".") parts.push(part);
	}
	return `/${parts.join("/")}`;
}

/** `path` as a path below `dir` ("" for `dir` itself), or undefined when it is not in `dir`. */
function below(dir: string, path: string): string | undefined {
	if (path === dir) return "";
	const head = dir.endsWith("/") ? dir : `${dir}/`;
	return path.startsWith(head) ? path.slice(head.length) : undefined;
}

/** Whether a worker in `place` may write `target`, and if not, why. */
export function whereWriteReaches(place: WorkerPlace, target: WriteTarget): WriteReach {
	if (below(place.realTree, target.real) !== undefined) return { kind: "inside" };
	const inRepo =
		place.repo === undefined ? undefined : (below(place.repo, target.absolute) ?? below(place.repo, target.real));
	if (inRepo !== undefined) return { kind: "in-repo", instead: inRepo === "" ? place.tree : `${place.tree}/${inRepo}` };
	const named = below(place.tree, target.absolute) ?? below(place.realTree, target.absolute);
	return named === undefined ? { kind: "outside" } : { kind: "through-link", real: target.real };
}

/** What the model reads when its write of `path` is refused for where it reaches (`reach`). */
export function writeRefusal(path: string, reach: Exclude<WriteReach, { kind: "inside" }>, tree: string): string {
	if (reach.kind === "in-repo") return WORKER_BOUNDS_TEXTS.inRepo(path, reach.instead);
	if (reach.kind === "through-link") return WORKER_BOUNDS_TEXTS.throughLink(path, reach.real, tree);
	return WORKER_BOUNDS_TEXTS.outside(path, tree);
}

/** A word as one argument of a POSIX shell: single-quoted, each `'` in it closed, escaped and opened again. */
export function shellWord(word: string): string {
	return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What confines a worker: bubblewrap at `bwrap`, and the folders it may write. */
export interface Confinement {
	bwrap: string;
	tree: string;
	/** The worker's own TMPDIR. */
	tmp: string;
	/** Files and folders the person lets workers write besides (`TIL_DONE_WORKER_WRITABLE`), each there. */
	writable?: readonly string[];
}

/**
 * The arguments that make bubblewrap run a command where `/` is read-only and only the tree, the worker's TMPDIR and
 * what the person lets workers write besides are writable, with fresh `/dev` and `/proc`, in a process-id namespace of
 * its own (whatever the command starts ends with it, however it left its session, folder or environment), ending with
 * its parent, with `vars` set. The network stays as it is: the worker's model is reached through it.
 */
export function confinedArgs(bounds: Omit<Confinement, "bwrap">, vars: Record<string, string> = {}): string[] {
	const { tree, tmp, writable = [] } = bounds;
	const also = writable.flatMap((path) => ["--bind", path, path]);
	const setenv = Object.entries(vars).flatMap(([name, value]) => ["--setenv", name, value]);
	return [
		...["--die-with-parent", "--unshare-pid"],
		// No capability inside, as root too: one could remount `/` writable, or reach the session's tree through
		// `/proc/<pid>/cwd`.
		...["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
		...["--bind", tree, tree, "--bind", tmp, tmp, ...also, "--setenv", "TMPDIR", tmp, ...setenv, "--"],
	];
}

/** Whether `path` and `top` (both real, absolute) are one, or one holds the other. */
const overlaps = (path: string, top: string): boolean =>
	path === top || top.startsWith(path.endsWith("/") ? path : `${path}/`) || path.startsWith(`${top}/`);

/**
 * The entries of `TIL_DONE_WORKER_WRITABLE`'s value (`:` between them), each with why it is left out, if it is: a
 * relative path, one `real` finds nothing at, or one that holds the person's repository `top` or is in it (workers
 * write it only through a landing). `real` resolves a path's links, undefined when nothing is there.
 */
export function writableEntries(
	raw: string | undefined,
	top: string | undefined,
	real: (path: string) => string | undefined,
): { entry: string; path?: string; refusal?: WritableRefusal }[] {
	return (raw ?? "")
		.split(":")
		.filter((entry) => entry !== "")
		.map((entry) => {
			if (!entry.startsWith("/")) return { entry, refusal: "relative" as const };
			const path = real(entry);
			if (path === undefined) return { entry, refusal: "missing" as const };
			if (top !== undefined && overlaps(path, top)) return { entry, refusal: "repository" as const };
			return { entry, path };
		});
}

/**
 * The files of pi's agent folder that pi locks (a lock folder beside each) and may write in a `-p` run: a worker's pi
 * gets copies of its own, and the rest of the folder read-only.
 */
export const PI_WRITTEN_FILES: readonly string[] = ["auth.json", "models-store.json", "trust.json"];

/**
 * The person's credentials (`auth.json`'s text) as a worker's pi gets them: each OAuth login without its refresh token.
 * Refreshing spends that token (the provider hands out a new one and forgets the old): a worker that refreshed would
 * log the person out, and it never writes the person's file. Undefined when the text is no JSON object.
 */
export function workerCredentials(auth: string): string | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(auth);
	} catch {
		return undefined;
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
	const kept = Object.entries(parsed).map(([provider, credential]) => {
		const oauth = typeof credential === "object" && credential !== null && credential.type === "oauth";
		return [provider, oauth ? { ...credential, refresh: "" } : credential];
	});
	return JSON.stringify(Object.fromEntries(kept), null, 2);
}

/** The command a worker's `bash` runs instead of `command`: the same, in bubblewrap ({@link confinedArgs}). */
export function confinedCommand(command: string, bounds: Confinement): string {
	return ["exec", ...[bounds.bwrap, ...confinedArgs(bounds), "bash", "-c", command].map(shellWord)].join(" ");
}

/** Where bubblewrap cannot confine it: the same command, with the worker's own TMPDIR. */
export function unconfinedCommand(command: string, tmp: string): string {
	return `export TMPDIR=${shellWord(tmp)}\n${command}`;
}

/** pi's flags that choose a session's tools and take a list of names. */
const TOOL_LISTS = new Set(["--tools", "-t", "--exclude-tools", "-xt"]);
/** pi's flags that choose a session's tools alone (`--no-mcp`: pi 1.x). */
const TOOL_SWITCHES = new Set(["--no-tools", "-nt", "--no-builtin-tools", "-nbt", "--no-mcp"]);

/**
 * The flags of pi's command line `argv` that choose its tools, as pi reads them: a worker gets the tools its session
 * has, never pi's defaults (a session run read-only must not have workers that write).
 */
export function toolFlags(argv: readonly string[]): string[] {
	const flags: string[] = [];
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		if (TOOL_SWITCHES.has(arg)) flags.push(arg);
		else if (TOOL_LISTS.has(arg) && i + 1 < argv.length) flags.push(arg, argv[++i] as string);
	}
	return flags;
}
