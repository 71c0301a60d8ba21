/**
 * Plan files on disk: read one, write one atomically (a temporary file in the same folder, then a rename), and
 * remember in the store the hash of what this session last wrote or read at each path, so a change made on disk
 * since (by anyone else, another session too) can be told apart from its own write.
 */

import { createHash } from "node:crypto";
import { chmodSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { rememberPlanFile } from "../../state.ts";
import { underLock } from "../host/file-lock.ts";

/**
 * Runs `section` (a read of the plan file, a decision, a write) while no other session of this machine runs one on
 * the same file (`<file>.lock`): without it, two sessions that each read the file and then write it lose one's
 * checked item.
 */
export function underPlanLock<T>(path: string, section: () => T): T {
	return underLock(`${path}.lock`, section);
}

/** Temporary files written by this process, for a name no other write uses. */
let temps = 0;

export const hashOf = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A file read: its text, missing, or why it cannot be read. */
export type FileRead = { text: string } | { missing: true } | { error: string };

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const isMissing = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === "ENOENT";

export function readPlanFile(path: string): FileRead {
	try {
		return { text: readFileSync(path, "utf8") };
	} catch (error) {
		return isMissing(error) ? { missing: true } : { error: messageOf(error) };
	}
}

/** The file a write replaces: a symlink's target (so the link stays a link), or the path itself when it is new. */
function fileBehind(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** The permission bits of the file at `path`, to keep through a write; undefined when it does not exist. */
function permissionsOf(path: string): number | undefined {
	try {
		return statSync(path).mode & 0o7777;
	} catch {
		return undefined;
	}
}

/** The text a read found, or undefined when the file is missing or cannot be read. */
export const textOf = (read: FileRead): string | undefined => ("text" in read ? read.text : undefined);

/** The text of the file at `path`, or undefined when it is missing or cannot be read. */
export function readPlanText(path: string): string | undefined {
	return textOf(readPlanFile(path));
}

/**
 * Writes `text` to `path` whole or not at all, keeping the file's permissions and a symlink in place, and remembers
 * it; why it failed, or undefined.
 */
export function writePlanFile(path: string, text: string): string | undefined {
	const file = fileBehind(path);
	const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${++temps}.tmp`);
	try {
		writeFileSync(temp, text);
		const permissions = permissionsOf(file);
		if (permissions !== undefined) chmodSync(temp, permissions);
		renameSync(temp, file);
		remember(path, text);
		return undefined;
	} catch (error) {
		rmSync(temp, { force: true });
		return messageOf(error);
	}
}

/** Counts `text` as what the file at `path` holds as far as this session knows (it read or wrote it). */
export function remember(path: string, text: string): void {
	rememberPlanFile(path, hashOf(text), text);
}

/** The hash of what a read of the file found: undefined when there was no file, null when it could not be read. */
export function hashOfRead(read: FileRead): string | undefined | null {
	if ("text" in read) return hashOf(read.text);
	return "missing" in read ? undefined : null;
}
