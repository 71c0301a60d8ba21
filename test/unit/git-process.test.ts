/**
 * The git edge's processes end whole: a time limit, an abort or output past its bound ends the program's process
 * group, so a shell's children (a `git add -A` reading a huge file) never outlive it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENDED_CODE, runGrouped } from "../../src/edges/git/process.ts";

/** A shell that starts a child in the background, says its pid, and waits for it. */
const WAITS_ON_CHILD = "sleep 300 & echo $!; wait";

const base = { cwd: process.cwd(), env: process.env, maxBytes: 1_000 };

/** The pid the shell said. */
function childOf(stdout: Buffer): number {
	return Number(stdout.toString("utf8").trim());
}

/** Whether a process is gone (or a zombie nobody reaped yet), polled until it is or 5 s pass. */
async function ends(pid: number): Promise<boolean> {
	const over = () => {
		try {
			return readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z");
		} catch {
			return true;
		}
	};
	for (let waited = 0; waited < 5_000 && !over(); waited += 10) await new Promise((wake) => setTimeout(wake, 10));
	return over();
}

describe("a grouped run ends with its whole group", () => {
	it("a program that cannot start, under a signal aborted already, is code 127, with why", async () => {
		const ended = await runGrouped("no-such-program-here", [], {
			...base,
			timeoutMs: 60_000,
			signal: AbortSignal.abort(),
		});
		expect(ended.code).toBe(127);
		expect(ended.stderr).toContain("ENOENT");
	});

	it("its time limit ends the shell and the child it left waiting", async () => {
		const ended = await runGrouped("sh", ["-c", WAITS_ON_CHILD], { ...base, timeoutMs: 300 });
		expect(ended.code).toBe(ENDED_CODE);
		expect(await ends(childOf(ended.stdout))).toBe(true);
	});

	it("an abort ends the shell and its child at once", async () => {
		const stop = new AbortController();
		const running = runGrouped("sh", ["-c", `${WAITS_ON_CHILD} >&2`], {
			...base,
			timeoutMs: 60_000,
			signal: stop.signal,
		});
		stop.abort();
		const ended = await running;
		expect(ended.code).toBe(ENDED_CODE);
	});

	it("output past its bound ends the run, which fails", async () => {
		const ended = await runGrouped("sh", ["-c", "yes | head -c 5000; sleep 300"], { ...base, timeoutMs: 60_000 });
		expect(ended.code).toBe(ENDED_CODE);
		expect(ended.stdout.length).toBeLessThanOrEqual(1_000);
	});

	it("a program that ends by itself leaves nothing of its group behind", async () => {
		const ended = await runGrouped("sh", ["-c", "sleep 300 >/dev/null & echo $!"], { ...base, timeoutMs: 60_000 });
		expect(ended.code).toBe(0);
		expect(await ends(childOf(ended.stdout))).toBe(true);
	});

	it("an abort ends its own run's group only: a run beside it goes on to its end", async () => {
		const stop = new AbortController();
		const aborted = runGrouped("sleep", ["300"], { ...base, timeoutMs: 60_000, signal: stop.signal });
		const beside = runGrouped("sh", ["-c", "sleep 0.2; echo done"], { ...base, timeoutMs: 60_000 });
		stop.abort();
		expect((await aborted).code).toBe(ENDED_CODE);
		const ended = await beside;
		expect([ended.code, ended.stdout.toString("utf8")]).toEqual([0, "done\n"]);
	});

	it("a program a signal killed is ended (code 124), never a success", async () => {
		const ended = await runGrouped("sh", ["-c", "kill -KILL $$"], { ...base, timeoutMs: 60_000 });
		expect(ended.code).toBe(ENDED_CODE);
	});

	it("a run whose signal was aborted before it started is ended at once, its time limit adding nothing", async () => {
		const ended = await runGrouped("sleep", ["300"], { ...base, timeoutMs: 1, signal: AbortSignal.abort() });
		expect(ended.code).toBe(ENDED_CODE);
	});

	it("a program that cannot start is code 127, with why", async () => {
		const ended = await runGrouped("no-such-program-here", [], { ...base, timeoutMs: 60_000 });
		expect(ended.code).toBe(127);
		expect(ended.stderr).toContain("ENOENT");
	});
});
