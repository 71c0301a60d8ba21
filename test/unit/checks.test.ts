/**
 * runCheck against real processes, through pi's own exec (spawn without a shell, SIGTERM to the direct child only on
 * abort or time-out, `code ?? 0`, a `killed` flag): whatever the check
 * does (fails, hangs, ignores TERM, leaves a grandchild, floods its output), runCheck reports what happened and
 * leaves nothing running.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecResult } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { execCommand } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/exec.js";
import { CHECK_CAPTURE_BYTES, type Exec, runCheck } from "../../src/edges/checks/run-check.ts";
import { killRunnerAbove } from "../helpers/workers.ts";

/** pi's own `pi.exec` (the package does not export it by name; this is the module `pi.exec` calls). */
const exec: Exec = (command, args, options) => execCommand(command, args, options?.cwd ?? process.cwd(), options);

/** pi's exec with another PATH: it spawns without an environment of its own, so it takes the one in force. */
function execWithPath(path: string): Exec {
	return (command, args, options) => {
		const saved = process.env.PATH;
		process.env.PATH = path;
		try {
			return exec(command, args, options);
		} finally {
			process.env.PATH = saved;
		}
	};
}

let dir: string;

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-checks-")));
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/**
 * Whether a process still runs. `process.kill(pid, 0)` throws once it is gone; a zombie (dead, its exit not yet
 * collected) still answers it, and an orphan's zombie waits for PID 1, which in some containers collects late. So a
 * zombie counts as gone: it runs nothing and holds nothing.
 */
function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
	} catch {
		return false;
	}
}

/**
 * Waits until the process is gone. A check's processes are killed together, so the last of them may still be on its
 * way out (a SIGKILL pending, not yet handled) when the others' ends let runCheck return; a process left running
 * keeps this waiting until it fails.
 */
async function expectGone(pid: number): Promise<void> {
	await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 2000, interval: 10 });
}

const pidIn = (file: string) => Number(readFileSync(join(dir, file), "utf8").trim());

/**
 * A shell line that starts `what` in the background (through `how`: `nohup`, `setsid`, `env -i setsid`) and goes on
 * once its pid, as this machine sees it, is in `file`: the check runs in a pid namespace of its own, where `$!` is
 * another number.
 */
const inBackground = (file: string, what: string, how = "", redirect = "") =>
	`${how} bash -c 'read -r pid _ < /proc/self/stat; echo $pid > ${file}; exec ${what}' ${redirect} & until [ -s ${file} ]; do sleep 0.01; done`;

/** `exec`, keeping what it returned, to show what pi's exec itself reported. */
function recording(): { exec: Exec; results: ExecResult[] } {
	const results: ExecResult[] = [];
	return {
		results,
		exec: async (command, args, options) => {
			const result = await exec(command, args, options);
			results.push(result);
			return result;
		},
	};
}

describe("a check passes only when its command exits 0", () => {
	it("reports a passing command with code 0 and its output", async () => {
		const run = await runCheck(exec, "echo ok", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toEqual({
			command: "echo ok",
			passed: true,
			code: 0,
			timedOut: false,
			aborted: false,
			output: "ok\n",
			ms: expect.any(Number),
		});
	});

	it("reports a failing command with its exit code and stdout and stderr merged in order", async () => {
		const command = "echo out; echo err >&2; echo more; exit 3";
		const run = await runCheck(exec, command, { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ command, passed: false, code: 3, timedOut: false, aborted: false });
		expect(run.output).toBe("out\nerr\nmore\n");
	});

	it("does not pass a command killed by a signal: its code is 128 plus the signal", async () => {
		const run = await runCheck(exec, "echo dying; kill -KILL $$", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: false, code: 137, timedOut: false, aborted: false, output: "dying\n" });
	});

	it("does not pass a check whose runner is SIGKILLed while the check goes on to exit 1 (pi 0.87's exec reads the runner's end as 0)", async () => {
		const running = runCheck(exec, "read -r pid _ < /proc/self/stat; echo $pid > me; sleep 1; exit 1", {
			cwd: dir,
			timeoutSeconds: 10,
		});
		await vi.waitFor(() => expect(pidIn("me")).toBeGreaterThan(0), { timeout: 1500, interval: 20 });
		expect(killRunnerAbove(pidIn("me"))).toBe(true);
		expect(await running).toMatchObject({ passed: false, code: 137, timedOut: false, aborted: false });
	});

	it("does not pass a command that kills its whole process group, its runner's leader with it (pi 0.87's exec reads that as 0)", async () => {
		const run = await runCheck(exec, "kill -KILL 0", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: false, code: 137, timedOut: false, aborted: false, output: "" });
	});
});

