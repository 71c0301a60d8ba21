/**
 * A worker's item of a shared plan landed, against real git (a `git daemon` the test starts and stops): on the branch
 * first, then in the person's work tree with their changes kept; every way it does not land said as the worker's
 * outcome, nothing pushed; and what another session landed taken into the work tree, its plan file's change aside.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { planName } from "../../src/core/rules/leases.ts";
import type { HeldLease } from "../../src/edges/git/claims.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { type HeldClaim, newNonce, takeClaim } from "../../src/edges/git/leases.ts";
import type { SharedTeam } from "../../src/edges/team/branch-landing.ts";
import { landForTeam, missed, receiveLanded, workTreeOutcome } from "../../src/edges/team/item-landing.ts";
import { type GitServer, startGitServer } from "../helpers/git-server.ts";
import { must } from "../helpers/must.ts";
import { commitOn, daemonRemote, gitAt, personClone, refsOf, type Seed, seedRepo } from "../helpers/team-remote.ts";

const PLAN = "# Plan\n\n- [ ] add a line to notes\n- [ ] write other.txt\n";
const ITEM = { index: 0, text: "add a line to notes", key: itemKey(0, "add a line to notes"), planPath: "PLAN.md" };

let root = "";
let server: GitServer;
let seed: Seed;
let machines = 0;

beforeAll(async () => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-item-landing-")));
	server = await startGitServer();
	seed = seedRepo(join(root, "seed"), { "PLAN.md": PLAN, "notes.txt": "one\ntwo\nthree\n", "other.txt": "a\n" });
});
afterEach(() => server.serveAll());
afterAll(async () => {
	await server.close();
	rmSync(root, { recursive: true, force: true });
});

/** A lease that renews nothing: the claim as taken, and whether the landing said it went with it. */
function heldLease(claim: HeldClaim) {
	const seen = { landed: false, letGo: false };
	const lease: HeldLease = {
		settle: async () => claim,
		landed: () => {
			seen.landed = true;
		},
		letGo: async () => {
			seen.letGo = true;
		},
	};
	return { lease, seen };
}

/** The person's clone of a served remote, the team and the item's claim. */
async function machine() {
	const name = `m${++machines}`;
	const place = daemonRemote(server, `${name}.git`, seed);
	const person = join(root, `${name}-person`);
	const personState = personClone(place.bare, person);
	const repo = must(await findRepo(person), "the person's repository");
	const team: SharedTeam = { repo, remote: place.remote, plan: planName("main", "PLAN.md"), branch: "main" };
	const taken = await takeClaim(team, ITEM.key, { session: "s1", host: "laptop", nonce: newNonce() }, 3_600_000);
	const claim = must(taken.kind === "won" ? taken.claim : undefined, "the item's claim");
	return { place, person, personState, team, claim };
}

const never = new AbortController().signal;

