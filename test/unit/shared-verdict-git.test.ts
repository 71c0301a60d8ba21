/**
 * A shared plan verified once per tip, against real git: a repository and its bare remote. The first session claims
 * the verification, runs it in a tree of exactly the tip and pushes the verdict with its claim gone in one push; a
 * session that finds a verdict for the tip runs nothing; one that finds the verification claimed waits, then takes
 * the verdict; a tip that moved is verified again; a stop pushes nothing and lets the claim go.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claimRef } from "../../src/core/rules/leases.ts";
import {
	coversChecks,
	readVerdictMessage,
	type SharedVerdict,
	VERIFICATION_KEY,
	verdictRef,
} from "../../src/core/rules/shared-verdict.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { newNonce } from "../../src/edges/git/leases.ts";
import type { SharedTeam } from "../../src/edges/team/branch-landing.ts";
import {
	type Found,
	readVerdict,
	type SharedVerification,
	verificationMoved,
	verifyShared,
} from "../../src/edges/team/shared-verdict.ts";
import { must } from "../helpers/must.ts";
import { gitAs, planWith, repoWithRemote } from "../helpers/plan-remote.ts";

const PLAN = "main--PLAN_md";
const LONG_LEASE = 3_600_000;
const made: string[] = [];
afterEach(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function sharedPlan() {
	const { dir, bare } = repoWithRemote("til-done-verdict-", { "PLAN.md": planWith(["a"], [0]), "a.txt": "a\n" });
	made.push(dir, bare);
	const team: SharedTeam = {
		repo: must(await findRepo(dir), "the repository"),
		remote: bare,
		plan: PLAN,
		branch: "main",
	};
	return { dir, bare, team };
}

const passed: Found = {
	checks: [{ name: "the done-check", command: "test -f a.txt", passed: true, ended: "exit code 0" }],
};

/** A session's verification of `team`: what its checks found (`found`), each tree it ran in recorded in `ran`. */
function session(team: SharedTeam, name: string, found: (cwd: string, signal: AbortSignal) => Promise<Found | null>) {
	const ran: string[] = [];
	const malformed: string[] = [];
	const controller = new AbortController();
	const run: SharedVerification = {
		team,
		claims: { place: team, me: { session: `s-${name}`, host: name, nonce: newNonce() }, leaseMs: LONG_LEASE },
		verifyIn: (cwd, signal) => {
			ran.push(readFileSync(join(cwd, "a.txt"), "utf8"));
			return found(cwd, signal);
		},
		// This session's verification runs the one done-check `passed` records.
		covers: (verdict) => coversChecks(verdict, [{ what: "the done-check", command: "test -f a.txt" }], false),
		onMalformed: () => malformed.push(name),
		cwd: team.repo.top,
		signal: controller.signal,
	};
	return { run, ran, malformed, controller };
}

const refsOf = (bare: string) => gitAs(bare, "for-each-ref", "--format=%(refname)").split("\n");

function verdictOn(bare: string): SharedVerdict | undefined {
	const sha = gitAs(bare, "rev-parse", verdictRef(PLAN));
	return readVerdictMessage(gitAs(bare, "cat-file", "commit", sha).split("\n\n").slice(1).join("\n\n"), PLAN);
}

