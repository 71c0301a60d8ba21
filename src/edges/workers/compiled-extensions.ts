/**
 * The session's compiled extensions (jiti's cache, in its TMPDIR), copied once for its confined workers: a worker's pi
 * starts from what the session compiled instead of compiling every extension again. The copy is the workers' own,
 * shared by the session's workers and written by them (what one compiles the next one reads), never the session's: a
 * worker never writes what the person's next pi loads. It is made in the background at the session's first run with
 * workers on in a git work tree, removed when the session's pi exits, and by the next run's sweep when that pi was
 * killed.
 */

import { constants } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownedPrefix, removedAtExit } from "../host/owner.ts";
import { realOrAsIs } from "./confine.ts";

/** The kind of the copy's folder in TMPDIR (edges/host/owner.ts): a killed pi's copy is swept by the next run. */
export const COMPILED_COPY_KIND = "jiti";

/** How many files of the compiled extensions are copied at once. */
const COPIES_AT_ONCE = 32;

/** The names of the files in `dir`, none when it cannot be read. */
async function filesIn(dir: string): Promise<string[]> {
	try {
		const entries = await readdir(dir, { withFileTypes: true });
		return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
	} catch {
		return [];
	}
}

/**
 * Copies the session's jiti cache into a new folder of its own, file by file, as many at once as
 * {@link COPIES_AT_ONCE} (the cache is one flat folder; Node's recursive `cp` takes ten times as long on a thousand
 * entries): the folder (its links resolved, as bubblewrap binds it), or undefined when there is nothing to copy.
 */
async function copyOnce(): Promise<string | undefined> {
	const cache = realOrAsIs(join(tmpdir(), "jiti"));
	const names = await filesIn(cache);
	if (names.length === 0) return undefined;
	try {
		const copy = realOrAsIs(await mkdtemp(join(tmpdir(), ownedPrefix(COMPILED_COPY_KIND))));
		removedAtExit(copy);
		// A file that cannot be copied is compiled again by the worker that needs it.
		const copyOne = (name: string) =>
			copyFile(join(cache, name), join(copy, name), constants.COPYFILE_FICLONE).catch(() => undefined);
		for (let at = 0; at < names.length; at += COPIES_AT_ONCE) {
			await Promise.all(names.slice(at, at + COPIES_AT_ONCE).map(copyOne));
		}
		return copy;
	} catch {
		return undefined;
	}
}

/** The copy, made once per process: the first caller starts it, every later one waits for the same. */
let made: Promise<string | undefined> | undefined;

/** Whether the copy was begun in this process (made, being made, or found to be none). */
export function compiledCopyBegun(): boolean {
	return made !== undefined;
}

/** The session's compiled extensions copied for its workers (made now if not yet); undefined when there are none. */
export function compiledCopy(): Promise<string | undefined> {
	made ??= copyOnce();
	return made;
}

/** The copy's folder, ready for a worker of TMPDIR `tmp`: linked as its `<tmp>/jiti`, where its pi's jiti looks. */
export async function linkCompiledCopy(tmp: string): Promise<string | undefined> {
	const copy = await compiledCopy();
	if (copy === undefined) return undefined;
	try {
		await mkdir(copy, { recursive: true });
		await symlink(copy, join(tmp, "jiti"));
		return copy;
	} catch {
		return undefined;
	}
}
