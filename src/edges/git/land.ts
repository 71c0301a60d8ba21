/**
 * Landing a worker's work in the user's work tree: the worker's change, from the snapshot it started on (`base`) to
 * its result (`work`, both trees in the user's object store), merged file by file with the user's tree as it is now
 * (core/rules/landing.ts decides each file). All or nothing: a file that conflicts is named and nothing is written.
 * Only the work tree's files change: never the index, HEAD, a branch or the stash. The edge reads the facts around
 * each file (modes, the user's permission bits, links above it, submodules), and writes what the rule gave.
 */

import {
	chmodSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readlinkSync,
	renameSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
	type FileLanding,
	type FileSides,
	GIT_MODE,
	type Landing,
	landFile,
	landingOf,
	type OnDisk,
} from "../../core/rules/landing.ts";
import { ownedPrefix } from "../host/owner.ts";
import { type Repo, runGitBytes } from "./git.ts";

/** A file's blob and git's mode of it on one side. */
interface Side {
	sha: string;
	mode: string;
}

/** One file the worker changed: its blobs and modes on each side (absent where it is not). */
interface Change {
	path: string;
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
	const fields = listed.toString("utf8").split("\0");
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

/** The user's copy of a file as read: a file's bytes and permission bits, a link's target. */
type Ours =
	| { kind: "absent" }
	| { kind: "other" }
	| { kind: "file"; mode: number; bytes: Buffer }
	| { kind: "link"; bytes: Buffer };

/** What the user's tree holds at a path and above it: the facts a file's landing is decided on. */
interface Around {
	parents: FileSides["parents"];
	submodule?: string;
	ours: Ours;
}

const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException).code;

/** What is at `file`, not following a link: a missing path is absent, one that cannot be read is something else. */
function readOurs(file: string): Ours {
	try {
		const stat = lstatSync(file);
		if (stat.isSymbolicLink()) return { kind: "link", bytes: readlinkSync(file, { encoding: "buffer" }) };
		if (stat.isFile()) return { kind: "file", mode: stat.mode & 0o7777, bytes: readFileSync(file) };
		return { kind: "other" };
	} catch (error) {
		return errorCode(error) === "ENOENT" ? { kind: "absent" } : { kind: "other" };
	}
}

