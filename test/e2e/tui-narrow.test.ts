/**
 * The interactive TUI under tmux at 80 columns, as a user on a laptop terminal sees it: the footer's status line fits
 * and never loses the state (paused, stopped and why) to a long item text; the panel shows one line per item; a key
 * during the countdown leaves a trace in the footer, `/todos why` and `/todos status`, and `/reload` keeps it; a stop
 * is shown once.
 */
import { join } from "node:path";
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import {
	countdownLine,
	hardCap,
	INTERRUPTED,
	PAUSED_STATUS,
	progressStatus,
	STARTED_PAUSED,
	stopStatus,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, lazyScript, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { hasTmux, submit, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const WIDTH = 80;
/** Three items of 400 characters each. */
const LONG = ["alpha", "bravo", "charlie"].map((name) =>
	`${name}: ${"rework the session store and its tests ".repeat(10)}`.trim(),
);

const pi = perTest();

async function start(host: PiHost, vars: NodeJS.ProcessEnv, steps: FakeStep[]): Promise<TuiSession> {
	const iso = pi.env(steps, vars);
	return pi.tui({
		host,
		env: iso.env,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(iso.root, "sessions") },
		width: WIDTH,
	});
}

/** The footer's status line: the last line of the screen. */
const statusLine = (screen: string): string => screen.trimEnd().split("\n").at(-1) ?? "";
/** How often `text` shows on screen, wherever the terminal wrapped it. */
const count = (screen: string, text: string) => {
	const flat = (value: string) => value.replace(/\s+/g, " ");
	return flat(screen).split(flat(text)).length - 1;
};

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe.skipIf(!hasTmux())(`the TUI at 80 columns${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("with 400-character items in progress and a pause, the footer keeps the progress and the pause whole", async () => {
			const session = await start(host, { TIL_DONE_COUNTDOWN: "600" }, [
				writeStep(LONG),
				startStep(0),
				sayStep("Started on alpha."),
			]);
			await submit(session, "Do the list");
			await session.waitForScreen(countdownLine(600));
			await submit(session, "/todos start 1 2");
			await session.waitForScreen((s) => statusLine(s).includes("[2] charlie"));
			await submit(session, "/todos pause");
			const screen = await session.waitForScreen((s) => statusLine(s).endsWith(PAUSED_STATUS));
			const footer = statusLine(screen);
			// The three items share what the progress and the pause leave: a few characters each.
			expect(footer).toBe(`${progressStatus(0, 3)} [0] alpha:… [1] bravo:… [2] charlie… ${PAUSED_STATUS}`);
			expect(visibleWidth(footer)).toBeLessThanOrEqual(WIDTH);
		});

		it("the panel shows each long item on one line", async () => {
			const session = await start(host, { TIL_DONE_COUNTDOWN: "600", TIL_DONE_PANEL: "on" }, [
				writeStep(LONG),
				startStep(0),
				sayStep("Started on alpha."),
			]);
			await submit(session, "Do the list");
			const screen = await session.waitForScreen(countdownLine(600));
			const lines = screen.split("\n");
			const first = lines.findIndex((line) => line.startsWith(" ● [0] alpha: rework"));
			expect(lines.slice(first, first + 3).map((line) => line.trimEnd())).toEqual([
				` ● [0] ${LONG[0]?.slice(0, 71).trimEnd()}…`,
				` – [1] ${LONG[1]?.slice(0, 71).trimEnd()}…`,
				` – [2] ${LONG[2]?.slice(0, 71).trimEnd()}…`,
			]);
		});

		it("a key during the countdown is a decision: footer, /todos why and /todos status say so, and /reload keeps it", async () => {
			const session = await start(host, { TIL_DONE_COUNTDOWN: "600" }, [
				writeStep(["a", "b", "c"]),
				startStep(0),
				completeStep(0),
				sayStep("Finished item 0."),
			]);
			await submit(session, "Do the list");
			await session.waitForScreen(countdownLine(600));
			await session.type("x");
			const interrupted = `${progressStatus(1, 3)} ${stopStatus("interrupted by you")}`;
			await session.waitForScreen((s) => statusLine(s) === interrupted);
			await session.sendKeys("BSpace");

			await submit(session, "/todos why");
			await session.waitForScreen((s) => count(s, `interrupted: ${INTERRUPTED}`) === 1);
			await submit(session, "/todos status");
			await session.waitForScreen((s) => count(s, "Auto-continue: stopped: interrupted by you (/todos why)") === 1);

			await submit(session, "/reload");
			// A reload starts a fresh chain (the footer shows the list) and draws the chat again without the notices; the
			// decisions come back from the branch.
			await session.waitForScreen(
				(s) => statusLine(s) === progressStatus(1, 3) && count(s, `interrupted: ${INTERRUPTED}`) === 0,
			);
			await submit(session, "/todos why");
			const screen = await session.waitForScreen((s) => count(s, `interrupted: ${INTERRUPTED}`) === 1, 30_000);
			expect(screen).not.toContain("No decision yet");
		});

		it("--til-done-paused, then /todos resume: /reload keeps the user's resume, stored on the branch", async () => {
			const session = await start(host, { TIL_DONE_COUNTDOWN: "600", TIL_DONE_PAUSED: "on" }, [
				writeStep(["a", "b"]),
				sayStep("Planned."),
			]);
			await submit(session, "Plan it");
			await session.waitForScreen((s) => statusLine(s).endsWith(`${PAUSED_STATUS}: ${STARTED_PAUSED}`));
			await submit(session, "/todos resume");
			await session.waitForScreen(countdownLine(600));
			await session.type("x");
			await session.waitForScreen((s) => !s.includes(countdownLine(600)));
			await session.sendKeys("BSpace");
			await submit(session, "/reload");
			const screen = await session.waitForScreen((s) => statusLine(s) === progressStatus(0, 2));
			expect(statusLine(screen)).not.toContain(PAUSED_STATUS);
		});

		it("a stop is shown once, as a message, and the footer says why within 80 columns", async () => {
			const session = await start(host, { TIL_DONE_COUNTDOWN: "0.05", TIL_DONE_MAX_CONTINUE: "1" }, lazyScript(LONG));
			await submit(session, "Do the list");
			const screen = await session.waitForScreen((s) =>
				statusLine(s).includes(stopStatus("continuation limit reached")),
			);
			expect(count(screen, hardCap(1))).toBe(1);
			expect(screen).not.toContain("Warning:");
			// The whole line would take 85 columns: the progress bar gives way, the stop's sentence stays whole.
			expect(statusLine(screen)).toBe(`📋 2/3 ${stopStatus("continuation limit reached")}`);
		});
	});
});