describe("a check that runs past its timeout is stopped with everything it started", () => {
	it("counts as timed out, keeps what it printed before, and leaves no grandchild behind", async () => {
		const command = `${inBackground("grandchild", "sleep 30")}; echo before; echo said >&2; wait`;
		const seen = recording();
		const run = await runCheck(seen.exec, command, { cwd: dir, timeoutSeconds: 1 });
		expect(seen.results).toMatchObject([{ code: 124, killed: false }]);
		expect(run).toMatchObject({ command, passed: false, code: null, timedOut: true, aborted: false });
		expect(run.output).toBe("before\nsaid\n");
		const pid = pidIn("grandchild");
		expect(pid).toBeGreaterThan(0);
		await expectGone(pid);
	});

	it("isRunning sees a live process, so the checks above could fail", async () => {
		const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
		const ended = new Promise((resolve) => sleeper.once("exit", resolve));
		expect(isRunning(sleeper.pid!)).toBe(true);
		sleeper.kill("SIGKILL");
		await ended;
		expect(isRunning(sleeper.pid!)).toBe(false);
	});

	it("a command that ignores TERM is killed after the grace and counts as timed out, not passed", async () => {
		const command = `trap '' TERM; ${inBackground("grandchild", "sleep 30")}; echo stubborn; wait; wait; exit 0`;
		const seen = recording();
		const run = await runCheck(seen.exec, command, { cwd: dir, timeoutSeconds: 1 });
		// `timeout` sent KILL to its whole group, itself included: the runner outside it says so, 128 + 9.
		expect(seen.results).toMatchObject([{ code: 137, killed: false }]);
		expect(run).toMatchObject({ command, passed: false, code: null, timedOut: true, aborted: false });
		await expectGone(pidIn("grandchild"));
	}, 15_000);
});

/** Starts `sleep` with no environment, in a session of its own, writing its pid to `file`. */
const GONE_FOR_GOOD = (file: string) => inBackground(file, "sleep 300", "env -i setsid", "</dev/null >/dev/null 2>&1");

