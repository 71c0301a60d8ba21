/**
 * The interactive TUI under tmux: the footer status, the countdown line above the editor, "type anything to
 * interrupt", and the status restored from the session by `pi -c`. The countdown is 600 s long, so the line can only
 * go because of the key; that no continuation follows later is proven in test/unit/quiet.test.ts.
 */
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, EXTENSION_ENTRY, type IsolatedEnv, isolatedEnv, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import { CONTINUATION_HEAD, countdownLine, progressStatus, stopStatus } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { completeStep, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { hasTmux, startTui, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const COUNTDOWN = countdownLine(600);
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The footer's status line: the list's status, progress once. */
const FOOTER_1 = new RegExp(`^${literal(progressStatus(1, 3))}\\s*$`, "m");
/** The footer after a key interrupted the countdown: the progress, then why nothing follows. */
const FOOTER_INTERRUPTED = new RegExp(
	`^${literal(`${progressStatus(1, 3)} ${stopStatus("interrupted by you")}`)}\\s*$`,
	"m",
);
/** An editor holding just `x`: the line between the editor's two borders. */
const EDITOR_WITH_X = /^─{50,}\nx\s*\n─{50,}$/m;

let iso: IsolatedEnv | undefined;
const tuis: TuiSession[] = [];

afterEach(async () => {
	for (const tui of tuis.splice(0)) await tui.kill();
	iso?.cleanup();
	iso = undefined;
});
afterAll(() => cleanupAll());

/** A 3-item list; the model works item 0 and stops: a 600 s countdown follows. */
function setup(): { env: IsolatedEnv; sessionDir: string } {
	iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "600" });
	iso.writeScript([writeStep(["a", "b", "c"]), startStep(0), completeStep(0), sayStep("Finished item 0.")]);
	return { env: iso, sessionDir: join(iso.root, "sessions") };
}

async function startOn(host: PiHost, env: IsolatedEnv, sessionDir: string, args: string[] = [], readyPattern?: RegExp) {
	const session = await startTui({
		host,
		env: env.env,
		extensions: [EXTENSION_ENTRY],
		session: { dir: sessionDir },
		args,
		readyPattern,
	});
	tuis.push(session);
	return session;
}

/** Prompt, then see the countdown line right above the editor and the progress in the footer. */
async function runToCountdown(session: TuiSession): Promise<void> {
	await session.type("Do the list");
	await session.sendKeys("Enter");
	const screen = await session.waitForScreen(COUNTDOWN);
	const lines = screen.split("\n");
	const row = lines.findIndex((line) => line.includes(COUNTDOWN));
	expect(must(lines[row], "the countdown line").trim()).toBe(COUNTDOWN);
	expect(lines[row + 1]).toMatch(/^─{50,}$/); // the editor's top border
	expect(screen).toMatch(FOOTER_1);
}

/** Type a key: the countdown line goes, the key lands in the editor and the footer says the user stopped it. */
async function interrupt(session: TuiSession): Promise<void> {
	await session.type("x");
	const screen = await session.waitForScreen((s) => !s.includes(COUNTDOWN) && FOOTER_INTERRUPTED.test(s));
	expect(screen).toMatch(EDITOR_WITH_X);
}

async function quit(session: TuiSession): Promise<void> {
	await session.sendKeys("BSpace");
	await session.waitForScreen((s) => !EDITOR_WITH_X.test(s));
	await session.type("/quit");
	await session.sendKeys("Enter");
	await session.waitForExit();
	await session.kill();
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	const tui = (env: IsolatedEnv, sessionDir: string, args: string[] = [], readyPattern?: RegExp) =>
		startOn(host, env, sessionDir, args, readyPattern);

	describe.skipIf(!hasTmux())(`interactive TUI under tmux${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("shows progress in the footer and the countdown above the editor; a typed key cancels it and the footer says so", async () => {
			const { env, sessionDir } = setup();
			const session = await tui(env, sessionDir);
			await runToCountdown(session);
			expect(env.readLog()).toHaveLength(4);

			await interrupt(session);
			const screen = await session.capture();
			expect(screen).not.toContain(CONTINUATION_HEAD);
			expect(env.readLog()).toHaveLength(4);
		});

		it("restores the list's footer status from the session with -c after quitting; no countdown, no run", async () => {
			const { env, sessionDir } = setup();
			const first = await tui(env, sessionDir);
			await runToCountdown(first);
			await interrupt(first);
			await quit(first);
			expect(env.readLog()).toHaveLength(4);

			// The restored chat fills the screen, so the startup header is scrolled away: wait for the footer instead.
			const second = await tui(env, sessionDir, ["-c"], /scripted\s*$/m);
			const screen = await second.waitForScreen(FOOTER_1);
			expect(screen).toContain("Finished item 0.");
			// Restoring shows the list and starts no countdown and no run.
			expect(screen).not.toContain(COUNTDOWN);
			expect(env.readLog()).toHaveLength(4);
		});
	});
});
