/**
 * A shared plan verified once per tip of its branch: a session whose list is finished reads the remote's branch tip
 * and the plan's verdict ref (`refs/til-done/verdicts/<plan>`, core/rules/shared-verdict.ts). A verdict for the tip
 * that ran this session's checks (and judge) is taken as is. Otherwise the session claims the verification (a lease
 * under the plan's claims, renewed while it works), runs the checks in a tree of exactly the tip, and pushes the
 * verdict with a lease on the ref's old value and its claim deleted, in one atomic push. A session that finds the
 * verification claimed waits and reads again; a verifier that stopped renewing is taken over after the lease.
 */

import { join, relative } from "node:path";
import { CLAIMS_POLL_MS, renewEveryMs } from "../../core/rules/leases.ts";
import {
	readVerdictMessage,
	type SharedVerdict,
	VERIFICATION_KEY,
	verdictMessage,
	verdictRef,
} from "../../core/rules/shared-verdict.ts";
import { type Claims, holdWhileWorking } from "../git/claims.ts";
import { runGit } from "../git/git.ts";
import {
	commitMessage,
	fetchCommit,
	type HeldClaim,
	OVER_NETWORK,
	recordCommit,
	releaseClaim,
	swapRefs,
	takeClaim,
	untilClaimsMove,
} from "../git/leases.ts";
import { makeWorkerTree, removeWorkerTree } from "../git/worker-tree.ts";
import type { SharedTeam } from "./branch-landing.ts";

/** What the verifier found on the tip, before it is recorded: each check, and the judge's word when it was asked. */
export type Found = Pick<SharedVerdict, "checks" | "judge">;

/** A shared plan's verification: the team, how this session claims, and how it verifies a tree. */
export interface SharedVerification {
	team: SharedTeam;
	claims: Claims;
	/**
	 * Runs the checks (and the judge) with `cwd` in a tree of exactly the tip, stopped by `signal`; null when it was
	 * stopped (nothing is then recorded).
	 */
	verifyIn(cwd: string, signal: AbortSignal): Promise<Found | null>;
	/** Whether a verdict ran what this session's verification would (core coversChecks); one that ran less is not taken. */
	covers(verdict: SharedVerdict): boolean;
	/** Said once per read: the verdict ref holds no verdict (the tip is verified again). */
	onMalformed(): void;
	/** Where the session is, for the same folder in the tree of the tip. */
	cwd: string;
	signal: AbortSignal;
}

/** How a shared verification went. */
export type SharedOutcome =
	/** A verdict for the branch's tip: another session's (`mine` false), or the one this session pushed. */
	| { kind: "verdict"; verdict: SharedVerdict; mine: boolean }
	/** Another session verifies: read again once its claim moves, or after `leftMs` (its lease may have run out). */
	| { kind: "held"; leftMs: number }
	/** The remote did not answer: nothing was pushed. */
	| { kind: "unreachable" }
	/** The user's stop (or a change of the list) came during the checks: nothing was pushed, the claim let go. */
	| { kind: "stopped" };

/** The branch's tip and the verdict ref's commit (with what it holds) on the remote, as one read found them. */
interface SeenVerdict {
	tip: string;
	/** The verdict ref's commit, "" where there is none. */
	sha: string;
	verdict: SharedVerdict | "malformed" | undefined;
}

/** Reads the branch's tip and the plan's verdict; "unreachable" when the remote did not answer or has no branch. */
export async function readVerdict(team: SharedTeam): Promise<SeenVerdict | "unreachable"> {
	const ref = verdictRef(team.plan);
	const branch = `refs/heads/${team.branch}`;
	const listed = await runGit(team.repo.top, ["ls-remote", team.remote, branch, ref], OVER_NETWORK);
	if (listed.code !== 0) return "unreachable";
	const refs = new Map(listed.stdout.split("\n").map((line) => line.split("\t").reverse() as [string, string]));
	const tip = refs.get(branch);
	if (tip === undefined) return "unreachable";
	const sha = refs.get(ref) ?? "";
	if (sha === "") return { tip, sha, verdict: undefined };
	if (!(await fetchCommit(team.repo, team.remote, sha))) return "unreachable";
	const verdict = readVerdictMessage((await commitMessage(team.repo, sha)) ?? "", team.plan);
	return { tip, sha, verdict: verdict ?? "malformed" };
}

/** The verdict `seen` holds for its tip, if it ran what this session's would; a malformed one is said. */
function verdictForTip(seen: SeenVerdict, run: SharedVerification): SharedVerdict | undefined {
	if (seen.verdict === "malformed") run.onMalformed();
	const forTip = typeof seen.verdict === "object" && seen.verdict.tip === seen.tip ? seen.verdict : undefined;
	return forTip && run.covers(forTip) ? forTip : undefined;
}

