/**
 * A worker stays in its tree. The session that starts workers finds out once whether bubblewrap can confine them here
 * (and says once when it cannot), runs each worker's whole pi in it (edges/workers/worker-jail.ts) and its item's check
 * too, and tells each worker the person's repository. In the worker's pi (a guest), a `tool_call` handler refuses a
 * `write` or `edit` outside its tree with a reason its model reads, as pi's `protected-paths` example refuses one.
 *
 * Why bubblewrap directly, not the library pi's `sandbox` example uses (`@anthropic-ai/sandbox-runtime` 0.0.83): on
 * Linux it refuses to start without socat and ripgrep, two more system packages, and its configuration requires
 * `network.allowedDomains`, which makes it unshare the network and route every connection through proxies of its own:
 * a worker's commands would no longer reach what the session's reach. bubblewrap alone confines writes and leaves the
 * network as it is.
 */

import { execFile } from "node:child_process";
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	type Confinement,
	confinedArgs,
	confinedCommand,
	resolveIn,
	unconfinedCommand,
	type WorkerPlace,
	type WriteTarget,
	whereWriteReaches,
	writableEntries,
	writeRefusal,
} from "../../core/rules/worker-bounds.ts";
import { WORKER_TEXTS } from "../../core/texts/user/workers.ts";
import { takeUnreported } from "../../state.ts";
import type { Repo } from "../git/git.ts";
import { workerTmpDir } from "../git/worker-tree.ts";
import { tell } from "../host/tell.ts";

/** In a worker's environment: the top of the person's repository its tree is a copy of. */
export const WORKER_REPO_VAR = "TIL_DONE_WORKER_REPO";
/** In a worker's environment: the top of its tree (it runs in the folder of it the session runs in). */
export const WORKER_TREE_VAR = "TIL_DONE_WORKER_TREE";

/** In the session's environment: files and folders, `:` between them, that workers may write besides their own. */
export const WORKER_WRITABLE_VAR = "TIL_DONE_WORKER_WRITABLE";

/** How long bubblewrap's trial run may take before it counts as failed. */
export const BWRAP_PROBE_MS = 5_000;

/** Whether bubblewrap confines here: the bwrap that does, or why none does. */
export type BwrapProbe = { kind: "works"; bwrap: string } | { kind: "missing" } | { kind: "failed"; detail: string };

/** The first `bwrap` on `PATH` that is an executable file. */
function findBwrap(env: NodeJS.ProcessEnv): string | undefined {
	for (const dir of (env.PATH ?? "").split(":")) {
		const file = join(dir || ".", "bwrap");
		try {
			accessSync(file, constants.X_OK);
			if (statSync(file).isFile()) return file;
		} catch {
			// Not here.
		}
	}
	return undefined;
}

/**
 * Runs `true` in bubblewrap with the workers' own arguments, killed past `timeoutMs`: whether it can make its
 * namespaces here.
 */
export function probeBwrap(env: NodeJS.ProcessEnv = process.env, timeoutMs = BWRAP_PROBE_MS): Promise<BwrapProbe> {
	const bwrap = findBwrap(env);
	if (bwrap === undefined) return Promise.resolve({ kind: "missing" });
	const args = [...confinedArgs({ tree: tmpdir(), tmp: tmpdir() }), "true"];
	return new Promise((resolve) => {
		execFile(bwrap, args, { env, timeout: timeoutMs, killSignal: "SIGKILL" }, (error, _stdout, stderr) => {
			if (!error) return resolve({ kind: "works", bwrap });
			const line = String(stderr).trim().split("\n")[0] ?? "";
			const end = error.killed ? { timeoutMs } : { signal: error.signal ?? undefined, code: error.code ?? undefined };
			resolve({ kind: "failed", detail: line || WORKER_TEXTS.bwrapSilent(end) });
		});
	});
}

/** Bubblewrap's answer, asked once per process: it is the machine's. */
let probed: Promise<BwrapProbe> | undefined;

/**
 * What bounds the session's workers: the person's repository, which each is told (its `write` and `edit` there are
 * refused), the bwrap its whole pi and its check run in where one confines, and what they may write besides.
 */
export interface WorkerBounds {
	repo: string;
	bwrap?: string;
	/** The entries of `TIL_DONE_WORKER_WRITABLE` that are kept, links resolved by the session. */
	writable: readonly string[];
}

/** The bounds of the workers of `repo`, now. Where bubblewrap does not confine, the session is told so once. */
export async function workerBounds(repo: Repo, ctx: ExtensionContext): Promise<WorkerBounds> {
	return boundsOf(await bwrapProbe(), repo, ctx);
}

/** Bubblewrap's answer for this process, asked now if not yet. */
export function bwrapProbe(): Promise<BwrapProbe> {
	probed ??= probeBwrap();
	return probed;
}

/**
 * {@link workerBounds} for bubblewrap's answer `probe`: an entry of `TIL_DONE_WORKER_WRITABLE` in `env` that is left
 * out is said once per session, with why.
 */
