/**
 * Nothing a run of workers leaves behind stays, on both pi lines, with a real repository: a `pi -p` ended by SIGTERM
 * or SIGINT stops its workers and lets their claims go before it exits; one killed with SIGKILL leaves its trees (each
 * with its TMPDIR beside it), private folder and snapshot refs, which `/todos workers` names and the next workers
 * remove, and claims, which the next workers take over once their lease ran out.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
import { allFinished, stderrLine, WORKERS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeFileScript, writeStep } from "../helpers/scripts.ts";
import { runPrintUnprivileged } from "../helpers/unprivileged.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { exited, landedLine, startedLine, stderrOf, workerPid } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });

/** What of the workers is left: folders of ours in TMPDIR, claims, and refs of the workers' snapshots. */
function left(env: IsolatedEnv) {
	const git = (...args: string[]) => execFileSync("git", args, { cwd: env.cwd, encoding: "utf8" });
	return {
		folders: readdirSync(env.tmpDir).filter((name) => /^til-done-(worker|git|merge|index)-/.test(name)),
		refs: git("for-each-ref", "--format=%(refname)", "refs/til-done/").trim(),
	};
}

/** Two items whose workers wait in their first model call for a file no one writes: at work until stopped. */
function waitingWorkers(env: IsolatedEnv): string {
	const never = join(env.root, "never");
	const waits = [{ ...toolStep("write", { path: "x.txt", content: "x\n" }), waitForFile: never }, sayStep("Done.")];
	return env.writeWorkerScripts({ "0": waits, "1": waits });
}

function print(host: PiHost, env: IsolatedEnv, prompt: string) {
	return runPrint(["-p", prompt], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
		timeoutMs: 60_000,
	});
}

/** The pi a worker works for, from its environment. */
const parentOf = (worker: number): number =>
	Number(/TIL_DONE_WORKER_OF=(\d+)/.exec(readFileSync(`/proc/${worker}/environ`, "utf8"))?.[1]);

