/**
 * Which process owns a thing it leaves on disk (a worker's tree, a private git folder, objects written aside): its
 * owner tag, the process's pid and its start time, is in the thing's name. A later run tells what a gone pi left from
 * what a live one uses: a pid alone is no proof, since pids are reused (a container's pi is often process 1 again).
 */

import { chmodSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./processes.ts";

/** A process's start time, in clock ticks since the machine booted (Linux: field 22 of `/proc/<pid>/stat`). */
function startTimeOf(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// The command name may hold spaces and parentheses: the fields after it start past its last `)`.
		return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
	} catch {
		return undefined;
	}
}

let own: string | undefined;

/** This process's owner tag: `<pid>.<start time>` (`<pid>.0` where the start time cannot be read). */
export function ownerTag(): string {
	own ??= `${process.pid}.${startTimeOf(process.pid) ?? "0"}`;
	return own;
}

/** What a tag is made of, and only that (names that merely start like ours are never taken for ours). */
const TAG = /^(\d+)\.(\d+)$/;

/**
 * Whether the process a tag names is still the one that made it: the same pid, started at the same time. A tag that is
 * not one is taken for live (nothing of an unknown owner is removed).
 */
export function ownerIsLive(tag: string): boolean {
	const parts = TAG.exec(tag);
	if (!parts) return true;
	const pid = Number(parts[1]);
	if (!isAlive(pid)) return false;
	const start = startTimeOf(pid);
	return start === undefined || parts[2] === "0" || start === parts[2];
}

/** The name a thing of `kind` this process leaves on disk starts with: `til-done-<kind>-<tag>-`. */
export function ownedPrefix(kind: string): string {
	return `til-done-${kind}-${ownerTag()}-`;
}

/** The owner tag of a name made with {@link ownedPrefix} for `kind`; undefined for any other name. */
export function ownerOf(name: string, kind: string): string | undefined {
	const start = `til-done-${kind}-`;
	if (!name.startsWith(start)) return undefined;
	const tag = name.slice(start.length).split("-")[0] ?? "";
	return TAG.test(tag) ? tag : undefined;
}

/** Every folder at and under `path` (links not followed) opened to its owner: read, written and searched. */
function openFolders(path: string): void {
	try {
		if (!lstatSync(path).isDirectory()) return;
		chmodSync(path, 0o700);
		for (const name of readdirSync(path)) openFolders(join(path, name));
	} catch {
		// What cannot be opened stays: the removal leaves it and goes on.
	}
}

/**
 * Removes `path` and everything in it, never throwing: a folder left without its owner's read or write (a worker's
 * `chmod 000`, a tool's read-only cache) is opened first, where `rm -rf` fails for anyone but root.
 */
export function removeWhole(path: string): void {
	try {
		rmSync(path, { recursive: true, force: true });
	} catch {
		openFolders(path);
		try {
			rmSync(path, { recursive: true, force: true });
		} catch {
			// Left as it is: a later run's sweep tries again.
		}
	}
}

/** What this process made on disk and uses now: removed when it exits, however it exits but killed. */
const inUse = new Set<string>();

/** Removes everything this process made and uses now (at its exit, or before a signal ends it). */
export function removeInUse(): void {
	for (const path of inUse) removeWhole(path);
	inUse.clear();
}

/** `path` is removed when the process exits, unless the returned function is called first (it is done with it). */
export function removedAtExit(path: string): () => void {
	if (inUse.size === 0) process.once("exit", removeInUse);
	inUse.add(path);
	return () => {
		inUse.delete(path);
		if (inUse.size === 0) process.off("exit", removeInUse);
	};
}
