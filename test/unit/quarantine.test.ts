/**
 * Objects written aside move into the repository's store only once what holds them is whole, packs as loose objects,
 * each pack's index after its pack; the folder aside goes whatever happens. A real repository in a temporary folder.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inQuarantine, quarantineEnv } from "../../src/edges/git/quarantine.ts";

let dir = "";
let objects = "";
const git = (args: string[], env: NodeJS.ProcessEnv = {}) =>
	execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...env } }).trim();

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-quarantine-")));
	objects = join(dir, ".git", "objects");
	git(["init", "-q", "-b", "main"]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("objects written aside move into the store once what holds them is whole", () => {
	it("a pack git streamed a big file into, and loose objects: all in the store, the folder aside gone", async () => {
		writeFileSync(join(dir, "big.bin"), "x".repeat(100_000));
		writeFileSync(join(dir, "small.txt"), "small\n");
		const tree = await inQuarantine(objects, async (aside) => {
			const env = { ...quarantineEnv(aside, objects), GIT_INDEX_FILE: join(aside, "index") };
			// Past core.bigFileThreshold, git writes a blob straight into a pack of its own.
			git(["-c", "core.bigFileThreshold=1k", "add", "big.bin", "small.txt"], env);
			expect(readdirSync(join(aside, "pack")).some((name) => name.endsWith(".idx"))).toBe(true);
			return git(["write-tree"], env);
		});
		// Read from the store alone: every object of the tree is there.
		expect(git(["ls-tree", "--name-only", tree ?? "none"])).toBe("big.bin\nsmall.txt");
		expect(git(["cat-file", "-s", `${tree}:big.bin`])).toBe("100000");
		expect(readdirSync(objects).filter((name) => name.startsWith("til-done-"))).toEqual([]);
		expect(readdirSync(join(objects, "pack")).filter((name) => /\.(pack|idx)$/.test(name))).toHaveLength(2);
	});
});