/**
 * Verifies the shared plan's branch once per tip: takes the verdict recorded for the tip, or claims the verification
 * and verifies the tip, or finds another session at it.
 */
export async function verifyShared(run: SharedVerification): Promise<SharedOutcome> {
	const seen = await readVerdict(run.team);
	if (seen === "unreachable") return { kind: "unreachable" };
	const recorded = verdictForTip(seen, run);
	if (recorded) return { kind: "verdict", verdict: recorded, mine: false };
	const { place, me, leaseMs } = run.claims;
	const taken = await takeClaim(place, VERIFICATION_KEY, me, leaseMs);
	if (taken.kind === "unreachable") return { kind: "unreachable" };
	if (taken.kind === "held") return { kind: "held", leftMs: taken.leftMs };
	if (taken.kind !== "won") return { kind: "held", leftMs: renewEveryMs(leaseMs) };
	// A verifier's push deletes its claim as it records its verdict: one pushed since the read above is the tip's.
	const since = await readVerdict(run.team);
	const moved = since !== "unreachable" && since.sha !== seen.sha;
	const recordedSince = moved ? verdictForTip(since, run) : undefined;
	if (since === "unreachable" || recordedSince) {
		await releaseClaim(place, taken.claim);
		return recordedSince ? { kind: "verdict", verdict: recordedSince, mine: false } : { kind: "unreachable" };
	}
	return verifyTip(run, since, taken.claim);
}

/** With the verification claimed: runs it on the tip `seen` names, and pushes its verdict as the claim goes. */
async function verifyTip(run: SharedVerification, seen: SeenVerdict, claim: HeldClaim): Promise<SharedOutcome> {
	const stop = new AbortController();
	const lease = holdWhileWorking(run.claims, claim, () => stop.abort());
	const found = await verifyTree(run, seen.tip, AbortSignal.any([run.signal, stop.signal]));
	// Taken over meanwhile (this session slept past its lease): the verifier now is another.
	if (stop.signal.aborted && !run.signal.aborted) return { kind: "held", leftMs: renewEveryMs(run.claims.leaseMs) };
	if (found === "unreachable" || found === null) {
		await lease.letGo();
		return found === null ? { kind: "stopped" } : { kind: "unreachable" };
	}
	const verdict: SharedVerdict = {
		plan: run.team.plan,
		tip: seen.tip,
		...found,
		session: run.claims.me.session,
		host: run.claims.me.host,
	};
	const held = await lease.settle();
	const pushed = await pushVerdict(run, seen.sha, held, verdict);
	if (pushed === "done") {
		lease.landed();
		return { kind: "verdict", verdict, mine: true };
	}
	await lease.letGo();
	// Refused: another session recorded a verdict or took the claim over meanwhile; read again.
	return pushed === "unreachable" ? { kind: "unreachable" } : { kind: "held", leftMs: 0 };
}

/** Runs the verification in a tree of exactly `tip`, removed after; null when stopped. */
async function verifyTree(
	run: SharedVerification,
	tip: string,
	signal: AbortSignal,
): Promise<Found | null | "unreachable"> {
	const { repo, remote } = run.team;
	if (!(await fetchCommit(repo, remote, tip))) return "unreachable";
	const tree = await makeWorkerTree(repo, tip);
	if (!tree) return null;
	try {
		const found = await run.verifyIn(join(tree.dir, relative(repo.top, run.cwd)), signal);
		return signal.aborted ? null : found;
	} finally {
		removeWorkerTree(tree);
	}
}

/** One atomic push: the verdict's commit on the verdict ref (leased on `before`), and the claim deleted (leased). */
async function pushVerdict(
	run: SharedVerification,
	before: string,
	held: HeldClaim,
	verdict: SharedVerdict,
): Promise<"done" | "refused" | "unreachable"> {
	const made = await recordCommit(run.team.repo, verdictMessage(verdict));
	if (made === undefined) return "refused";
	const swaps = [
		{ ref: verdictRef(run.team.plan), expect: before, next: made },
		{ ref: held.ref, expect: held.sha, next: "" },
	];
	return swapRefs(run.team, swaps);
}

/**
 * Resolves once the verification's claim moved (its verdict pushed with it, let go, renewed or taken over), read every
 * {@link CLAIMS_POLL_MS} until `signal`. A remote not reached is read next time.
 */
export function verificationMoved(team: SharedTeam, signal: AbortSignal): Promise<"go"> {
	return untilClaimsMove(team, [VERIFICATION_KEY], signal).then(() => "go" as const);
}
