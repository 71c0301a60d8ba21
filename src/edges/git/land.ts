/**
 * Landing a worker's work in the user's work tree: the worker's change, from the snapshot it started on (`base`) to
 * its result (`work`, both trees in the user's object store), merged file by file with the user's tree as it is now
 * (core/rules/landing.ts decides each file). All or nothing: a file that conflicts is named and nothing is written.
 * Only the work tree's files change: never the index, HEAD, a branch or the stash.
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
import { type FileLanding, type Landing, landFile } from "../../core/rules/landing.ts";
import { type Repo, runGitBytes } from "./git.ts";

/** Git's mode of a symbolic link, and of an executable file. */
const SYMLINK = "120000";
const EXECUTABLE = "100755";

/** One file the worker changed: its blobs and modes on each side (absent where it is not). */
interface Change {
	path: string;
	base?: { sha: string; mode: string };
	theirs?: { sha: string; mode: string };
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

/** The user's copy of a file: its bytes (a link's target), whether it is a regular file; undefined when absent. */
function oursOf(top: string, path: string): { bytes: Buffer; regular: boolean } | "other" | undefined {
	const file = join(top, path);
	try {
		const stat = lstatSync(file);
		if (stat.isSymbolicLink()) return { bytes: Buffer.from(readlinkSync(file)), regular: false };
		return stat.isFile() ? { bytes: readFileSync(file), regular: true } : "other";
	} catch {
		return undefined;
	}
}

const blob = (repo: Repo, sha: string) => runGitBytes(repo.top, ["cat-file", "blob", sha]);

/** The three versions merged by `git merge-file`; undefined when they conflict (or git cannot merge them). */
async function mergeThree(ours: Buffer, base: Buffer, theirs: Buffer): Promise<Buffer | undefined> {
	const dir = mkdtempSync(join(tmpdir(), "til-done-merge-"));
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

/** A file's landing planned: what to do with it, and the bytes to write (with their mode). */
interface Planned {
	path: string;
	action: FileLanding;
	bytes?: Buffer;
	mode?: string;
	/** The user's bytes the plan was made on: a landing checks them again just before it writes. */
	ours?: Buffer;
}

async function planFile(repo: Repo, change: Change): Promise<Planned> {
	const { path, base, theirs } = change;
	const ours = oursOf(repo.top, path);
	if (ours === "other") return { path, action: "conflict" };
	const baseBytes = base ? await blob(repo, base.sha) : undefined;
	const theirBytes = theirs ? await blob(repo, theirs.sha) : undefined;
	if ((base && !baseBytes) || (theirs && !theirBytes)) return { path, action: "conflict" };
	const regular = (ours?.regular ?? true) && base?.mode !== SYMLINK && theirs?.mode !== SYMLINK;
	const action = landFile({
		base: base !== undefined,
		theirs: theirs !== undefined,
		ours: ours !== undefined,
		oursIsBase: ours !== undefined && baseBytes !== undefined && ours.bytes.equals(baseBytes),
		oursIsTheirs: ours !== undefined && theirBytes !== undefined && ours.bytes.equals(theirBytes),
		regular,
	});
	const planned: Planned = { path, action, bytes: theirBytes, mode: theirs?.mode, ours: ours?.bytes };
	if (action !== "merge" || !ours || !baseBytes || !theirBytes) return planned;
	const merged = await mergeThree(ours.bytes, baseBytes, theirBytes);
	return merged ? { ...planned, action: "write", bytes: merged } : { path, action: "conflict" };
}

/** Writes one planned file: atomically through a temporary file beside it, with the worker's mode. */
function apply(top: string, planned: Planned): void {
	const file = join(top, planned.path);
	if (planned.action === "delete") rmSync(file, { force: true });
	if (planned.action !== "write" || !planned.bytes) return;
	mkdirSync(dirname(file), { recursive: true });
	const temporary = `${file}.til-done-${process.pid}`;
	if (planned.mode === SYMLINK) {
		symlinkSync(planned.bytes.toString("utf8"), temporary);
	} else {
		writeFileSync(temporary, planned.bytes);
		chmodSync(temporary, planned.mode === EXECUTABLE ? 0o755 : 0o644);
	}
	renameSync(temporary, file);
}

/** The planned files whose user copy is no longer what the plan was made on (the user changed them meanwhile). */
function changedSincePlanned(top: string, plans: readonly Planned[]): string[] {
	return plans.flatMap((plan) => {
		const now = oursOf(top, plan.path);
		const bytes = now === "other" ? Buffer.alloc(0) : now?.bytes;
		return Buffer.compare(bytes ?? Buffer.alloc(0), plan.ours ?? Buffer.alloc(0)) === 0 ? [] : [plan.path];
	});
}

/**
 * Lands the change from `base` to `work` in the user's work tree; the files it wrote or deleted, or the files that
 * conflict (a file the user changed since it was read counts as one). Undefined when git cannot compare the trees.
 * `stop` holds until the first write: aborted before, nothing is written; the writes, once begun, run to their end
 * with no wait among them, so no stop can come between them.
 */
export async function landWork(
	repo: Repo,
	base: string,
	work: string,
	stop?: AbortSignal,
): Promise<Landing | undefined> {
	const changes = await changesBetween(repo, base, work);
	if (!changes) return undefined;
	const plans: Planned[] = [];
	for (const change of changes) plans.push(await planFile(repo, change));
	const conflicts = plans.filter((plan) => plan.action === "conflict").map((plan) => plan.path);
	if (conflicts.length > 0) return { conflicts };
	const changed = changedSincePlanned(repo.top, plans);
	if (changed.length > 0) return { conflicts: changed };
	if (stop?.aborted) return { stopped: true };
	for (const plan of plans) apply(repo.top, plan);
	return { landed: plans.filter((plan) => plan.action !== "keep").map((plan) => plan.path) };
}
