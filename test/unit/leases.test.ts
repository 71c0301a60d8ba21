/** Claims as leases, the pure rules: the record read strictly, when a claim may be taken over, what a push did. */
import { describe, expect, it } from "vitest";
import {
	type ClaimRecord,
	claimMessage,
	claimRef,
	claimStep,
	isRefName,
	keyOfClaimRef,
	planName,
	pushOutcome,
	readClaimMessage,
	renewEveryMs,
	renewed,
	sight,
} from "../../src/core/rules/leases.ts";

const record: ClaimRecord = {
	plan: "main-PLAN.md",
	key: "3-abc",
	session: "s1",
	host: "laptop",
	nonce: "n1",
	fence: 1,
	renewals: 0,
	since: 1_700_000_000_000,
};
const me = { session: "s2", host: "desktop", nonce: "n2", wallNow: 1_800_000_000_000 };
const LEASE = 60_000;

describe("a claim record is read strictly, as data from another machine", () => {
	it("a record written is read back the same", () => {
		expect(readClaimMessage(claimMessage(record), record.plan, record.key)).toEqual(record);
	});

	it.each([
		["another header", claimMessage(record).replace("v1", "v2")],
		["no header", `${JSON.stringify(record)}\n`],
		["a second line", `${claimMessage(record)}{}\n`],
		["not JSON", "pi-til-done claim v1\n\n{nope\n"],
		["an array", "pi-til-done claim v1\n\n[]\n"],
		["a field more", claimMessage({ ...record, pid: 1 } as ClaimRecord)],
		["a field less", claimMessage({ ...record, nonce: undefined } as unknown as ClaimRecord)],
		["another plan's", claimMessage({ ...record, plan: "other" })],
		["another item's", claimMessage({ ...record, key: "4-abc" })],
		["an empty session", claimMessage({ ...record, session: "" })],
		["a control character in the host", claimMessage({ ...record, host: "a\u001b[2Jb" })],
		["a host past 200 characters", claimMessage({ ...record, host: "h".repeat(201) })],
		["fence 0", claimMessage({ ...record, fence: 0 })],
		["a fractional fence", claimMessage({ ...record, fence: 1.5 })],
		["negative renewals", claimMessage({ ...record, renewals: -1 })],
		["renewals as text", claimMessage({ ...record, renewals: "1" } as unknown as ClaimRecord)],
		["renewals past the bound", claimMessage({ ...record, renewals: 1_000_000_001 })],
	])("%s is no claim", (_what, message) => {
		expect(readClaimMessage(message, record.plan, record.key)).toBeUndefined();
	});
});

describe("a claim's ref holds one plan's item by name", () => {
	it("names that are one safe ref component pass; others do not", () => {
		for (const name of ["3-abc", "main-PLAN.md", "a_b", "x"]) expect(isRefName(name)).toBe(true);
		for (const name of ["", ".hidden", "a..b", "a.lock", "a.", "a/b", "a b", "ä", "x".repeat(101)])
			expect(isRefName(name)).toBe(false);
	});

	it("a plan is named by its branch and its plan file, as one ref component", () => {
		expect(planName("main", "docs/PLAN.md")).toBe("main--docs_PLAN_md");
		expect(planName("feature/x", undefined)).toBe("feature_x--list");
		expect(isRefName(planName("a".repeat(200), "..lock"))).toBe(true);
	});

	it("the ref is under refs/til-done/claims/<plan>/, and read back only there", () => {
		expect(claimRef("p", "3-abc")).toBe("refs/til-done/claims/p/3-abc");
		expect(keyOfClaimRef("p", "refs/til-done/claims/p/3-abc")).toBe("3-abc");
		expect(keyOfClaimRef("p", "refs/til-done/claims/q/3-abc")).toBeUndefined();
		expect(keyOfClaimRef("p", "refs/til-done/claims/p/a/b")).toBeUndefined();
	});
});

describe("a claim is taken over only once this process has seen it unchanged for the lease", () => {
	it("where there is none, it is created with fence 1", () => {
		expect(claimStep("p", "k", undefined, undefined, 0, LEASE, me)).toEqual({
			kind: "create",
			record: {
				plan: "p",
				key: "k",
				session: "s2",
				host: "desktop",
				nonce: "n2",
				fence: 1,
				renewals: 0,
				since: me.wallNow,
			},
		});
	});

	it("a claim first seen now is held, however old the time written in it", () => {
		const seen = { sha: "a", record: { ...record, since: 0 } };
		const sighting = sight(undefined, "a", 5_000);
		expect(claimStep("p", "k", seen, sighting, 5_000, LEASE, me)).toEqual({
			kind: "held",
			by: seen.record,
			leftMs: LEASE,
		});
	});

	it("a claim this process has no sighting of is held for the whole lease", () => {
		const seen = { sha: "a", record: { ...record, since: 0 } };
		expect(claimStep("p", "k", seen, undefined, 5_000, LEASE, me)).toEqual({
			kind: "held",
			by: seen.record,
			leftMs: LEASE,
		});
	});

	it("unchanged for the lease it is taken over with the next fence; a moment before, it is held", () => {
		const seen = { sha: "a", record: { ...record, fence: 4 } };
		const sighting = sight(undefined, "a", 1_000);
		expect(claimStep("p", "k", seen, sighting, 1_000 + LEASE - 1, LEASE, me)).toMatchObject({
			kind: "held",
			leftMs: 1,
		});
		expect(claimStep("p", "k", seen, sighting, 1_000 + LEASE, LEASE, me)).toEqual({
			kind: "take-over",
			record: {
				plan: "p",
				key: "k",
				session: "s2",
				host: "desktop",
				nonce: "n2",
				fence: 5,
				renewals: 0,
				since: me.wallNow,
			},
			from: seen.record,
		});
	});

	it("a renewal (another commit there) starts the lease again", () => {
		const first = sight(undefined, "a", 0);
		expect(sight(first, "a", 50_000)).toBe(first);
		const after = sight(first, "b", 50_000);
		expect(after).toEqual({ sha: "b", since: 50_000 });
		const seen = { sha: "b", record: renewed(record) };
		expect(claimStep("p", "k", seen, after, LEASE + 1, LEASE, me)).toMatchObject({ kind: "held" });
		expect(seen.record.renewals).toBe(1);
	});

	it("a claim carrying our nonce is ours; a ref holding no claim is malformed and never taken", () => {
		const ours = { ...record, nonce: me.nonce };
		expect(claimStep("p", "k", { sha: "a", record: ours }, undefined, 0, LEASE, me)).toEqual({
			kind: "ours",
			record: ours,
		});
		const junk = { sha: "a", record: undefined };
		expect(claimStep("p", "k", junk, sight(undefined, "a", 0), 10 * LEASE, LEASE, me)).toEqual({ kind: "malformed" });
	});

	it("a holder renews three times within a lease", () => {
		expect(renewEveryMs(60_000)).toBe(20_000);
		expect(renewEveryMs(1)).toBe(1);
	});
});

describe("what a push of claims did", () => {
	it("exit 0 is done; a rejected line is refused; anything else did not reach the remote", () => {
		expect(pushOutcome(0, "*\tx:refs/a\t[new reference]\nDone\n")).toBe("done");
		expect(pushOutcome(1, "!\tx:refs/a\t[rejected] (stale info)\nDone\n")).toBe("refused");
		expect(pushOutcome(1, "!\tx:refs/a\t[remote rejected] (failed to update ref)\n")).toBe("refused");
		expect(pushOutcome(128, "")).toBe("unreachable");
	});
});
