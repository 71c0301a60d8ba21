/**
 * A worker's own tree: a folder outside the user's work tree, a repository of its own that borrows the user's objects
 * (`objects/info/alternates`), checked out byte for byte from a snapshot of the user's work tree (raw attributes: no
 * conversion), with that snapshot as its HEAD so the worker's `git diff` shows its own work only. Nothing of it is in
 * the user's repository: `git worktree list`, the index, HEAD, branches and stash never see it. Its result is written
 * into the user's object store and kept under a ref of ours, so it survives the folder. The worker's own TMPDIR is a
 * folder beside the tree ({@link workerTmpDir}), made with it and removed with it: its place is fixed by the tree's
 * name, never found through anything in the tree, which the worker may change (a link there would make the person's
 * repository its TMPDIR).
 *
 * The tree's own `.git` is the worker's to write (its config, its attributes): what the session runs on the tree (its
 * result kept) goes through a git directory of ours beside the tree instead, which the worker cannot write, so nothing
 * the worker wrote there (a clean filter, an fsmonitor) runs as the session.
 */

import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_MODE } from "../../core/rules/landing.ts";
import { ownedPrefix, removeWhole } from "../host/owner.ts";
import { AUTHOR, type Repo, runGit, runGitBytes, runSh } from "./git.ts";
import { inQuarantine, quarantineEnv } from "./quarantine.ts";
import { RAW_ATTRIBUTES } from "./raw-git.ts";

/**
 * A worker's tree: its folder, the snapshot (a commit in the user's object store) it was made from, and the git
 * directory of ours the session reads it through.
 */
export interface WorkerTree {
	dir: string;
	base: string;
	meta: string;
}

/** The worker's own TMPDIR, beside its tree `dir`: the worker can write it (edges/workers/confine.ts). */
export const workerTmpDir = (dir: string): string => `${dir}-tmp`;

/**
 * Makes a worker's tree from `base`, a commit of the user's work tree as the checkpoints snapshot it. Undefined when
 * git refused (the folder is then removed).
 */
export async function makeWorkerTree(repo: Repo, base: string): Promise<WorkerTree | undefined> {
	const dir = mkdtempSync(join(tmpdir(), ownedPrefix("worker")));
	const tree = { dir, base, meta: `${dir}-meta` };
	// Its info first (git init keeps what is there), then the whole checkout in one shell: a worker starts sooner.
	writeInfo(dir, repo.commonDir);
	mkdirSync(workerTmpDir(dir));
	writeMeta(tree.meta, repo.commonDir);
	const script =
		'git "$@" init -q && git "$@" read-tree "$BASE" && git "$@" checkout-index -a -f && git "$@" update-ref HEAD "$BASE"';
	const made = await runSh(dir, script, { ...AUTHOR, BASE: base });
	if (made.code === 0) return tree;
	removeWorkerTree(tree);
	return undefined;
}

/** The git directory of ours beside a tree: the user's settings and exclusions, raw attributes, no objects of its own. */
function writeMeta(meta: string, commonDir: string): void {
	mkdirSync(join(meta, "refs"), { recursive: true });
	mkdirSync(join(meta, "info"), { recursive: true });
	writeFileSync(join(meta, "HEAD"), "ref: refs/heads/til-done\n");
	writeFileSync(join(meta, "info", "attributes"), RAW_ATTRIBUTES);
	copyOrEmpty(join(commonDir, "config"), join(meta, "config"));
	copyOrEmpty(join(commonDir, "info", "exclude"), join(meta, "info", "exclude"));
}

function copyOrEmpty(from: string, to: string): void {
	try {
		copyFileSync(from, to);
	} catch {
		writeFileSync(to, "");
	}
}

/** Adds lines to what git leaves out of the tree: in the worker's own repository and in ours beside it. */
export function excludeInTree(tree: WorkerTree, lines: string): void {
	for (const info of [join(tree.dir, ".git", "info"), join(tree.meta, "info")])
		appendFileSync(join(info, "exclude"), `\n${lines}`);
	appendFileSync(ownExclusions(tree), lines);
}

/** The lines of exclusions the session put in the tree itself (never the person's): what is there is never work. */
const ownExclusions = (tree: WorkerTree): string => join(tree.meta, "til-done-exclude");

/** The worker repository's borrowed objects, its raw attributes, and the user's own exclusions. */
function writeInfo(dir: string, commonDir: string): void {
	mkdirSync(join(dir, ".git", "objects", "info"), { recursive: true });
	mkdirSync(join(dir, ".git", "info"), { recursive: true });
	writeFileSync(join(dir, ".git", "objects", "info", "alternates"), `${join(commonDir, "objects")}\n`);
	writeFileSync(join(dir, ".git", "info", "attributes"), RAW_ATTRIBUTES);
	try {
		copyFileSync(join(commonDir, "info", "exclude"), join(dir, ".git", "info", "exclude"));
	} catch {
		// No exclusions of the user's: the tree's own .gitignore files still apply.
	}
}

/**
 * What the worker left in its tree, as a commit on its base kept under `ref` (the base itself, and no ref, when it
 * changed nothing); undefined when git refused. Its new
 * objects (every file it changed, even one it committed in its own repository, which goes with its tree) are written
 * in quarantine and move into the user's store only once the commit is whole. What it wrote inside a submodule's
 * folder is kept too, in the submodule's place: git would pass over it, and the landing must see it to refuse it.
 */
