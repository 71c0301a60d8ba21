/**
 * What landing a worker's change does to one file of the user's, and to a landing as a whole: the pure rule
 * (core/rules/landing.ts) on the facts the edge reads. Its bytes by a 3-way rule; its mode: the user's permission
 * bits kept, the execute bits changed only where the worker changed them, a new file under the user's umask; no write
 * beyond a link or a file of the user's, nor where a folder stands; a submodule refused and named.
 */

import { describe, expect, it } from "vitest";
import {
	type FileLanding,
	type FileSides,
	GIT_MODE,
	landFile,
	landingOf,
	type OnDisk,
} from "../../src/core/rules/landing.ts";

type Same = Partial<{ sameAsBase: boolean; sameAsTheirs: boolean }>;
const file = (mode: number, same: Same = {}): OnDisk => ({
	kind: "file",
	mode,
	sameAsBase: false,
	sameAsTheirs: false,
	...same,
});
const link = (same: Same = {}): OnDisk => ({ kind: "link", sameAsBase: false, sameAsTheirs: false, ...same });
const ABSENT: OnDisk = { kind: "absent" };
const FOLDER: OnDisk = { kind: "other" };
const { executable, link: gitLink, submodule } = GIT_MODE;

/** A file the worker changed (644 on both sides) that the user changed too, unless `overrides` say otherwise. */
const sides = (overrides: Partial<FileSides>): FileSides => ({
	path: "f",
	base: GIT_MODE.file,
	theirs: GIT_MODE.file,
	ours: file(0o644),
	parents: "folders",
	umask: 0o022,
	...overrides,
});

/** Rows of a table: what the case is, the facts, and the landing the rule must give. */
const cases = (rows: [string, Partial<FileSides>, FileLanding][]) =>
	rows.map(([name, given, expected]) => ({ name, given: sides(given), expected }));

describe("a file's bytes: the 3-way rule, the kinds of file kept apart", () => {
	it.each(
		cases([
			[
				"the user's copy is already the worker's: keep",
				{ ours: file(0o644, { sameAsTheirs: true }) },
				{ action: "keep" },
			],
			[
				"deleted by the worker, gone from the user's tree too: keep",
				{ theirs: undefined, ours: ABSENT },
				{ action: "keep" },
			],
			[
				"deleted by the worker, untouched by the user: delete",
				{ theirs: undefined, ours: file(0o644, { sameAsBase: true }) },
				{ action: "delete" },
			],
			["deleted by the worker, changed by the user: conflict", { theirs: undefined }, { action: "conflict" }],
			["changed by the worker, deleted by the user: conflict", { ours: ABSENT }, { action: "conflict" }],
			["added by both, differently: conflict", { base: undefined }, { action: "conflict" }],
			["a link changed by both: conflict", { base: gitLink, theirs: gitLink, ours: link() }, { action: "conflict" }],
			[
				"a link the user left, changed by the worker: link",
				{ base: gitLink, theirs: gitLink, ours: link({ sameAsBase: true }) },
				{ action: "link" },
			],
			[
				"a link already the worker's: keep",
				{ base: gitLink, theirs: gitLink, ours: link({ sameAsTheirs: true }) },
				{ action: "keep" },
			],
			[
				"a file the worker made a link, untouched by the user: link",
				{ theirs: gitLink, ours: file(0o644, { sameAsBase: true }) },
				{ action: "link" },
			],
			["a file the user made a link, changed by the worker: conflict", { ours: link() }, { action: "conflict" }],
			[
				"a link the user made a file of its target's bytes, deleted by the worker: conflict",
				{ base: gitLink, theirs: undefined, ours: file(0o644, { sameAsBase: true }) },
				{ action: "conflict" },
			],
		]),
	)("$name", ({ given, expected }) => {
		expect(landFile(given)).toEqual(expected);
	});
});

