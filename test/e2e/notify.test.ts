/**
 * `--til-done-notify` in the real TUI under tmux, on every tested pi version: the bytes pi writes to the terminal (read
 * with `tmux pipe-pane`) carry one bell and one desktop notification when a chain ends (done, stopped by a breaker),
 * none when the user ended it with a key, and none without the setting.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import {
	allFinished,
	countdownLine,
	doneStatus,
	hardCap,
	progressStatus,
	RING_START,
	ringBytes,
	stopStatus,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, lazyScript, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { hasTmux, submit, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const pi = perTest({ KITTY_WINDOW_ID: "" });

/** pi in the TUI (not kitty, whatever terminal runs the tests: the notification is OSC 777) with the steps scripted, every byte it writes recorded from the start; the record's path. */
async function start(host: PiHost, vars: NodeJS.ProcessEnv, steps: FakeStep[]) {
	const iso = pi.env(steps, vars);
	const session = await pi.tui({
		host,
		env: iso.env,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(iso.root, "sessions") },
	});
	const record = join(iso.root, "terminal.bytes");
	await session.recordOutput(record);
	return { session, record };
}

const statusLine = (screen: string): string => screen.trimEnd().split("\n").at(-1) ?? "";
const occurrences = (text: string, part: string): number => text.split(part).length - 1;
const recorded = (record: string): string => {
	try {
		return readFileSync(record, "utf8");
	} catch {
		return "";
	}
};

/**
 * The record once it holds `marker`: tmux pipes the pane's bytes in order, so whatever pi wrote before the marker is in
 * it too.
 */
async function recordThrough(session: TuiSession, record: string, marker: string): Promise<string> {
	await session.waitForScreen(() => recorded(record).includes(marker), 15_000);
	return recorded(record);
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe.skipIf(!hasTmux())(`the ring when a chain ends${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("a finished list rings once, naming the decision", async () => {
			const { session, record } = await start(host, { TIL_DONE_NOTIFY: "on", TIL_DONE_COUNTDOWN: "0.05" }, [
				writeStep(["a", "b"]),
				startStep(0),
				completeStep(0),
				sayStep("Finished a."),
				startStep(1),
				completeStep(1),
				sayStep("Finished b."),
			]);
			await submit(session, "Do the list");
			await session.waitForScreen((s) => statusLine(s).includes(doneStatus(2)));
			const bytes = await recordThrough(session, record, ringBytes(allFinished(2)));
			expect(occurrences(bytes, RING_START)).toBe(1);
		});

		it("a breaker's stop rings once with the stop's text", async () => {
			const { session, record } = await start(
				host,
				{ TIL_DONE_NOTIFY: "on", TIL_DONE_COUNTDOWN: "0.05", TIL_DONE_MAX_CONTINUE: "1" },
				lazyScript(["a", "b", "c"]),
			);
			await submit(session, "Do the list");
			await session.waitForScreen((s) => statusLine(s).includes(stopStatus("continuation limit reached")));
			const bytes = await recordThrough(session, record, ringBytes(hardCap(1)));
			expect(occurrences(bytes, RING_START)).toBe(1);
		});

		it("a key during the countdown is the user's own act: no ring", async () => {
			const { session, record } = await start(host, { TIL_DONE_NOTIFY: "on", TIL_DONE_COUNTDOWN: "600" }, [
				writeStep(["a", "b"]),
				startStep(0),
				completeStep(0),
				sayStep("Finished a."),
			]);
			await submit(session, "Do the list");
			await session.waitForScreen(countdownLine(600));
			await session.type("x");
			await session.waitForScreen(
				(s) => statusLine(s) === `${progressStatus(1, 2)} ${stopStatus("interrupted by you")}`,
			);
			await session.sendKeys("BSpace");
			await submit(session, "/todos help status");
			const bytes = await recordThrough(session, record, "/todos status");
			expect(bytes).not.toContain(RING_START);
		});

		it("without the setting a finished list does not ring", async () => {
			const { session, record } = await start(host, { TIL_DONE_COUNTDOWN: "0.05" }, [
				writeStep(["a"]),
				startStep(0),
				completeStep(0),
				sayStep("Finished a."),
			]);
			await submit(session, "Do the list");
			await session.waitForScreen((s) => statusLine(s).includes(doneStatus(1)));
			await submit(session, "/todos help status");
			const bytes = await recordThrough(session, record, "/todos status");
			expect(bytes).not.toContain(RING_START);
		});
	});
});
