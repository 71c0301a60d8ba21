/**
 * Claims as leases, carried out with git: a claim is a commit whose message holds its record
 * (core/rules/leases.ts), under `refs/til-done/claims/<plan>/<item-key>`, changed only by compare-and-swap. On a remote
 * the swap is one atomic push with a lease on every ref it names (`--force-with-lease=<ref>:<expected>`; empty: the
 * ref must not exist); without one, the same swap on the repository itself (`update-ref --stdin`, old values given,
 * all or nothing). Either way, of any number of sessions that race for one ref, exactly one wins.
 */

import { randomBytes } from "node:crypto";
import {
	CLAIM_ROOT,
	CLAIMS_POLL_MS,
	type Claimant,
	type ClaimRecord,
	type ClaimStep,
	claimMessage,
	claimRef,
	claimStep,
	keyOfClaimRef,
	type PushOutcome,
	pushOutcome,
	readClaimMessage,
	renewed,
	type SeenClaim,
	type Sighting,
	sight,
} from "../../core/rules/leases.ts";
import { AUTHOR, type Repo, runGit } from "./git.ts";

/** Where a plan's claims live: a remote of the repository (its name or URL), or, without one, the repository itself. */
export interface ClaimPlace {
	repo: Repo;
	/** A remote's name or URL; undefined: the repository's own refs (the sessions of this machine). */
	remote?: string;
	/** The plan's name, one ref component (core/rules/leases.ts `isRefName`). */
	plan: string;
}

/** A claim this session holds: the commit it last saw there, and its record. */
export interface HeldClaim {
	key: string;
	ref: string;
	sha: string;
	record: ClaimRecord;
}

/** How claiming went. */
export type TakeResult =
	| { kind: "won"; claim: HeldClaim }
	| { kind: "held"; by: ClaimRecord; leftMs: number }
	/** Another session was first between the read and the swap. */
	| { kind: "lost" }
	| { kind: "malformed" }
	| { kind: "unreachable" };

/** One claim as read off the place: its item, its commit, and its record (undefined when the commit holds none). */
export interface SeenClaimRef {
	key: string;
	sha: string;
	record: ClaimRecord | undefined;
}

/** One ref changed by a swap: from `expect` ("" where there must be none) to `next` ("" deletes it). */
export interface RefSwap {
	ref: string;
	expect: string;
	next: string;
}

/** Milliseconds one exchange with a remote may take before it is given up (nothing changed, or said unknown). */
export const REMOTE_TIMEOUT_MS = 20_000;

/** Git's settings for a push of ours: no prompt for credentials, the user's hooks, signing, tags and submodules left out. */
const PUSH_ARGS = [
	"-c",
	"push.gpgSign=false",
	"push",
	"--porcelain",
	"--atomic",
	"--no-verify",
	"--no-follow-tags",
	"--recurse-submodules=no",
];
const NETWORK_ENV = { GIT_TERMINAL_PROMPT: "0" };

/** How git runs when it talks to a remote: never a prompt for credentials, given up after {@link REMOTE_TIMEOUT_MS}. */
export const OVER_NETWORK = { env: NETWORK_ENV, timeoutMs: REMOTE_TIMEOUT_MS };

/**
 * Fetches commit `sha` (and what it holds) from `remote` where the repository lacks it, writing no ref and no
 * FETCH_HEAD; whether the repository has it now.
 */
export async function fetchCommit(repo: Repo, remote: string, sha: string): Promise<boolean> {
	const missing = await fetchCommits(repo, remote, [sha]);
	return missing !== "unreachable" && missing.length === 0;
}

/**
 * Fetches the commits of `shas` the repository lacks from `remote`, all in one fetch, writing no ref and no
 * FETCH_HEAD; those it still lacks after, or "unreachable" when the fetch failed (the remote stopped answering).
 */
async function fetchCommits(repo: Repo, remote: string, shas: readonly string[]): Promise<string[] | "unreachable"> {
	if ((await missingCommits(repo, shas)).length === 0) return [];
	const fetchArgs = ["fetch", "--no-write-fetch-head", "--no-tags", "--no-recurse-submodules", "-q"];
	const fetched = await runGit(repo.top, [...fetchArgs, remote, ...new Set(shas)], OVER_NETWORK);
	return fetched.code === 0 ? missingCommits(repo, shas) : "unreachable";
}

