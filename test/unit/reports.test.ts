import { describe, expect, it } from "vitest";
import { chainEndLine, GOAL_MET_WITH_LIST, MAX_WORKER_ANSWER_CHARS } from "../../src/core/rules/reports.ts";
import { finishedWorker, workerEndKind, workerEndLine, workerStartLine } from "../../src/core/rules/worker-reports.ts";
import { WORKER_TEXTS } from "../../src/core/texts/user/workers.ts";
import type { FinishedWorker, WorkerOutcome } from "../../src/types.ts";
import { allDone, loopFinished, loopLimit, verifiedNotice, WORKERS } from "../helpers/expected.ts";

const ran = { itemThere: true, seconds: 12, tokens: 2_829, answer: "Wrote a.txt." };
const item = { index: 0, text: "Write a.txt" };
const landed: WorkerOutcome = { kind: "landed", files: ["a.txt"] };

describe("a worker's kind of end: landed, given back, kept aside or could not start", () => {
	it.each<[WorkerOutcome, boolean, string]>([
		[landed, true, "landed"],
		[{ kind: "cannot-start", code: 1, stderr: "" }, true, "cannot-start"],
		[{ kind: "conflict", files: ["a.txt"] }, true, "given-back"],
		[{ kind: "stopped" }, true, "given-back"],
		[{ kind: "list-changed" }, false, "kept"],
		[{ kind: "stopped" }, false, "kept"],
	])("%j, its item there: %s → %s", (outcome, itemThere, kind) => {
		expect(workerEndKind(outcome, itemThere)).toBe(kind);
	});
});

describe("what a finished worker is remembered as", () => {
	it("its item, its end and why, its time and tokens, the files it changed, its answer", () => {
		expect(finishedWorker(item, landed, ran)).toEqual({
			index: 0,
			text: "Write a.txt",
			end: "landed",
			why: "it landed",
			seconds: 12,
			tokens: 2_829,
			files: ["a.txt"],
			answer: "Wrote a.txt.",
		});
	});

	it("one that did not land changed no file; its answer is kept up to its bound", () => {
		const long = "x".repeat(MAX_WORKER_ANSWER_CHARS + 10);
		const back = finishedWorker(item, { kind: "no-result" }, { ...ran, answer: long });
		expect(back.files).toEqual([]);
		expect(back.why).toBe("its work could not be kept");
		expect(Array.from(back.answer)).toHaveLength(MAX_WORKER_ANSWER_CHARS);
		expect(back.answer.endsWith("x…")).toBe(true);
	});

	it("one stopped with work of its own kept says so in its line; stopped without, or ended otherwise with work kept, does not", () => {
		const stopped: WorkerOutcome = { kind: "stopped" };
		const withWork = finishedWorker(item, stopped, { ...ran, workKept: true });
		expect(workerEndLine(withWork)).toEqual({ level: "warning", text: WORKERS.stoppedWithWork(0) });
		expect(workerEndLine(finishedWorker(item, stopped, ran))).toEqual({
			level: "warning",
			text: WORKERS.givenBack(0, WORKERS.stopped),
		});
		expect(finishedWorker(item, { kind: "no-result" }, { ...ran, workKept: true }).stoppedWithWork).toBeUndefined();
	});
});

describe("the line a worker leaves", () => {
	const worker = (over: Partial<FinishedWorker>): FinishedWorker => ({ ...finishedWorker(item, landed, ran), ...over });
	const masked = (line: { text: string } | undefined) => line?.text.replace(/in \d+ s,/, "in N s,");

	it("its start: told, with its item's text on one line and cut", () => {
		expect(workerStartLine(3, "Write a.txt")).toEqual({ level: "info", text: WORKERS.started(3, "Write a.txt") });
		expect(workerStartLine(3, `Write\n${"y".repeat(80)}`).text).toBe(WORKERS.started(3, `Write ${"y".repeat(53)}…`));
	});

	it("a landing: a success, with its time, tokens, files and answer", () => {
		const line = workerEndLine(worker({}));
		expect(line?.level).toBe("success");
		expect(line?.text).toBe('Worker on [0] landed in 12 s, 2,829 tokens: changed "a.txt"; it answered «Wrote a.txt.»');
		expect(masked(line)).toBe(WORKERS.landed(0, 2_829, ["a.txt"], "Wrote a.txt."));
	});

	it("five files named, the rest counted; none said so; names and the answer shown as data, on one line", () => {
		const files = ["a", "b", "c", "d", "e\nf", "g", "h"];
		expect(masked(workerEndLine(worker({ files })))).toBe(
			WORKERS.landed(0, 2_829, ["a", "b", "c", "d", "e f"], "Wrote a.txt.", 2),
		);
		expect(masked(workerEndLine(worker({ files: [], answer: "" })))).toBe(WORKERS.landed(0, 2_829, []));
		expect(masked(workerEndLine(worker({ answer: "Line one.\n\u001b[31mLine two." })))).toBe(
			WORKERS.landed(0, 2_829, ["a.txt"], "Line one. [31mLine two."),
		);
	});

	it("an answer past 100 characters is cut", () => {
		const answer = `${"w".repeat(120)}`;
		expect(masked(workerEndLine(worker({ index: 4, answer })))).toBe(
			WORKERS.landed(4, 2_829, ["a.txt"], `${"w".repeat(99)}…`),
		);
	});

	it("given back or kept aside: a warning with why, in the words of before; a pi that could not start: no line of its own", () => {
		const conflict = finishedWorker(item, { kind: "conflict", files: ["a.txt"] }, ran);
		expect(workerEndLine(conflict)).toEqual({
			level: "warning",
			text: WORKERS.givenBack(0, WORKERS.conflicts("a.txt")),
		});
		const kept = finishedWorker(item, { kind: "list-changed" }, { ...ran, itemThere: false });
		expect(workerEndLine(kept)).toEqual({ level: "warning", text: WORKER_TEXTS.workKept(0, kept.why) });
		const cannot = finishedWorker(item, { kind: "cannot-start", code: 1, stderr: "" }, ran);
		expect(workerEndLine(cannot)).toBeUndefined();
	});
});

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
