/**
 * Worker runs a user can leave alone, in the real pi on both lines against a real git repository in a temporary
 * folder: a worker's check that is killed or runs past its timeout never passes, nothing a worker or its check starts
 * outlives it, a stop (Esc, `/todos pause`, a prompt) at any moment before the landing writes lands nothing and makes
 * the item ready again, and Esc stops workers only when nothing else on screen takes it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { failures, stderrLine, WORKERS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeFileScript } from "../helpers/scripts.ts";
import { killAll, markedProcesses, userRepo } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: "1" });

/** Every process of this test that a command line holding `text` names, killed after the test whatever it found. */
const leftovers: number[] = [];
afterEach(() => killAll(leftovers.splice(0)));

/** The processes of this test's pi and its workers whose command line holds `text` (they all carry `mark`). */
function running(mark: string, text: string): number[] {
	const found = markedProcesses(mark, text);
	leftovers.push(...found);
	return found;
}

/** The session's model writes one item, `Write a.txt`, with `check`, then says it planned. */
function planWithCheck(check: string): FakeStep[] {
	const todos = [{ text: "Write a.txt", check }] as JsonValue[];
	return [toolStep("write_todos", { mode: "replace", todos }), sayStep("Planned.")];
}

function print(host: PiHost, env: IsolatedEnv) {
	return runPrint(["-p", "Write a.txt."], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
		timeoutMs: 60_000,
	});
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a worker's check that does not end by itself with exit 0 never passes", () => {
		it("a check killed by a signal fails in the worker's tree: the item goes back each try and nothing lands", async () => {
			const env = pi.env(planWithCheck("test -f never-exists || kill -KILL $$"));
			const state = userRepo(env);
			env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
			const before = state();
			const result = await print(host, env);
			const back = stderrLine(WORKERS.givenBack(0, WORKERS.checkKilled(9)));
			expect(result.stderr).toBe(back + back + back + stderrLine(failures(3)));
			expect(result.code).toBe(4);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(state()).toBe(before);
		});

		it("a check that runs past --til-done-check-timeout fails as timed out: nothing lands", async () => {
			const env = pi.env(planWithCheck("sleep 30"), { TIL_DONE_CHECK_TIMEOUT: "1" });
			const state = userRepo(env);
			const file = env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
			const before = state();
			const result = await print(host, env);
			const back = stderrLine(WORKERS.givenBack(0, WORKERS.checkTimedOut(1)));
			expect(result.stderr).toBe(back + back + back + stderrLine(failures(3)));
			expect(result.code).toBe(4);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(running(file, "sleep 30")).toEqual([]);
			expect(state()).toBe(before);
		});
	});

	it("nothing a worker's tool or its check starts in the background (setsid, nohup, &) outlives the run", async () => {
		const env = pi.env(planWithCheck("setsid sleep 302 > /dev/null 2>&1 & test -f a.txt"));
		const state = userRepo(env);
		const background = "setsid sleep 300 > /dev/null 2>&1 & nohup sleep 301 > /dev/null 2>&1 & sleep 303 &";
		const file = env.writeWorkerScripts({
			"0": [
				toolStep("bash", { command: `${background} echo started` }),
				toolStep("write", { path: "a.txt", content: "a\n" }),
				sayStep("Wrote a.txt."),
			],
		});
		const before = state();
		const result = await print(host, env);
		expect(result.code).toBe(0);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a\n");
		expect(running(file, "sleep 30")).toEqual([]);
		expect(state()).toBe(before);
	});
});
