/** Claims against a real repository: one item, one worker, whichever process asks, and nothing of the user's touched. */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimItem, claimsOn, releaseIfHeld, releaseItem } from "../../src/edges/git/claims.ts";
import { findRepo, type Repo } from "../../src/edges/git/git.ts";
import { must } from "../helpers/must.ts";

let dir = "";
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-claims-")));
	git("init", "-q", "-b", "main");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const repo = async (): Promise<Repo> => must(await findRepo(dir), "the repository");
const claim = (key: string, session: string, pid = process.pid, host = hostname()) => ({
	key,
	session,
	host,
	pid,
	at: 1,
});

/** A pid no process of this machine has now: a child that has exited. */
const gonePid = (): number => must(spawnSync(process.execPath, ["-e", ""]).pid, "a pid");

describe("an item is claimed by one worker at a time", () => {
	it("the first claim wins, a second is refused until the first lets go", async () => {
		const r = await repo();
		expect(await claimItem(r, claim("3-abc", "s1"))).toBe(true);
		expect(await claimItem(r, claim("3-abc", "s2"))).toBe(false);
		expect(await claimsOn(r)).toEqual([claim("3-abc", "s1")]);
		expect(await releaseItem(r, "3-abc")).toBe(true);
		expect(await claimItem(r, claim("3-abc", "s2"))).toBe(true);
		expect(await claimsOn(r)).toEqual([claim("3-abc", "s2")]);
	});

	it("of many claims at once on one item, exactly one wins", async () => {
		const r = await repo();
		const won = await Promise.all(Array.from({ length: 8 }, (_, i) => claimItem(r, claim("7-x", `s${i}`))));
		expect(won.filter(Boolean)).toHaveLength(1);
	});

	it("lives among our refs only: the user's branches and HEAD are as they were", async () => {
		const r = await repo();
		await claimItem(r, claim("1-a", "s"));
		expect(git("for-each-ref", "--format=%(refname)").trim()).toBe("refs/til-done-claims/1-a");
		expect(git("symbolic-ref", "HEAD").trim()).toBe("refs/heads/main");
	});
});

describe("a claim whose process is gone is taken over", () => {
	it("a claim left by a process of this machine that has exited is taken; a live one's, or another machine's, is not", async () => {
		const r = await repo();
		const dead = gonePid();
		expect(await claimItem(r, claim("2-b", "crashed", dead))).toBe(true);
		expect(await claimItem(r, claim("2-b", "s2"))).toBe(true);
		expect(await claimsOn(r)).toEqual([claim("2-b", "s2")]);
		expect(await claimItem(r, claim("2-b", "s3"))).toBe(false);
		expect(await claimItem(r, claim("4-d", "far", dead, "another-machine"))).toBe(true);
		expect(await claimItem(r, claim("4-d", "s4"))).toBe(false);
		expect(await claimsOn(r)).toEqual([claim("2-b", "s2"), claim("4-d", "far", dead, "another-machine")]);
	});

	it("a held ref that is no claim of ours is never taken", async () => {
		const r = await repo();
		const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: "not json" })
			.toString()
			.trim();
		git("update-ref", "refs/til-done-claims/5-e", blob);
		expect(await claimItem(r, claim("5-e", "s"))).toBe(false);
	});
});

describe("claims that are not ours, and a repository that refuses", () => {
	it("a ref under the claims that holds no claim is left out; releasing an unclaimed item is no error", async () => {
		const r = await repo();
		const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: "not json" })
			.toString()
			.trim();
		git("update-ref", "refs/til-done-claims/x", blob);
		const other = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: '{"key":1}' })
			.toString()
			.trim();
		git("update-ref", "refs/til-done-claims/y", other);
		const undated = execFileSync("git", ["hash-object", "-w", "--stdin"], {
			cwd: dir,
			input: '{"key":"z","session":"s","pid":1}',
		})
			.toString()
			.trim();
		git("update-ref", "refs/til-done-claims/z", undated);
		expect(await claimsOn(r)).toEqual([{ key: "z", session: "s", host: "", pid: 1, at: 0 }]);
		expect(await releaseItem(r, "never-claimed")).toBe(true);
	});

	it("a claim's ref git holds locked (another git at work on it) is refused, and nothing is claimed", async () => {
		const r = await repo();
		mkdirSync(join(dir, ".git", "refs", "til-done-claims"), { recursive: true });
		writeFileSync(join(dir, ".git", "refs", "til-done-claims", "1-a.lock"), "");
		expect(await claimItem(r, claim("1-a", "s"))).toBe(false);
		expect(await claimsOn(r)).toEqual([]);
	});

	it("a repository git cannot read claims nothing and lists none", async () => {
		const gone = { top: join(dir, "gone"), gitDir: join(dir, "gone", ".git"), commonDir: join(dir, "gone", ".git") };
		expect(await claimItem(gone, claim("1-a", "s"))).toBe(false);
		expect(await claimsOn(gone)).toEqual([]);
	});
});

describe("a claim found left is let go only if it is still the one found", () => {
	it("still held by the one found: let go; gone already: nothing to do", async () => {
		const r = await repo();
		const left = claim("1-a", "s", gonePid());
		await claimItem(r, left);
		expect(await releaseIfHeld(r, "1-a", left)).toBe(true);
		expect(await claimsOn(r)).toEqual([]);
		expect(await releaseIfHeld(r, "1-a", left)).toBe(true);
	});

	it("taken over since by another pi, or replaced by a ref that holds no claim: it stays", async () => {
		const r = await repo();
		const left = claim("1-a", "s", gonePid());
		await claimItem(r, left);
		expect(await claimItem(r, claim("1-a", "s2"))).toBe(true);
		expect(await releaseIfHeld(r, "1-a", left)).toBe(false);
		expect(await claimsOn(r)).toEqual([claim("1-a", "s2")]);
		const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: "not a claim" })
			.toString()
			.trim();
		git("update-ref", "refs/til-done-claims/2-b", blob);
		expect(await releaseIfHeld(r, "2-b", claim("2-b", "s"))).toBe(false);
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done-claims/2-b").trim()).toBe(
			"refs/til-done-claims/2-b",
		);
	});
});
