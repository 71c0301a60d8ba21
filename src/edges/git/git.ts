/**
 * Per-item checkpoints, the git edge: snapshots of the working tree as commits under the extension's own refs, and
 * what `/todos diff` and `/todos revert` read and write. Every snapshot goes through a temporary index
 * (`GIT_INDEX_FILE`), so the user's index, HEAD, branches and stash are never touched. Git runs with a timeout and
 * the session's abort signal; nothing here decides (core/rules/checkpoint-rules.ts does).
 */

import { closeSync, existsSync, lstatSync, openSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
	busyReason,
	excludeLines,
	filesBeyondTotal,
	filesLeftOut,
	type LeftOut,
	MAX_CHECKPOINT_REFS,
	refsToPrune,
	sessionRootOf,
} from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_REF_ROOT } from "../../core/rules/keys.ts";
import { CLAIM_ROOT } from "../../core/rules/leases.ts";
import { ownedPrefix } from "../host/owner.ts";
import { type GroupedRun, runGrouped } from "./process.ts";
import { inQuarantine } from "./quarantine.ts";
import { privateGitDir, RAW_SETTINGS, rawEnv } from "./raw-git.ts";

/** Milliseconds one git command may run before it is killed. */
export const GIT_TIMEOUT_MS = 30_000;
/** Bytes of a git command's output kept (a diff beyond it is cut by the command that shows it). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** A repository as the checkpoints use it: its work tree's top folder, its git directory and its common one. */
export interface Repo {
	top: string;
	gitDir: string;
	/** Where the objects, refs and settings shared by every work tree are (the git directory itself but in a linked work tree). */
	commonDir: string;
}

export interface GitResult {
	code: number;
	stdout: string;
	stderr: string;
}

interface GitOptions {
	env?: NodeJS.ProcessEnv;
	input?: string;
	signal?: AbortSignal;
	/** Longer than {@link GIT_TIMEOUT_MS}, for work that grows with what it reads (a snapshot of many bytes). */
	timeoutMs?: number;
}

/** Who our commits (snapshots, workers' results) are by, so they need no `user.name` in the user's configuration. */
export const AUTHOR = {
	GIT_AUTHOR_NAME: "pi-til-done",
	GIT_AUTHOR_EMAIL: "til-done@localhost",
	GIT_COMMITTER_NAME: "pi-til-done",
	GIT_COMMITTER_EMAIL: "til-done@localhost",
};

/** Runs git in `cwd`; never throws (a failure to start is code 127). */
export function runGit(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
	return run("git", args, cwd, options);
}

/** Runs a shell script in `cwd` whose `"$@"` are the raw settings (git commands chained in one process). */
export function runSh(
	cwd: string,
	script: string,
	env: NodeJS.ProcessEnv,
	input?: string,
	signal?: AbortSignal,
): Promise<GitResult> {
	return run("sh", ["-c", script, "_", ...RAW_SETTINGS], cwd, { env, input, signal });
}

/**
 * The variables that point git at a repository, an index, objects or settings other than the ones it finds from its
 * folder (`git rev-parse --local-env-vars`, and the numbered `-c` settings): pi run from a git hook carries them.
 */
const REPOSITORY_VARIABLES = [
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY",
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE",
	"GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS",
	"GIT_REPLACE_REF_BASE",
	"GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX",
	"GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR",
];

/**
 * `env` without what would point git elsewhere than the repository of the folder it runs in: every git of ours, and a
 * worker's pi, find their repository from their folder, whatever the process inherited.
 */
export function withoutRepositoryVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const clean = { ...env };
	for (const name of Object.keys(clean)) {
		if (REPOSITORY_VARIABLES.includes(name) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete clean[name];
	}
	return clean;
}

/**
 * How every process of the git edge runs: no optional locks on the user's repository, a time limit, and a process
 * group of its own that ends whole (edges/git/process.ts).
 */
function processOptions(cwd: string, options: GitOptions, maxBytes: number): GroupedRun {
	return {
		cwd,
		env: { ...withoutRepositoryVariables(process.env), ...options.env, GIT_OPTIONAL_LOCKS: "0" },
		input: options.input,
		timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS,
		maxBytes,
		signal: options.signal,
	};
}

