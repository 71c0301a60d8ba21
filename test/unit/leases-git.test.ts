/**
 * Claims as leases against real git: a `git daemon` on the loopback address that the test starts and stops, a
 * `file://` remote, and the repository itself. Of any number of racers exactly one wins; a claim is taken over only
 * after its lease; a holder whose claim was taken over can neither renew nor release it; nothing else of the remote
 * changes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimMessage, claimRef } from "../../src/core/rules/leases.ts";
import { findRepo, type Repo } from "../../src/edges/git/git.ts";
import {
	type ClaimPlace,
	claimsByKey,
	claimsMoved,
	type HeldClaim,
	listClaims,
	newNonce,
	releaseClaim,
	renewClaim,
	type TakeResult,
	takeClaim,
} from "../../src/edges/git/leases.ts";
import { type GitServer, startGitServer } from "../helpers/git-server.ts";
import { must } from "../helpers/must.ts";

let root = "";
let server: GitServer;
let repo: Repo;
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

beforeAll(async () => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-leases-")));
	git(root, "init", "-q", "-b", "main", "work");
	git(join(root, "work"), "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "start");
	repo = must(await findRepo(join(root, "work")), "the repository");
	server = await startGitServer();
	server.bare("team.git", { repo: repo.top, branch: "main" });
	git(root, "init", "-q", "--bare", "shared.git");
	git(repo.top, "push", "-q", join(root, "shared.git"), "main");
	git(repo.top, "tag", "v1");
	git(repo.top, "push", "-q", join(root, "shared.git"), "v1");
});
afterAll(async () => {
	await server.close();
	rmSync(root, { recursive: true, force: true });
});

/** The three places claims can live: a remote served by git daemon, a file:// remote, the repository itself. */
const PLACES: [string, (plan: string) => ClaimPlace, () => string][] = [
	["git daemon", (plan) => ({ repo, remote: server.url("team.git"), plan }), () => join(server.base, "team.git")],
	["file://", (plan) => ({ repo, remote: `file://${root}/shared.git`, plan }), () => join(root, "shared.git")],
	["the repository itself", (plan) => ({ repo, plan }), () => repo.commonDir],
];

const racer = (i: number) => ({ session: `s${i}`, host: `machine-${i}`, nonce: newNonce() });
const LONG_LEASE = 3_600_000;

/** The refs of a repository other than our claims, with their commits. */
const otherRefs = (dir: string) =>
	git(dir, "for-each-ref", "--format=%(objectname) %(refname)")
		.split("\n")
		.filter((line) => line !== "" && !line.includes(" refs/til-done/claims/"));

/** Tries to claim until the lease lets it (each attempt a real read of the place): what the winning attempt got. */
async function takeOnceLeaseRunsOut(place: ClaimPlace, key: string, me: ReturnType<typeof racer>, leaseMs: number) {
	for (let attempt = 0; attempt < 400; attempt++) {
		const taken: TakeResult = await takeClaim(place, key, me, leaseMs);
		if (taken.kind !== "held") return taken;
		await new Promise((resolve) => setTimeout(resolve, Math.min(taken.leftMs, 50)));
	}
	throw new Error("the lease never ran out");
}

