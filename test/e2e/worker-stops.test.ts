/**
 * Worker runs a user can leave alone, in the real pi on both lines against a real git repository in a temporary
 * folder: a worker's check that is killed or runs past its timeout never passes, nothing a worker or its check starts
 * outlives it, a stop (Esc, `/todos pause`, a prompt) at any moment before the landing writes lands nothing and makes
 * the item ready again, a worker's tree goes at its end with the folders beside it (its TMPDIR too), and Esc stops
 * workers only when nothing else on screen takes it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
	EXTENSION_ENTRY,
	type FakeStep,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	runPrint,
	waitForValue,
} from "../helpers/cli.ts";
import { stderrLine, WORKERS, workerFailures, workersCount, workersStatus } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { reported } from "../helpers/rpc.ts";
import { sayStep, toolStep, writeFileScript } from "../helpers/scripts.ts";
import { editorLine, hasTmux, TMUX_MISSING } from "../helpers/tmux.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll, markedProcesses, workerPid } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: "1" });

/** Every process a test found running, killed after the test whatever it asserted. */
const leftovers: number[] = [];
afterEach(() => killAll(leftovers.splice(0)));

/** The processes of this test's pi and its workers whose command line matches `text` (they all carry `mark`). */
function running(mark: string, text: RegExp): number[] {
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

/**
 * A check that says it started (the file `started` in the worker's tree: a worker's check writes nowhere else), then
 * runs far longer than any test: only a stop ends it.
 */
const slowCheck = "touch started; sleep 60";

/** The slow check's own command, not the runner's that names it. */
const SLEEP_60 = /^sleep 60 $/;

/** The screen with its lines joined: a notice wider than the terminal is wrapped onto lines of its own. */
const unwrapped = (screen: string) => screen.replace(/\n */g, " ");

/** The editor's completion popup, by the mark of its selected entry: `→ settings`, `→ .git/`. */
const POPUP = /^→ /m;

/** Whether a worker's tree in TMPDIR holds the slow check's file. */
const startedInATree = (env: IsolatedEnv): true | undefined =>
	readdirSync(env.tmpDir).some(
		(name) => name.startsWith("til-done-worker-") && existsSync(join(env.tmpDir, name, "started")),
	)
		? true
		: undefined;

/** The workers' folders in TMPDIR: each tree, with our git folder and the worker's TMPDIR beside it. */
const workerFolders = (env: IsolatedEnv): string[] =>
	readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-worker-"));

/** Waits until the worker's check has started. */
const checkStarted = (env: IsolatedEnv) => waitForValue(() => startedInATree(env), 30_000, "the worker's check");

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a worker's check that does not end by itself with exit 0 never passes", () => {
		it("a check killed by a signal fails in the worker's tree: the item goes back each try and nothing lands", async () => {
			const env = pi.env(planWithCheck("test -f never-exists || kill -KILL $$"));
			const state = userRepo(env);
			env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
			const before = state();
			const result = await print(host, env);
			const back = stderrLine(`${WORKERS.started(0, "Write a.txt")}\n${WORKERS.givenBack(0, WORKERS.checkKilled(9))}`);
			expect(result.stderr).toBe(back + back + back + stderrLine(workerFailures(3, WORKERS.checkKilled(9))));
			expect(result.code).toBe(4);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(workerFolders(env)).toEqual([]);
			expect(state()).toBe(before);
		});

		it("a check that runs past --til-done-check-timeout fails as timed out: nothing lands", async () => {
			const env = pi.env(planWithCheck("sleep 30"), { TIL_DONE_CHECK_TIMEOUT: "1" });
			const state = userRepo(env);
			const file = env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
			const before = state();
			const result = await print(host, env);
			const back = stderrLine(
				`${WORKERS.started(0, "Write a.txt")}\n${WORKERS.givenBack(0, WORKERS.checkTimedOut(1))}`,
			);
			expect(result.stderr).toBe(back + back + back + stderrLine(workerFailures(3, WORKERS.checkTimedOut(1))));
			expect(result.code).toBe(4);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(running(file, /^sleep 30\d? $/)).toEqual([]);
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
		expect(running(file, /^sleep 30\d? $/)).toEqual([]);
		expect(workerFolders(env)).toEqual([]);
		expect(state()).toBe(before);
	});

	describe("over RPC, a stop while the worker's check runs holds: the check is killed, nothing lands", () => {
		it.each([
			["/todos pause", "/todos pause"],
			["a prompt of the user's", "Stop, do not write a.txt."],
		])("%s: the item is ready again, no process of the check is left, git is as before", async (_name, stop) => {
			const env = pi.env([]);
			env.writeScript([...planWithCheck(slowCheck), sayStep("Stopped.")]);
			const state = userRepo(env);
			// The first try's check hangs; a second try waits for a file no test writes, so nothing more lands.
			const file = env.writeWorkerScripts({
				"0": writeFileScript("a.txt"),
				"0/again": [
					{ ...toolStep("write", { path: "a.txt", content: "again\n" }), waitForFile: join(env.root, "never") },
				],
			});
			const before = state();
			const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await client.prompt("Write a.txt.");
			await checkStarted(env);
			await waitForValue(() => (running(file, SLEEP_60).length === 1 ? true : undefined), 10_000, "the check's sleep");
			const working = workerFolders(env);
			expect(working.map((name) => name.replace(/^til-done-worker-[^-]+-[^-]+/, "<tree>")).sort()).toEqual([
				"<tree>",
				"<tree>-meta",
				"<tree>-tmp",
			]);
			await client.prompt(stop);
			// It had written a.txt in its tree: that work is kept under its ref, and its line says so.
			const back = WORKERS.stoppedWithWork(0);
			await client.waitFor(() => reported(client).includes(back), 15_000, "the item given back");
			expect(running(file, SLEEP_60)).toEqual([]);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(working.filter((name) => existsSync(join(env.tmpDir, name)))).toEqual([]);
			expect(state()).toBe(before);
		});
	});

	describe.skipIf(!hasTmux())(`Esc in the TUI${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("Esc while the worker's check runs: the check is killed, nothing lands, the notice counts one item ready again", async () => {
			const env = pi.env([]);
			env.writeScript(planWithCheck(slowCheck));
			const state = userRepo(env);
			const file = env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
			const before = state();
			const session = await pi.tui({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await session.type("Write a.txt.");
			await session.sendKeys("Enter");
			await checkStarted(env);
			await session.sendKeys("Escape");
			await session.waitForScreen(
				(s) => unwrapped(s).includes(WORKERS.stoppedByKey({ givenBack: 1, kept: 1 })),
				15_000,
			);
			expect(running(file, SLEEP_60)).toEqual([]);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(state()).toBe(before);
		});

		it.each([
			["the slash-command popup, opened by typing /", "/"],
			["the file popup, opened by Tab on the empty line", ""],
		])("Esc that closes %s stops no worker; Esc on the empty editor then stops it", async (_name, typed) => {
			const env = pi.env([]);
			const go = join(env.root, "go");
			env.writeScript(planWithCheck("true"));
			userRepo(env);
			const file = env.writeWorkerScripts({
				"0": [{ ...toolStep("write", { path: "a.txt", content: "a\n" }), waitForFile: go }, sayStep("Wrote a.txt.")],
			});
			const session = await pi.tui({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await session.type("Write a.txt.");
			await session.sendKeys("Enter");
			const atWork = workersStatus([[0, "Write a.txt"]]);
			await session.waitForScreen((s) => s.includes(atWork));
			const worker = await waitForValue(() => workerPid("data): [0]", file), 20_000, "the worker");
			if (typed === "") await session.sendKeys("Tab");
			else await session.type(typed);
			await session.waitForScreen((s) => editorLine(s) === typed && POPUP.test(s));
			await session.sendKeys("Escape");
			const closed = await session.waitForScreen((s) => !POPUP.test(s) || s.includes("Workers stopped by you"));
			expect(closed).not.toContain("Workers stopped by you");
			expect(closed).toContain(atWork);
			expect(workerPid("data): [0]", file)).toBe(worker);
			if (typed !== "") await session.sendKeys("BSpace");
			await session.waitForScreen((s) => editorLine(s) === "");
			await session.sendKeys("Escape");
			await session.waitForScreen(
				// Its worker waits for the file before it writes: it had changed nothing, and nothing is kept.
				(s) => unwrapped(s).includes(WORKERS.stoppedByKey({ givenBack: 1, kept: 0 })) && !s.includes(workersCount(1)),
			);
			expect(workerPid("data): [0]", file)).toBeUndefined();
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			writeFileSync(go, "");
		});
	});
});
