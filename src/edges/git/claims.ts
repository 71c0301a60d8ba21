/**
 * Claims: one item, one worker. A claim is a ref of ours in the user's repository (`refs/til-done-claims/<key>`),
 * created only where there is none (git's `update-ref` with an empty old value is atomic), so every process on the
 * repository sees it and two never hold the same item; being a ref, it can be pushed to a remote. It points at a blob
 * that says who holds it.
 */

import { ownerIsLive } from "../host/owner.ts";
import { isAlive } from "../host/processes.ts";
import { type Repo, runGit } from "./git.ts";

/** Where the claims are kept: beside the checkpoints' refs, never among them (cleaning those leaves claims alone). */
export const CLAIM_REF_ROOT = "refs/til-done-claims/";

/** Who holds a claim: a session's process, on a machine. */
export interface Claim {
	key: string;
	session: string;
	host: string;
	pid: number;
	at: number;
	/** The holder's owner tag (its pid and start time): a pid alone is no proof, pids are reused. */
	owner?: string;
}

const refOf = (key: string) => `${CLAIM_REF_ROOT}${key}`;

/**
 * Claims the item `key` for this process's session; false when another live process holds it (or git refused). A
 * claim left by a process of this machine that is gone (a pi killed mid-work) is taken over, compare-and-swap.
 */
export async function claimItem(repo: Repo, claim: Claim): Promise<boolean> {
	const blob = await runGit(repo.top, ["hash-object", "-w", "--stdin"], { input: JSON.stringify(claim) });
	if (blob.code !== 0) return false;
	const created = await runGit(repo.top, ["update-ref", refOf(claim.key), blob.stdout.trim(), ""]);
	if (created.code === 0) return true;
	const held = await runGit(repo.top, ["rev-parse", "--verify", "-q", refOf(claim.key)]);
	const holder = held.code === 0 ? await readClaim(repo, held.stdout.trim()) : undefined;
	if (!holder || holder.host !== claim.host || holderIsLive(holder)) return false;
	const taken = await runGit(repo.top, ["update-ref", refOf(claim.key), blob.stdout.trim(), held.stdout.trim()]);
	return taken.code === 0;
}

/** Whether the process that holds a claim of this machine is still there, and still the one that took it. */
export function holderIsLive(holder: Claim): boolean {
	return holder.owner === undefined ? isAlive(holder.pid) : ownerIsLive(holder.owner);
}

/** The claim a blob says, or undefined when it is not one of ours. */
async function readClaim(repo: Repo, sha: string): Promise<Claim | undefined> {
	const shown = await runGit(repo.top, ["cat-file", "blob", sha]);
	try {
		const claim = JSON.parse(shown.stdout) as Partial<Claim>;
		if (typeof claim.key !== "string" || typeof claim.session !== "string" || typeof claim.pid !== "number")
			return undefined;
		return {
			key: claim.key,
			session: claim.session,
			host: String(claim.host ?? ""),
			pid: claim.pid,
			at: Number(claim.at) || 0,
			...(typeof claim.owner === "string" ? { owner: claim.owner } : {}),
		};
	} catch {
		return undefined;
	}
}

/** Lets the item `key` go; true when the claim is gone (it was ours, or there was none). */
export async function releaseItem(repo: Repo, key: string): Promise<boolean> {
	return (await runGit(repo.top, ["update-ref", "-d", refOf(key)])).code === 0;
}

/** Every claim on the repository, as its blob says; a claim whose blob cannot be read is left out. */
export async function claimsOn(repo: Repo): Promise<Claim[]> {
	const listed = await runGit(repo.top, ["for-each-ref", "--format=%(objectname)", CLAIM_REF_ROOT]);
	if (listed.code !== 0) return [];
	const claims: Claim[] = [];
	for (const sha of listed.stdout.split("\n").filter((line) => line !== "")) {
		const claim = await readClaim(repo, sha);
		if (claim) claims.push(claim);
	}
	return claims;
}

/** Lets the claim of `key` go only if it is still `held` (compare-and-swap): a claim taken over since stays. */
export async function releaseIfHeld(repo: Repo, key: string, held: Claim): Promise<boolean> {
	const now = await runGit(repo.top, ["rev-parse", "--verify", "-q", refOf(key)]);
	if (now.code !== 0) return true;
	const holder = await readClaim(repo, now.stdout.trim());
	if (!holder || holder.session !== held.session || holder.pid !== held.pid || holder.owner !== held.owner)
		return false;
	return (await runGit(repo.top, ["update-ref", "-d", refOf(key), now.stdout.trim()])).code === 0;
}