export async function keepWorkerResult(
	repo: Repo,
	tree: WorkerTree,
	ref: string,
	signal?: AbortSignal,
): Promise<string | undefined> {
	const written = await submodulesWrittenIn(repo, tree);
	if (written === undefined) return undefined;
	const objects = join(repo.commonDir, "objects");
	const commit = await inQuarantine(objects, async (quarantine) => {
		// Our git directory, never the tree's: nothing the worker wrote in its `.git` is read.
		const env = {
			...AUTHOR,
			...quarantineEnv(quarantine, objects),
			GIT_DIR: tree.meta,
			GIT_WORK_TREE: tree.dir,
			GIT_INDEX_FILE: join(tree.meta, "index"),
			BASE: tree.base,
		};
		const input = written.map((path) => `${path}\0`).join("");
		const staged = await runSh(tree.dir, STAGE_SCRIPT, { ...env, DROP: input ? "1" : "" }, input, signal);
		if (staged.code !== 0 || !(await stageIgnoredFiles(tree, env, signal))) return undefined;
		const made = await runSh(tree.dir, COMMIT_SCRIPT, env, undefined, signal);
		return made.code === 0 ? made.stdout.trim() : undefined;
	});
	if (commit === undefined || commit === tree.base) return commit;
	return (await runGit(repo.top, ["update-ref", ref, commit])).code === 0 ? commit : undefined;
}

/** The tree's every change in our index on its base (what it wrote in a submodule's place dropped first). */
const STAGE_SCRIPT = [
	'git "$@" read-tree "$BASE" || exit 1',
	'if [ -n "$DROP" ]; then git "$@" update-index -z --force-remove --stdin || exit 1; fi',
	'git "$@" add -A',
].join("\n");

/** The index as a commit on its base; the base itself when nothing changed, and nothing is kept for it. */
const COMMIT_SCRIPT = [
	'tree=$(git "$@" write-tree) || exit 1',
	'if [ "$tree" = "$(git "$@" rev-parse "$BASE^{tree}")" ]; then echo "$BASE"; exit 0; fi',
	'git "$@" commit-tree "$tree" -p "$BASE" -m "pi-til-done worker result"',
].join("\n");

/** Adds to the index the files the worker made that the person's exclusions name; false when git refused. */
async function stageIgnoredFiles(tree: WorkerTree, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<boolean> {
	const ignored = await ignoredFilesWritten(tree, env);
	if (ignored === undefined) return false;
	if (ignored.length === 0) return true;
	const list = join(tree.meta, "til-done-ignored");
	writeFileSync(list, Buffer.from(ignored.map((path) => `${path}\0`).join(""), "latin1"));
	const script = 'git "$@" add -f --pathspec-from-file="$LIST" --pathspec-file-nul';
	const vars = { ...env, LIST: list, GIT_LITERAL_PATHSPECS: "1" };
	return (await runSh(tree.dir, script, vars, undefined, signal)).code === 0;
}

/**
 * The files the worker made that the person's exclusions name (`.env.local` under `.env*`): work like any other, so
 * kept. A whole folder git ignores (`node_modules/`, `build/`) is what tools make, never kept; nor is what the session
 * itself put in the tree. Undefined when git cannot list them.
 */
async function ignoredFilesWritten(tree: WorkerTree, env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
	const list = ["ls-files", "-z", "--others", "--ignored", "--directory"];
	const ignored = await runGitBytes(tree.dir, [...list, "--exclude-standard"], { env });
	if (!ignored) return undefined;
	let own: string[] = [];
	if (existsSync(ownExclusions(tree))) {
		const listed = await runGitBytes(tree.dir, [...list, `--exclude-from=${ownExclusions(tree)}`], { env });
		if (!listed) return undefined;
		own = entriesOf(listed);
	}
	const owned = (path: string) =>
		own.some((entry) => path === entry || (entry.endsWith("/") && path.startsWith(entry)));
	return entriesOf(ignored).filter((path) => !path.endsWith("/") && !owned(path));
}

/** The entries of a NUL-separated listing, each byte kept (a name need not be UTF-8). */
const entriesOf = (listed: Buffer): string[] =>
	listed
		.toString("latin1")
		.split("\0")
		.filter((entry) => entry !== "");

/**
 * The submodules of the worker's base (a snapshot holds one as its commit, and the tree an empty folder) whose folder
 * the worker wrote something in; undefined when git cannot list them.
 */
async function submodulesWrittenIn(repo: Repo, tree: WorkerTree): Promise<string[] | undefined> {
	const listed = await runGitBytes(repo.top, ["ls-tree", "-r", "-z", tree.base]);
	if (!listed) return undefined;
	const entries = listed.toString("utf8").split("\0");
	const submodules = entries.filter((entry) => entry.startsWith(`${GIT_MODE.submodule} `));
	return submodules
		.map((entry) => entry.slice(entry.indexOf("\t") + 1))
		.filter((path) => holdsAnything(tree.dir, path));
}

function holdsAnything(dir: string, path: string): boolean {
	try {
		return readdirSync(join(dir, path)).length > 0;
	} catch {
		return false;
	}
}

/** Removes a worker's tree, whatever is in it, and our git directory beside it. */
export function removeWorkerTree(tree: { dir: string; meta: string }): void {
	removeWhole(tree.dir);
	removeWhole(tree.meta);
	removeWhole(workerTmpDir(tree.dir));
}
