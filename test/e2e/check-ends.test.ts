/**
 * A check ends with its shell, everything it started with it, and is judged by how it ended: the session's done-check
 * in the real pi, on both lines, against a real repository. A child that clears its environment, leaves the session and
 * the folder, and holds the output open neither outlives pi nor holds the verdict; a check whose runner is killed by a
 * signal fails, where pi 0.87's exec reads the runner's end as exit 0.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	EXTENSION_ENTRY,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	piArgs,
	runPrint,
	spawnPi,
	waitForExit,
	waitForValue,
} from "../helpers/cli.ts";
import { allVerified, repeatedAnswer, stderrLine, UNVERIFIED_HEAD, UNVERIFIED_TAKE_OVER } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll, killRunnerAbove, runningExactly } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
const leftover: number[] = [];
afterEach(() => killAll(leftover.splice(0)));

function print(host: PiHost, env: IsolatedEnv) {
	return runPrint(["-p", "Work the list."], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
		timeoutMs: 90_000,
	});
}

/** A list of one item the model finishes, with `check` as the session's done-check. */
function withDoneCheck(check: string, more: Record<string, string> = {}): IsolatedEnv {
	const env = pi.env([writeStep(["Tidy"]), startStep(0), completeStep(0), sayStep("Done.")], {
		TIL_DONE_CHECK: check,
		...more,
	});
	userRepo(env);
	return env;
}

/** A done-check that says its pid, as this machine sees it, in `check.pid`, then fails a second later. */
const SAYS_ITS_PID = "read -r pid _ < /proc/self/stat; echo $pid > check.pid; sleep 1; exit 1";

/** SIGKILLs the runner of each run of the done-check of `env` until `done` settles; how many it killed. */
async function killEachRunner(env: IsolatedEnv, done: Promise<unknown>): Promise<number> {
	let settled = false;
	void done.finally(() => {
		settled = true;
	});
	const killed = new Set<number>();
	while (!settled) {
		const pid = Number(existsSync(join(env.cwd, "check.pid")) ? readFileSync(join(env.cwd, "check.pid"), "utf8") : 0);
		if (pid > 0 && !killed.has(pid) && killRunnerAbove(pid)) killed.add(pid);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return killed.size;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a done-check ends with its shell, and what it started goes with it", () => {
		it("`env -i setsid sleep &` holding the output: the check passes by its exit 0, the list is verified, nothing is left", async () => {
			const env = withDoneCheck("env -i setsid sleep 344 & true", { TIL_DONE_CHECK_TIMEOUT: "60" });
			const run = await print(host, env);
			const alive = runningExactly(["sleep", "344"]);
			leftover.push(...alive);
			expect(run.stderr).toBe(stderrLine(allVerified(1)));
			expect(run.code).toBe(0);
			expect(alive).toEqual([]);
		});

		it("`env -i setsid bash -c 'cd /; exec sleep'` started by a passing check does not outlive pi", async () => {
			const env = withDoneCheck("env -i setsid bash -c 'cd /; exec sleep 343' </dev/null >/dev/null 2>&1 & true");
			const run = await print(host, env);
			const alive = runningExactly(["sleep", "343"]);
			leftover.push(...alive);
			expect(run.stderr).toBe(stderrLine(allVerified(1)));
			expect(alive).toEqual([]);
		});
	});

	describe("a check ends with the pi that runs it", () => {
		it("pi -p SIGKILLed while its done-check runs: the check and what it started end within seconds, not at its timeout", async () => {
			const env = withDoneCheck("echo started > check.started; sleep 331 & sleep 332", {
				TIL_DONE_CHECK_TIMEOUT: "600",
			});
			const child = spawnPi(
				piArgs({ extensions: [EXTENSION_ENTRY], args: ["-p", "Work the list."] }),
				env.env,
				env.cwd,
				host,
			);
			// pi -p reads a piped stdin to its end first.
			child.stdin?.end();
			await waitForValue(() => (existsSync(join(env.cwd, "check.started")) ? true : undefined), 30_000, "the check");
			await waitForValue(() => (runningExactly(["sleep", "332"]).length > 0 ? true : undefined), 10_000, "its sleep");
			process.kill(child.pid ?? 0, "SIGKILL");
			expect((await waitForExit(child)).signal).toBe("SIGKILL");
			const gone = () => runningExactly(["sleep", "331"]).length + runningExactly(["sleep", "332"]).length === 0;
			await waitForValue(() => (gone() ? true : undefined), 15_000, "the check's end");
			leftover.push(...runningExactly(["sleep", "331"]), ...runningExactly(["sleep", "332"]));
			expect(gone()).toBe(true);
		});
	});

	describe("a check whose runner is killed by a signal fails", () => {
		it("a done-check whose runner is SIGKILLed, the check then exiting 1, never verifies the list: exit 3, the model told 137", async () => {
			const env = withDoneCheck(SAYS_ITS_PID);
			const running = print(host, env);
			const killed = await killEachRunner(env, running);
			const run = await running;
			expect(killed).toBe(4);
			expect(run.stderr).toBe(stderrLine(repeatedAnswer(3, UNVERIFIED_TAKE_OVER)));
			expect(run.code).toBe(3);
			const told = env.readLog().filter((line) => line.lastUser.startsWith(UNVERIFIED_HEAD));
			expect(told.map((line) => line.lastUser.split("\n")[1])).toEqual(
				Array(3).fill("- the done-check failed (exit code 137)"),
			);
		});
	});
});
