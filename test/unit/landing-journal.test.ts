/**
 * A landing cut short by a killed pi is put back from its journal: each file of the person's that is as the landing
 * left it gets its bytes and mode back, one the person changed since keeps its backup, and what the landing added or
 * moved aside is undone. Real files in a temporary folder; the journal written as a landing writes it.
 */

import {
	appendFileSync,
	chmodSync,
	existsSync,
	lstatSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	hasJournal,
	JOURNAL_NAME,
	type JournalStep,
	openJournal,
	undoCutLanding,
} from "../../src/edges/git/landing-journal.ts";

let dir: string;
beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-journal-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const path = (name: string) => join(dir, name);
const modeOf = (name: string) => lstatSync(path(name)).mode & 0o7777;

/** A journal of `steps`, as a landing writes it. */
function journal(steps: JournalStep[]): string {
	const folder = mkdtempSync(join(dir, "landing-"));
	const open = openJournal(folder);
	for (const step of steps) open.note(step);
	open.close();
	return folder;
}

/** The person's file `name` (their bytes and mode) with its backup and the worker's bytes staged, as before a write. */
function writeStep(name: string, mine: string, theirs: string, mode = 0o640): JournalStep {
	writeFileSync(path(name), mine);
	chmodSync(path(name), mode);
	writeFileSync(path(`${name}.backup`), mine);
	writeFileSync(path(`${name}.staged`), theirs);
	return { kind: "write", file: path(name), backup: path(`${name}.backup`), staged: path(`${name}.staged`), mode };
}

describe("a file written in place when the pi was killed is put back", () => {
	it("cut to a part of the worker's bytes, or written whole: the person's bytes and mode back, the file named", () => {
		const cut = writeStep("cut.txt", "mine, with my last line\n", "theirs, longer than mine\n");
		const whole = writeStep("whole.txt", "mine\n", "theirs\n");
		const folder = journal([cut, whole]);
		writeFileSync(path("cut.txt"), "theirs, lon");
		writeFileSync(path("whole.txt"), "theirs\n");
		chmodSync(path("whole.txt"), 0o644);
		expect(hasJournal(folder)).toBe(true);
		expect(undoCutLanding(folder)).toEqual({ restored: [path("whole.txt"), path("cut.txt")], kept: false });
		expect(readFileSync(path("cut.txt"), "utf8")).toBe("mine, with my last line\n");
		expect(readFileSync(path("whole.txt"), "utf8")).toBe("mine\n");
		expect(modeOf("whole.txt")).toBe(0o640);
	});

	it("a file never reached by the write is left as it is; a last journal line cut by the kill is no step", () => {
		const folder = journal([writeStep("same.txt", "mine\n", "theirs\n")]);
		appendFileSync(join(folder, JOURNAL_NAME), '{"kind":"wri');
		expect(undoCutLanding(folder)).toEqual({ restored: [], kept: false });
		expect(readFileSync(path("same.txt"), "utf8")).toBe("mine\n");
	});

	it("a file the person changed since, or removed: never overwritten, its backup kept", () => {
		const changed = writeStep("changed.txt", "mine\n", "theirs\n");
		const removed = writeStep("removed.txt", "mine\n", "theirs\n");
		const folder = journal([changed, removed]);
		writeFileSync(path("changed.txt"), "the person's new words\n");
		rmSync(path("removed.txt"));
		expect(undoCutLanding(folder)).toEqual({ restored: [], kept: true });
		expect(readFileSync(path("changed.txt"), "utf8")).toBe("the person's new words\n");
		expect(readFileSync(path("changed.txt.backup"), "utf8")).toBe("mine\n");
	});
});

describe("what the landing moved aside, added or made executable is undone", () => {
	it("a file moved aside comes back where nothing took its place; one whose place is taken keeps it aside", () => {
		writeFileSync(path("gone.aside"), "deleted by the worker\n");
		writeFileSync(path("taken.aside"), "mine\n");
		writeFileSync(path("taken.txt"), "the person's new file\n");
		const folder = journal([
			{ kind: "aside", file: path("gone.txt"), aside: path("gone.aside") },
			{ kind: "aside", file: path("never.txt"), aside: path("never.aside") },
			{ kind: "aside", file: path("taken.txt"), aside: path("taken.aside") },
		]);
		expect(undoCutLanding(folder)).toEqual({ restored: [path("gone.txt")], kept: true });
		expect(readFileSync(path("gone.txt"), "utf8")).toBe("deleted by the worker\n");
		expect(readFileSync(path("taken.txt"), "utf8")).toBe("the person's new file\n");
	});

	it("a new file cut while copied is removed; a mode changed is changed back", () => {
		writeFileSync(path("new.staged"), "the worker's new file\n");
		writeFileSync(path("new.txt"), "the worker's");
		writeFileSync(path("run.sh"), "echo\n");
		chmodSync(path("run.sh"), 0o755);
		const folder = journal([
			{ kind: "new", file: path("new.txt"), staged: path("new.staged") },
			{ kind: "chmod", file: path("run.sh"), from: 0o644, to: 0o755 },
		]);
		expect(undoCutLanding(folder)).toEqual({ restored: [], kept: false });
		expect(existsSync(path("new.txt"))).toBe(false);
		expect(modeOf("run.sh")).toBe(0o644);
	});
});