describe("a check ends when its shell exits, and everything it started goes with it", () => {
	/** Starts an ordinary background job, a `nohup` one and a `setsid` one, each writing its pid to a file. */
	const STARTS_THREE = `${inBackground("plain", "sleep 300")}; ${inBackground("nohup", "sleep 300", "nohup", ">/dev/null 2>&1")}; ${inBackground("setsid", "sleep 300", "setsid")}`;

	it("a job left in the background holding the output open does not hold the verdict: it passes, not times out", async () => {
		const run = await runCheck(exec, `${inBackground("plain", "sleep 300")}; echo started`, {
			cwd: dir,
			timeoutSeconds: 20,
		});
		expect(run).toMatchObject({ passed: true, code: 0, timedOut: false, aborted: false, output: "started\n" });
		await expectGone(pidIn("plain"));
	});

	it("after a pass, its ordinary, nohup and setsid children are gone", async () => {
		const run = await runCheck(exec, `${STARTS_THREE}; echo started`, { cwd: dir, timeoutSeconds: 20 });
		expect(run).toMatchObject({ passed: true, timedOut: false, output: "started\n" });
		for (const file of ["plain", "nohup", "setsid"]) await expectGone(pidIn(file));
	});

	it("after a failure, the same", async () => {
		const run = await runCheck(exec, `${STARTS_THREE}; exit 2`, { cwd: dir, timeoutSeconds: 20 });
		expect(run).toMatchObject({ passed: false, code: 2, timedOut: false });
		for (const file of ["plain", "nohup", "setsid"]) await expectGone(pidIn(file));
	});

	it("after a timeout, the same", async () => {
		const run = await runCheck(exec, `${STARTS_THREE}; wait`, { cwd: dir, timeoutSeconds: 1 });
		expect(run).toMatchObject({ passed: false, code: null, timedOut: true });
		for (const file of ["plain", "nohup", "setsid"]) await expectGone(pidIn(file));
	});

	it("after an abort, the same", async () => {
		const controller = new AbortController();
		const running = runCheck(exec, `${STARTS_THREE}; echo started; wait`, {
			cwd: dir,
			timeoutSeconds: 20,
			signal: controller.signal,
		});
		await vi.waitFor(() => expect(pidIn("setsid")).toBeGreaterThan(0), { timeout: 1500, interval: 20 });
		controller.abort();
		expect(await running).toMatchObject({ passed: false, aborted: true });
		for (const file of ["plain", "nohup", "setsid"]) await expectGone(pidIn(file));
	});

	it("a child that clears its environment, leaves the session and the folder still goes with the check", async () => {
		const command = `${GONE_FOR_GOOD("gone")}; echo started`;
		const run = await runCheck(exec, command, { cwd: dir, timeoutSeconds: 20 });
		expect(run).toMatchObject({ passed: true, code: 0, timedOut: false, output: "started\n" });
		await expectGone(pidIn("gone"));
	});

	it("such a child holding the output open does not hold the verdict: the check passes by its exit, at once", async () => {
		const run = await runCheck(exec, `${inBackground("held", "sleep 300", "env -i setsid")}; true`, {
			cwd: dir,
			timeoutSeconds: 20,
		});
		expect(run).toMatchObject({ passed: true, code: 0, timedOut: false, aborted: false, output: "" });
		await expectGone(pidIn("held"));
	});

	it("isRunning sees a setsid process, so the test above could fail", async () => {
		const sleeper = spawn("setsid", ["sleep", "30"], { stdio: "ignore" });
		await vi.waitFor(() => expect(isRunning(sleeper.pid!)).toBe(true), { timeout: 1000, interval: 10 });
		process.kill(sleeper.pid!, "SIGKILL");
		await expectGone(sleeper.pid!);
	});
});

describe("an aborted run stops its check", () => {
	it("stops a running check when the signal fires: aborted, not passed, no code, nothing left running", async () => {
		const controller = new AbortController();
		const running = runCheck(exec, `echo started; ${inBackground("grandchild", "sleep 30")}; wait`, {
			cwd: dir,
			timeoutSeconds: 20,
			signal: controller.signal,
		});
		// Abort once the check is really running, not while pi's exec is still spawning it.
		await vi.waitFor(() => expect(pidIn("grandchild")).toBeGreaterThan(0), { timeout: 1500, interval: 20 });
		controller.abort();
		const run = await running;
		expect(run).toMatchObject({ passed: false, code: null, timedOut: false, aborted: true });
		expect(run.output).toBe("started\n");
		await expectGone(pidIn("grandchild"));
	});

	it("a check that ignores TERM is killed at the stop, with what it started, not at its timeout", async () => {
		const controller = new AbortController();
		const running = runCheck(
			exec,
			`trap '' TERM; ${inBackground("grandchild", "sleep 600")}; echo stubborn; touch said; wait; wait`,
			{
				cwd: dir,
				timeoutSeconds: 600,
				signal: controller.signal,
			},
		);
		// Stopped once it has said what it says before it waits: the stop must not race its words.
		await vi.waitFor(() => expect(existsSync(join(dir, "said"))).toBe(true), { timeout: 1500, interval: 20 });
		controller.abort();
		const run = await running;
		expect(run).toMatchObject({ passed: false, code: null, timedOut: false, aborted: true, output: "stubborn\n" });
		await expectGone(pidIn("grandchild"));
	}, 15_000);

	it("does not pass a check whose signal was already aborted", async () => {
		const controller = new AbortController();
		controller.abort();
		const run = await runCheck(exec, "true", { cwd: dir, timeoutSeconds: 10, signal: controller.signal });
		expect(run).toMatchObject({ command: "true", passed: false, code: null, timedOut: false, aborted: true });
	});
});