/** The most bytes of a file git gives whole (a file a worker changed, as it lands). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Runs git and gives its output as bytes (a file's contents); undefined when it fails (`merge-file` on a conflict). */
export async function runGitBytes(
	cwd: string,
	args: readonly string[],
	options: GitOptions = {},
): Promise<Buffer | undefined> {
	const ended = await runGrouped("git", args, processOptions(cwd, options, MAX_FILE_BYTES));
	return ended.code === 0 ? ended.stdout : undefined;
}

/** Runs git with its stdout written into `file` (made anew, readable by the user alone); whether git succeeded. */
export async function runGitToFile(cwd: string, args: readonly string[], file: string | Buffer): Promise<boolean> {
	const fd = openSync(file, "w", 0o600);
	try {
		const ended = await runGrouped("git", args, { ...processOptions(cwd, {}, MAX_FILE_BYTES), stdoutTo: fd });
		return ended.code === 0;
	} finally {
		closeSync(fd);
	}
}

async function run(file: string, args: readonly string[], cwd: string, options: GitOptions): Promise<GitResult> {
	const ended = await runGrouped(file, args, processOptions(cwd, options, MAX_OUTPUT_BYTES));
	return { code: ended.code, stdout: ended.stdout.toString("utf8"), stderr: ended.stderr };
}

/** The repository whose work tree holds `cwd`, or undefined outside one (or without git). */
export async function findRepo(cwd: string, signal?: AbortSignal): Promise<Repo | undefined> {
	const args = ["rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-toplevel"];
	const result = await runGit(cwd, [...args, "--path-format=absolute", "--git-common-dir"], { signal });
	const [inside, gitDir, top, commonDir] = result.stdout.split("\n");
	return result.code === 0 && inside === "true" && gitDir && top && commonDir ? { top, gitDir, commonDir } : undefined;
}

/** Why git must be left alone now (the user's own operation), or undefined. */
export function gitBusy(repo: Repo): string | undefined {
	return busyReason((name) => existsSync(join(repo.gitDir, name)));
}

let temporaries = 0;

/** Runs `use` with the name of a temporary index file, removed afterwards. */
async function withTemporaryIndex<T>(use: (file: string) => Promise<T>): Promise<T> {
	const file = join(tmpdir(), `${ownedPrefix("index")}${++temporaries}`);
	try {
		return await use(file);
	} finally {
		rmSync(file, { force: true });
	}
}

