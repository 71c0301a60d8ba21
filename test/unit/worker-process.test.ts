/**
 * A worker's process, with small Node scripts in its place: what it spent and how it ended is read off its JSON lines,
 * and a timeout or an abort kills its whole process group (a grandchild it started too).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UsageRecord } from "../../src/core/rules/usage.ts";
import { piCommand, runWorker, type WorkerStart } from "../../src/edges/workers/worker-process.ts";
import { waitForValue } from "../helpers/cli.ts";

let dir = "";
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "til-done-worker-process-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const assistant = (text: string, input: number) =>
	JSON.stringify({
		type: "message_end",
		message: {
			role: "assistant",
			stopReason: "stop",
			content: [{ type: "text", text }],
			usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, cost: { total: 0.01 } },
		},
	});

/** A worker that runs `script` under Node. */
function start(script: string, overrides: Partial<WorkerStart> = {}): WorkerStart {
	return {
		command: process.execPath,
		args: ["-e", script],
		cwd: dir,
		env: process.env,
		timeoutMs: 30_000,
		signal: new AbortController().signal,
		...overrides,
	};
}

/** A script that starts a grandchild (its pid in `pid`), says it is ready, and then waits for ever. */
const HANGS = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
require("node:fs").writeFileSync("pid", String(child.pid));
console.log(${JSON.stringify(assistant("started", 5))});
setInterval(() => {}, 1000);
`;

const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

describe("a worker's JSON lines say what it spent and how it ended", () => {
	it("counts each assistant message's end as a call, reports its usage at once, and keeps the last answer", async () => {
		const lines = [
			"not json",
			JSON.stringify({ type: "message_end", message: { role: "user", content: "go" } }),
			JSON.stringify({ type: "message_end", message: { role: "assistant", content: "no usage, no stop reason" } }),
			assistant("first", 100),
			assistant("All done.", 200),
		];
		const usages: UsageRecord[] = [];
		const end = await runWorker(
			start(
				`console.log(${JSON.stringify(lines.join("\n"))}); process.stdout.write(${JSON.stringify(assistant("tail", 1))})`,
				{ onUsage: (usage) => usages.push(usage) },
			),
		);
		expect(end).toMatchObject({
			code: 0,
			calls: 4,
			answer: "tail",
			stopReason: "stop",
			timedOut: false,
			aborted: false,
		});
		expect(usages.map((usage) => usage.input)).toEqual([100, 200, 1]);
		expect(end.firstCallAt).toBeTypeOf("number");
	});

	it("an answer whose characters fall across the pipe's chunks is read whole: no character broken", async () => {
		// A line of 200,000 four-byte characters written a byte at a time around each chunk's edge: cut anywhere.
		const text = "😀".repeat(200_000);
		const script = `
