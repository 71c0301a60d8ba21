/**
 * Landing a worker's work in the user's work tree: the worker's change, from the snapshot it started on (`base`) to
 * its result (`work`, both trees in the user's object store), merged file by file with the user's tree as it is now
 * (core/rules/landing.ts decides each file). All or nothing: a file that conflicts, or that cannot be written, is named
 * and nothing is written; and should a write fail once begun, what was written is undone. Only the work tree's files
 * change: never the index, HEAD, a branch or the stash. A file of the user's is written in place, so it keeps its owner,
 * its hard links and its other names; a new one takes its place by a rename (a copy across file systems). Each write is
 * journaled first (edges/git/landing-journal.ts), so a pi killed mid-landing leaves what puts the user's files back.
 * Files of any size are streamed, never held whole, and a path is the bytes git gives it, a name that is not UTF-8 too.
 */

import {
	accessSync,
	chmodSync,
	closeSync,
	constants,
	copyFileSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readlinkSync,
	renameSync,
	rmdirSync,
	rmSync,
	symlinkSync,
	unlinkSync,
} from "node:fs";
import { join } from "node:path";
import {
	type FileLanding,
	type FileSides,
	GIT_MODE,
	type Landing,
	landFile,
	landingOf,
	type OnDisk,
} from "../../core/rules/landing.ts";
import { underLock } from "../host/file-lock.ts";
import { ownedPrefix, removedAtExit } from "../host/owner.ts";
import { gitBusy, type Repo, runGitBytes, runGitToFile } from "./git.ts";
import { blobNameOf, fileBlobName } from "./hash.ts";
import { copyInto, flushFile, type Journal, openJournal } from "./landing-journal.ts";

/**
 * A path of the tree as git names it: its bytes kept one for one in a string (`latin1`), so a name that is not UTF-8
 * reaches the file system as it is. {@link shown} is how the user reads it.
 */
type GitPath = string;

/** Where a path of the tree is on disk: the top's name as the system gives it, then the path's own bytes. */
const at = (top: string, path: GitPath): Buffer => Buffer.concat([Buffer.from(`${top}/`), Buffer.from(path, "latin1")]);

/** A path as the user reads it (bytes that are not UTF-8 shown as `�`). */
const shown = (path: GitPath): string => Buffer.from(path, "latin1").toString("utf8");

/** A file's blob and git's mode of it on one side. */
interface Side {
	sha: string;
	mode: string;
}

/** One file the worker changed: its blobs and modes on each side (absent where it is not). */
interface Change {
	path: GitPath;
	base?: Side;
	theirs?: Side;
}

/** One record of `git diff-tree -r -z --no-renames`: the modes and blobs before and after (zeros: absent). */
const RECORD = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) /;
const ABSENT = /^0+$/;

/** The files that differ between two trees. */
async function changesBetween(repo: Repo, base: string, work: string): Promise<Change[] | undefined> {
	const listed = await runGitBytes(repo.top, ["diff-tree", "-r", "-z", "--no-renames", base, work]);
	if (!listed) return undefined;
	const fields = listed.toString("latin1").split("\0");
	const changes: Change[] = [];
	for (let i = 0; i + 1 < fields.length; i += 2) {
		const [, oldMode, newMode, oldSha, newSha] = RECORD.exec(fields[i] as string) as unknown as string[];
		changes.push({
			path: fields[i + 1] as string,
			...(ABSENT.test(oldSha as string) ? {} : { base: { sha: oldSha as string, mode: oldMode as string } }),
			...(ABSENT.test(newSha as string) ? {} : { theirs: { sha: newSha as string, mode: newMode as string } }),
		});
	}
	return changes;
}

/** The user's copy of a file as read: a file's permission bits and blob, a link's target and blob. */
type Ours =
	| { kind: "absent" }
	| { kind: "other" }
	| { kind: "file"; mode: number; sha: string }
	| { kind: "link"; target: Buffer; sha: string };

/** What the user's tree holds at a path and above it: the facts a file's landing is decided on. */
interface Around {
	parents: FileSides["parents"];
	submodule?: string;
	ours: Ours;
}

const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException).code;

