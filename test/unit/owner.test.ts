/** What this process makes on disk and uses is removed when it ends, and nothing it is done with: real folders. */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removedAtExit, removeInUse } from "../../src/edges/host/owner.ts";

let dir = "";
beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-owner-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("what the process uses is removed at its end; what it is done with is not", () => {
	it("one exit listener while anything is in use, none once all is done with", () => {
		const listeners = process.listenerCount("exit");
		const doneA = removedAtExit(join(dir, "a"));
		const doneB = removedAtExit(join(dir, "b"));
		expect(process.listenerCount("exit")).toBe(listeners + 1);
		doneA();
		expect(process.listenerCount("exit")).toBe(listeners + 1);
		doneB();
		expect(process.listenerCount("exit")).toBe(listeners);
	});

	it("removing what is in use removes it, and leaves what was done with", () => {
		for (const name of ["used", "done"]) mkdirSync(join(dir, name));
		removedAtExit(join(dir, "used"));
		removedAtExit(join(dir, "done"))();
		removeInUse();
		expect([existsSync(join(dir, "used")), existsSync(join(dir, "done"))]).toEqual([false, true]);
	});
});