describe("a shared plan's verification, one per tip", () => {
	it("none recorded: claimed, run in a tree of exactly the tip, its verdict pushed and the claim gone in one push", async () => {
		const { bare, team } = await sharedPlan();
		const tip = gitAs(bare, "rev-parse", "main");
		const laptop = session(team, "laptop", async () => passed);
		let tree = "";
		laptop.run.verifyIn = async (cwd) => {
			tree = cwd;
			laptop.ran.push(readFileSync(join(cwd, "a.txt"), "utf8"));
			expect(gitAs(bare, "for-each-ref", "--format=%(refname)", claimRef(PLAN, VERIFICATION_KEY))).toBe(
				claimRef(PLAN, VERIFICATION_KEY),
			);
			return passed;
		};
		const outcome = await verifyShared(laptop.run);
		const verdict = { plan: PLAN, tip, ...passed, session: "s-laptop", host: "laptop" };
		expect(outcome).toEqual({ kind: "verdict", verdict, mine: true });
		expect(laptop.ran).toEqual(["a\n"]);
		expect(existsSync(tree)).toBe(false);
		expect(verdictOn(bare)).toEqual(verdict);
		expect(refsOf(bare)).toEqual(["refs/heads/main", verdictRef(PLAN)]);
	});

	it("a verdict recorded for the tip: taken as is, nothing run; the tip moved since: verified again", async () => {
		const { dir, team } = await sharedPlan();
		await verifyShared(session(team, "laptop", async () => passed).run);
		const desktop = session(team, "desktop", async () => passed);
		const taken = await verifyShared(desktop.run);
		expect(taken).toMatchObject({ kind: "verdict", mine: false, verdict: { host: "laptop" } });
		expect(desktop.ran).toEqual([]);
		gitAs(dir, "commit", "-q", "--allow-empty", "-m", "a later landing");
		gitAs(dir, "push", "-q", "origin", "main");
		const again = await verifyShared(desktop.run);
		expect(again).toMatchObject({
			kind: "verdict",
			mine: true,
			verdict: { host: "desktop", tip: gitAs(dir, "rev-parse", "HEAD") },
		});
		expect(desktop.ran).toEqual(["a\n"]);
	});

	it("a verdict recorded for the tip that did not run this session's check: verified here, its verdict pushed over", async () => {
		const { team } = await sharedPlan();
		const lax: Found = { checks: [{ name: "the done-check", command: "true", passed: true, ended: "exit code 0" }] };
		await verifyShared(session(team, "laptop", async () => lax).run);
		const desktop = session(team, "desktop", async () => passed);
		expect(await verifyShared(desktop.run)).toMatchObject({ kind: "verdict", mine: true, verdict: passed });
		expect(desktop.ran).toEqual(["a\n"]);
		expect(verdictOn(team.remote)?.checks).toEqual(passed.checks);
	});

	it("the verification claimed by another: held; once the other pushed its verdict, its claim moved and its verdict is taken", async () => {
		const { team } = await sharedPlan();
		let finish = () => {};
		const laptop = session(team, "laptop", () => new Promise((resolve) => (finish = () => resolve(passed))));
		const verifying = verifyShared(laptop.run);
		await until(() => laptop.ran.length === 1);
		const desktop = session(team, "desktop", async () => passed);
		expect(await verifyShared(desktop.run)).toMatchObject({ kind: "held" });
		const moved = verificationMoved(team, desktop.controller.signal);
		finish();
		await verifying;
		expect(await moved).toBe("go");
		expect(await verifyShared(desktop.run)).toMatchObject({
			kind: "verdict",
			mine: false,
			verdict: { host: "laptop" },
		});
		expect(desktop.ran).toEqual([]);
	});

	it("a verdict ref that holds no verdict: said, the tip verified again and its verdict pushed over it", async () => {
		const { dir, bare, team } = await sharedPlan();
		const junk = gitAs(dir, "commit-tree", gitAs(dir, "mktree"), "-m", "not a verdict");
		gitAs(dir, "push", "-q", "origin", `${junk}:${verdictRef(PLAN)}`);
		const laptop = session(team, "laptop", async () => passed);
		expect(await verifyShared(laptop.run)).toMatchObject({ kind: "verdict", mine: true });
		expect(laptop.malformed).toEqual(["laptop"]);
		expect(verdictOn(bare)).toMatchObject({ host: "laptop" });
	});

	it("stopped during its checks: nothing pushed, the claim let go", async () => {
		const { bare, team } = await sharedPlan();
		const laptop = session(team, "laptop", async () => null);
		laptop.run.verifyIn = async () => {
			laptop.controller.abort();
			return null;
		};
		expect(await verifyShared(laptop.run)).toEqual({ kind: "stopped" });
		expect(refsOf(bare)).toEqual(["refs/heads/main"]);
	});

	it("another session's verdict pushed while this one verified: its push refused, nothing of it on the remote, the claim let go", async () => {
		const { dir, bare, team } = await sharedPlan();
		const laptop = session(team, "laptop", async () => passed);
		let theirs = "";
		laptop.run.verifyIn = async () => {
			const junk = gitAs(dir, "commit-tree", gitAs(dir, "mktree"), "-m", "another's verdict");
			gitAs(dir, "push", "-q", "origin", `${junk}:${verdictRef(PLAN)}`);
			theirs = junk;
			return passed;
		};
		expect(await verifyShared(laptop.run)).toEqual({ kind: "held", leftMs: 0 });
		expect(gitAs(bare, "rev-parse", verdictRef(PLAN))).toBe(theirs);
		expect(refsOf(bare)).toEqual(["refs/heads/main", verdictRef(PLAN)]);
	});

	it("another session's verdict pushed between this one's read and its claim: taken, nothing run, the claim let go", async () => {
		const { bare, team } = await sharedPlan();
		const desktop = session(team, "desktop", async () => passed);
		await verifyShared(desktop.run);
		const theirs = gitAs(bare, "rev-parse", verdictRef(PLAN));
		gitAs(bare, "update-ref", "-d", verdictRef(PLAN));
		// The desktop's push lands as the laptop's claim reaches the remote: after the laptop read no verdict.
		const hook = join(bare, "hooks", "pre-receive");
		const script = [
			"#!/bin/sh",
			"unset GIT_QUARANTINE_PATH",
			`git update-ref ${verdictRef(PLAN)} ${theirs}`,
			'rm -f "$0"',
		];
		writeFileSync(hook, `${script.join("\n")}\n`, { mode: 0o755 });
		const laptop = session(team, "laptop", async () => passed);
		const outcome = await verifyShared(laptop.run);
		expect(outcome).toEqual({ kind: "verdict", verdict: verdictOn(bare), mine: false });
		expect(laptop.ran).toEqual([]);
		expect(gitAs(bare, "rev-parse", verdictRef(PLAN))).toBe(theirs);
		expect(refsOf(bare)).toEqual(["refs/heads/main", verdictRef(PLAN)]);
	});

	it("the remote gone while this session verified: nothing pushed, unreachable", async () => {
		const { bare, team } = await sharedPlan();
		const laptop = session(team, "laptop", async () => passed);
		laptop.run.verifyIn = async () => {
			renameSync(bare, `${bare}.away`);
			return passed;
		};
		expect(await verifyShared(laptop.run)).toEqual({ kind: "unreachable" });
		renameSync(`${bare}.away`, bare);
		expect(refsOf(bare)).toEqual(["refs/heads/main", claimRef(PLAN, VERIFICATION_KEY)]);
	});

	it("its claim taken over by another while it verified: its checks stopped, nothing pushed, held", async () => {
		const { dir, bare, team } = await sharedPlan();
		const laptop = session(team, "laptop", async () => passed);
		laptop.run.claims.leaseMs = 300;
		laptop.run.verifyIn = async (_cwd, signal) => {
			const junk = gitAs(dir, "commit-tree", gitAs(dir, "mktree"), "-m", "another's claim");
			gitAs(dir, "push", "-q", "-f", "origin", `${junk}:${claimRef(PLAN, VERIFICATION_KEY)}`);
			await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
			return null;
		};
		expect(await verifyShared(laptop.run)).toEqual({ kind: "held", leftMs: 100 });
		expect(refsOf(bare)).toEqual(["refs/heads/main", claimRef(PLAN, VERIFICATION_KEY)]);
	});

	it("a claim ref of the verification that holds no claim: held, nothing run", async () => {
		const { dir, team } = await sharedPlan();
		const junk = gitAs(dir, "commit-tree", gitAs(dir, "mktree"), "-m", "no claim");
		gitAs(dir, "push", "-q", "origin", `${junk}:${claimRef(PLAN, VERIFICATION_KEY)}`);
		const laptop = session(team, "laptop", async () => passed);
		expect(await verifyShared(laptop.run)).toEqual({ kind: "held", leftMs: LONG_LEASE / 3 });
		expect(laptop.ran).toEqual([]);
	});

	it("a remote that does not answer: unreachable, nothing run", async () => {
		const { team } = await sharedPlan();
		const gone = { ...team, remote: `${team.remote}-gone` };
		const laptop = session(gone, "laptop", async () => passed);
		expect(await readVerdict(gone)).toBe("unreachable");
		expect(await verifyShared(laptop.run)).toEqual({ kind: "unreachable" });
		expect(laptop.ran).toEqual([]);
	});

	it("a remote without the plan's branch (deleted by someone): unreachable, nothing run", async () => {
		const { bare, team } = await sharedPlan();
		gitAs(bare, "update-ref", "-d", "refs/heads/main");
		const laptop = session(team, "laptop", async () => passed);
		expect(await verifyShared(laptop.run)).toEqual({ kind: "unreachable" });
		expect(laptop.ran).toEqual([]);
	});
});

/** Resolves once `done` holds, looked at on each turn of the event loop. */
async function until(done: () => boolean): Promise<void> {
	while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