/** What is at `file`, not following a link (`shaLength`: the repository's object names); a missing path is absent. */
function readOurs(file: Buffer, shaLength: number): Ours {
	try {
		const stat = lstatSync(file);
		if (stat.isSymbolicLink()) {
			const target = readlinkSync(file, { encoding: "buffer" });
			return { kind: "link", target, sha: blobNameOf(target, shaLength) };
		}
		if (stat.isFile()) return { kind: "file", mode: stat.mode & 0o7777, sha: fileBlobName(file, stat.size, shaLength) };
		return { kind: "other" };
	} catch (error) {
		return errorCode(error) === "ENOENT" ? { kind: "absent" } : { kind: "other" };
	}
}

/** What a folder above a file is on disk, not following a link. */
function folderAt(path: Buffer): "absent" | "link" | "folder" | "repository" | "other" {
	try {
		const stat = lstatSync(path);
		if (stat.isSymbolicLink()) return "link";
		if (!stat.isDirectory()) return "other";
		return holdsRepository(path) ? "repository" : "folder";
	} catch (error) {
		return errorCode(error) === "ENOENT" ? "absent" : "other";
	}
}

/** Whether a folder is a repository of its own: a checked-out submodule, or one nested in the user's tree. */
function holdsRepository(folder: Buffer): boolean {
	try {
		lstatSync(Buffer.concat([folder, Buffer.from("/.git")]));
		return true;
	} catch {
		return false;
	}
}

/**
 * Reads the user's tree at `path`, folder by folder from the top and never through a link: the first folder above it
 * that is a link or not a folder, the submodule it is in (the index's gitlinks, or a folder holding `.git`), its copy.
 */
function readAround(top: string, path: GitPath, gitlinks: ReadonlySet<string>, shaLength: number): Around {
	const parts = path.split("/");
	const within = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
	const submodule = within.find((folder) => gitlinks.has(folder));
	const absent: Ours = { kind: "absent" };
	for (const folder of within.slice(0, -1)) {
		const there = folderAt(at(top, folder));
		if (there === "absent") return { parents: "folders", submodule, ours: absent };
		if (there === "link") return { parents: "link", submodule, ours: absent };
		if (there === "other") return { parents: "file", submodule, ours: absent };
		if (there === "repository") return { parents: "folders", submodule: submodule ?? folder, ours: absent };
	}
	const ours = readOurs(at(top, path), shaLength);
	const nested = ours.kind === "other" && holdsRepository(at(top, path));
	return { parents: "folders", submodule: submodule ?? (nested ? path : undefined), ours };
}

/** Whether two readings of the same path found the same. */
function sameAround(a: Around, b: Around): boolean {
	const sha = (ours: Ours) => ("sha" in ours ? ours.sha : "");
	const mode = (ours: Ours) => ("mode" in ours ? ours.mode : -1);
	return (
		a.parents === b.parents &&
		a.submodule === b.submodule &&
		a.ours.kind === b.ours.kind &&
		mode(a.ours) === mode(b.ours) &&
		sha(a.ours) === sha(b.ours)
	);
}

/** The paths of the submodules in the user's index (gitlinks); undefined when git cannot list them. */
async function indexGitlinks(repo: Repo): Promise<Set<string> | undefined> {
	const listed = await runGitBytes(repo.top, ["ls-files", "--stage", "-z"]);
	if (!listed) return undefined;
	const entries = listed.toString("latin1").split("\0");
	const gitlinks = entries.filter((entry) => entry.startsWith(`${GIT_MODE.submodule} `));
	return new Set(gitlinks.map((entry) => entry.slice(entry.indexOf("\t") + 1)));
}

/** The user's copy as the rule sees it: its kind, its permission bits, and which side's blob it holds. */
function onDisk(ours: Ours, base: Side | undefined, theirs: Side | undefined): OnDisk {
	if (ours.kind === "absent" || ours.kind === "other") return { kind: ours.kind };
	const same = { sameAsBase: base?.sha === ours.sha, sameAsTheirs: theirs?.sha === ours.sha };
	return ours.kind === "file" ? { kind: "file", mode: ours.mode, ...same } : { kind: "link", ...same };
}

/** The kind of the folder a landing stages its files in (edges/host/owner.ts): what a killed pi left is swept. */
export const STAGE_KIND = "landing";

/** The lock file, in the repository's git folder, under which a landing checks the work tree and writes it. */
export const LANDING_LOCK = "til-done-landing.lock";

/**
 * The folder a landing stages its files in, inside the repository's git directory (most often the same file system as
 * its tree; a linked work tree may be elsewhere, where a move into the tree is a copy).
 */
