/**
 * Objects written aside until they are wanted: a snapshot or a worker's result writes its new objects into a folder
 * of ours inside the repository's object store, which git reads beside the store (its alternates), and they move into
 * the store only once the commit that holds them is whole. A snapshot that fails, is killed or times out leaves
 * nothing in the user's `.git` (the folder is removed; one a killed pi left, edges/workers/leftovers.ts removes).
 */

import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ownedPrefix, removedAtExit } from "../host/owner.ts";

/** The kind of the folders of ours in the object store: `til-done-incoming-<owner tag>-<n>` (edges/host/owner.ts). */
export const QUARANTINE_KIND = "incoming";

let made = 0;

/** The environment git writes new objects aside with, reading the store (and `alsoRead`) beside them. */
export function quarantineEnv(dir: string, objects: string, alsoRead: readonly string[] = []) {
	return { GIT_OBJECT_DIRECTORY: dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: [objects, ...alsoRead].join(":") };
}

/**
 * Runs `write` with a fresh folder for new objects; once it gives a value (the commit or tree written), the objects
 * move into `objects`, the store: undefined when any of them cannot (nothing may then point at them). The folder is
 * removed whatever happens.
 */
export async function inQuarantine<T>(
	objects: string,
	write: (dir: string) => Promise<T | undefined>,
): Promise<T | undefined> {
	const dir = join(objects, `${ownedPrefix(QUARANTINE_KIND)}${++made}`);
	mkdirSync(dir, { recursive: true });
	const done = removedAtExit(dir);
	try {
		const written = await write(dir);
		return written !== undefined && moveInto(dir, objects) ? written : undefined;
	} finally {
		rmSync(dir, { recursive: true, force: true });
		done();
	}
}

/** Names in a folder, none when it cannot be read. */
function entries(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

/** Makes each folder: false when one cannot be (nothing is moved then, and none is made where a file is in the way). */
function makeFolders(folders: readonly string[]): boolean {
	const blocked = (folder: string) => existsSync(folder) && !statSync(folder).isDirectory();
	if (folders.some(blocked)) return false;
	try {
		for (const folder of folders) mkdirSync(folder, { recursive: true });
		return true;
	} catch {
		return false;
	}
}

/** Moves the files `names` of `from` into the folder `to`: false when one is neither moved nor there already. */
function moveFiles(from: string, to: string, names: readonly string[]): boolean {
	return names.every((name) => {
		try {
			renameSync(join(from, name), join(to, name));
			return true;
		} catch {
			// Objects are named by their content: one the store has already is the same.
			return existsSync(join(to, name));
		}
	});
}

/**
 * Every folder first (a store that cannot take one takes nothing), then loose objects, then packs with each index
 * last (a reader never sees an index without its pack); true once all are in.
 */
function moveInto(dir: string, objects: string): boolean {
	const fans = entries(dir).filter((name) => /^[0-9a-f]{2}$/.test(name));
	const packs = entries(join(dir, "pack"));
	const folders = [...fans, ...(packs.length > 0 ? ["pack"] : [])];
	if (!makeFolders(folders.map((folder) => join(objects, folder)))) return false;
	if (!fans.every((fan) => moveFiles(join(dir, fan), join(objects, fan), entries(join(dir, fan))))) return false;
	const last = (name: string) => (name.endsWith(".idx") ? 1 : 0);
	return moveFiles(
		join(dir, "pack"),
		join(objects, "pack"),
		[...packs].sort((a, b) => last(a) - last(b)),
	);
}
