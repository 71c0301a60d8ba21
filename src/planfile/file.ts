/**
 * Plan files on disk: read one, write one atomically (a temporary file in the same folder, then a rename), and
 * remember the hash of what this process last wrote or read at each path, so a change made on disk since can be
 * told apart from our own write.
 */

import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Path → hash of the text this process last wrote there or read from there. */
const known = new Map<string, string>();
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

/** Writes `text` to `path` whole or not at all, and remembers it; why it failed, or undefined. */
export function writePlanFile(path: string, text: string): string | undefined {
	const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${++temps}.tmp`);
	try {
		writeFileSync(temp, text);
		renameSync(temp, path);
		remember(path, text);
		return undefined;
	} catch (error) {
		rmSync(temp, { force: true });
		return messageOf(error);
	}
}

/** Counts `text` as what the file at `path` holds as far as this process knows (it read or wrote it). */
export function remember(path: string, text: string): void {
	known.set(path, hashOf(text));
}

/** The hash of what this process last wrote or read at `path`; undefined when it never did. */
export function knownHash(path: string): string | undefined {
	return known.get(path);
}

/** The hash of what is at `path` now: undefined when there is no file, null when it cannot be read. */
export function diskHash(path: string): string | undefined | null {
	const read = readPlanFile(path);
	if ("text" in read) return hashOf(read.text);
	return "missing" in read ? undefined : null;
}