export interface Stage {
	dir: string;
	/** A fresh name in it. */
	next(): string;
	/** Done with it: removed. */
	remove(): void;
}

export function makeStage(repo: Pick<Repo, "commonDir">): Stage {
	const dir = mkdtempSync(join(repo.commonDir, ownedPrefix(STAGE_KIND)));
	const done = removedAtExit(dir);
	let names = 0;
	return {
		dir,
		next: () => join(dir, String(++names)),
		remove: () => {
			rmSync(dir, { recursive: true, force: true });
			done();
		},
	};
}

/** A file's landing decided and staged: what to do with it, its new bytes or link target, what the tree held when decided. */
export interface StagedFile {
	path: GitPath;
	landing: FileLanding;
	staged?: string;
	target?: Buffer;
	around: Around;
}

/**
 * What the worker's side of a file becomes on disk: its blob written to a staged file, or, for a merge, the three
 * versions merged by `git merge-file` into one; a link's target. Undefined when git cannot give it (or the merge
 * conflicts).
 */
async function stageContent(
	repo: Repo,
	file: StagedFile,
	change: Change,
	stage: Stage,
): Promise<StagedFile | undefined> {
	const { landing, around } = file;
	if (landing.action === "link" && change.theirs) {
		const target = await runGitBytes(repo.top, ["cat-file", "blob", change.theirs.sha]);
		return target && { ...file, target };
	}
	if ((landing.action !== "write" && landing.action !== "merge") || !change.theirs) return file;
	const staged = stage.next();
	if (!(await runGitToFile(repo.top, ["cat-file", "blob", change.theirs.sha], staged))) return undefined;
	if (landing.action === "write") return { ...file, staged };
	if (!change.base || around.ours.kind !== "file") return undefined;
	const base = stage.next();
	const mine = stage.next();
	const merged = stage.next();
	if (!(await runGitToFile(repo.top, ["cat-file", "blob", change.base.sha], base))) return undefined;
	// The user's copy, under a name git's argument can carry whatever bytes the path is made of.
	copyFileSync(at(repo.top, file.path), mine);
	if (!(await runGitToFile(repo.top, ["merge-file", "-p", mine, base, staged], merged))) return undefined;
	return { ...file, landing: { action: "write", mode: landing.mode }, staged: merged };
}

async function stageFile(repo: Repo, change: Change, around: Around, umask: number, stage: Stage): Promise<StagedFile> {
	const { path, base, theirs } = change;
	const landing = landFile({
		path,
		base: base?.mode,
		theirs: theirs?.mode,
		ours: onDisk(around.ours, base, theirs),
		parents: around.parents,
		submodule: around.submodule,
		umask,
	});
	const staged = await stageContent(repo, { path, landing, around }, change, stage);
	return staged ?? { path, landing: { action: "conflict" }, around };
}

/** Whether the process may write `path` (a file in place, or a folder to add or remove an entry in). */
function mayWrite(path: Buffer): boolean {
	try {
		accessSync(path, constants.W_OK);
		return true;
	} catch {
		return false;
	}
}

/** The nearest folder above `path` that exists: where a new file's folders are made. */
function nearestFolder(top: string, path: GitPath): Buffer {
	const parts = path.split("/").slice(0, -1);
	for (let depth = parts.length; depth > 0; depth--) {
		const folder = at(top, parts.slice(0, depth).join("/"));
		if (folderAt(folder) === "folder") return folder;
	}
	return Buffer.from(top);
}

/** Whether a staged file can be written as decided: its folder, or the file itself in place, open to the process. */
function writable(top: string, file: StagedFile): boolean {
	const { action } = file.landing;
	if (action === "keep" || action === "conflict" || action === "submodule") return true;
	if (action === "chmod" || (action === "write" && file.around.ours.kind === "file"))
		return mayWrite(at(top, file.path));
	return mayWrite(nearestFolder(top, file.path));
}

/**
 * Lands the change from `base` to `work` in the user's work tree; the files it wrote or deleted, the files that
 * conflict (a file the user changed since it was read counts as one), those that cannot be written, or the
 * submodules it would change, or why the user's own git operation forbids it now (nothing is written then). Undefined
 * when git cannot compare the trees. `stop` holds
 * until the first write: aborted before, nothing is written; the writes, once begun, run to their end with no wait
 * among them, so no stop can come between them.
 */