const line = Buffer.from(${JSON.stringify(assistant("", 1))}.replace('"text":""', '"text":"' + "😀".repeat(200000) + '"') + "\\n");
let at = 0;
const next = () => { if (at >= line.length) return; const size = 65533; process.stdout.write(line.subarray(at, at + size), next); at += size; };
next();`;
		const answers: string[] = [];
		const end = await runWorker(start(script, { onAnswer: (answer) => answers.push(answer) }));
		expect(end.answer.length).toBe(text.length);
		expect(end.answer).toBe(text);
		expect(answers).toEqual([text]);
	});

	it("reports what the call in progress has spent as its stream updates it, wherever pi's JSON mode puts the usage", async () => {
		const usage = (input: number) => ({ input, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } });
		const lines = [
			JSON.stringify({ type: "message_update", usage: usage(100), assistantMessageEvent: { type: "text_delta" } }),
			JSON.stringify({ type: "message_update", message: { role: "assistant", usage: usage(120) } }),
			JSON.stringify({ type: "message_update", assistantMessageEvent: { type: "text_delta" } }),
			assistant("Done.", 130),
		];
		const streaming: number[] = [];
		const ended: number[] = [];
		const end = await runWorker(
			start(`console.log(${JSON.stringify(lines.join("\n"))})`, {
				onStreaming: (update) => streaming.push(update.input),
				onUsage: (update) => ended.push(update.input),
			}),
		);
		expect(streaming).toEqual([100, 120]);
		expect(ended).toEqual([130]);
		expect(end.calls).toBe(1);
	});

	it("reports each answer that wrote text as it ends: a call of tool calls alone leaves the last answer as it was", async () => {
		const toolsOnly = JSON.stringify({
			type: "message_end",
			message: { role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall", name: "write" }] },
		});
		const lines = [assistant("Reading the spec.", 10), toolsOnly, assistant("Wrote a.txt.", 20)];
		const answers: string[] = [];
		await runWorker(start(`console.log(${JSON.stringify(lines.join("\n"))})`, { onAnswer: (a) => answers.push(a) }));
		expect(answers).toEqual(["Reading the spec.", "Wrote a.txt."]);
	});

	it("keeps the end of stderr and the exit code", async () => {
		const end = await runWorker(start(`process.stderr.write("boom"); process.exit(3)`));
		expect(end).toMatchObject({ code: 3, calls: 0, answer: "", stderr: "boom" });
	});

	it("a command that cannot start ends at once, with why", async () => {
		const end = await runWorker(start("", { command: join(dir, "no-such-pi") }));
		// As a shell says a command it cannot run: an exit before any call, which reads as a pi that could not start.
		expect(end.code).toBe(127);
		expect(end.stderr).toContain("ENOENT");
	});

	it("a command that cannot start, under a stop that came first, ends at once with why: no process to kill", async () => {
		const stop = new AbortController();
		stop.abort();
		const end = await runWorker(start("", { command: join(dir, "no-such-pi"), signal: stop.signal }));
		expect([end.code, end.aborted, end.calls]).toEqual([127, true, 0]);
		expect(end.stderr).toContain("ENOENT");
	});
});

describe("a worker is stopped whole", () => {
	it.each([
		["past its time limit", "timedOut" as const],
		["when the run that started it is aborted", "aborted" as const],
	])("%s: its process group is killed, the grandchild with it", async (_name, how) => {
		const stop = new AbortController();
		let counted = false;
		const onUsage = () => {
			counted = true;
		};
		const limit = how === "timedOut" ? 1_000 : 60_000;
		const ended = runWorker(start(HANGS, { timeoutMs: limit, signal: stop.signal, onUsage }));
		// Its one model call is read before it is stopped: the call counts.
		await waitForValue(() => counted || undefined, 10_000, "the worker's model call");
		const pid = Number(
			await waitForValue(() =>
				existsSync(join(dir, "pid")) ? readFileSync(join(dir, "pid"), "utf8") || undefined : undefined,
			),
		);
		if (how === "aborted") stop.abort();
		const end = await ended;
		expect(end[how]).toBe(true);
		expect(end.calls).toBe(1);
		await waitForValue(() => (alive(pid) ? undefined : true), 10_000, "the grandchild gone");
	});

	it("a signal aborted before the start kills it at once", async () => {
		const stop = new AbortController();
		stop.abort();
		const end = await runWorker(start("setInterval(() => {}, 1000)", { signal: stop.signal }));
		expect(end.aborted).toBe(true);
	});
});

/** A script that starts a grandchild in a session of its own (`setsid`: out of its group), then exits at once. */
const LEAVES_DETACHED = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", detached: true });
child.unref();
require("node:fs").writeFileSync("pid", String(child.pid));
console.log(${JSON.stringify(assistant("done", 5))});
`;

describe("nothing a worker starts outlives it", () => {
	it("a grandchild in a session of its own, left running when the worker ended by itself, is gone before its end is told", async () => {
		const end = await runWorker(start(LEAVES_DETACHED));
		expect(end).toMatchObject({ code: 0, answer: "done" });
		const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
		await waitForValue(() => (alive(pid) ? undefined : true), 2_000, "the grandchild gone");
	});

	it("the same when it is stopped: what left its group goes too", async () => {
		const stop = new AbortController();
		const ended = runWorker(start(`${LEAVES_DETACHED}; setInterval(() => {}, 1000)`, { signal: stop.signal }));
		const pid = Number(
			await waitForValue(() =>
				existsSync(join(dir, "pid")) ? readFileSync(join(dir, "pid"), "utf8") || undefined : undefined,
			),
		);
		stop.abort();
		expect((await ended).aborted).toBe(true);
		await waitForValue(() => (alive(pid) ? undefined : true), 2_000, "the grandchild gone");
	});
});

describe("the command that runs pi again", () => {
	it("is this process's runtime and script; pi itself when the script is not a file", () => {
		expect(piCommand()).toEqual({ command: process.execPath, args: [process.argv[1]] });
		const script = process.argv[1];
		process.argv[1] = "/$bunfs/root/pi";
		try {
			expect(piCommand()).toEqual({ command: "pi", args: [] });
		} finally {
			process.argv[1] = script as string;
		}
	});
});
