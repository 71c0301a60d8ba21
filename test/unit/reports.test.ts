import { describe, expect, it } from "vitest";
import { chainEndLine, GOAL_MET_WITH_LIST } from "../../src/core/rules/reports.ts";
import { allDone, loopFinished, loopLimit, verifiedNotice } from "../helpers/expected.ts";

describe("how a chain's end stays", () => {
	const text = { decision: "the decision's sentence", items: 2, passed: { checks: 3 } };

	it("a finished list: done, or done and verified with the checks that passed; one the judge left unverified: a warning", () => {
		expect(chainEndLine({ kind: "idle", code: "all-done" }, text)).toEqual({ level: "success", text: allDone(2) });
		expect(chainEndLine({ kind: "idle", code: "all-done", verified: true }, text)).toEqual({
			level: "success",
			text: verifiedNotice(2, 3),
		});
		const byJudge = { ...text, passed: { checks: 0, judge: true } };
		expect(chainEndLine({ kind: "idle", code: "all-done", verified: true }, byJudge)).toEqual({
			level: "success",
			text: verifiedNotice(2, 0, true),
		});
		expect(chainEndLine({ kind: "idle", code: "unverified" }, text)).toEqual({
			level: "warning",
			text: "the decision's sentence",
		});
	});

	it("a loop's or a goal's end: done or met a success, any other end a warning", () => {
		const done = { kind: "end-loop", code: "loop-done", text: loopFinished("DONE", 2), level: "info" } as const;
		const limit = { kind: "end-loop", code: "loop-limit", text: loopLimit(3, "DONE"), level: "warning" } as const;
		expect(chainEndLine(done, text)).toEqual({ level: "success", text: loopFinished("DONE", 2) });
		expect(chainEndLine(limit, text)).toEqual({ level: "warning", text: loopLimit(3, "DONE") });
		expect(GOAL_MET_WITH_LIST).toEqual({
			level: "success",
			text: "🎯 Goal met: the judge found it held with the list.",
		});
	});

	it("nothing for what is no outcome: a stop (a message of its own), a wait, a send", () => {
		expect(chainEndLine({ kind: "idle", code: "aborted" }, text)).toBeUndefined();
		expect(chainEndLine({ kind: "idle", code: "review-wait", index: 1 }, text)).toBeUndefined();
		expect(chainEndLine({ kind: "stop", code: "hard-cap", text: "limit" } as never, text)).toBeUndefined();
	});
});