describe("a runaway output is cut to its tail while the check runs", () => {
	it(`keeps at most ${CHECK_CAPTURE_BYTES} bytes of 50 MB, the last ones, and the check still passes`, async () => {
		const run = await runCheck(exec, "yes | head -c 50000000", { cwd: dir, timeoutSeconds: 20 });
		expect(run).toMatchObject({ passed: true, code: 0, timedOut: false });
		expect(run.output.length).toBeLessThanOrEqual(CHECK_CAPTURE_BYTES);
		expect(run.output).toBe("y\n".repeat(CHECK_CAPTURE_BYTES / 2));
	});

	it("keeps the end of a long output that ends in an error", async () => {
		const run = await runCheck(exec, "seq 1 100000; echo 'FAILED: the last line' >&2; exit 1", {
			cwd: dir,
			timeoutSeconds: 20,
		});
		expect(run).toMatchObject({ passed: false, code: 1 });
		expect(run.output.length).toBeLessThanOrEqual(CHECK_CAPTURE_BYTES);
		expect(run.output.endsWith("99999\n100000\nFAILED: the last line\n")).toBe(true);
	});
});

describe("the command runs exactly as written", () => {
	it("keeps single and double quotes, $HOME, backslashes and semicolons", async () => {
		const command = `printf '%s|' 'single "double"' "double 'single'" "$HOME" 'back\\slash' "a\\\\b" 'x;y' \${HOME:+set}`;
		const run = await runCheck(exec, command, { cwd: dir, timeoutSeconds: 10 });
		expect(run.command).toBe(command);
		expect(run).toMatchObject({ passed: true, code: 0 });
		expect(run.output).toBe(`single "double"|double 'single'|${process.env.HOME}|back\\slash|a\\b|x;y|set|`);
	});

	it("runs a multi-line command and sees no positional parameters of the runner", async () => {
		const run = await runCheck(exec, 'echo "[$#][$1][$2][$3]"\necho second', { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: true, output: "[0][][][]\nsecond\n" });
	});

	it("runs in the given folder", async () => {
		mkdirSync(join(dir, "sub"));
		const run = await runCheck(exec, "pwd; test -d ../sub", { cwd: join(dir, "sub"), timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: true, code: 0, output: `${join(dir, "sub")}\n` });
	});
});

describe("a check that cannot start fails and never throws", () => {
	it("turns an exec that rejects with an Error into a failed run with its message", async () => {
		const rejecting: Exec = () => Promise.reject(new Error("spawn bash ENOENT"));
		const run = await runCheck(rejecting, "true", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toEqual({
			command: "true",
			passed: false,
			code: 1,
			timedOut: false,
			aborted: false,
			output: "spawn bash ENOENT",
			ms: expect.any(Number),
		});
	});

	it("turns an exec that rejects with a non-Error into a failed run", async () => {
		const rejecting: Exec = () => Promise.reject("no shell");
		const run = await runCheck(rejecting, "true", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: false, code: 1, output: "no shell" });
	});

	it("fails (pi's exec reports code 1) when the folder does not exist", async () => {
		const run = await runCheck(exec, "true", { cwd: join(dir, "missing"), timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: false, code: 1, timedOut: false, aborted: false });
	});
});

describe("without coreutils timeout the check still runs plainly", () => {
	/** A PATH holding only bash and tail, so `command -v timeout` finds nothing. */
	function bareExec(): Exec {
		const bin = join(dir, "bin");
		mkdirSync(bin);
		symlinkSync("/bin/bash", join(bin, "bash"));
		symlinkSync("/usr/bin/tail", join(bin, "tail"));
		return execWithPath(bin);
	}

	it("reports a passing command", async () => {
		const run = await runCheck(bareExec(), "echo plain", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: true, code: 0, timedOut: false, output: "plain\n" });
	});

	it("reports a failing command with its code and merged output", async () => {
		const run = await runCheck(bareExec(), "echo out; echo err >&2; exit 4", { cwd: dir, timeoutSeconds: 10 });
		expect(run).toMatchObject({ passed: false, code: 4, timedOut: false, output: "out\nerr\n" });
	});
});