describe.each(PLACES)("claims on %s", (_name, placeOf, servedDir) => {
	it("the first claim wins with fence 1 (asked again by its holder, it is its own); a second session's is held by it; every other ref stays as it was", async () => {
		const place = placeOf("first");
		const before = otherRefs(servedDir());
		const first1 = racer(1);
		const first = await takeClaim(place, "1-a", first1, LONG_LEASE);
		expect(first).toMatchObject({ kind: "won", claim: { key: "1-a", record: { session: "s1", fence: 1 } } });
		const again = await takeClaim(place, "1-a", first1, LONG_LEASE);
		expect(again).toEqual(first);
		const second = await takeClaim(place, "1-a", racer(2), LONG_LEASE);
		expect(second).toMatchObject({ kind: "held", by: { session: "s1", host: "machine-1" } });
		const listed = await listClaims(place);
		expect(listed).toEqual([
			{
				key: "1-a",
				sha: first.kind === "won" ? first.claim.sha : "",
				record: expect.objectContaining({ session: "s1" }),
			},
		]);
		expect(
			git(servedDir(), "cat-file", "-p", must(listed === "unreachable" ? undefined : listed[0]?.sha, "a claim")),
		).toContain('"session":"s1","host":"machine-1"');
		expect(otherRefs(servedDir())).toEqual(before);
	});

	it("race: eight sessions claim one item at once, 50 rounds: exactly one wins every round", {
		timeout: 240_000,
	}, async () => {
		const place = placeOf("race");
		const winners: number[] = [];
		for (let round = 0; round < 50; round++) {
			const racers = Array.from({ length: 8 }, (_, i) => racer(i));
			const results = await Promise.all(racers.map((me) => takeClaim(place, `race-${round}`, me, LONG_LEASE)));
			winners.push(results.filter((result) => result.kind === "won").length);
		}
		expect(winners).toEqual(Array(50).fill(1));
	});

	it("a claim seen unchanged has not moved; one gone, or one this process never saw (a race lost, the remote silent), has", async () => {
		const place = placeOf("moved");
		const taken = await takeClaim(place, "3-c", racer(1), LONG_LEASE);
		const claim = must(taken.kind === "won" ? taken.claim : undefined, "the claim");
		expect(await claimsMoved(place, ["3-c"])).toBe(false);
		expect(await claimsMoved(place, ["3-c", "4-never-seen"])).toBe(true);
		git(servedDir(), "update-ref", "-d", claim.ref);
		expect(await claimsMoved(place, ["3-c"])).toBe(true);
	});

	it("a claim not renewed is taken over after its lease with the next fence; its stale holder can neither renew nor release it", async () => {
		const place = placeOf("takeover");
		const lease = 300;
		const stale = racer(1);
		const held = await takeClaim(place, "2-b", stale, lease);
		const claim = must(held.kind === "won" ? held.claim : undefined, "the first claim");
		const taken = await takeOnceLeaseRunsOut(place, "2-b", racer(2), lease);
		expect(taken).toMatchObject({ kind: "won", claim: { record: { session: "s2", fence: 2, renewals: 0 } } });
		expect(await renewClaim(place, claim)).toEqual({ kind: "lost" });
		expect(await releaseClaim(place, claim)).toBe("refused");
		expect(await listClaims(place)).toMatchObject([{ key: "2-b", record: { session: "s2", fence: 2 } }]);
	});

	it("a holder that renews keeps its claim: each renewal is a new commit there, and the lease starts again", async () => {
		const place = placeOf("renew");
		const lease = 5_000;
		const held = await takeClaim(place, "3-c", racer(1), lease);
		let claim = must(held.kind === "won" ? held.claim : undefined, "the claim");
		const other = racer(2);
		for (let renewal = 1; renewal <= 3; renewal++) {
			expect(await takeClaim(place, "3-c", other, lease)).toMatchObject({ kind: "held" });
			const renewed = await renewClaim(place, claim);
			claim = must(renewed.kind === "renewed" ? renewed.claim : undefined, "the renewed claim");
			expect(claim.record).toMatchObject({ renewals: renewal, fence: 1, session: "s1" });
		}
		expect(await takeClaim(place, "3-c", other, lease)).toMatchObject({ kind: "held", by: { renewals: 3 } });
		expect(await releaseClaim(place, claim)).toBe("done");
		expect(await listClaims(place)).toEqual([]);
	});

	it("a ref that holds no claim is refused as malformed and never taken, whatever the lease", async () => {
		const place = placeOf("malformed");
		const junk = git(repo.top, "commit-tree", git(repo.top, "mktree").trim(), "-m", "not a claim").trim();
		const forged = git(
			repo.top,
			"commit-tree",
			git(repo.top, "mktree").trim(),
			"-m",
			claimMessage({
				plan: "malformed",
				key: "5-other",
				session: "s",
				host: "h",
				nonce: "n",
				fence: 1,
				renewals: 0,
				since: 0,
			}),
		).trim();
		const target = place.remote ?? repo.commonDir;
		git(
			repo.top,
			"push",
			"-q",
			target,
			`${junk}:${claimRef("malformed", "4-d")}`,
			`${forged}:${claimRef("malformed", "4-e")}`,
		);
		expect(await takeClaim(place, "4-d", racer(1), 0)).toEqual({ kind: "malformed" });
		expect(await takeClaim(place, "4-e", racer(1), 0)).toEqual({ kind: "malformed" });
		const listed = await listClaims(place);
		expect(listed).toEqual([
			{ key: "4-d", sha: junk, record: undefined },
			{ key: "4-e", sha: forged, record: undefined },
		]);
	});
});

describe.each(PLACES.slice(0, 2))("claims another machine took, on %s", (_name, placeOf) => {
	it("read all at once with their records, the commits this clone lacks fetched; a claim read a moment ago is taken from that read", async () => {
		const other = join(root, `other-${_name.replace(/\W/g, "")}`);
		git(root, "clone", "-q", join(root, "work"), other);
		const there = { ...placeOf("read-once"), repo: must(await findRepo(other), "the other clone") };
		const here = placeOf("read-once");
		for (const key of ["1-a", "2-b"]) expect((await takeClaim(there, key, racer(7), LONG_LEASE)).kind).toBe("won");
		const listed = await listClaims(here);
		if (listed === "unreachable") throw new Error("the remote was not reached");
		expect(listed.map(({ key, record }) => [key, record?.session]).toSorted()).toEqual([
			["1-a", "s7"],
			["2-b", "s7"],
		]);
		const read = claimsByKey(listed);
		// Held as read: no push tried, the claim there unchanged.
		const held = await takeClaim(here, "1-a", racer(8), LONG_LEASE, { seen: read.get("1-a") });
		expect(held).toMatchObject({ kind: "held", by: { session: "s7" } });
		// Read as free, taken by another since: the swap's lease refuses it.
		const stale = await takeClaim(here, "3-c", racer(8), LONG_LEASE, { seen: read.get("3-c") });
		expect(stale.kind).toBe("won");
		const late = await takeClaim(there, "3-c", racer(7), LONG_LEASE, { seen: undefined });
		expect(late).toEqual({ kind: "lost" });
		expect(await listClaims(there)).toContainEqual(
			expect.objectContaining({ key: "3-c", record: expect.objectContaining({ session: "s8" }) }),
		);
		rmSync(other, { recursive: true, force: true });
	});
});