/** What a folder above a file is on disk, not following a link. */
function folderAt(path: string): "absent" | "link" | "folder" | "repository" | "other" {
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
function holdsRepository(folder: string): boolean {
	try {
		lstatSync(join(folder, ".git"));
		return true;
	} catch {
		return false;
	}
}

/**
 * Reads the user's tree at `path`, folder by folder from the top and never through a link: the first folder above it
 * that is a link or not a folder, the submodule it is in (the index's gitlinks, or a folder holding `.git`), its copy.
 */
function readAround(top: string, path: string, gitlinks: ReadonlySet<string>): Around {
	const parts = path.split("/");
	const within = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
	const submodule = within.find((at) => gitlinks.has(at));
	const absent: Ours = { kind: "absent" };
	for (const folder of within.slice(0, -1)) {
		const there = folderAt(join(top, folder));
		if (there === "absent") return { parents: "folders", submodule, ours: absent };
		if (there === "link") return { parents: "link", submodule, ours: absent };
		if (there === "other") return { parents: "file", submodule, ours: absent };
		if (there === "repository") return { parents: "folders", submodule: submodule ?? folder, ours: absent };
	}
	const ours = readOurs(join(top, path));
	const nested = ours.kind === "other" && holdsRepository(join(top, path));
	return { parents: "folders", submodule: submodule ?? (nested ? path : undefined), ours };
}

/** Whether two readings of the same path found the same. */
function sameAround(a: Around, b: Around): boolean {
	const bytes = (ours: Ours) => ("bytes" in ours ? ours.bytes : Buffer.alloc(0));
	const mode = (ours: Ours) => ("mode" in ours ? ours.mode : -1);
	return (
		a.parents === b.parents &&
		a.submodule === b.submodule &&
		a.ours.kind === b.ours.kind &&
		mode(a.ours) === mode(b.ours) &&
		bytes(a.ours).equals(bytes(b.ours))
	);
}

/** The paths of the submodules in the user's index (gitlinks); undefined when git cannot list them. */
async function indexGitlinks(repo: Repo): Promise<Set<string> | undefined> {
	const listed = await runGitBytes(repo.top, ["ls-files", "--stage", "-z"]);
	if (!listed) return undefined;
	const entries = listed.toString("utf8").split("\0");
	const gitlinks = entries.filter((entry) => entry.startsWith(`${GIT_MODE.submodule} `));
	return new Set(gitlinks.map((entry) => entry.slice(entry.indexOf("\t") + 1)));
}

const blob = (repo: Repo, sha: string) => runGitBytes(repo.top, ["cat-file", "blob", sha]);

/** The three versions merged by `git merge-file`; undefined when they conflict (or git cannot merge them). */
async function mergeThree(ours: Buffer, base: Buffer, theirs: Buffer): Promise<Buffer | undefined> {
	const dir = mkdtempSync(join(tmpdir(), ownedPrefix("merge")));
	try {
		const files = (
			[
				["ours", ours],
				["base", base],
				["theirs", theirs],
			] as const
		).map(([name, bytes]) => {
			writeFileSync(join(dir, name), bytes);
			return join(dir, name);
		});
		return await runGitBytes(dir, ["merge-file", "-p", ...files]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** A file's landing planned: what to do with it, the bytes to write, and what the user's tree held when planned. */
interface Planned {
	path: string;
	landing: FileLanding;
	bytes?: Buffer;
	/** What the plan was made on: a landing reads it again just before it writes. */
	around: Around;
}

/** The user's copy as the rule sees it: its kind, its permission bits, and which side's bytes it holds. */
function onDisk(ours: Ours, base: Buffer | undefined, theirs: Buffer | undefined): OnDisk {
	if (ours.kind === "absent" || ours.kind === "other") return { kind: ours.kind };
	const same = { sameAsBase: base?.equals(ours.bytes) ?? false, sameAsTheirs: theirs?.equals(ours.bytes) ?? false };
	return ours.kind === "file" ? { kind: "file", mode: ours.mode, ...same } : { kind: "link", ...same };
}

/** The bytes of a side's blob (none for a submodule's commit); "unreadable" when git cannot give them. */
async function sideBytes(repo: Repo, side: Side | undefined): Promise<Buffer | undefined | "unreadable"> {
	if (!side || side.mode === GIT_MODE.submodule) return undefined;
	return (await blob(repo, side.sha)) ?? "unreadable";
}

async function planFile(repo: Repo, change: Change, around: Around, umask: number): Promise<Planned> {
	const { path, base, theirs } = change;
	const baseBytes = await sideBytes(repo, base);
	const theirBytes = await sideBytes(repo, theirs);
	if (baseBytes === "unreadable" || theirBytes === "unreadable")
		return { path, landing: { action: "conflict" }, around };
	const landing = landFile({
		path,
		base: base?.mode,
		theirs: theirs?.mode,
		ours: onDisk(around.ours, baseBytes, theirBytes),
		parents: around.parents,
		submodule: around.submodule,
		umask,
	});
	const planned: Planned = { path, landing, bytes: theirBytes, around };
	if (landing.action !== "merge" || around.ours.kind !== "file" || !baseBytes || !theirBytes) return planned;
	const merged = await mergeThree(around.ours.bytes, baseBytes, theirBytes);
	if (!merged) return { path, landing: { action: "conflict" }, around };
	return { ...planned, landing: { action: "write", mode: landing.mode }, bytes: merged };
}

/** Carries out one planned file: a file or a link written atomically through a temporary one beside it. */
function apply(top: string, { path, landing, bytes }: Planned): void {
	const file = join(top, path);
	if (landing.action === "delete") rmSync(file, { force: true });
	else if (landing.action === "chmod") chmodSync(file, landing.mode);
	else if (landing.action === "write" && bytes)
		replace(file, (temporary) => writeWithMode(temporary, bytes, landing.mode));
	else if (landing.action === "link" && bytes) replace(file, (temporary) => symlinkSync(bytes, temporary));
}

/** Makes `file` anew: `make` writes a temporary file beside it, which then takes its place. */
function replace(file: string, make: (temporary: string) => void): void {
	mkdirSync(dirname(file), { recursive: true });
	const temporary = `${file}.til-done-${process.pid}`;
	rmSync(temporary, { force: true });
	make(temporary);
	renameSync(temporary, file);
}

/** Readable by the user alone until it has its mode: never, for a moment, wider than the file it replaces. */
function writeWithMode(file: string, bytes: Buffer, mode: number): void {
	writeFileSync(file, bytes, { mode: 0o600, flag: "wx" });
	chmodSync(file, mode);
}

/** The planned files whose surroundings are no longer what the plan was made on (the user changed them meanwhile). */
function changedSincePlanned(top: string, plans: readonly Planned[], gitlinks: ReadonlySet<string>): string[] {
	return plans.flatMap((plan) => (sameAround(readAround(top, plan.path, gitlinks), plan.around) ? [] : [plan.path]));
}

/**
 * Lands the change from `base` to `work` in the user's work tree; the files it wrote or deleted, the files that
 * conflict (a file the user changed since it was read counts as one), or the submodules it would change (nothing is
 * written then either). Undefined when git cannot compare the trees. `stop` holds until the first write: aborted
 * before, nothing is written; the writes, once begun, run to their end with no wait among them, so no stop can come
 * between them.
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
	const umask = process.umask();
	const plans: Planned[] = [];
	for (const change of changes) {
		plans.push(await planFile(repo, change, readAround(repo.top, change.path, gitlinks), umask));
	}
	const landing = landingOf(plans);
	if (!("landed" in landing)) return landing;
	const changed = changedSincePlanned(repo.top, plans, gitlinks);
	if (changed.length > 0) return { conflicts: changed };
	if (stop?.aborted) return { stopped: true };
	for (const plan of plans) apply(repo.top, plan);
	return landing;
}
