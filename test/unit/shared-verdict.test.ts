/**
 * A shared plan's verdict, the rules: the record a verifier pushes is read strictly (anything else is no verdict), every
 * session takes the same findings from it, and a failed shared verdict stops the chain alike everywhere, reopening
 * nothing (the items are landed on the branch).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialChain } from "../../src/core/rules/chain.ts";
import { judgeVerification, type StepInput, stepNow } from "../../src/core/rules/next-step.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import {
	coversChecks,
	MAX_VERDICT_CHECKS,
	readVerdictMessage,
	type SharedVerdict,
	sharedFindings,
	VERDICT_HEADER,
	verdictMessage,
	verdictRef,
} from "../../src/core/rules/shared-verdict.ts";
import { SHARED_VERDICT_TEXTS } from "../../src/core/texts/user/shared-verdict.ts";
import { REMOTE_DOWN_STOP, sharedUnverifiedStop } from "../../src/core/texts/user.ts";
import type { CheckRun, TodoItem } from "../../src/types.ts";

const PLAN = "main--PLAN_md";
const TIP = "a".repeat(40);
const verdict: SharedVerdict = {
	plan: PLAN,
	tip: TIP,
	checks: [
		{ name: "the done-check", command: "test -f out/0.txt", passed: true, ended: "exit code 0" },
		{ name: "the check of [1]", command: "grep -q 1 out/1.txt", passed: false, ended: "exit code 1" },
	],
	session: "s-laptop",
	host: "laptop",
};

describe("the verdict record", () => {
	it("is read back as written, under refs/til-done/verdicts/<plan>", () => {
		expect(verdictRef(PLAN)).toBe("refs/til-done/verdicts/main--PLAN_md");
		expect(readVerdictMessage(verdictMessage(verdict), PLAN)).toEqual(verdict);
		const judged: SharedVerdict = {
			...verdict,
			judge: { judged: true, items: [{ index: 0, verdict: "met", reason: "ok" }] },
		};
		expect(readVerdictMessage(verdictMessage(judged), PLAN)).toEqual(judged);
	});

	const body = (fields: Record<string, unknown>) => `${VERDICT_HEADER}\n\n${JSON.stringify(fields)}\n`;
	it.each([
		["another header", verdictMessage(verdict).replace("v1", "v2")],
		["a second line", `${verdictMessage(verdict)}{}\n`],
		["no JSON", `${VERDICT_HEADER}\n\nnot json\n`],
		["an array", `${VERDICT_HEADER}\n\n[]\n`],
		["another plan", verdictMessage({ ...verdict, plan: "other--list" })],
		["a tip that is no commit", body({ ...verdict, tip: "main" })],
		["a field more", body({ ...verdict, extra: 1 })],
		["a field missing", body({ ...verdict, host: undefined })],
		["a host with a control character", body({ ...verdict, host: "lap\u001btop" })],
		["a check with a field more", body({ ...verdict, checks: [{ ...verdict.checks[0], code: 0 }] })],
		["a check passed as a word", body({ ...verdict, checks: [{ ...verdict.checks[0], passed: "yes" }] })],
		["checks that are no list", body({ ...verdict, checks: {} })],
		["too many checks", body({ ...verdict, checks: Array(MAX_VERDICT_CHECKS + 1).fill(verdict.checks[0]) })],
		["a judge that is no verdict", body({ ...verdict, judge: { judged: "maybe" } })],
	])("%s is no verdict", (_what, message) => {
		expect(readVerdictMessage(message, PLAN)).toBeUndefined();
	});

	it("any record written is read back as itself; any change of its JSON's shape is none", () => {
		const text = fc.string({ minLength: 1, maxLength: 30 }).filter((value) => !/\p{Cc}/u.test(value));
		const check = fc.record({
			name: text,
			command: fc.string({ maxLength: 60 }).filter((value) => !/\p{Cc}/u.test(value)),
			passed: fc.boolean(),
			ended: text,
		});
		const record = fc.record({
			plan: fc.constant(PLAN),
			tip: fc.stringMatching(/^[0-9a-f]{40}$/),
			checks: fc.array(check, { maxLength: 5 }),
			session: text,
			host: text,
		});
		fc.assert(
			fc.property(record, fc.string(), (written, key) => {
				expect(readVerdictMessage(verdictMessage(written), PLAN)).toEqual(written);
				expect(readVerdictMessage(body({ ...written, [`x${key}`]: 1 }), PLAN)).toBeUndefined();
			}),
		);
	});
});

describe("what every session takes from a shared verdict", () => {
	it("the failed checks, as a verification of its own names them, and the judge's word; passed when none failed", () => {
		expect(sharedFindings(verdict)).toEqual({ passed: false, failed: ["the check of [1] (exit code 1)"], checks: 2 });
		const passing = { ...verdict, checks: verdict.checks.slice(0, 1) };
		expect(sharedFindings(passing)).toEqual({ passed: true, failed: [], checks: 1 });
		const unjudged = { ...passing, judge: { judged: false as const, why: "no model" } };
		expect(sharedFindings(unjudged)).toMatchObject({ passed: false, checks: 2 });
		expect(sharedFindings(unjudged).failed).toHaveLength(1);
	});

	it("is taken only where it ran each of this session's checks (name and command), and the judge where it is on here", () => {
		const done = { what: "the done-check", command: "test -f out/0.txt" };
		expect(coversChecks(verdict, [done], false)).toBe(true);
		expect(coversChecks(verdict, [], false)).toBe(true);
		expect(coversChecks(verdict, [{ ...done, command: "npm test" }], false)).toBe(false);
		expect(coversChecks(verdict, [{ what: "the check of [2]", command: "true" }], false)).toBe(false);
		expect(coversChecks(verdict, [done], true)).toBe(false);
		const judged = { ...verdict, judge: { judged: false as const, why: "no model" } };
		expect(coversChecks(judged, [done], true)).toBe(true);
	});

	it("is said in one line: whose verdict, on which tip, what it found", () => {
		const on = { branch: "main", remote: "origin", tip: TIP, host: "laptop" };
		expect(SHARED_VERDICT_TEXTS.taken(on, true, [], 2)).toBe(
			"The shared plan on main of origin verified at aaaaaaa by laptop: passed (2 checks).",
		);
		expect(SHARED_VERDICT_TEXTS.taken(on, false, ["the done-check (exit code 1)"], 1)).toBe(
			"The shared plan on main of origin verified at aaaaaaa by laptop: failed: the done-check (exit code 1).",
		);
	});
});

describe("a shared plan's finished list", () => {
	const done = (text: string, check?: string): TodoItem => ({ text, status: "completed", ...(check ? { check } : {}) });
	const todos = [done("a", "grep -q a a.txt"), done("b")];
	const input = (workers: StepInput["workers"]): StepInput => ({
		todos,
		chain: initialChain(),
		loop: undefined,
		limits: DEFAULT_CONFIG,
		doneCheck: "npm test",
		modelChecks: true,
		workers,
	});
	const failure = { branch: "main", remote: "origin", tip: TIP, failed: ["the done-check (exit code 1)"] };

	it("whose shared verdict failed stops with its own stop, naming the branch, the remote, the tip and what failed", () => {
		const step = stepNow(input({ max: 2, running: [], shared: true, sharedFailed: failure }));
		expect(step).toEqual({
			kind: "stop",
			code: "shared-unverified",
			text: sharedUnverifiedStop("main", "origin", TIP, failure.failed),
		});
		expect(step.kind === "stop" ? step.text : "").toBe(
			"Auto-continue stopped: the shared plan on main of origin failed its verification at aaaaaaa (the done-check (exit code 1)). Its items are landed on the branch, so none is reopened here: fix it on main, then run again.",
		);
	});

	it("whose remote has not answered for a lease stops as a remote down; answering, it verifies; a plan not shared verifies", () => {
		expect(stepNow(input({ max: 2, running: [], shared: true, remoteDown: true }))).toEqual({
			kind: "stop",
			code: "remote-down",
			text: REMOTE_DOWN_STOP,
		});
		expect(stepNow(input({ max: 2, running: [], shared: true }))).toMatchObject({ kind: "verify" });
		expect(stepNow(input({ max: 2, running: [], remoteDown: true, sharedFailed: failure }))).toMatchObject({
			kind: "verify",
		});
	});

	it("reopens no item when a check of its fails, and carries no report to a continuation", () => {
		const run: CheckRun = { command: "x", passed: false, code: 1, timedOut: false, aborted: false, output: "", ms: 1 };
		const check = { what: "the check of [0]", command: "grep -q a a.txt", index: 0 };
		const shared = judgeVerification(input({ max: 2, running: [], shared: true }), [[check, run]], 60);
		expect(shared).toEqual({
			passed: false,
			failed: ["the check of [0] (exit code 1)"],
			reopen: [],
			chain: initialChain(),
		});
		const own = judgeVerification(input({ max: 2, running: [] }), [[check, run]], 60);
		expect(own.reopen).toEqual([0]);
	});
});
