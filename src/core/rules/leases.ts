/**
 * Claims as leases, the rules: what a claim record holds (read strictly, as data from another machine), where it
 * lives, when a claim may be taken over, and what a push of one did. A claim is taken over once this process has seen
 * it unchanged for the lease's time on its own monotonic clock: never by a time written in the claim (machines need
 * not agree on the time) and never by a process id (a pid is no proof of life). The edge (edges/git/leases.ts)
 * carries these out with compare-and-swap pushes.
 */

import { isRecordName, readRecord, recordMessage } from "./records.ts";

/** Where every claim lives, locally and on a remote: `refs/til-done/claims/<plan>/<item-key>`. */
export const CLAIM_ROOT = "refs/til-done/claims/";

/** The first line of a claim commit's message: what it is, and the version of the record after it. */
export const CLAIM_HEADER = "pi-til-done claim v1";

/** The longest plan or item name a claim's ref may carry. */
export const MAX_REF_NAME = 100;

/** The most renewals a record may count: far past any real lease, never a number JSON loses precision on. */
const MAX_COUNT = 1_000_000_000;

/** Who holds a claim, as its commit says. */
export interface ClaimRecord {
	plan: string;
	key: string;
	/** The holder's session id. */
	session: string;
	/** The holder's machine, as it names itself: shown to the team, never judged. */
	host: string;
	/** Made anew by each holder: a renewal or a landing is the holder's only while the claim still carries it. */
	nonce: string;
	/** 1 for a claim made where there was none; one more at each take-over. */
	fence: number;
	/** How often the holder renewed it: each renewal changes the claim, so the others see it live. */
	renewals: number;
	/** When the holder took it, by the holder's clock (ms since 1970): shown as "since", never judged. */
	since: number;
}

/** A name a ref may carry as one component: letters, digits, `-`, `_` and `.`, not `.` first, no `..`, no `.lock`. */
export function isRefName(name: string): boolean {
	return (
		name.length > 0 &&
		name.length <= MAX_REF_NAME &&
		/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name) &&
		!name.includes("..") &&
		!name.endsWith(".lock") &&
		!name.endsWith(".")
	);
}

/** A word as one ref component may hold it: what is not a letter, digit, `-` or `_` becomes `_`. */
const refWord = (word: string): string => word.replace(/[^A-Za-z0-9_-]+/g, "_");

/**
 * A plan's name in its claims' refs: the branch the sessions are on and the plan file they follow (relative to the
 * repository's top; `list` without one), as one ref component.
 */
export function planName(branch: string, planFile: string | undefined): string {
	return `${refWord(branch)}--${refWord(planFile ?? "list")}`.slice(0, MAX_REF_NAME);
}

/** The ref of an item's claim in a plan. */
export function claimRef(plan: string, key: string): string {
	return `${CLAIM_ROOT}${plan}/${key}`;
}

/** The item key a claim ref of `plan` names, or undefined when it is no such ref. */
export function keyOfClaimRef(plan: string, ref: string): string | undefined {
	const prefix = `${CLAIM_ROOT}${plan}/`;
	if (!ref.startsWith(prefix)) return undefined;
	const key = ref.slice(prefix.length);
	return isRefName(key) ? key : undefined;
}

/** A claim commit's message: the header, a blank line, the record as one line of JSON. */
export function claimMessage(record: ClaimRecord): string {
	return recordMessage(CLAIM_HEADER, record);
}

const TEXT_FIELDS = ["session", "host", "nonce"] as const;
const COUNT_FIELDS = ["fence", "renewals", "since"] as const;
const FIELDS = new Set<string>(["plan", "key", ...TEXT_FIELDS, ...COUNT_FIELDS]);

/**
 * The record a claim commit's message holds, read strictly: the header, one line of JSON with exactly the record's
 * fields, each of its type and bounds, naming the claim's own ref (`plan`, `key`); anything else is no claim.
 */
export function readClaimMessage(message: string, plan: string, key: string): ClaimRecord | undefined {
	const fields = readRecord(message, CLAIM_HEADER, FIELDS);
	if (fields === undefined || fields.plan !== plan || fields.key !== key) return undefined;
	if (!TEXT_FIELDS.every((name) => isRecordName(fields[name]))) return undefined;
	const counts = COUNT_FIELDS.map((name) => fields[name]);
	if (!counts.every((value) => Number.isSafeInteger(value) && (value as number) >= 0)) return undefined;
	if ((fields.fence as number) < 1 || (fields.renewals as number) > MAX_COUNT) return undefined;
	return fields as unknown as ClaimRecord;
}