/** Those of `shas` that name no commit of the repository: one `cat-file --batch-check` for them all. */
async function missingCommits(repo: Repo, shas: readonly string[]): Promise<string[]> {
	if (shas.length === 0) return [];
	const input = shas.map((sha) => `${sha}^{commit}\n`).join("");
	const checked = await runGit(repo.top, ["cat-file", "--batch-check=%(objecttype)"], { input });
	const types = checked.stdout.split("\n");
	return checked.code === 0 ? shas.filter((_, at) => types[at] !== "commit") : [...shas];
}

/** What this process last saw of each claim ref, by place: the monotonic clock a lease is judged by. */
const sightings = new Map<string, Sighting>();

const placeId = (place: ClaimPlace, ref: string) => `${place.repo.commonDir}\0${place.remote ?? ""}\0${ref}`;

/** Records what was seen at `ref` now; the sighting that results. */
function note(place: ClaimPlace, ref: string, sha: string): Sighting {
	const id = placeId(place, ref);
	const seen = sight(sightings.get(id), sha, performance.now());
	sightings.set(id, seen);
	return seen;
}

/** The empty tree every claim commit holds, written once per repository. */
const emptyTrees = new Map<string, string>();

async function emptyTree(repo: Repo): Promise<string | undefined> {
	const known = emptyTrees.get(repo.commonDir);
	if (known) return known;
	const made = await runGit(repo.top, ["mktree"], { input: "" });
	if (made.code !== 0) return undefined;
	const tree = made.stdout.trim();
	emptyTrees.set(repo.commonDir, tree);
	return tree;
}

/** A commit of the empty tree whose message is `message` (a claim's, a shared list's), written in the repository. */
export async function recordCommit(repo: Repo, message: string): Promise<string | undefined> {
	const tree = await emptyTree(repo);
	if (!tree) return undefined;
	const made = await runGit(repo.top, ["commit-tree", tree], { input: message, env: AUTHOR });
	return made.code === 0 ? made.stdout.trim() : undefined;
}

/** A claim commit holding `record`, written in the repository; its sha, or undefined when git could not. */
const claimCommit = (repo: Repo, record: ClaimRecord) => recordCommit(repo, claimMessage(record));

/** The message of commit `sha` of the repository; undefined when it has no such commit. */
export async function commitMessage(repo: Repo, sha: string): Promise<string | undefined> {
	const shown = await runGit(repo.top, ["cat-file", "commit", sha]);
	const start = shown.stdout.indexOf("\n\n");
	return shown.code !== 0 || start < 0 ? undefined : shown.stdout.slice(start + 2);
}

/** The record a claim commit of the repository holds, read strictly; undefined when it has none (or no such commit). */
async function recordHere(place: ClaimPlace, key: string, sha: string): Promise<ClaimRecord | undefined> {
	const message = await commitMessage(place.repo, sha);
	return message === undefined ? undefined : readClaimMessage(message, place.plan, key);
}

/** The refs under `prefix` at the place, with their commits; undefined when the remote was not reached. */
async function refsAt(place: ClaimPlace, prefix: string): Promise<Map<string, string> | undefined> {
	const listed =
		place.remote === undefined
			? await runGit(place.repo.top, ["for-each-ref", "--format=%(objectname) %(refname)", prefix])
			: await runGit(place.repo.top, ["ls-remote", "--refs", place.remote, `${prefix}*`], OVER_NETWORK);
	if (listed.code !== 0) return undefined;
	const refs = new Map<string, string>();
	for (const line of listed.stdout.split("\n")) {
		const [sha, ref] = line.split(/\s+/);
		if (sha && ref?.startsWith(prefix)) refs.set(ref, sha);
	}
	return refs;
}

/**
 * Every claim of the plan at the place, each as read (and sighted): one read of the refs, and one fetch of the
 * commits this repository lacks; "unreachable" when the remote was not reached.
 */
