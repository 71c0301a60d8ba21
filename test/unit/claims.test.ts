/**
 * The workers' claims against a real repository: the plan's place named by its branch and plan file, one winner of
 * any number of sessions, a claim renewed while held and let go by its holder only, a renewal that finds the claim
 * taken over told once, and no claim removed by a clean of the checkpoints.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimMessage, claimRef, readClaimMessage, renewEveryMs } from "../../src/core/rules/leases.ts";
import {
	type Claims,
	claimantOf,
	claimItem,
	DETACHED_BRANCH,
	holdWhileWorking,
	localPlace,
	newNonce,
} from "../../src/edges/git/claims.ts";
import { cleanCheckpointRefs, findRepo, type Repo } from "../../src/edges/git/git.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startGitServer } from "../helpers/git-server.ts";
import { must } from "../helpers/must.ts";

let dir = "";
const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-claims-")));
	git("init", "-q", "-b", "main");
	git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "start");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const repo = async (): Promise<Repo> => must(await findRepo(dir), "the repository");
const LONG_LEASE_MS = 3_600_000;

/** How session `session` claims on the plan of the repository's `main` without a plan file. */
async function claimsOf(session: string, leaseMs = LONG_LEASE_MS): Promise<Claims> {
	const r = await repo();
	return { place: await localPlace(r, dir, undefined), me: claimantOf(session, newNonce()), leaseMs };
}

/** The record the claim of `key` holds now, on the plan `main--list`; undefined when there is none. */
function recordAt(key: string) {
	const ref = claimRef("main--list", key);
	if (git("for-each-ref", "--format=%(refname)", ref) === "") return undefined;
	const message = git("cat-file", "commit", ref);
	return readClaimMessage(`${message.slice(message.indexOf("\n\n") + 2)}\n`, "main--list", key);
}

