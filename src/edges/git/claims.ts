/**
 * Claims: one item, one worker, among every session on a plan, on this machine or on many. A claim is a lease
 * (edges/git/leases.ts) at the place the plan lives: the remote the session joined (edges/team/join.ts), else the
 * repository itself, where every session of this machine sees it. Its holder is a session of a machine with a nonce
 * made once per session, never a process id; it renews the claim while its worker works, and lets it go only once
 * the item's landing is recorded (or its worker ended without one). A claim whose holder stopped renewing is taken
 * over after the lease by whoever has seen it unchanged that long.
 */

import { hostname } from "node:os";
import { relative, resolve } from "node:path";
import { type Claimant, planName, renewEveryMs, type SeenClaim } from "../../core/rules/leases.ts";
import { bindToSession } from "../../state.ts";
import { type Repo, runGit } from "./git.ts";
import {
	type ClaimPlace,
	type HeldClaim,
	newNonce,
	releaseClaim,
	renewClaim,
	type TakeResult,
	takeClaim,
} from "./leases.ts";

/** The branch name a detached HEAD's plan is kept under: every detached session of the repository shares it. */
export const DETACHED_BRANCH = "HEAD";

/**
 * The place of this machine's claims on a plan: the repository itself, under the plan's name (the branch it is on, or
 * {@link DETACHED_BRANCH} on a detached HEAD, and the plan file relative to the repository's top).
 */
export async function localPlace(repo: Repo, cwd: string, planFile: string | undefined): Promise<ClaimPlace> {
	const head = await runGit(repo.top, ["symbolic-ref", "-q", "--short", "HEAD"]);
	const branch = head.code === 0 && head.stdout.trim() !== "" ? head.stdout.trim() : DETACHED_BRANCH;
	const file = planFile === undefined ? undefined : relative(repo.top, resolve(cwd, planFile));
	return { repo, plan: planName(branch, file) };
}

/** Who claims for a session: the session, this machine, and a nonce of its own. */
export type SessionClaimant = Omit<Claimant, "wallNow">;

/** The claimant of session `session`; `nonce` made once per session ({@link newNonce}). */
export function claimantOf(session: string, nonce: string): SessionClaimant {
	return { session, host: hostname(), nonce };
}

export { newNonce };

/** How a session claims: where, as whom, and for how long a claim may go unrenewed. */
export interface Claims {
	place: ClaimPlace;
	me: SessionClaimant;
	leaseMs: number;
}

/**
 * Claims item `key`: won, held by another (and for how much longer), lost to a faster one, malformed, or unreachable.
 * `read`: its claim as read a moment ago, not read again.
 */
export function claimItem(claims: Claims, key: string, read?: { seen: SeenClaim }): Promise<TakeResult> {
	return takeClaim(claims.place, key, claims.me, claims.leaseMs, read);
}

/** A claim held while its worker works: renewed on a timer until {@link HeldLease.letGo}. */
export interface HeldLease {
	/**
	 * Stops renewing (a renewal under way ends first): the claim as last renewed, which a landing on the branch swaps
	 * in its own push. A renewal would break that push's lease.
	 */
	settle(): Promise<HeldClaim>;
	/** The claim went with the item's landing: nothing is left to let go. */
	landed(): void;
	/** Stops renewing and lets the claim go (compare-and-swap: a claim taken over since stays its new holder's). */
	letGo(): Promise<void>;
}

/**
 * Renews `held` every {@link renewEveryMs} of the lease until let go; `onLost` is called once if a renewal finds the
 * claim another's (this process slept past its lease, or it was freed by hand). A renewal the place did not answer is
 * tried again at the next tick: the lease gives it three.
 */
export function holdWhileWorking(claims: Claims, held: HeldClaim, onLost: () => void): HeldLease {
	let current = held;
	let renewing: Promise<void> = Promise.resolve();
	let ended = false;
	const lost = bindToSession(onLost);
	const renew = async () => {
		if (ended) return;
		const result = await renewClaim(claims.place, current);
		// Renewed while being let go too: the release swaps the commit the claim holds now.
		if (result.kind === "renewed") current = result.claim;
		else if (result.kind === "lost" && !ended) {
			stop();
			lost();
		}
	};
	const timer = setInterval(
		bindToSession(() => {
			// One renewal at a time: a slow one is not raced by the next, whose expected commit would be stale.
			renewing = renewing.then(renew);
		}),
		renewEveryMs(claims.leaseMs),
	);
	timer.unref();
	const stop = () => {
		ended = true;
		clearInterval(timer);
	};
	let gone = false;
	return {
		async settle() {
			stop();
			await renewing;
			return current;
		},
		landed() {
			gone = true;
		},
		async letGo() {
			stop();
			await renewing;
			if (!gone) await releaseClaim(claims.place, current);
		},
	};
}
