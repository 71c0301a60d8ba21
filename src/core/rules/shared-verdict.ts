/**
 * A shared plan's verdict, the rules: one session verifies the branch's tip (the done-check, the items' checks, the
 * judge when on) and records what it found as a commit under `refs/til-done/verdicts/<plan>`; every other session
 * takes that verdict for the same tip. The record is data from another machine: written and read strictly here, a
 * malformed one is no verdict. The edge (edges/team/shared-verdict.ts) claims the verification and pushes the record.
 */

import { failedCheck } from "../texts/user.ts";
import { asJudgeResult } from "./branch.ts";
import { isRefName } from "./leases.ts";
import { judgeFailures } from "./next-step.ts";
import { hasFields, isCommitName, isRecordName, readRecord, recordMessage } from "./records.ts";
import type { JudgeResult } from "./verdict.ts";

/** Where each plan's verdict lives, locally and on a remote: `refs/til-done/verdicts/<plan>`. */
export const VERDICT_ROOT = "refs/til-done/verdicts/";

/** The first line of a verdict commit's message: what it is, and the version of the record after it. */
export const VERDICT_HEADER = "pi-til-done verdict v1";

/** The key the verification is claimed under, among the plan's claims: no item's key (`<index>-<hash>`) is a word. */
export const VERIFICATION_KEY = "verification";

/** The most checks a verdict may record: far past any plan's, so a record from another machine stays small. */
export const MAX_VERDICT_CHECKS = 1000;

/** The longest command or check end a verdict may record. */
export const MAX_VERDICT_TEXT = 10_000;

/** One check as the verifier ran it: its name, its command, whether it passed, and how it ended (`exit code 1`). */
export interface VerdictCheck {
	name: string;
	command: string;
	passed: boolean;
	ended: string;
}

/** What the verifier found on the branch's tip, and who it was. */
export interface SharedVerdict {
	plan: string;
	/** The commit of the branch that was verified. */
	tip: string;
	checks: VerdictCheck[];
	/** What the judge said, when it was asked. */
	judge?: JudgeResult;
	/** The verifier's session id and machine: shown to the team, never judged. */
	session: string;
	host: string;
}

/** The ref of a plan's verdict. */
export function verdictRef(plan: string): string {
	return `${VERDICT_ROOT}${plan}`;
}

/** A verdict commit's message: the header, a blank line, the record as one line of JSON. */
export function verdictMessage(verdict: SharedVerdict): string {
	return recordMessage(VERDICT_HEADER, verdict);
}

const FIELDS = new Set(["plan", "tip", "checks", "judge", "session", "host"]);
const CHECK_FIELDS = new Set(["name", "command", "passed", "ended"]);

const isText = (value: unknown): value is string =>
	typeof value === "string" && value.length <= MAX_VERDICT_TEXT && !/[\p{Cc}]/u.test(value);

function asCheck(value: unknown): VerdictCheck | undefined {
	if (!hasFields(value, CHECK_FIELDS)) return undefined;
	const { name, command, passed, ended } = value as Record<string, unknown>;
	if (!isRecordName(name) || !isText(command) || typeof passed !== "boolean" || !isText(ended)) return undefined;
	return { name, command, passed, ended };
}

/**
 * The verdict a commit's message holds, read strictly: the header, one line of JSON with exactly the record's fields
 * (the judge's optional), each of its type and bounds, naming `plan`; anything else is no verdict.
 */
export function readVerdictMessage(message: string, plan: string): SharedVerdict | undefined {
	const fields = readRecord(message, VERDICT_HEADER, FIELDS, ["judge"]);
	if (fields === undefined || fields.plan !== plan || !isRefName(plan) || !isCommitName(fields.tip)) return undefined;
	if (!isRecordName(fields.session) || !isRecordName(fields.host)) return undefined;
	if (!Array.isArray(fields.checks) || fields.checks.length > MAX_VERDICT_CHECKS) return undefined;
	const checks = fields.checks.map(asCheck);
	if (!checks.every((check) => check !== undefined)) return undefined;
	const judge = fields.judge === undefined ? undefined : asJudgeResult(fields.judge);
	if (fields.judge !== undefined && judge === undefined) return undefined;
	const verdict = { plan, tip: fields.tip, checks, session: fields.session, host: fields.host };
	return judge === undefined ? verdict : { ...verdict, judge };
}

/**
 * Whether `verdict` ran each of this session's `checks` (its name and command) and asked the judge where this
 * session's is on: a verdict that ran less (another machine's settings) is verified again here, never taken.
 */
export function coversChecks(
	verdict: SharedVerdict,
	checks: readonly { what: string; command: string }[],
	judgeOn: boolean,
): boolean {
	const ran = new Set(verdict.checks.map((check) => JSON.stringify([check.name, check.command])));
	const allRan = checks.every((check) => ran.has(JSON.stringify([check.what, check.command])));
	return allRan && (!judgeOn || verdict.judge !== undefined);
}

/** What every session takes from a shared verdict: passed, or each check (and the judge's word) that failed. */
export function sharedFindings(verdict: SharedVerdict): { passed: boolean; failed: string[]; checks: number } {
	const failed = [
		...verdict.checks.filter((check) => !check.passed).map((check) => failedCheck(check.name, check.ended)),
		...(verdict.judge === undefined ? [] : judgeFailures(verdict.judge)),
	];
	// A judge that did not pass everything says what failed (judgeFailures): no line, no failure.
	return { passed: failed.length === 0, failed, checks: verdict.checks.length + (verdict.judge ? 1 : 0) };
}