export function boundsOf(
	probe: BwrapProbe,
	repo: Repo,
	ctx: ExtensionContext,
	env: NodeJS.ProcessEnv = process.env,
): WorkerBounds {
	if (probe.kind === "works") {
		const entries = writableEntries(env[WORKER_WRITABLE_VAR], realOrAsIs(repo.top), realOrNone);
		const leftOut = entries.flatMap(({ entry, refusal }) =>
			refusal ? [WORKER_TEXTS.writableLeftOut(entry, refusal)] : [],
		);
		for (const text of takeUnreported(leftOut)) tell(ctx, text, "warning");
		const writable = entries.flatMap(({ path }) => (path === undefined ? [] : [path]));
		return { repo: repo.top, bwrap: probe.bwrap, writable };
	}
	const notConfined = probe.kind === "missing" ? WORKER_TEXTS.bwrapMissing : WORKER_TEXTS.bwrapFailed(probe.detail);
	for (const text of takeUnreported([notConfined])) tell(ctx, text, "warning");
	return { repo: repo.top, writable: [] };
}

/**
 * Where a worker of `tree` may write, as bubblewrap binds it: its tree, its TMPDIR (the one beside the tree, named
 * from the tree's own name: never found through the tree, which the worker may have changed) and what the person lets
 * workers write besides.
 */
export function placeOf(tree: string, bounds: WorkerBounds): Omit<Confinement, "bwrap"> {
	return { tree: realOrAsIs(tree), tmp: realOrAsIs(workerTmpDir(tree)), writable: bounds.writable };
}

/**
 * A command of the worker's, run by the session in the worker's `tree` (its item's check): confined as the worker's
 * own pi is (unconfined, with the worker's TMPDIR, where bubblewrap cannot).
 */
export function confinedInTree(command: string, tree: string, bounds: WorkerBounds): string {
	const place = placeOf(tree, bounds);
	return bounds.bwrap
		? confinedCommand(command, { bwrap: bounds.bwrap, ...place })
		: unconfinedCommand(command, place.tmp);
}

const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** A tool's path as pi's `write` and `edit` read it: `@` dropped, odd spaces as spaces, `~` and `file://` expanded. */
function asPiReadsIt(path: string): string {
	const spaced = path.replace(UNICODE_SPACES, " ");
	const bare = spaced.startsWith("@") ? spaced.slice(1) : spaced;
	if (bare === "~") return homedir();
	if (bare.startsWith("~/")) return join(homedir(), bare.slice(2));
	if (!bare.startsWith("file://")) return bare;
	try {
		return fileURLToPath(bare);
	} catch {
		return bare;
	}
}

/** Links followed at most, as the kernel's limit: a loop resolves no further. */
const MAX_LINKS = 40;

/**
 * `path` (absolute, `..` read off) with every symbolic link on it followed, a dangling one too (a write through it
 * creates its target); the part that does not exist yet stays as written.
 */
export function realPath(path: string): string {
	let at = "/";
	const rest = path.split("/").filter((part) => part !== "" && part !== ".");
	for (let links = 0; rest.length > 0; ) {
		const part = rest.shift() as string;
		if (part === "..") {
			at = dirname(at);
			continue;
		}
		const next = join(at, part);
		let isLink: boolean;
		try {
			isLink = lstatSync(next).isSymbolicLink();
		} catch {
			return join(next, ...rest);
		}
		if (!isLink) at = next;
		else if (++links > MAX_LINKS) return join(next, ...rest);
		else {
			const target = readlinkSync(next);
			if (target.startsWith("/")) at = "/";
			rest.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
		}
	}
	return at;
}

/** `path` with its links resolved, or undefined when nothing is there. */
const realOrNone = (path: string): string | undefined => {
	try {
		return realpathSync(path);
	} catch {
		return undefined;
	}
};

export const realOrAsIs = (path: string): string => realOrNone(path) ?? path;

/** The target of a write of `path` by a worker whose pi runs in `cwd`. */
function targetOf(cwd: string, path: string): WriteTarget {
	const absolute = resolveIn(cwd, asPiReadsIt(path));
	return { absolute, real: realPath(absolute) };
}

/**
 * In a worker's pi, from its session's start: `write` and `edit` outside its tree refused, and `bash` given the
 * worker's own TMPDIR. Where bubblewrap confines, the whole pi runs in it (edges/workers/worker-jail.ts) and its tools
 * run there as they are; this gate still tells the model which path to use. Returns how to stop.
 */
export function keepInTree(pi: ExtensionAPI, ctx: ExtensionContext, env: NodeJS.ProcessEnv = process.env): () => void {
	const tree = env[WORKER_TREE_VAR] ?? ctx.cwd;
	const repo = env[WORKER_REPO_VAR];
	const place: WorkerPlace = { tree, realTree: realOrAsIs(tree), repo: repo ? realOrAsIs(repo) : undefined };
	const tmp = realOrAsIs(workerTmpDir(tree));
	return pi.on("tool_call", (event) => {
		const input = event.input as { command?: unknown; path?: unknown };
		if (event.toolName === "bash" && typeof input.command === "string") {
			input.command = unconfinedCommand(input.command, tmp);
			return undefined;
		}
		if ((event.toolName !== "write" && event.toolName !== "edit") || typeof input.path !== "string") return undefined;
		// A relative path is the tool's own: read from the folder it runs in, the tree's or one of its folders.
		const reach = whereWriteReaches(place, targetOf(ctx.cwd, input.path));
		return reach.kind === "inside" ? undefined : { block: true, reason: writeRefusal(input.path, reach, tree) };
	});
}