export async function landWork(
	repo: Repo,
	base: string,
	work: string,
	stop?: AbortSignal,
): Promise<Landing | undefined> {
	const changes = await changesBetween(repo, base, work);
	const gitlinks = changes && (await indexGitlinks(repo));
	if (!changes || !gitlinks) return undefined;
	const stage = makeStage(repo);
	try {
		const files = await stageAll(repo, changes, gitlinks, stage);
		const landing = landingOf(files);
		if (!("landed" in landing)) return shownLanding(landing);
		// Another session's landing in this work tree between the check and the writes would be written over.
		return underLock(join(repo.gitDir, LANDING_LOCK), () => {
			const changed = files.filter(
				(file) => !sameAround(readAround(repo.top, file.path, gitlinks, shaOf(file)), file.around),
			);
			if (changed.length > 0) return { conflicts: changed.map((file) => shown(file.path)) };
			const unwritable = files.filter((file) => !writable(repo.top, file));
			if (unwritable.length > 0) return { unwritable: unwritable.map((file) => shown(file.path)) };
			if (stop?.aborted) return { stopped: true };
			// Never between the steps of the user's own merge or rebase: checked last, just before the first write.
			const busy = gitBusy(repo);
			if (busy !== undefined) return { busy };
			const failed = applyAll(repo.top, files, stage);
			return failed === undefined ? shownLanding(landing) : { unwritable: [shown(failed)] };
		});
	} finally {
		stage.remove();
	}
}

/** The object names' length of the repository a file was read from, from what it read (SHA-1's 40, or SHA-256's 64). */
const shaOf = (file: StagedFile): number => ("sha" in file.around.ours ? file.around.ours.sha.length : 40);

async function stageAll(repo: Repo, changes: Change[], gitlinks: ReadonlySet<string>, stage: Stage) {
	const umask = process.umask();
	const files: StagedFile[] = [];
	for (const change of changes) {
		const shaLength = (change.theirs ?? change.base)?.sha.length ?? 40;
		const around = readAround(repo.top, change.path, gitlinks, shaLength);
		files.push(await stageFile(repo, change, around, umask, stage));
	}
	return files;
}

/** A landing's answer with its paths as the user reads them. */
function shownLanding(landing: Landing): Landing {
	if ("landed" in landing) return { landed: landing.landed.map(shown) };
	if ("conflicts" in landing) return { conflicts: landing.conflicts.map(shown) };
	if ("submodules" in landing) return { submodules: landing.submodules.map(shown) };
	return landing;
}

/** Undoes one write. */
type Undo = () => void;

/** A landing's writes under way: its stage, and its journal, each step noted before it is taken. */
interface Writing {
	stage: Stage;
	note: Journal["note"];
}

/**
 * Writes every staged file; should one fail, undoes what was written, in reverse, and gives its path (undefined: all
 * written). Each write leaves what undoes it, and is journaled in the stage first (what a killed pi leaves to undo).
 */
export function applyAll(top: string, files: readonly StagedFile[], stage: Stage): GitPath | undefined {
	const journal = openJournal(stage.dir);
	const writing: Writing = { stage, note: journal.note };
	const undos: Undo[] = [];
	try {
		for (const file of files) {
			try {
				undos.push(...apply(top, file, writing));
			} catch {
				undoAll(undos);
				return file.path;
			}
		}
		return undefined;
	} finally {
		journal.close();
	}
}

/** Undoes what was written, last first, as far as it goes. */
function undoAll(undos: Undo[]): void {
	for (const undo of undos.reverse()) {
		try {
			undo();
		} catch {
			// Undone as far as it goes; the journal still names what was not.
		}
	}
}

/** Carries out one staged file; what undoes it. */
function apply(top: string, file: StagedFile, writing: Writing): Undo[] {
	const onDisk = at(top, file.path);
	const { landing, around } = file;
	if (landing.action === "chmod") return [changeMode(onDisk, landing.mode, around, writing)];
	if (landing.action === "delete") return [moveAside(onDisk, writing)];
	if (landing.action === "write" && file.staged && around.ours.kind === "file")
		return overwrite(onDisk, file.staged, landing.mode, around.ours.mode, writing);
	if (landing.action === "write" && file.staged)
		return putInPlace(top, file, writing, (next, at) => prepareFile(file, next, at, writing));
	if (landing.action === "link" && file.target)
		return putInPlace(top, file, writing, (next) => prepareLink(file, next));
	return [];
}