describe("a remote that cannot be reached", () => {
	it("nothing is claimed while the server is down; once it is back, claiming works", async () => {
		const place: ClaimPlace = { repo, remote: server.url("team.git"), plan: "down" };
		await server.stop();
		try {
			expect(await takeClaim(place, "1-a", racer(1), LONG_LEASE)).toEqual({ kind: "unreachable" });
			expect(await listClaims(place)).toBe("unreachable");
		} finally {
			await server.start();
		}
		expect(await listClaims(place)).toEqual([]);
		expect(await takeClaim(place, "1-a", racer(1), LONG_LEASE)).toMatchObject({ kind: "won" });
	});
});

/** A fresh repository of its own whose objects are all packed, every loose object's folder a file: git can read it but write no object. */
async function repoThatCannotWrite(name: string, before?: (repo: Repo) => Promise<void>): Promise<Repo> {
	const dir = join(root, name);
	git(root, "init", "-q", "-b", "main", name);
	git(dir, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "start");
	const found = must(await findRepo(dir), "the repository");
	await before?.(found);
	git(dir, "gc", "-q");
	const objects = join(dir, ".git/objects");
	for (let prefix = 0; prefix < 256; prefix++) {
		const folder = join(objects, prefix.toString(16).padStart(2, "0"));
		rmSync(folder, { recursive: true, force: true });
		writeFileSync(folder, "");
	}
	return found;
}

describe("a claim when git or the remote fails midway", () => {
	it("the remote stops answering between the read and the swap: nothing is claimed; renewing or releasing while it is down: unreachable, the claim stays", async () => {
		const place: ClaimPlace = { repo, remote: server.url("team.git"), plan: "midway" };
		// The claim is read; its push is not served.
		server.refuseAfter(1);
		try {
			expect(await takeClaim(place, "1-a", racer(1), LONG_LEASE)).toEqual({ kind: "unreachable" });
		} finally {
			server.serveAll();
		}
		expect(await listClaims(place)).toEqual([]);
		const taken = await takeClaim(place, "1-a", racer(1), LONG_LEASE);
		const claim = must(taken.kind === "won" ? taken.claim : undefined, "the claim");
		server.refuseAfter(0);
		try {
			expect(await renewClaim(place, claim)).toEqual({ kind: "unreachable" });
			expect(await releaseClaim(place, claim)).toBe("unreachable");
		} finally {
			server.serveAll();
		}
		expect(await listClaims(place)).toEqual([{ key: "1-a", sha: claim.sha, record: claim.record }]);
	});

	it("the remote stops answering between the read of the claims and the fetch of their commits: unreachable, no claim read as one that holds none", async () => {
		const place: ClaimPlace = { repo, remote: server.url("team.git"), plan: "fetch-midway" };
		const bare = join(server.base, "team.git");
		const record = {
			plan: "fetch-midway",
			key: "1-a",
			session: "s9",
			host: "m9",
			nonce: "n9",
			fence: 1,
			renewals: 0,
			since: 1,
		};
		const tree = git(bare, "mktree").trim();
		const made = execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree, "-F", "-"], {
			cwd: bare,
			input: claimMessage(record),
			encoding: "utf8",
		}).trim();
		git(bare, "update-ref", claimRef("fetch-midway", "1-a"), made);
		// The refs are read; the fetch of the commit this clone lacks is not served.
		server.refuseAfter(1);
		try {
			expect(await listClaims(place)).toBe("unreachable");
		} finally {
			server.serveAll();
		}
		// One item's claim read alone, as when the claims were not read at once: the same.
		server.refuseAfter(1);
		try {
			expect(await takeClaim(place, "1-a", racer(1), 0)).toEqual({ kind: "unreachable" });
		} finally {
			server.serveAll();
		}
		expect(await listClaims(place)).toEqual([{ key: "1-a", sha: made, record }]);
	});

	it("a repository git can write no object in claims nothing, and a claim held there is not renewed", async () => {
		const blocked = await repoThatCannotWrite("no-objects");
		expect(await takeClaim({ repo: blocked, plan: "blocked" }, "1-a", racer(1), LONG_LEASE)).toEqual({ kind: "lost" });
		expect(git(blocked.top, "for-each-ref", "refs/til-done/")).toBe("");
		let claim: HeldClaim | undefined;
		const holder = await repoThatCannotWrite("no-objects-later", async (found) => {
			const taken = await takeClaim({ repo: found, plan: "blocked" }, "1-a", racer(1), LONG_LEASE);
			claim = taken.kind === "won" ? taken.claim : undefined;
		});
		const held = must(claim, "the claim made before git could write no more");
		expect(await renewClaim({ repo: holder, plan: "blocked" }, held)).toEqual({ kind: "lost" });
		expect(git(holder.top, "rev-parse", held.ref).trim()).toBe(held.sha);
	});
});
