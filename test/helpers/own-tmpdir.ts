/**
 * A TMPDIR of the test's own for every test of a file (the one `os.tmpdir()` gives, for the code under test too): what
 * earlier runs left in the machine's TMPDIR must not show in what a test asserts.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** Registers the hooks; the folder of the test running, while it runs. */
export function ownTmpdir(): () => string {
	const machine = tmpdir();
	const saved = process.env.TMPDIR;
	let folder = "";
	beforeEach(() => {
		folder = realpathSync(mkdtempSync(join(machine, "til-done-test-tmp-")));
		process.env.TMPDIR = folder;
	});
	afterEach(() => {
		if (saved === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = saved;
		rmSync(folder, { recursive: true, force: true });
	});
	return () => folder;
}
