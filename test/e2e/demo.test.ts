/**
 * The demos (scripts/demo.ts) end to end: the real TUI under tmux, sped up, on both pi lines. `npm run demo` must be
 * carried by the auto-continue from the scripted model's lazy stops to `✓ Done (5 items)`; `demo:judge` must send
 * back the item the model never did and then pass the list; `demo:goal` must find the goal not met, then met;
 * `demo:workers` must land three workers' items, one of them on its retry after a conflict, and stop a second run's
 * workers on Esc. Each demo, quit, exits 0 and removes its temp folder.
 */
import { spawnSync } from "node:child_process";
import {
	appendFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { FakeStep } from "../../demo/fake-model-extension.ts";
import {
	cleanupAll,
	type IsolatedEnv,
	isolatedEnv,
	NODE,
	PI_HOSTS,
	type PiHost,
	REPO_ROOT,
	waitForValue,
} from "../helpers/cli.ts";
import {
	allDone,
	CONTINUATION_HEAD,
	countdownLine,
	doneStatus,
	goalMet,
	goalNotYet,
	progressStatus,
	verifiedNotice,
	WORKERS,
} from "../helpers/expected.ts";
import { judgeCalls, judgeReportLine } from "../helpers/judge.ts";
import { must } from "../helpers/must.ts";
import { hasTmux, startTui, submit, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const DEMO = join(REPO_ROOT, "scripts/demo.ts");
/** The steps of a demo's script for the session's model: demo/<name>/script.json. */
const stepsOf = (name: string): FakeStep[] =>
	JSON.parse(readFileSync(join(REPO_ROOT, "demo", name, "script.json"), "utf8")) as FakeStep[];
/** The folder the demo makes in the TMPDIR it is given. */
const DEMO_FOLDER = "pi-til-done-demo-";

function shellQuote(value: string): string {
	return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The README's sample of what the screen shows while the list is worked: the lines of its block, in order. */
function readmeSample(): string[] {
	const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
	const block = /What you see while it works[\s\S]*?\n```\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? "";
	return block.split("\n");
}

/** The status the wrapper shell wrote, or undefined while the demo runs (or the write is still under way). */
function exitStatus(file: string): string | undefined {
	return (existsSync(file) && readFileSync(file, "utf8").trim()) || undefined;
}

/** One demo running in a tmux pane; its environment names the fake model's logs (`iso.readLog()`, `judgeCalls`). */
interface DemoRun {
	tui: TuiSession;
	iso: IsolatedEnv;
	statusFile: string;
}

let run: DemoRun | undefined;

/** Starts `node scripts/demo.ts [name | folder]` at 20 times its speed, in a pane of `width` x `height`, with `settings` over the test's. */
async function startDemo(
	host: PiHost,
	name: string | undefined,
	width: number,
	height: number,
	settings: Record<string, string> = {},
): Promise<DemoRun> {
	const iso = isolatedEnv();
	const logs = [join(iso.root, "demo-log.jsonl"), join(iso.root, "judge-log.jsonl")];
	// The workers' fake model appends to the log too: a confined worker may write it only when it is named.
	for (const log of logs) appendFileSync(log, "");
	Object.assign(iso.env, {
		TIL_DONE_COUNTDOWN: "0.2",
		TIL_DONE_DEMO_SPEED: "20",
		TIL_DONE_FAKE_LOG: logs[0],
		TIL_DONE_FAKE_JUDGE_LOG: logs[1],
		TIL_DONE_WORKER_WRITABLE: logs.join(":"),
		TIL_DONE_DEMO_PI: host.version,
		...settings,
	});
	const statusFile = join(iso.root, "demo-exit-status");
	const demo = [NODE, DEMO, ...(name ? [name] : [])].map(shellQuote).join(" ");
	const command = ["/bin/sh", "-c", `${demo}; echo $? > ${shellQuote(statusFile)}`];
	run = { iso, statusFile, tui: await startTui({ env: iso.env, command, cwd: REPO_ROOT, width, height }) };
	return run;
}

/** The copy of demo/project/ the running demo works in. */
function demoProject(demo: DemoRun): string {
	const folder = must(
		readdirSync(demo.iso.tmpDir).find((entry) => entry.startsWith(DEMO_FOLDER)),
		"the demo's temp folder",
	);
	return join(demo.iso.tmpDir, folder, "home", "wordcount");
}

/**
 * Ctrl+C twice (within pi's half second) quits pi; the demo then removes its temp folder (created under our TMPDIR)
 * and exits with 0. The shell around the demo records its exit status (tmux's own pane_dead_status is unreliable here:
 * under load tmux 3.3a sometimes leaves the exited pane process unreaped).
 */
async function quit(demo: DemoRun): Promise<void> {
	await demo.tui.sendKeys("C-c", "C-c");
	expect(await waitForValue(() => exitStatus(demo.statusFile), 10_000, "the demo's exit status")).toBe("0");
	expect(readdirSync(demo.iso.tmpDir).filter((entry) => entry.startsWith(DEMO_FOLDER))).toEqual([]);
}

/**
 * The README's example of "Script the fake model yourself", written as its files into `dir`: the block's
 * `// try/<file>` lines start each file.
 */
function writeReadmeExample(dir: string): string {
	const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
	const block = must(/```jsonc\n(\/\/ try\/demo\.json\n[\s\S]*?)```/.exec(readme)?.[1], "the README's example");
	const parts = block.split(/^\/\/ try\/([\w.-]+)\n/m).slice(1);
	const folder = join(dir, "try");
	mkdirSync(folder);
	for (let at = 0; at < parts.length; at += 2)
		writeFileSync(join(folder, must(parts[at], "a file")), parts[at + 1] ?? "");
	return folder;
}

describe.skipIf(!hasTmux()).each(PI_HOSTS)(
	`the demos under tmux on pi $version${hasTmux() ? "" : ` (${TMUX_MISSING})`}`,
	(host) => {
		afterEach(async () => {
			await run?.tui.kill();
			run?.iso.cleanup();
			run = undefined;
		});
		afterAll(() => cleanupAll());

		it("the README's sample of the screen is the demo's, as docs/demo.png shows it: the second countdown and the footer", async () => {
			// The default countdown, as the README and scripts/screenshot.ts have it: the second one is read as it shows.
			const demo = await startDemo(host, undefined, 110, 32, { TIL_DONE_COUNTDOWN: "3" });
			const counting = /⏳ Auto-continuing in \d+s\.\.\. \(type anything to interrupt\)/;
			const screen = await demo.tui.waitForScreen((s) => counting.test(s) && s.includes(progressStatus(3, 5)), 30_000);
			const lines = screen.trimEnd().split("\n");
			const sample = readmeSample();
			expect(sample[0]).toBe(countdownLine(3));
			expect(lines.some((line) => counting.test(line))).toBe(true);
			expect(lines.at(-1)?.trimEnd()).toBe(sample.at(-1));
			await quit(demo);
		}, 60_000);

		it("npm run demo reaches ✓ Done (5 items) through two continuations, then quits and removes its temp folder", async () => {
			const demo = await startDemo(host, undefined, 110, 32);
			const steps = stepsOf("loop");
			// The footer turns to Done with the last edit_todos call; the closing summary follows in the next model call.
			const screen = await demo.tui.waitForScreen(
				(s) => s.includes(doneStatus(5)) && s.includes("Done. wordcount --json <file> now prints"),
				30_000,
			);
			expect(screen).not.toContain(countdownLine(1));

			const log = demo.iso.readLog();
			// Every scripted step was used, in order, and the model was never asked for more.
			expect(log.map((line) => line.step)).toEqual(steps.map((_, index) => index));
			// Steps that opened a run started by a continuation (the last user message changed to one).
			const continued = log
				.filter((line, i) => line.lastUser.startsWith(CONTINUATION_HEAD) && line.lastUser !== log[i - 1]?.lastUser)
				.map((line) => line.step);
			// The two lazy stops (text-only steps before the last one) were each followed by an auto-continuation.
			const lazyStops = steps.flatMap((step, index) => (step.toolCalls ? [] : [index])).slice(0, -1);
			expect(lazyStops).toHaveLength(2);
			expect(continued).toEqual(lazyStops.map((index) => index + 1));
			await quit(demo);
		}, 60_000);

		it("npm run demo:judge: the judge sends back the item the model never did, with its reason as data, then passes the list", async () => {
			const demo = await startDemo(host, "judge", 120, 40);
			const screen = await demo.tui.waitForScreen((s) => s.includes(verifiedNotice(2, 0, true)), 30_000);
			expect(screen).toContain(doneStatus(2));
			expect(demo.iso.readLog().map((line) => line.step)).toEqual(stepsOf("judge").map((_, index) => index));
			// The continuation after the judge's first verdict carried its reason for [1], as data.
			const sentBack = demo.iso.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD));
			expect(sentBack[0]?.lastUser).toContain(judgeReportLine(1, "README.md is unchanged: no diff documents --lines."));
			expect(judgeCalls(demo.iso)).toHaveLength(2);
			expect(readFileSync(join(demoProject(demo), "README.md"), "utf8")).toContain("node cli.mjs --lines poem.txt");
			await quit(demo);
		}, 60_000);

		it("npm run demo:goal: the judge finds the goal not met after the first run, with its reason as data, then met", async () => {
			const demo = await startDemo(host, "goal", 120, 40);
			await demo.tui.waitForScreen(goalMet(2, "The last run printed the one line and exit status 1."), 30_000);
			const log = demo.iso.readLog();
			expect(log.map((line) => line.step)).toEqual(stepsOf("goal").map((_, index) => index));
			// The second run opened with the judge's word on the first, and its reason, as data.
			const notYet = goalNotYet("not met", "The run printed the one line, but the exit status was 0, not 1.");
			expect(log.filter((line) => line.lastUser.startsWith(notYet)).map((line) => line.step)).toEqual([3, 4, 5]);
			expect(judgeCalls(demo.iso)).toHaveLength(2);
			// The condition holds in the demo's project.
			const missing = spawnSync(NODE, ["cli.mjs", "missing.txt"], { cwd: demoProject(demo), encoding: "utf8" });
			expect([missing.status, missing.stderr]).toEqual([1, "wordcount: cannot read missing.txt\n"]);
			await quit(demo);
		}, 60_000);

		it("npm run demo:workers: three workers land, one on its retry after a conflict; Esc stops a second run's three", async () => {
			const demo = await startDemo(host, "workers", 120, 40);
			const conflict = WORKERS.conflicts("cli.mjs");
			const landed = await demo.tui.waitForScreen((s) => s.includes(allDone(3)) && s.includes(doneStatus(3)), 30_000);
			// Whichever of the two workers on cli.mjs lands second conflicts, and its retry is told why.
			const conflicted = [0, 1].filter((index) => landed.includes(WORKERS.givenBack(index, conflict)));
			expect(conflicted).toHaveLength(1);
			const retries = demo.iso.readLog().filter((line) => line.lastUser.includes(WORKERS.lastTry(conflict)));
			// The retry played its item's `<i>/again` script, all three steps of it.
			expect(retries.map((line) => line.step)).toEqual([0, 1, 2]);
			expect(retries.every((line) => line.lastUser.includes(`data): [${conflicted[0]}]`))).toBe(true);
			const project = demoProject(demo);
			const count = (flag: string) =>
				spawnSync(NODE, ["cli.mjs", flag, "poem.txt"], { cwd: project, encoding: "utf8" }).stdout;
			expect([count("--lines"), count("--words")]).toEqual(["4\n", "25\n"]);
			expect(existsSync(join(project, "CHANGELOG.md"))).toBe(true);

			// The second run: three more items, whose workers wait until Esc.
			await submit(demo.tui, "more");
			const atWork = (index: number) =>
				demo.iso.readLog().some((line) => line.messages <= 2 && line.lastUser.includes(`data): [${index}]`));
			await waitForValue(() => ([3, 4, 5].every(atWork) ? true : undefined), 20_000, "the second run's workers");
			await demo.tui.sendKeys("Escape");
			// They only wait: none had changed anything, and nothing is kept.
			const stopped = await demo.tui.waitForScreen(
				(s) => s.includes(WORKERS.stoppedByKey({ givenBack: 3, kept: 0 })),
				20_000,
			);
			for (const index of [3, 4, 5]) expect(stopped).toContain(WORKERS.givenBack(index, WORKERS.stopped));
			await quit(demo);
		}, 90_000);

		it("the README's own example, played from a folder of yours, ends with the judge's verified list", async () => {
			const files = mkdtempSync(join(tmpdir(), "til-done-readme-example-"));
			try {
				const demo = await startDemo(host, writeReadmeExample(files), 120, 30);
				await demo.tui.waitForScreen(
					(s) => s.includes(verifiedNotice(1, 0, true)) && s.includes(doneStatus(1)),
					30_000,
				);
				expect(readdirSync(join(files, "try")).sort()).toEqual(["demo.json", "judge-script.json", "script.json"]);
				expect(readFileSync(join(demoProject(demo), "hello.txt"), "utf8")).toBe("hello\n");
				expect(judgeCalls(demo.iso)).toHaveLength(1);
				await quit(demo);
			} finally {
				rmSync(files, { recursive: true, force: true });
			}
		}, 60_000);
	},
);