export async function listClaims(place: ClaimPlace): Promise<SeenClaimRef[] | "unreachable"> {
	const refs = await refsAt(place, `${CLAIM_ROOT}${place.plan}/`);
	if (!refs) return "unreachable";
	const found = [...refs].flatMap(([ref, sha]) => {
		const key = keyOfClaimRef(place.plan, ref);
		return key === undefined ? [] : [{ ref, key, sha }];
	});
	// A fetch that failed leaves live claims without their commits: none is read as a ref that holds no claim.
	const shas = found.map(({ sha }) => sha);
	if (place.remote !== undefined && (await fetchCommits(place.repo, place.remote, shas)) === "unreachable")
		return "unreachable";
	return Promise.all(
		found.map(async ({ ref, key, sha }) => {
			note(place, ref, sha);
			return { key, sha, record: await recordHere(place, key, sha) };
		}),
	);
}

/** The claims of {@link listClaims} by item, as {@link takeClaim} takes one already read. */
export function claimsByKey(claims: readonly SeenClaimRef[]): Map<string, SeenClaim> {
	return new Map(claims.map(({ key, sha, record }) => [key, { sha, record }]));
}

/**
 * Whether any of the claims of `keys` moved since this process last saw them (gone with a landing or a release, or
 * renewed, or taken over), or was never seen here (a race lost, the remote silent when it was tried: worth trying now
 * that it answers): one read of the plan's claims, nothing fetched. "unreachable" when the remote was not reached.
 */
export async function claimsMoved(place: ClaimPlace, keys: readonly string[]): Promise<boolean | "unreachable"> {
	const refs = await refsAt(place, `${CLAIM_ROOT}${place.plan}/`);
	if (!refs) return "unreachable";
	return keys.some((key) => {
		const ref = claimRef(place.plan, key);
		const seen = sightings.get(placeId(place, ref));
		return seen === undefined || refs.get(ref) !== seen.sha;
	});
}

/**
 * Resolves once a claim of `keys` moved ({@link claimsMoved}), read every {@link CLAIMS_POLL_MS} until `signal`; a
 * remote not reached is read next time.
 */
export function untilClaimsMove(place: ClaimPlace, keys: readonly string[], signal: AbortSignal): Promise<"moved"> {
	return new Promise((resolve) => {
		if (keys.length === 0 || signal.aborted) return;
		const poll = async () => {
			const moved = await claimsMoved(place, keys);
			if (signal.aborted) return;
			if (moved === true) resolve("moved");
			else timer = setTimeout(poll, CLAIMS_POLL_MS);
		};
		let timer = setTimeout(poll, CLAIMS_POLL_MS);
		signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
	});
}

/** What one item's claim ref holds now; "unreachable" when the remote was not reached. */
async function seenClaim(place: ClaimPlace, key: string): Promise<SeenClaim | "unreachable"> {
	const ref = claimRef(place.plan, key);
	const refs = await refsAt(place, ref);
	if (!refs) return "unreachable";
	const sha = refs.get(ref);
	if (sha === undefined) return undefined;
	// Its commit fetched first when only the remote has it: a fetch that failed is no claim read as holding none.
	if (place.remote !== undefined && (await fetchCommits(place.repo, place.remote, [sha])) === "unreachable")
		return "unreachable";
	return { sha, record: await recordHere(place, key, sha) };
}

/** What a swap did, and the push's `--porcelain` lines that say which lease broke (none on the repository itself). */
export interface Swapped {
	outcome: PushOutcome;
	porcelain: string;
}

/**
 * Compare-and-swap of `swaps` at the place, all or none: one atomic push with a lease on each ref, or one `update-ref`
 * transaction on the repository itself.
 */