/** What this process last saw of a claim ref: which commit, and since when by its own monotonic clock. */
export interface Sighting {
	sha: string;
	/** This process's monotonic time (ms) when it first saw `sha` there. */
	since: number;
}

/** The sighting after seeing `sha` at `now`: the same commit keeps its time, another starts anew. */
export function sight(previous: Sighting | undefined, sha: string, now: number): Sighting {
	return previous?.sha === sha ? previous : { sha, since: now };
}

/** What a session may do about one item's claim. */
export type ClaimStep =
	| { kind: "create"; record: ClaimRecord }
	| { kind: "take-over"; record: ClaimRecord; from: ClaimRecord }
	/** Held by another, live as far as this process can tell: `leftMs` more unchanged and it may be taken. */
	| { kind: "held"; by: ClaimRecord; leftMs: number }
	/** Ours already (our nonce): nothing to claim. */
	| { kind: "ours"; record: ClaimRecord }
	/** A ref where a claim should be that holds none: never taken by itself (`/todos remote release` frees it). */
	| { kind: "malformed" };

/** Who claims: the session, its machine's name, its nonce, and its own clock for "since". */
export interface Claimant {
	session: string;
	host: string;
	nonce: string;
	/** Wall-clock ms, written as the record's "since" for people to read. */
	wallNow: number;
}

/** What the claim ref holds now, as read: nothing, or a commit and its record (undefined when it is none). */
export type SeenClaim = undefined | { sha: string; record: ClaimRecord | undefined };

/**
 * Whether and how `me` claims item `key` of `plan`, given what the ref holds now and how long this process has seen
 * it unchanged (`sighting`, `now` on the same monotonic clock): where there is none it creates (fence 1); a claim
 * unchanged for `leaseMs` is taken over with the next fence; anything else is held.
 */
export function claimStep(
	plan: string,
	key: string,
	seen: SeenClaim,
	sighting: Sighting | undefined,
	now: number,
	leaseMs: number,
	me: Claimant,
): ClaimStep {
	const fresh = { plan, key, session: me.session, host: me.host, nonce: me.nonce, renewals: 0, since: me.wallNow };
	if (seen === undefined) return { kind: "create", record: { ...fresh, fence: 1 } };
	const held = seen.record;
	if (held === undefined) return { kind: "malformed" };
	if (held.nonce === me.nonce) return { kind: "ours", record: held };
	const unchangedMs = sighting?.sha === seen.sha ? now - sighting.since : 0;
	if (unchangedMs < leaseMs) return { kind: "held", by: held, leftMs: leaseMs - unchangedMs };
	return { kind: "take-over", record: { ...fresh, fence: held.fence + 1 }, from: held };
}

/** A claim renewed: the same holder, fence and nonce, one renewal more, so every other session sees it change. */
export function renewed(record: ClaimRecord): ClaimRecord {
	return { ...record, renewals: record.renewals + 1 };
}

/**
 * How often a session with nothing but items others hold reads their claims (one read, nothing fetched) while it
 * waits: a claim gone (landed or freed) or changed ends the wait at once, so a lease of minutes never keeps a finished
 * plan waiting, and the items are tried in full only then or once a lease may have run out.
 */
export const CLAIMS_POLL_MS = 1_000;

/** How often a holder renews its claim: three times within a lease, so one slow push never lets it run out. */
export function renewEveryMs(leaseMs: number): number {
	return Math.max(1, Math.floor(leaseMs / 3));
}

/**
 * What a push of claims did, from git's exit code and its `--porcelain` lines: done; refused (a lease did not hold, or
 * the remote refused the ref: another session was first); or the remote was not reached (nothing changed there).
 */
export type PushOutcome = "done" | "refused" | "unreachable";

export function pushOutcome(code: number, porcelain: string): PushOutcome {
	if (code === 0) return "done";
	return porcelain.split("\n").some((line) => line.startsWith("!\t")) ? "refused" : "unreachable";
}