describe("a shared plan's item lands on the branch, then in the work tree", () => {
	it("landed: one commit on the branch with its trailer, the claim gone, the person's tree takes the change (their edits kept)", async () => {
		const m = await machine();
		const result = commitOn(m.person, seed.start, { "other.txt": "a\nb\n" }, "worker's result");
		const { lease, seen } = heldLease(m.claim);
		const landed = await landForTeam(m.team, { base: seed.start, result }, ITEM, { lease, stop: never });
		const tip = gitAt(m.place.bare, ["rev-parse", "main"]).trim();
		expect(landed).toEqual({ kind: "landed", commit: tip, workTree: { kind: "landed", files: ["other.txt"] } });
		expect(seen).toEqual({ landed: true, letGo: false });
		expect(gitAt(m.place.bare, ["log", "-1", "--format=%(trailers:key=Til-done-item,valueonly)", "main"]).trim()).toBe(
			ITEM.key,
		);
		expect(readFileSync(join(m.person, "other.txt"), "utf8")).toBe("a\nb\n");
		expect(readFileSync(join(m.person, "notes.txt"), "utf8")).toBe("the person's edit\n");
		expect(refsOf(m.place.bare).filter((line) => line.startsWith("refs/til-done/"))).toEqual([]);
	});

	it("landed on the branch, but the person's tree cannot take it (their edit of the same file): said as the work tree's outcome", async () => {
		const m = await machine();
		const result = commitOn(m.person, seed.start, { "notes.txt": "one\ntwo\n3\n" }, "worker's result");
		const { lease } = heldLease(m.claim);
		const landed = await landForTeam(m.team, { base: seed.start, result }, ITEM, { lease, stop: never });
		expect(landed).toMatchObject({ kind: "landed", workTree: { kind: "conflict", files: ["notes.txt"] } });
		expect(gitAt(m.place.bare, ["show", "main:notes.txt"])).toBe("one\ntwo\n3\n");
		expect(readFileSync(join(m.person, "notes.txt"), "utf8")).toBe("the person's edit\n");
	});

	it.each([
		["a stop before the push", "stopped", { kind: "stopped" }],
		["the remote not reached", "unreachable", { kind: "not-on-branch", why: "unreachable", branch: "main" }],
		["the plan's line checked already", "already", { kind: "landed-elsewhere" }],
	] as const)("not landed, nothing pushed: %s", async (_what, how, outcome) => {
		const m = await machine();
		const result = commitOn(m.person, seed.start, { "other.txt": "a\nb\n" }, "worker's result");
		if (how === "already") {
			const done = PLAN.replace("- [ ] add", "- [x] add");
			gitAt(seed.dir, ["push", "-q", m.place.bare, `${commitOn(seed.dir, seed.start, { "PLAN.md": done })}:main`]);
		}
		const before = refsOf(m.place.bare);
		if (how === "unreachable") server.refuseAfter(0);
		const stop = new AbortController();
		if (how === "stopped") stop.abort();
		const { lease, seen } = heldLease(m.claim);
		const landed = await landForTeam(m.team, { base: seed.start, result }, ITEM, { lease, stop: stop.signal });
		server.serveAll();
		expect(landed).toEqual({ kind: "not-landed", outcome: expect.objectContaining(outcome) });
		expect(seen.landed).toBe(false);
		expect(refsOf(m.place.bare)).toEqual(before);
	});

	it("what another session landed, found by its trailer, is taken into the work tree, its plan line left to the list", async () => {
		const m = await machine();
		const result = commitOn(m.person, seed.start, { "other.txt": "a\nb\n" }, "another's result");
		const { lease } = heldLease(m.claim);
		await landForTeam(m.team, { base: seed.start, result }, ITEM, { lease, stop: never });
		// Undo the person's copy of the landing, as a machine that did not land it would be.
		gitAt(m.person, ["checkout", "-q", "--", "other.txt"]);
		const tip = gitAt(m.place.bare, ["rev-parse", "main"]).trim();
		expect(await receiveLanded(m.team, ITEM, tip)).toEqual({ kind: "landed", files: ["other.txt"] });
		expect(readFileSync(join(m.person, "other.txt"), "utf8")).toBe("a\nb\n");
		expect(readFileSync(join(m.person, "PLAN.md"), "utf8")).toBe(PLAN);
		expect(await receiveLanded(m.team, { ...ITEM, key: itemKey(1, "write other.txt") }, tip)).toBeUndefined();
	});
});

describe("a landing on the branch that did not land, as the worker's outcome", () => {
	it("each kind: a conflict names the branch, a claim lost or an item landed by another as such, the rest as not on the branch", async () => {
		const team = { remote: "origin", branch: "main" } as SharedTeam;
		const on = { branch: "main", remote: "origin" };
		expect(missed(team, { kind: "conflict", files: ["a"] })).toEqual({ kind: "conflict", files: ["a"], on });
		for (const kind of ["claim-lost", "landed-elsewhere", "stopped"] as const)
			expect(missed(team, { kind })).toEqual({ kind });
		for (const why of ["unreachable", "no-branch", "rewritten", "rejected", "git-failed"] as const)
			expect(missed(team, { kind: why })).toEqual({ kind: "not-on-branch", why, ...on });
		expect(missed(team, { kind: "tip-kept-moving", tries: 5 })).toEqual({
			kind: "not-on-branch",
			why: "tip-kept-moving",
			...on,
		});
	});
});

describe("a landing in the work tree, as a worker's outcome", () => {
	it("each way a landing ends names its kind", () => {
		expect(workTreeOutcome(undefined)).toEqual({ kind: "not-compared" });
		expect(workTreeOutcome({ stopped: true } as never)).toEqual({ kind: "stopped" });
		expect(workTreeOutcome({ submodules: ["ext"] } as never)).toEqual({ kind: "submodules", paths: ["ext"] });
		expect(workTreeOutcome({ unwritable: ["ro.txt"] } as never)).toEqual({ kind: "unwritable", files: ["ro.txt"] });
		expect(workTreeOutcome({ busy: "a rebase" } as never)).toEqual({ kind: "git-busy", why: "a rebase" });
		expect(workTreeOutcome({ conflicts: ["a"] } as never)).toEqual({ kind: "conflict", files: ["a"] });
		expect(workTreeOutcome({ landed: ["b"] } as never)).toEqual({ kind: "landed", files: ["b"] });
	});
});