export async function swapRefsSaying(place: ClaimPlace, swaps: readonly RefSwap[]): Promise<Swapped> {
	if (place.remote === undefined) {
		const line = ({ ref, expect, next }: RefSwap) =>
			next === "" ? `delete ${ref} ${expect}\n` : `update ${ref} ${next} ${expect}\n`;
		const swapped = await runGit(place.repo.top, ["update-ref", "--stdin"], { input: swaps.map(line).join("") });
		return { outcome: swapped.code === 0 ? "done" : "refused", porcelain: "" };
	}
	const leases = swaps.map(({ ref, expect }) => `--force-with-lease=${ref}:${expect}`);
	const refspecs = swaps.map(({ ref, next }) => `${next}:${ref}`);
	const pushed = await runGit(place.repo.top, [...PUSH_ARGS, ...leases, place.remote, ...refspecs], OVER_NETWORK);
	return { outcome: pushOutcome(pushed.code, pushed.stdout), porcelain: pushed.stdout };
}

/** {@link swapRefsSaying}, its outcome alone. */
export async function swapRefs(place: ClaimPlace, swaps: readonly RefSwap[]): Promise<PushOutcome> {
	return (await swapRefsSaying(place, swaps)).outcome;
}

/** A new holder's nonce: what makes a claim this holder's, whatever its session or machine. */
export const newNonce = (): string => randomBytes(12).toString("hex");

/**
 * Claims item `key` for `me`: created where there is none, taken over from a holder this process has seen unchanged
 * for `leaseMs`, held otherwise. A claim found carrying `me`'s nonce (a push that went through though its answer was
 * lost) is ours.
 */
export async function takeClaim(
	place: ClaimPlace,
	key: string,
	me: Omit<Claimant, "wallNow">,
	leaseMs: number,
	read?: { seen: SeenClaim },
): Promise<TakeResult> {
	const ref = claimRef(place.plan, key);
	// A claim read a moment ago is as good as one read now: the swap's lease refuses it if it moved meanwhile.
	const seen = read ? read.seen : await seenClaim(place, key);
	if (seen === "unreachable") return { kind: "unreachable" };
	const step = judgeClaim(place, key, seen, me, leaseMs);
	if (step.kind === "ours") return { kind: "won", claim: { key, ref, sha: seen?.sha ?? "", record: step.record } };
	if (step.kind === "held") return { kind: "held", by: step.by, leftMs: step.leftMs };
	if (step.kind === "malformed") return { kind: "malformed" };
	const sha = await claimCommit(place.repo, step.record);
	if (!sha) return { kind: "lost" };
	const outcome = await swapRefs(place, [{ ref, expect: seen?.sha ?? "", next: sha }]);
	if (outcome === "unreachable") return { kind: "unreachable" };
	if (outcome === "refused") return { kind: "lost" };
	note(place, ref, sha);
	return { kind: "won", claim: { key, ref, sha, record: step.record } };
}

/** What `me` may do about the claim of item `key` as `seen` now (sighted: a lease runs on this process's clock). */
export function judgeClaim(
	place: ClaimPlace,
	key: string,
	seen: SeenClaim,
	me: Omit<Claimant, "wallNow">,
	leaseMs: number,
): ClaimStep {
	const sighting = seen === undefined ? undefined : note(place, claimRef(place.plan, key), seen.sha);
	return claimStep(place.plan, key, seen, sighting, performance.now(), leaseMs, { ...me, wallNow: Date.now() });
}

/** How a renewal or a release went: done, lost (the claim is another's now), or the remote was not reached. */
export type HoldResult = { kind: "renewed"; claim: HeldClaim } | { kind: "lost" } | { kind: "unreachable" };

/** Renews a held claim (compare-and-swap on the commit last seen): refused once another session has taken it over. */
export async function renewClaim(place: ClaimPlace, held: HeldClaim): Promise<HoldResult> {
	const record = renewed(held.record);
	const sha = await claimCommit(place.repo, record);
	if (!sha) return { kind: "lost" };
	const outcome = await swapRefs(place, [{ ref: held.ref, expect: held.sha, next: sha }]);
	if (outcome !== "done") return { kind: outcome === "refused" ? "lost" : "unreachable" };
	note(place, held.ref, sha);
	return { kind: "renewed", claim: { ...held, sha, record } };
}

/** Lets a held claim go, only if it is still the commit last seen: a claim taken over since stays its new holder's. */
export async function releaseClaim(place: ClaimPlace, held: HeldClaim): Promise<PushOutcome> {
	return swapRefs(place, [{ ref: held.ref, expect: held.sha, next: "" }]);
}
