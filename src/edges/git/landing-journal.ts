/**
 * A landing's journal: before each write into the user's tree, a line in the landing's stage (in `.git`) says what it
 * is about to change and where the bytes it replaces are kept, flushed to disk first. A pi killed mid-landing (SIGKILL,
 * the OOM killer, a power cut) leaves its stage and journal; the next run puts the user's files back from it
 * ({@link undoCutLanding}), and keeps any backup it cannot put back. The user's bytes are never only in the process.
 */

import {
	chmodSync,
	closeSync,
	copyFileSync,
	existsSync,
	fsyncSync,
	ftruncateSync,
	lstatSync,
	openSync,
	readFileSync,
	readSync,
	renameSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";

/** The journal's name in a stage folder: a stage that holds one is a landing that had begun writing. */
export const JOURNAL_NAME = "journal";

/**
 * One step of a landing, journaled before it is taken. Paths on disk are kept as their bytes (`latin1`).
 * `write`: the user's file `file` is written in place with `staged`, its old bytes in `backup` and its old `mode`.
 * `aside`: the user's `file` (deleted, or replaced) is moved to `aside`. `new`: a file that was not there is put at
 * `file` from `staged`. `chmod`: `file`'s mode changed from `from` to `to`.
 */
export type JournalStep =
	| { kind: "write"; file: string; backup: string; staged: string; mode: number }
	| { kind: "aside"; file: string; aside: string }
	| { kind: "new"; file: string; staged: string }
	| { kind: "chmod"; file: string; from: number; to: number };

/** A journal open for a landing: each step appended and flushed to disk before the step is taken. */
export interface Journal {
	note(step: JournalStep): void;
	close(): void;
}

export function openJournal(stageDir: string): Journal {
	const fd = openSync(join(stageDir, JOURNAL_NAME), "a", 0o600);
	return {
		note: (step) => {
			writeSync(fd, `${JSON.stringify(step)}\n`);
			fsyncSync(fd);
		},
		close: () => closeSync(fd),
	};
}

/** A file's bytes and mode flushed to disk, so a backup outlives a power cut as the journal that names it does. */
export function flushFile(path: string): void {
	const fd = openSync(path, "r");
	try {
		fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
}

/** The steps a journal holds; a last line cut by the kill is ignored (its step was never taken). */
function readJournal(stageDir: string): JournalStep[] {
	const text = readFileSync(join(stageDir, JOURNAL_NAME), "utf8");
	return text.split("\n").flatMap((line) => {
		try {
			return [JSON.parse(line) as JournalStep];
		} catch {
			return [];
		}
	});
}

/** Whether a landing's stage holds a journal: it had begun writing into the user's tree. */
export function hasJournal(stageDir: string): boolean {
	return existsSync(join(stageDir, JOURNAL_NAME));
}

const onDisk = (path: string): Buffer => Buffer.from(path, "latin1");

/** Whether the file at `path` holds the first bytes of `of` (all of them, or none): what a cut in-place write leaves. */
function isPrefixOf(path: Buffer, of: string): boolean {
	let file: number | undefined;
	let whole: number | undefined;
	try {
		file = openSync(path, "r");
		whole = openSync(of, "r");
		const a = Buffer.alloc(1 << 20);
		const b = Buffer.alloc(1 << 20);
		for (;;) {
			const read = readSync(file, a, 0, a.length, null);
			if (read === 0) return true;
			if (readSync(whole, b, 0, read, null) !== read || !a.subarray(0, read).equals(b.subarray(0, read))) return false;
		}
	} catch {
		return false;
	} finally {
		if (file !== undefined) closeSync(file);
		if (whole !== undefined) closeSync(whole);
	}
}

/** Copies `from` into the open file `to`, from its start, and cuts it there: the file keeps its inode. Streamed. */
export function copyInto(from: string | Buffer, to: number): void {
	const source = openSync(from, "r");
	try {
		ftruncateSync(to, 0);
		const chunk = Buffer.alloc(1 << 20);
		let position = 0;
		for (let read = readSync(source, chunk, 0, chunk.length, null); read > 0; ) {
			writeSync(to, chunk, 0, read, position);
			position += read;
			read = readSync(source, chunk, 0, chunk.length, null);
		}
	} finally {
		closeSync(source);
	}
}

/** Copies `from` over the file at `to`, in place (its owner, links and names kept). */
function copyOver(from: string, to: Buffer): void {
	const fd = openSync(to, "r+");
	try {
		copyInto(from, fd);
	} finally {
		closeSync(fd);
	}
}

const exists = (path: Buffer | string): boolean => {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
};

/** What undoing one step did: the user's file put back, nothing to do, or a backup kept (the file changed since). */
type StepUndone = "restored" | "untouched" | "kept";

/** Undoes one step of a landing cut short, where the tree is still as the landing left it. */
function undoStep(step: JournalStep): StepUndone {
	const file = onDisk(step.file);
	if (step.kind === "chmod") {
		if (exists(file) && (lstatSync(file).mode & 0o7777) === step.to) chmodSync(file, step.from);
		return "untouched";
	}
	if (step.kind === "new") {
		if (exists(file) && isPrefixOf(file, step.staged)) unlinkSync(file);
		return "untouched";
	}
	if (step.kind === "aside") {
		if (!exists(step.aside)) return "untouched";
		if (exists(file)) return "kept";
		try {
			renameSync(step.aside, file);
		} catch {
			copyFileSync(step.aside, file);
		}
		return "restored";
	}
	if (!exists(file)) return "kept";
	if (lstatSync(file).size === lstatSync(step.backup).size && isPrefixOf(file, step.backup)) return "untouched";
	if (!isPrefixOf(file, step.staged)) return "kept";
	copyOver(step.backup, file);
	chmodSync(file, step.mode);
	return "restored";
}

/** A landing cut short, undone: the user's files put back (their paths), and whether a backup had to be kept. */
export interface Undone {
	restored: string[];
	kept: boolean;
}

/**
 * Undoes what a landing cut short wrote, last step first: each file of the user's that is as the landing left it is put
 * back from its backup; one the user changed since keeps its backup in the stage, which is then never removed.
 */
export function undoCutLanding(stageDir: string): Undone {
	const restored: string[] = [];
	let kept = false;
	for (const step of readJournal(stageDir).reverse()) {
		let undone: StepUndone;
		try {
			undone = undoStep(step);
		} catch {
			undone = "kept";
		}
		if (undone === "kept") kept = true;
		if (undone === "restored") restored.push(Buffer.from(step.file, "latin1").toString("utf8"));
	}
	return { restored, kept };
}