describe.each(PI_HOSTS)("pi $version", (host) => {
	// pi ends on SIGTERM with its own status; a SIGINT, raised again once the workers are stopped, ends it as it would.
	it.each([
		["SIGTERM", { code: 143, signal: null }],
		["SIGINT", { code: null, signal: "SIGINT" }],
	] as const)("%s ends pi -p's workers first: no worker, tree, claim or snapshot ref is left", async (signal, end) => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "2" });
		const state = userRepo(env);
		const file = waitingWorkers(env);
		const before = state();
		const running = print(host, env, "Write the files.");
		const first = await waitForValue(() => workerPid("data): [0]", file), 20_000, "the first worker");
		const second = await waitForValue(() => workerPid("data): [1]", file), 20_000, "the second worker");
		// Each worker's TMPDIR, beside its tree, is there while it works.
		expect(left(env).folders.filter((name) => name.endsWith("-tmp"))).toHaveLength(2);
		process.kill(parentOf(first), signal);
		const result = await running;
		expect({ code: result.code, signal: result.signal }).toEqual(end);
		expect(exited(first) && exited(second)).toBe(true);
		expect(left(env)).toEqual({ folders: [], refs: "" });
		expect(state()).toBe(before);
	});

	it("a worker stopped by SIGTERM after it wrote a file says its work is kept under its ref, which is all that is left", async () => {
		const env = pi.env([writeStep(["Write a.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = userRepo(env);
		const never = join(env.root, "never");
		const file = env.writeWorkerScripts({
			"0": [toolStep("write", { path: "a.txt", content: "a\n" }), { ...sayStep("Done."), waitForFile: never }],
		});
		const before = state();
		const running = print(host, env, "Write the file.");
		const worker = await waitForValue(() => workerPid("data): [0]", file), 20_000, "the worker");
		// Its write is done once its tree holds the file.
		const written = () =>
			readdirSync(env.tmpDir).some(
				(name) => name.startsWith("til-done-worker-") && existsSync(join(env.tmpDir, name, "a.txt")),
			);
		await waitForValue(() => (written() ? true : undefined), 20_000, "its write done");
		process.kill(parentOf(worker), "SIGTERM");
		const result = await running;
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Write a.txt"),
			stderrLine(WORKERS.stoppedWithWork(0)).trimEnd(),
		]);
		const { refs } = left(env);
		expect(refs).toMatch(/^refs\/til-done\/[^\n]*\/0-[^\n]*\/worker-kept-[0-9a-f]{12}$/);
		// The line sends the user to /todos workers for the ref: it names it whole.
		const shown = await print(host, env, "/todos workers");
		expect(shown.stderr).toBe(
			stderrLine(`Workers: up to 1 at once; 0 at work\n${WORKERS.leftovers(WORKERS.keptWork([refs]))}`),
		);
		expect(state()).toBe(before);
	});

	it("a folder a worker left unreadable, in its tree and in the workers' compiled extensions, is removed all the same: the next item lands, pi exits 0, nothing is left", async () => {
		const env = pi.env([writeStep(["Write x.txt", "Write y.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = userRepo(env);
		const locks =
			'mkdir -p locked/in "$TMPDIR/jiti/locked/in" && chmod 000 locked "$TMPDIR/jiti/locked"; echo x > x.txt';
		env.writeWorkerScripts({
			"0": [toolStep("bash", { command: locks }), sayStep("Wrote x.txt.")],
			"1": [toolStep("bash", { command: "echo y > y.txt" }), sayStep("Wrote y.txt.")],
		});
		const before = state();
		const options = { host, extensions: [EXTENSION_ENTRY], sessionDir: join(env.root, "sessions"), timeoutMs: 60_000 };
		const result = await runPrintUnprivileged(["-p", "Write the files."], env, options);
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Write x.txt"),
			landedLine(env, 0, ["x.txt"], "Wrote x.txt."),
			startedLine(1, "Write y.txt"),
			landedLine(env, 1, ["y.txt"], "Wrote y.txt."),
			stderrLine(allFinished(2)).trimEnd(),
		]);
		expect(result.code).toBe(0);
		expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-"))).toEqual([]);
		expect(left(env).refs).toBe("");
		expect(state()).toBe(before);
	});

	it("with its stderr's reader gone (a closed pipe), pi -p works the items to their end: they land, nothing is left", async () => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "2" });
		const state = userRepo(env);
		env.writeWorkerScripts({ "0": writeFileScript("a.txt"), "1": writeFileScript("b.txt") });
		const before = state();
		const session = { dir: join(env.root, "sessions") };
		const args = piArgs({ extensions: [EXTENSION_ENTRY], session, args: ["-p", "Write the files."] });
		const child = spawnPi(args, env.env, undefined, host);
		child.stdin?.end();
		child.stderr?.destroy();
		expect(await waitForExit(child, 60_000)).toEqual({ code: 0, signal: null });
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a.txt\n");
		expect(readFileSync(join(env.cwd, "b.txt"), "utf8")).toBe("b.txt\n");
		expect(left(env)).toEqual({ folders: [], refs: "" });
		expect(state()).toBe(before);
	});

	it("after a SIGKILL, /todos workers names what is left, and the next workers remove it, take the claims over after their lease and land the items", async () => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], {
			TIL_DONE_WORKERS: "2",
			TIL_DONE_LEASE: "1",
		});
		const state = userRepo(env);
		const file = waitingWorkers(env);
		const before = state();
		const running = print(host, env, "Write the files.");
		const first = await waitForValue(() => workerPid("data): [0]", file), 20_000, "the first worker");
		await waitForValue(() => workerPid("data): [1]", file), 20_000, "the second worker");
		process.kill(parentOf(first), "SIGKILL");
		expect((await running).signal).toBe("SIGKILL");
		await waitForValue(() => (exited(first) ? true : undefined), 20_000, "the worker's end");
		const shown = await print(host, env, "/todos workers");
		// Each worker's tree, our git folder beside it and its TMPDIR beside it (2 × 3), the session's private git folder,
		// and its workers' copy of its compiled extensions.
		// Its claims are no leftovers: their lease runs out by itself.
		const parts = `${WORKERS.leftFolders(8)}, 2 snapshot ref(s) of gone workers`;
		expect(shown.stderr).toBe(stderrLine(`Workers: up to 2 at once; 0 at work\n${WORKERS.leftovers(parts)}`));
		// The next run, in a new session, works the same two items: what the gone pi left is removed first.
		env.writeWorkerScripts({ "0": writeFileScript("a.txt"), "1": writeFileScript("b.txt") });
		env.writeScript([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")]);
		const again = await print(host, env, "Write the files.");
		const lines = stderrOf(again.stderr);
		expect(lines.slice(0, 2)).toEqual([startedLine(0, "Write a.txt"), startedLine(1, "Write b.txt")]);
		expect(lines.slice(2, 4).toSorted()).toEqual(
			[landedLine(env, 0, ["a.txt"], "Wrote a.txt."), landedLine(env, 1, ["b.txt"], "Wrote b.txt.")].toSorted(),
		);
		expect(lines.slice(4)).toEqual([stderrLine(allFinished(2)).trimEnd()]);
		expect(left(env)).toEqual({ folders: [], refs: "" });
		expect(state()).toBe(before);
	});
});