describe("a file's mode: the user's permission bits, never widened; the execute bits as the worker changed them", () => {
	it.each(
		cases([
			[
				"changed by the worker, untouched by the user: written 600 as the user's was",
				{ ours: file(0o600, { sameAsBase: true }) },
				{ action: "write", mode: 0o600 },
			],
			["changed by both: merged, the user's 754 kept", { ours: file(0o754) }, { action: "merge", mode: 0o754 }],
			[
				"changed by the worker, made executable by the user meanwhile: 755 kept",
				{ ours: file(0o755) },
				{ action: "merge", mode: 0o755 },
			],
			[
				"changed and made executable by the worker, the user's 600: written 700",
				{ theirs: executable, ours: file(0o600, { sameAsBase: true }) },
				{ action: "write", mode: 0o700 },
			],
			[
				"chmod +x alone on the user's 644: chmod 755",
				{ theirs: executable, ours: file(0o644, { sameAsTheirs: true }) },
				{ action: "chmod", mode: 0o755 },
			],
			[
				"chmod +x alone on the user's 640: chmod 750",
				{ theirs: executable, ours: file(0o640, { sameAsTheirs: true }) },
				{ action: "chmod", mode: 0o750 },
			],
			[
				"chmod -x alone on the user's 750: chmod 640",
				{ base: executable, ours: file(0o750, { sameAsTheirs: true }) },
				{ action: "chmod", mode: 0o640 },
			],
			[
				"chmod -x and changed, the user's 4755: written 4644",
				{ base: executable, ours: file(0o4755, { sameAsBase: true }) },
				{ action: "write", mode: 0o4644 },
			],
			[
				"chmod +x alone on a file the user made executable already: keep",
				{ theirs: executable, ours: file(0o700, { sameAsTheirs: true }) },
				{ action: "keep" },
			],
			[
				"chmod -x alone on a file the user made plain already: keep",
				{ base: executable, ours: file(0o600, { sameAsTheirs: true }) },
				{ action: "keep" },
			],
			[
				"the mode left alone by the worker, the user's file executable: keep",
				{ ours: file(0o700, { sameAsTheirs: true }) },
				{ action: "keep" },
			],
			["added by the worker only, umask 022: 644", { base: undefined, ours: ABSENT }, { action: "write", mode: 0o644 }],
			[
				"added by the worker only, umask 077: 600",
				{ base: undefined, ours: ABSENT, umask: 0o077 },
				{ action: "write", mode: 0o600 },
			],
			[
				"added executable by the worker only, umask 027: 750",
				{ base: undefined, theirs: executable, ours: ABSENT, umask: 0o027 },
				{ action: "write", mode: 0o750 },
			],
			[
				"a link the worker made an executable file, umask 022: 755",
				{ base: gitLink, theirs: executable, ours: link({ sameAsBase: true }) },
				{ action: "write", mode: 0o755 },
			],
		]),
	)("$name", ({ given, expected }) => {
		expect(landFile(given)).toEqual(expected);
	});
});

describe("never through a link of the user's, nor where a file or a folder stands", () => {
	it.each(
		cases([
			["a file under a link of the user's", { parents: "link", base: undefined, ours: ABSENT }, { action: "conflict" }],
			[
				"a file deleted under a link of the user's",
				{ parents: "link", theirs: undefined, ours: ABSENT },
				{ action: "conflict" },
			],
			["a file under a file of the user's", { parents: "file", base: undefined, ours: ABSENT }, { action: "conflict" }],
			["a folder where the file goes", { ours: FOLDER }, { action: "conflict" }],
			["a folder where the file the worker deleted was", { theirs: undefined, ours: FOLDER }, { action: "conflict" }],
		]),
	)("$name: conflict", ({ given, expected }) => {
		expect(landFile(given)).toEqual(expected);
	});
});

describe("a submodule is refused, named", () => {
	it.each(
		cases([
			[
				"a file inside a submodule of the user's",
				{ path: "lib/a.txt", submodule: "lib" },
				{ action: "submodule", submodule: "lib" },
			],
			[
				"a file inside a submodule beyond a link",
				{ path: "lib/a.txt", submodule: "lib", parents: "link" },
				{ action: "submodule", submodule: "lib" },
			],
			[
				"a submodule of the snapshot the worker deleted",
				{ path: "lib", base: submodule, theirs: undefined, ours: FOLDER },
				{ action: "submodule", submodule: "lib" },
			],
			[
				"a repository the worker made of a folder",
				{ path: "own", base: undefined, theirs: submodule, ours: ABSENT },
				{ action: "submodule", submodule: "own" },
			],
		]),
	)("$name", ({ given, expected }) => {
		expect(landFile(given)).toEqual(expected);
	});
});

describe("a landing as a whole", () => {
	const plan = (path: string, landing: FileLanding) => ({ path, landing });
	it("a submodule refuses it, named once, before any conflict", () => {
		const plans = [
			plan("a.txt", { action: "conflict" }),
			plan("lib", { action: "submodule", submodule: "lib" }),
			plan("lib/x.txt", { action: "submodule", submodule: "lib" }),
		];
		expect(landingOf(plans)).toEqual({ submodules: ["lib"] });
	});

	it("a conflict refuses it, naming the files", () => {
		const plans = [
			plan("a.txt", { action: "conflict" }),
			plan("b.txt", { action: "delete" }),
			plan("c", { action: "conflict" }),
		];
		expect(landingOf(plans)).toEqual({ conflicts: ["a.txt", "c"] });
	});

	it("otherwise it lands every file but the ones kept", () => {
		const plans = [
			plan("a.txt", { action: "keep" }),
			plan("b.txt", { action: "chmod", mode: 0o755 }),
			plan("c", { action: "link" }),
			plan("d", { action: "delete" }),
			plan("e", { action: "write", mode: 0o644 }),
		];
		expect(landingOf(plans)).toEqual({ landed: ["b.txt", "c", "d", "e"] });
	});
});