/** The last raw git call on each repository: one at a time, since they share the private directory's index. */
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` on `repo` once the raw git calls before it on the same repository are done. */
function oneAtATime<T>(repo: Repo, work: () => Promise<T>): Promise<T> {
	const done = (queues.get(repo.commonDir) ?? Promise.resolve()).then(work, work);
	queues.set(
		repo.commonDir,
		done.catch(() => {}),
	);
	return done;
}

/**
 * One shell for a whole snapshot's objects: `$1` "commit" to write a commit (empty: the tree only), `$2` the message,
 * `$3`… the raw settings. The tree is written by raw git (the environment holds the private directory), the files left
 * out for their size taken out of its index; the commit stands on HEAD when there is one. Every new object goes to the
 * quarantine folder (edges/git/quarantine.ts); the ref is written once they are in the store.
 */
const SNAPSHOT_SCRIPT = [
	'mode="$1"; message="$2"; shift 2',
	'export GIT_OBJECT_DIRECTORY="$QUARANTINE" GIT_ALTERNATE_OBJECT_DIRECTORIES="$OBJECTS"',
	// A command substitution is a subshell: what it exports is for raw git alone.
	'tree=$(export GIT_DIR="$RAW_DIR" GIT_WORK_TREE="$RAW_TOP" GIT_INDEX_FILE="$RAW_INDEX"; git "$@" add -A && { [ -z "$LEFT_OUT" ] || git "$@" --literal-pathspecs rm -q --cached --ignore-unmatch --pathspec-from-file="$LEFT_OUT" --pathspec-file-nul; } && git "$@" write-tree) || exit 1',
	'if [ -z "$mode" ]; then echo "$tree"; exit 0; fi',
	'commit=$(git commit-tree "$tree" -p HEAD -m "$message" 2>/dev/null || git commit-tree "$tree" -m "$message") || exit 1',
	'echo "$commit"',
].join("\n");

/**
 * What bounds a snapshot: untracked files over `maxMb` MB are left out (0: none), and `leftOut` is told which; a
 * repository nested in the tree without a commit is left out too, and `emptyRepositories` told.
 */
export interface SnapshotBound {
	maxMb: number;
	leftOut?: (files: readonly LeftOut[]) => void;
	/** Told which files within the bound are left out for the untracked bytes in all. */
	beyondTotal?: (files: readonly LeftOut[]) => void;
	emptyRepositories?: (paths: readonly string[]) => void;
}

export interface SnapshotOptions {
	signal?: AbortSignal;
	bound?: SnapshotBound;
}

/** The user's objects. */
const objectsOf = (repo: Repo): string => join(repo.commonDir, "objects");

/** Bytes git reads in a millisecond, at the least, when it hashes files for a snapshot: its time grows with them. */
const SNAPSHOT_BYTES_PER_MS = 20_000;

/** What a snapshot finds of the untracked files (as the user's own index and exclusions say) before it is taken. */
interface Survey {
	/** Untracked files over the bound, left out. */
	leftOut: LeftOut[];
	/** Untracked files within the bound, left out for the untracked bytes in all. */
	beyondTotal: LeftOut[];
	/** Repositories nested in the tree with no commit yet, left out (git cannot add one: the snapshot would fail). */
	empty: string[];
	/** The bytes of the untracked files the snapshot reads. */
	readBytes: number;
}

/** What is at a path of the tree: a file's size, a folder that is a repository with no commit, or neither. */
async function untrackedEntry(repo: Repo, path: string): Promise<{ bytes: number } | "empty" | undefined> {
	const onDisk = Buffer.concat([Buffer.from(`${repo.top}/`), Buffer.from(path, "latin1")]);
	try {
		const stat = lstatSync(onDisk);
		if (stat.isFile()) return { bytes: stat.size };
		if (!stat.isDirectory()) return undefined;
	} catch {
		return undefined;
	}
	const head = await runGit(onDisk.toString("utf8"), ["rev-parse", "-q", "--verify", "HEAD"]);
	return head.code === 0 ? undefined : "empty";
}

/** The untracked files, and the repositories nested in the tree, as a snapshot must know them before it is taken. */
async function survey(repo: Repo, options: SnapshotOptions): Promise<Survey> {
	const listed = await runGitBytes(repo.top, ["ls-files", "-z", "-o", "--exclude-standard"]);
	const found: Survey = { leftOut: [], beyondTotal: [], empty: [], readBytes: 0 };
	if (!listed) return found;
	const sizes: LeftOut[] = [];
	for (const path of listed.toString("latin1").split("\0")) {
		if (path === "") continue;
		// A folder listed whole (`name/`) is a repository of its own (git stops there): one without a commit cannot be added.
		const entry = await untrackedEntry(repo, path.replace(/\/$/, ""));
		if (entry === "empty") found.empty.push(path.replace(/\/$/, ""));
		else if (entry) sizes.push({ path, bytes: entry.bytes });
	}
	const maxMb = options.bound?.maxMb ?? 0;
	found.leftOut = filesLeftOut(sizes, maxMb);
	const over = new Set(found.leftOut.map((file) => file.path));
	found.beyondTotal = filesBeyondTotal(
		sizes.filter((file) => !over.has(file.path)),
		maxMb,
	);
	const left = new Set([...over, ...found.beyondTotal.map((file) => file.path)]);
	found.readBytes = sizes.filter((file) => !left.has(file.path)).reduce((sum, file) => sum + file.bytes, 0);
	const shown = (path: string) => Buffer.from(path, "latin1").toString("utf8");
	if (found.leftOut.length > 0)
		options.bound?.leftOut?.(found.leftOut.map((file) => ({ ...file, path: shown(file.path) })));
	if (found.beyondTotal.length > 0)
		options.bound?.beyondTotal?.(found.beyondTotal.map((file) => ({ ...file, path: shown(file.path) })));
	if (found.empty.length > 0) options.bound?.emptyRepositories?.(found.empty.map(shown));
	return found;
}

/** One snapshot's writing: a commit or a tree alone, raw git's index, the list of files left out, where objects go. */
interface SnapshotJob {
	commit: boolean;
	message: string;
	index: string;
	leftOut: string;
	quarantine: string;
	gitDir: string;
	signal?: AbortSignal;
	/** How long its git may take, by what it reads. */
	timeoutMs: number;
}

/**
 * The snapshot's objects written in quarantine by {@link SNAPSHOT_SCRIPT} with `index` as raw git's index: the commit
 * (or tree), or undefined when git failed. `leftOut` is the file that lists the paths left out.
 */
async function writeSnapshot(repo: Repo, job: SnapshotJob): Promise<string | undefined> {
	const raw = rawEnv(repo, job.gitDir, job.index);
	const env = {
		...AUTHOR,
		RAW_DIR: raw.GIT_DIR,
		RAW_TOP: raw.GIT_WORK_TREE,
		RAW_INDEX: raw.GIT_INDEX_FILE,
		QUARANTINE: job.quarantine,
		OBJECTS: objectsOf(repo),
		LEFT_OUT: job.leftOut,
	};
	const args = ["-c", SNAPSHOT_SCRIPT, "_", job.commit ? "commit" : "", job.message, ...RAW_SETTINGS];
	const result = await run("sh", args, repo.top, { env, signal: job.signal, timeoutMs: job.timeoutMs });
	return result.code === 0 ? result.stdout.trim() : undefined;
}

/**
 * The private directory for a snapshot that leaves out what `found` says, and the file listing those paths (empty:
 * none). A lock a killed snapshot left there goes: only this process's snapshots, one at a time, use the directory.
 */
function prepare(repo: Repo, found: Survey): { gitDir: string; listFile: string } {
	const paths = [...found.leftOut, ...found.beyondTotal].map((file) => file.path).concat(found.empty);
	const gitDir = privateGitDir(repo, Buffer.from(excludeLines(paths), "latin1"));
	rmSync(join(gitDir, "index.lock"), { force: true });
	if (paths.length === 0) return { gitDir, listFile: "" };
	const listFile = join(gitDir, "left-out");
	writeFileSync(listFile, Buffer.from(paths.map((path) => `${path}\0`).join(""), "latin1"));
	return { gitDir, listFile };
}

/**
 * A snapshot kept under `ref` (none: a tree alone): its objects move into the store only once its commit is whole, then the ref is
 * written. A snapshot that fails leaves nothing in the store, and its stat cache is dropped (it may name objects that
 * were never moved in). The commit, or undefined.
 */
function snapshot(
	repo: Repo,
	ref: string | undefined,
	message: string,
	options: SnapshotOptions,
): Promise<string | undefined> {
	return oneAtATime(repo, async () => {
		const found = await survey(repo, options);
		const { gitDir, listFile } = prepare(repo, found);
		const index = join(gitDir, "index");
		const timeoutMs = GIT_TIMEOUT_MS + found.readBytes / SNAPSHOT_BYTES_PER_MS;
		const written = await inQuarantine(objectsOf(repo), (quarantine) => {
			const commit = ref !== undefined;
			const job = { commit, message, index, leftOut: listFile, quarantine, gitDir, ...options, timeoutMs };
			return writeSnapshot(repo, job);
		});
		if (written === undefined) rmSync(index, { force: true });
		if (written === undefined || ref === undefined) return written;
		return (await runGit(repo.top, ["update-ref", ref, written], options)).code === 0 ? written : undefined;
	});
}

/**
 * The working tree as a tree object: tracked and untracked files, ignored ones and those over the bound left out;
 * undefined on failure. Like a checkpoint's, its objects move into the store only once it is whole.
 */
export function snapshotTree(repo: Repo, options: SnapshotOptions = {}): Promise<string | undefined> {
	return snapshot(repo, undefined, "", options);
}

/**
 * A checkpoint: the working tree as a commit kept under `ref`, as {@link snapshot} takes it; the oldest refs of the
 * same session beyond the limit are deleted (never another session's). The commit, or undefined when git refused.
 */
export async function takeCheckpoint(
	repo: Repo,
	ref: string,
	message: string,
	options: SnapshotOptions = {},
): Promise<string | undefined> {
	const commit = await snapshot(repo, ref, message, options);
	if (commit !== undefined) await keepWithinLimit(repo, sessionRootOf(ref), options.signal);
	return commit;
}

/**
 * How many checkpoint refs each session holds in each repository, as far as this process knows: counted once, then
 * one more per checkpoint (a ref written again counts twice, which only prunes sooner), so a checkpoint lists the refs
 * only when the count passes the limit.
 */
const refCounts = new Map<string, number>();

async function keepWithinLimit(repo: Repo, root: string, signal?: AbortSignal): Promise<void> {
	const counted = `${repo.commonDir}\0${root}`;
	const known = refCounts.get(counted);
	const refs =
		known === undefined || known + 1 > MAX_CHECKPOINT_REFS ? await checkpointRefs(repo, root, signal) : undefined;
	if (refs === undefined) {
		refCounts.set(counted, (known as number) + 1);
		return;
	}
	const pruned = refsToPrune(refs);
	const deleted = await deleteRefs(repo, pruned, signal);
	refCounts.set(counted, refs.length - (deleted ? pruned.length : 0));
}

/**
 * Every checkpoint ref under `root` (all of them by default), oldest commit first; never a claim (core/rules/leases.ts
 * keeps them under the same root), which only its holder or `/todos remote release` lets go.
 */
async function checkpointRefs(repo: Repo, root = CHECKPOINT_REF_ROOT, signal?: AbortSignal): Promise<string[]> {
	const listed = await runGit(repo.top, ["for-each-ref", "--sort=committerdate", "--format=%(refname)", root], {
		signal,
	});
	if (listed.code !== 0) return [];
	return listed.stdout.split("\n").filter((line) => line !== "" && !line.startsWith(CLAIM_ROOT));
}

/** Deletes `refs` (one that is not there is no failure); whether git did. */
export async function deleteRefs(repo: Repo, refs: readonly string[], signal?: AbortSignal): Promise<boolean> {
	if (refs.length === 0) return true;
	const input = refs.map((ref) => `delete ${ref}\n`).join("");
	return (await runGit(repo.top, ["update-ref", "--stdin"], { input, signal })).code === 0;
}

/** Deletes every checkpoint ref of the repository; how many there were, or undefined when git refused. */
export async function cleanCheckpointRefs(repo: Repo): Promise<number | undefined> {
	const refs = await checkpointRefs(repo);
	for (const counted of refCounts.keys()) if (counted.startsWith(`${repo.commonDir}\0`)) refCounts.delete(counted);
	return (await deleteRefs(repo, refs)) ? refs.length : undefined;
}

/** `git diff --stat --patch` between two snapshots; undefined when git cannot (a snapshot is gone). */
export async function diffSnapshots(repo: Repo, from: string, to: string): Promise<string | undefined> {
	const args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch", from, to];
	const result = await runGit(repo.top, args);
	return result.code === 0 ? result.stdout : undefined;
}

/** The files changed between two commits or trees, as `git diff --name-status -z --no-renames` says. */
export async function changedFiles(
	repo: Repo,
	from: string,
	to: string,
	paths?: readonly string[],
): Promise<string | undefined> {
	const limit = paths ? ["--", ...paths] : [];
	const args = ["--literal-pathspecs", "diff", "--name-status", "-z", "--no-renames", from, to, ...limit];
	const result = await runGit(repo.top, args);
	return result.code === 0 ? result.stdout : undefined;
}

/**
 * Writes `paths` as they are in `commit` into the work tree, byte for byte and through none of the user's conversions
 * (raw git, on a temporary index: never the user's); removes `remove`.
 */
export async function restoreFiles(
	repo: Repo,
	commit: string,
	paths: readonly string[],
	remove: readonly string[],
): Promise<boolean> {
	const restored =
		paths.length === 0 ||
		(await oneAtATime(repo, () =>
			withTemporaryIndex(async (file) => {
				const env = rawEnv(repo, privateGitDir(repo), file);
				const read = await runGit(repo.top, [...RAW_SETTINGS, "read-tree", commit], { env });
				if (read.code !== 0) return false;
				const input = paths.map((path) => `${path}\0`).join("");
				const args = [...RAW_SETTINGS, "checkout-index", "-f", "-z", "--stdin"];
				return (await runGit(repo.top, args, { env, input })).code === 0;
			}),
		));
	if (!restored) return false;
	for (const path of remove) removeWithEmptyFolders(repo.top, path);
	return true;
}

/** Removes a file and then each folder above it that it leaves empty, up to the work tree's top (git keeps none). */
function removeWithEmptyFolders(top: string, path: string): void {
	rmSync(join(top, path), { force: true });
	for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) {
		try {
			rmdirSync(join(top, folder));
		} catch {
			return;
		}
	}
}