/** Claims `key` again and again (as the session looks again) until it wins; what it won. */
async function untilWon(claims: Claims, key: string) {
	const deadline = performance.now() + 10_000;
	for (;;) {
		const taken = await claimItem(claims, key);
		if (taken.kind === "won") return taken;
		if (performance.now() > deadline) throw new Error(`still ${taken.kind} after 10 s`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

describe("a session's claims live where its plan does", () => {
	it("in the repository itself, named by the branch and the plan file relative to the top; a detached HEAD by HEAD", async () => {
		const r = await repo();
		mkdirSync(join(dir, "sub"));
		expect(await localPlace(r, join(dir, "sub"), "PLAN.md")).toEqual({ repo: r, plan: "main--sub_PLAN_md" });
		expect(await localPlace(r, dir, undefined)).toEqual({ repo: r, plan: "main--list" });
		git("checkout", "-q", "--detach");
		expect(await localPlace(r, dir, "PLAN.md")).toEqual({ repo: r, plan: `${DETACHED_BRANCH}--PLAN_md` });
	});

	it("the claimant is the session on this machine with a nonce of its own", () => {
		expect(claimantOf("s1", "n1")).toEqual({ session: "s1", host: hostname(), nonce: "n1" });
	});
});

describe("an item is claimed by one session at a time", () => {
	it("the first claim wins, another session is held (for at most the lease) until the holder lets go", async () => {
		const first = await claimsOf("s1");
		const second = await claimsOf("s2");
		const won = await claimItem(first, "3-abc");
		expect(won.kind).toBe("won");
		expect(recordAt("3-abc")).toMatchObject({ session: "s1", host: hostname(), fence: 1, renewals: 0 });
		const held = await claimItem(second, "3-abc");
		expect(held).toMatchObject({ kind: "held", by: { session: "s1" } });
		expect(held.kind === "held" && held.leftMs <= LONG_LEASE_MS).toBe(true);
		if (won.kind !== "won") throw new Error("not won");
		await holdWhileWorking(first, won.claim, () => {}).letGo();
		expect(recordAt("3-abc")).toBeUndefined();
		expect((await claimItem(second, "3-abc")).kind).toBe("won");
		expect(recordAt("3-abc")).toMatchObject({ session: "s2", fence: 1 });
	});

	it("of eight sessions claiming one item at once, exactly one wins", async () => {
		const racers = await Promise.all(Array.from({ length: 8 }, (_, i) => claimsOf(`s${i}`)));
		const taken = await Promise.all(racers.map((claims) => claimItem(claims, "7-x")));
		expect(taken.filter((result) => result.kind === "won")).toHaveLength(1);
	});

	it("a claim its holder stopped renewing (another host, a process gone) is taken over after the lease, fence 2", async () => {
		const r = await repo();
		const key = "2-b";
		const stale = claimMessage({
			plan: "main--list",
			key,
			session: "gone",
			host: "another-machine",
			nonce: "old",
			fence: 1,
			renewals: 0,
			since: 1,
		});
		const tree = execFileSync("git", ["mktree"], { cwd: r.top, input: "", encoding: "utf8" }).trim();
		const commit = execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree], {
			cwd: r.top,
			input: stale,
			encoding: "utf8",
		}).trim();
		git("update-ref", claimRef("main--list", key), commit);
		const claims = await claimsOf("s1", 300);
		expect((await claimItem(claims, key)).kind).toBe("held");
		expect((await untilWon(claims, key)).claim.record).toMatchObject({ session: "s1", fence: 2 });
		expect(recordAt(key)).toMatchObject({ session: "s1", fence: 2 });
	});
});

describe("a held claim is renewed while its worker works, and let go by its holder only", () => {
	it("renewed on its timer: each renewal changes it, so others see it live; let go, it is gone", async () => {
		const claims = await claimsOf("s1", 300);
		const won = await claimItem(claims, "1-a");
		if (won.kind !== "won") throw new Error("not won");
		const lease = holdWhileWorking(claims, won.claim, () => {});
		await waitForValue(() => ((recordAt("1-a")?.renewals ?? 0) >= 2 ? true : undefined), 10_000, "two renewals");
		await lease.letGo();
		expect(recordAt("1-a")).toBeUndefined();
	});

	it("settled for a landing: renewals stop, the claim as last renewed is given; gone with the landing, letting go frees nothing", async () => {
		const claims = await claimsOf("s1", 300);
		const won = await claimItem(claims, "2-b");
		if (won.kind !== "won") throw new Error("not won");
		vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
		try {
			const lease = holdWhileWorking(claims, won.claim, () => {});
			vi.advanceTimersByTime(renewEveryMs(300));
			await waitForValue(() => ((recordAt("2-b")?.renewals ?? 0) >= 1 ? true : undefined), 10_000, "a renewal");
			const settled = await lease.settle();
			expect(settled.sha).toBe(git("rev-parse", claimRef("main--list", "2-b")));
			expect(settled.record).toEqual(recordAt("2-b"));
			// No renewal is due any more: a landing's push swaps this very commit.
			expect(vi.getTimerCount()).toBe(0);
			lease.landed();
			await lease.letGo();
			expect(recordAt("2-b")).toEqual(settled.record);
		} finally {
			vi.useRealTimers();
		}
	});

	it("a renewal that finds the claim another's tells its holder once; letting go then leaves the new holder's claim", async () => {
		const claims = await claimsOf("s1", 300);
		const won = await claimItem(claims, "1-a");
		if (won.kind !== "won") throw new Error("not won");
		let lost = 0;
		const lease = holdWhileWorking(claims, won.claim, () => {
			lost += 1;
		});
		// Freed by hand and claimed by another session meanwhile, as after this process slept past its lease.
		git("update-ref", "-d", claimRef("main--list", "1-a"));
		expect((await claimItem(await claimsOf("s2"), "1-a")).kind).toBe("won");
		await waitForValue(() => (lost > 0 ? true : undefined), 10_000, "the renewal lost");
		await lease.letGo();
		expect(lost).toBe(1);
		expect(recordAt("1-a")).toMatchObject({ session: "s2" });
	});

	it("a clean of the checkpoints leaves every claim", async () => {
		const claims = await claimsOf("s1");
		expect((await claimItem(claims, "4-d")).kind).toBe("won");
		await cleanCheckpointRefs(await repo());
		expect(recordAt("4-d")).toMatchObject({ session: "s1" });
	});
});

describe("a renewal racing its release, or unanswered, never loses the claim by itself", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	/** The claim of `key` held by `claims`, renewed on a timer this test moves. */
	async function heldOnFakeTimer(claims: Claims, key: string, onLost: () => void) {
		const won = await claimItem(claims, key);
		const claim = must(won.kind === "won" ? won.claim : undefined, "the claim");
		vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
		return holdWhileWorking(claims, claim, onLost);
	}

	it("a renewal due as the claim is let go is not made: the claim is gone, never renewed", async () => {
		const claims = await claimsOf("s1", 300);
		const lease = await heldOnFakeTimer(claims, "1-a", () => {});
		vi.advanceTimersByTime(renewEveryMs(300));
		await lease.letGo();
		expect(recordAt("1-a")).toBeUndefined();
	});

	it("a renewal under way as the claim is let go, finding it another's, tells no one: the new holder's claim stays", async () => {
		const claims = await claimsOf("s1", 300);
		let lost = 0;
		const lease = await heldOnFakeTimer(claims, "1-a", () => {
			lost += 1;
		});
		git("update-ref", "-d", claimRef("main--list", "1-a"));
		expect((await claimItem(await claimsOf("s2"), "1-a")).kind).toBe("won");
		vi.advanceTimersByTime(renewEveryMs(300));
		// The renewal has begun (it waits on git) before the release is asked for.
		await Promise.resolve();
		await Promise.resolve();
		await lease.letGo();
		expect(lost).toBe(0);
		expect(recordAt("1-a")).toMatchObject({ session: "s2", renewals: 0 });
	});

	it("a renewal the remote does not answer is tried again at the next tick: renewed once it answers, never lost", async () => {
		const server = await startGitServer();
		try {
			const served = server.bare("team.git", { repo: dir, branch: "main" });
			const r = await repo();
			const claims: Claims = {
				place: { repo: r, remote: server.url("team.git"), plan: "main--list" },
				me: claimantOf("s1", newNonce()),
				leaseMs: 300,
			};
			const won = await claimItem(claims, "1-a");
			const claim = must(won.kind === "won" ? won.claim : undefined, "the claim");
			const servedRef = () => {
				const found = execFileSync("git", ["-C", served, "for-each-ref", "--format=%(objectname)", claim.ref], {
					encoding: "utf8",
				}).trim();
				return found === "" ? undefined : found;
			};
			let lost = 0;
			server.refuseAfter(0);
			// The first connection refused marks itself in the served repository: a renewal was tried and not answered.
			server.beforeConnection(1, ["-C", "team.git", "update-ref", "refs/tried/1", "main"]);
			const lease = holdWhileWorking(claims, claim, () => {
				lost += 1;
			});
			const tried = () =>
				execFileSync("git", ["-C", served, "for-each-ref", "refs/tried/"], { encoding: "utf8" }).trim() || undefined;
			await waitForValue(tried, 10_000, "a renewal refused");
			expect(servedRef()).toBe(claim.sha);
			server.serveAll();
			await waitForValue(() => (servedRef() !== claim.sha ? true : undefined), 10_000, "a renewal answered");
			await lease.letGo();
			expect(lost).toBe(0);
			expect(servedRef()).toBeUndefined();
		} finally {
			await server.close();
		}
	});
});
