/**
 * Git that sees the user's bytes as they are. A snapshot or a restore through the user's own git directory would go
 * through their conversions (`core.autocrlf`, `.gitattributes` `text`/`eol`, clean and smudge filters), so a revert
 * would not give back what was on disk. Ours run in a private git directory that shares the repository's objects and
 * its settings, whose `info/attributes` (which outranks every `.gitattributes`) turns every conversion off; its own
 * index keeps the stat cache of the bytes as they are, so a snapshot reads again only the files changed since the last.
 */

import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownedPrefix, removedAtExit } from "../host/owner.ts";

/** What a repository's private git directory needs to know of it. */
export interface RepoPaths {
	top: string;
	/** Where the objects, the refs and the settings of every work tree of the repository are. */
	commonDir: string;
}

/** Every attribute that converts a file on its way in or out, unset for every path. */
export const RAW_ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

/** The settings that would convert or watch, overridden on the command line of every raw git call. */
export const RAW_SETTINGS: readonly string[] = [
	"-c",
	"core.autocrlf=false",
	"-c",
	"core.safecrlf=false",
	"-c",
	"core.fsmonitor=false",
];

/** Private git directories, by the repository's common directory; removed when the process exits. */
const privateDirs = new Map<string, string>();

/** Copies `from` to `to`, or leaves `to` empty when there is no `from`. */
function copyOrEmpty(from: string, to: string): void {
	try {
		copyFileSync(from, to);
	} catch {
		writeFileSync(to, "");
	}
}

/**
 * The repository's private git directory, made on first use. Its settings and exclusions are copied from the
 * repository's each time, so a change the user makes to them counts at the next snapshot; `exclude`: lines of git's
 * exclude file added for this use (the files a snapshot leaves out), as bytes: a path is the bytes git gave it.
 */
export function privateGitDir(repo: RepoPaths, exclude: Buffer = Buffer.alloc(0)): string {
	let dir = privateDirs.get(repo.commonDir);
	// Made again when it was removed (before a signal that another listener of the process then took).
	if (dir === undefined || !existsSync(dir)) {
		dir = mkdtempSync(join(tmpdir(), ownedPrefix("git")));
		mkdirSync(join(dir, "refs"), { recursive: true });
		mkdirSync(join(dir, "info"), { recursive: true });
		writeFileSync(join(dir, "HEAD"), "ref: refs/heads/til-done\n");
		writeFileSync(join(dir, "info", "attributes"), RAW_ATTRIBUTES);
		removedAtExit(dir);
		privateDirs.set(repo.commonDir, dir);
	}
	copyOrEmpty(join(repo.commonDir, "config"), join(dir, "config"));
	copyOrEmpty(join(repo.commonDir, "info", "exclude"), join(dir, "info", "exclude"));
	if (exclude.length > 0) appendFileSync(join(dir, "info", "exclude"), Buffer.concat([Buffer.from("\n"), exclude]));
	return dir;
}

/** The environment of a raw git call: the private directory, the user's work tree and objects, `index` as the index. */
export function rawEnv(repo: RepoPaths, gitDir: string, index: string): NodeJS.ProcessEnv {
	return {
		GIT_DIR: gitDir,
		GIT_WORK_TREE: repo.top,
		GIT_OBJECT_DIRECTORY: join(repo.commonDir, "objects"),
		GIT_INDEX_FILE: index,
	};
}