/** A file's mode changed; undone by its old mode. */
function changeMode(file: Buffer, mode: number, around: Around, writing: Writing): Undo {
	const old = around.ours.kind === "file" ? around.ours.mode : mode;
	writing.note({ kind: "chmod", file: file.toString("latin1"), from: old, to: mode });
	chmodSync(file, mode);
	return () => chmodSync(file, old);
}

/** A file or link moved into the stage (deleted once the landing is whole); undone by moving it back. */
function moveAside(file: Buffer, writing: Writing): Undo {
	const aside = writing.stage.next();
	writing.note({ kind: "aside", file: file.toString("latin1"), aside });
	move(file, aside);
	return () => move(aside, file);
}

/**
 * The user's file written in place with the staged bytes (its owner, links and names kept), then its mode. Its backup
 * is on disk and journaled before its first byte changes: a pi killed mid-write leaves what puts it back.
 */
function overwrite(file: Buffer, staged: string, mode: number, oldMode: number, journal: Writing): Undo[] {
	const backup = journal.stage.next();
	copyFileSync(file, backup);
	flushFile(backup);
	journal.note({ kind: "write", file: file.toString("latin1"), backup, staged, mode: oldMode });
	const fd = openSync(file, "r+");
	const restore: Undo = () => {
		const again = openSync(file, "r+");
		try {
			copyInto(backup, again);
		} finally {
			closeSync(again);
		}
		chmodSync(file, oldMode);
	};
	try {
		copyInto(staged, fd);
	} catch (error) {
		restore();
		throw error;
	} finally {
		closeSync(fd);
	}
	if (mode !== oldMode) chmodSync(file, mode);
	return [restore];
}

/** Whether a rename failed only for crossing file systems (a linked work tree elsewhere than its `.git`). */
const crossesDevices = (error: unknown): boolean => errorCode(error) === "EXDEV";

/** A copy of what is at `from` (a file, or a link as a link) made at `to`, which must not exist. */
function copyEntry(from: string | Buffer, to: string | Buffer): void {
	const stat = lstatSync(from);
	if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from, { encoding: "buffer" }), to);
	else {
		copyFileSync(from, to, constants.COPYFILE_EXCL);
		chmodSync(to, stat.mode & 0o7777);
	}
}

/** `from` takes the place of `to` by a rename; across file systems, by a copy and the removal of `from`. */
function move(from: string | Buffer, to: string | Buffer): void {
	try {
		renameSync(from, to);
	} catch (error) {
		if (!crossesDevices(error)) throw error;
		copyEntry(from, to);
		unlinkSync(from);
	}
}

/** A new file's staged bytes, with their mode, at `next`, journaled as bound for `onDisk`. */
function prepareFile(file: StagedFile, next: string, onDisk: Buffer, journal: Writing): void {
	renameSync(file.staged as string, next);
	chmodSync(next, file.landing.action === "write" ? file.landing.mode : 0o644);
	journal.note({ kind: "new", file: onDisk.toString("latin1"), staged: next });
}

/** A link with the worker's target at `next`. */
function prepareLink(file: StagedFile, next: string): void {
	symlinkSync(file.target as Buffer, next);
}

/**
 * What `prepare` made in the stage takes the path's place: its folders made (and unmade on undo), whatever was there
 * (a link) moved aside first.
 */
function putInPlace(
	top: string,
	file: StagedFile,
	journal: Writing,
	prepare: (next: string, onDisk: Buffer) => void,
): Undo[] {
	const onDisk = at(top, file.path);
	const undos: Undo[] = makeFolders(top, file.path);
	if (file.around.ours.kind !== "absent") undos.push(moveAside(onDisk, journal));
	const next = journal.stage.next();
	prepare(next, onDisk);
	move(next, onDisk);
	undos.push(() => unlinkSync(onDisk));
	return undos;
}

/** Makes the folders above a path that are not there; what removes them again (deepest first, on undo). */
function makeFolders(top: string, path: GitPath): Undo[] {
	const parts = path.split("/").slice(0, -1);
	const undos: Undo[] = [];
	for (let depth = 1; depth <= parts.length; depth++) {
		const folder = at(top, parts.slice(0, depth).join("/"));
		if (folderAt(folder) !== "absent") continue;
		mkdirSync(folder);
		undos.push(() => rmdirSync(folder));
	}
	return undos;
}
