/**
 * `npm run demo` (scripts/demo.ts) end to end: the real TUI under tmux, sped up, must be carried by the auto-continue
 * from the scripted model's lazy stops to `✓ Done (5 items)`, and must clean up its temp folder when quit.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { FakeStep } from "../../demo/fake-model-extension.ts";
import {
	cleanupAll,
	type IsolatedEnv,
	isolatedEnv,
	NODE,
	PI_HOSTS,
	REPO_ROOT,
	readFakeLog,
	waitForValue,
} from "../helpers/cli.ts";
import { CONTINUATION_HEAD, countdownLine, doneStatus, progressStatus } from "../helpers/expected.ts";
import { hasTmux, startTui, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const DEMO = join(REPO_ROOT, "scripts/demo.ts");
const STEPS = JSON.parse(readFileSync(join(REPO_ROOT, "demo/script.json"), "utf8")) as FakeStep[];

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

describe.skipIf(!hasTmux()).each(PI_HOSTS)(
	`npm run demo under tmux on pi $version${hasTmux() ? "" : ` (${TMUX_MISSING})`}`,
	(host) => {
		let iso: IsolatedEnv | undefined;
		let tui: TuiSession | undefined;

		afterEach(async () => {
			await tui?.kill();
			tui = undefined;
			iso?.cleanup();
			iso = undefined;
		});
		afterAll(() => cleanupAll());

		it("the README's sample of the screen is the demo's, as docs/demo.png shows it: the second countdown and the footer", async () => {
			iso = isolatedEnv();
			// The default countdown, as the README and scripts/screenshot.ts have it: the second one is read as it shows.
			const env = { ...iso.env, TIL_DONE_COUNTDOWN: "3", TIL_DONE_DEMO_SPEED: "20", TIL_DONE_DEMO_PI: host.version };
			const statusFile = join(iso.root, "demo-exit-status");
			const command = ["/bin/sh", "-c", `${shellQuote(NODE)} ${shellQuote(DEMO)}; echo $? > ${shellQuote(statusFile)}`];
			tui = await startTui({ env, command, cwd: REPO_ROOT, width: 110, height: 32 });
			const counting = /⏳ Auto-continuing in \d+s\.\.\. \(type anything to interrupt\)/;
			const screen = await tui.waitForScreen((s) => counting.test(s) && s.includes(progressStatus(3, 5)), 30_000);
			const lines = screen.trimEnd().split("\n");
			const sample = readmeSample();
			expect(sample[0]).toBe(countdownLine(3));
			expect(lines.some((line) => counting.test(line))).toBe(true);
			expect(lines.at(-1)?.trimEnd()).toBe(sample.at(-1));
			// Quit, and let the demo remove its temp folder before the test's own goes.
			await tui.sendKeys("C-c", "C-c");
			expect(await waitForValue(() => exitStatus(statusFile), 10_000, "the demo's exit status")).toBe("0");
		}, 60_000);

		it("reaches ✓ Done (5 items) through two continuations, then quits and removes its temp folder", async () => {
			iso = isolatedEnv();
			const logFile = join(iso.root, "demo-log.jsonl");
			const env = {
				...iso.env,
				TIL_DONE_COUNTDOWN: "0.2",
				TIL_DONE_DEMO_SPEED: "20",
				TIL_DONE_FAKE_LOG: logFile,
				TIL_DONE_DEMO_PI: host.version,
			};
			const statusFile = join(iso.root, "demo-exit-status");
			const command = ["/bin/sh", "-c", `${shellQuote(NODE)} ${shellQuote(DEMO)}; echo $? > ${shellQuote(statusFile)}`];
			tui = await startTui({ env, command, cwd: REPO_ROOT, width: 110, height: 32 });

			// The footer turns to Done with the last edit_todos call; the closing summary follows in the next model call.
			const screen = await tui.waitForScreen(
				(s) => s.includes(doneStatus(5)) && s.includes("Done. wordcount --json <file> now prints"),
				30_000,
			);
			expect(screen).not.toContain(countdownLine(1));

			const log = readFakeLog(logFile);
			// Every scripted step was used, in order, and the model was never asked for more.
			expect(log.map((line) => line.step)).toEqual(STEPS.map((_, index) => index));
			// Steps that opened a run started by a continuation (the last user message changed to one).
			const continued = log
				.filter((line, i) => line.lastUser.startsWith(CONTINUATION_HEAD) && line.lastUser !== log[i - 1]?.lastUser)
				.map((line) => line.step);
			// The two lazy stops (text-only steps before the last one) were each followed by an auto-continuation.
			const lazyStops = STEPS.flatMap((step, index) => (step.toolCalls ? [] : [index])).slice(0, -1);
			expect(lazyStops).toHaveLength(2);
			expect(continued).toEqual(lazyStops.map((index) => index + 1));

			// Ctrl+C twice (within pi's half second) quits pi; the demo then removes its temp folder (created under our
			// TMPDIR) and exits with 0.
			await tui.sendKeys("C-c", "C-c");
			// The shell around the demo records its exit status (tmux's own pane_dead_status is unreliable here: under
			// load tmux 3.3a sometimes leaves the exited pane process unreaped).
			expect(await waitForValue(() => exitStatus(statusFile), 10_000, "the demo's exit status")).toBe("0");
			expect(readdirSync(iso.tmpDir).filter((name) => name.startsWith("pi-til-done-demo-"))).toEqual([]);
		}, 60_000);
	},
);
