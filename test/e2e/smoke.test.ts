/**
 * The smoke subset on the pi lines before the current one (1.5.2): every other command-line suite runs on 0.87.1 and
 * 1.6.0. It drives a lazy model to the end in print mode and over RPC, says why a run with items open exits 4, and has
 * the judge send back an item the model never did, and two workers land two items.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, runPrint, SMOKE_HOSTS } from "../helpers/cli.ts";
import {
	allFinished,
	allVerified,
	doneStatus,
	KEY,
	noProgress,
	progressStatus,
	stderrLine,
} from "../helpers/expected.ts";
import { JUDGE_ARGS, judgeCalls, judgeReportLine, judgeSays, scriptJudge } from "../helpers/judge.ts";
import { perTest } from "../helpers/per-test.ts";
import {
	completeStep,
	continuationPrompts,
	lazyScript,
	sayStep,
	stallScript,
	startStep,
	writeFileScript,
	writeStep,
} from "../helpers/scripts.ts";
import { landedLine, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const THREE = ["Read the spec", "Write the parser", "Add tests"];

describe.each(SMOKE_HOSTS)("pi $version (smoke)", (host) => {
	it("print mode finishes a lazy model's list inside one invocation and exits 0", async () => {
		const env = pi.env(lazyScript(THREE));
		const result = await runPrint(["-p", "Build the thing"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		expect(result.code).toBe(0);
		expect(result.stderr).toBe(stderrLine(allFinished(3)));
		expect(continuationPrompts(env.readLog())).toHaveLength(2);
	});

	it("print mode exits 4 when the list ends with items open, and says why", async () => {
		const env = pi.env(stallScript(THREE, 5), { TIL_DONE_MAX_SAME_ANSWERS: "0" });
		const result = await runPrint(["-p", "Build the thing"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		expect(result.code).toBe(4);
		expect(result.stderr).toBe(stderrLine(noProgress(3)));
	});

	it("print mode: the judge sends back an item the model never did, and passes the list once it is done", async () => {
		const steps = [
			writeStep(THREE),
			startStep(0, 1, 2),
			completeStep(0, 1, 2),
			sayStep("Done."),
			completeStep(2),
			sayStep("Tests added."),
		];
		const env = pi.env(steps, { TIL_DONE_COUNTDOWN: "0.05" });
		const met = (i: number): [number, "met", string] => [i, "met", "ok"];
		scriptJudge(env, [
			judgeSays([met(0), met(1), [2, "not met", "No test file was written."]]),
			judgeSays([met(0), met(1), met(2)]),
		]);
		const result = await runPrint([...JUDGE_ARGS, "-p", "Build the thing"], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
		});
		expect(result.stderr).toBe(stderrLine(allVerified(3)));
		expect(result.code).toBe(0);
		expect(judgeCalls(env)).toHaveLength(2);
		expect(env.readLog().some((line) => line.lastUser.includes(judgeReportLine(2, "No test file was written.")))).toBe(
			true,
		);
	});

	it("print mode: two workers land two items in a git repository and the run exits 0", async () => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "2" });
		execFileSync("git", ["init", "-q"], { cwd: env.cwd });
		env.writeWorkerScripts({ "0": writeFileScript("a.txt"), "1": writeFileScript("b.txt") });
		const result = await runPrint(["-p", "Write the two files."], env.env, { host, extensions: [EXTENSION_ENTRY] });
		const lines = stderrOf(result.stderr);
		expect(lines.slice(0, 2)).toEqual([startedLine(0, "Write a.txt"), startedLine(1, "Write b.txt")]);
		expect(lines.slice(2, 4).toSorted()).toEqual(
			[landedLine(env, 0, ["a.txt"], "Wrote a.txt."), landedLine(env, 1, ["b.txt"], "Wrote b.txt.")].toSorted(),
		);
		expect(lines.slice(4)).toEqual([stderrLine(allFinished(2)).trimEnd()]);
		expect(result.code).toBe(0);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a.txt\n");
		expect(readFileSync(join(env.cwd, "b.txt"), "utf8")).toBe("b.txt\n");
	});

	it("RPC counts down and continues until the list is done", async () => {
		const env = pi.env(lazyScript(THREE), { TIL_DONE_COUNTDOWN: "0.05" });
		const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
		await client.prompt("Build the thing");
		await client.waitFor(() => client.statuses.get(KEY.status) === doneStatus(3), 10_000, "the list done");
		await client.waitForSettled({ nth: 3 });
		const shown = client.uiRequests.flatMap((r) =>
			r.method === "setStatus" && r.statusKey === KEY.status ? [r.statusText] : [],
		);
		// The session's first paint clears the key; then one status per change of the list.
		expect(shown).toEqual([undefined, progressStatus(0, 3), progressStatus(1, 3), progressStatus(2, 3), doneStatus(3)]);
		expect(client.countAgentRuns()).toBe(3);
	});
});
