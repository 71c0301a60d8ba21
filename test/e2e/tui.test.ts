/**
 * The interactive TUI under tmux: the footer status, the countdown line above the editor, "type anything to
 * interrupt", and the status restored from the session by `pi -c`.
 */
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, EXTENSION_ENTRY, type IsolatedEnv, isolatedEnv, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import { completeStep, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { hasTmux, startTui, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const COUNTDOWN_5S = "⏳ Auto-continuing in 5s... (type anything to interrupt)";
/** The footer's status line: `til-done` then `til-done-progress` (statuses are sorted by key). */
const footer = (done: number, bar: string) => new RegExp(`^📋 ${done}/3 \\[${bar}\\] ${done}/3\\s*$`, "m");
const FOOTER_0 = footer(0, "░░░░░░░░░░");
const FOOTER_1 = footer(1, "███░░░░░░░");
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 3-item list; the model works item 0 (slowly enough to see `📋 0/3`) and stops: a 5 s countdown follows. */
function setup(): { env: IsolatedEnv; sessionDir: string } {
	iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "5" });
	iso.writeScript([
		writeStep(["a", "b", "c"]),
		{ ...startStep(0), delayMs: 300 },
		completeStep(0),
		sayStep("Finished item 0."),
	]);
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

/** Prompt, see the list start at 0/3, then the countdown line right above the editor. */
async function runToCountdown(session: TuiSession): Promise<number> {
	await session.type("Do the list");
	await session.sendKeys("Enter");
	await session.waitForScreen(FOOTER_0, 5000);
	const screen = await session.waitForScreen(COUNTDOWN_5S, 5000);
	const shownAt = performance.now();
	const lines = screen.split("\n");
	const row = lines.findIndex((line) => line.includes(COUNTDOWN_5S));
	expect(lines[row].trim()).toBe(COUNTDOWN_5S);
	expect(lines[row + 1]).toMatch(/^─{50,}$/); // the editor's top border
	expect(screen).toMatch(FOOTER_1);
	return shownAt;
}

/** Type a key: the countdown line goes at once and the key lands in the editor. */
async function interrupt(session: TuiSession): Promise<void> {
	const typed = performance.now();
	await session.type("x");
	const screen = await session.waitForScreen((s) => !s.includes("Auto-continuing"), 1000, 20);
	expect(performance.now() - typed).toBeLessThan(1000);
	expect(screen).toMatch(EDITOR_WITH_X);
	expect(screen).toMatch(FOOTER_1);
}

async function quit(session: TuiSession): Promise<void> {
	await session.sendKeys("BSpace");
	await session.waitForScreen((s) => !EDITOR_WITH_X.test(s), 2000);
	await session.type("/quit");
	await session.sendKeys("Enter");
	const deadline = performance.now() + 5000;
	while (await session.isAlive()) {
		if (performance.now() > deadline) throw new Error("pi did not exit after /quit");
		await sleep(50);
	}
	await session.kill();
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	const tui = (env: IsolatedEnv, sessionDir: string, args: string[] = [], readyPattern?: RegExp) =>
		startOn(host, env, sessionDir, args, readyPattern);

	describe.skipIf(!hasTmux())(`interactive TUI under tmux${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("shows progress in the footer, the countdown above the editor, and a typed key cancels it for good", async () => {
			const { env, sessionDir } = setup();
			const session = await tui(env, sessionDir);
			const shownAt = await runToCountdown(session);
			expect(env.readLog()).toHaveLength(4);

			await interrupt(session);
			// Past the cancelled countdown's deadline: no continuation was sent, the editor still holds the `x`.
			await sleep(Math.max(0, 5200 - (performance.now() - shownAt)));
			const screen = await session.capture();
			expect(env.readLog()).toHaveLength(4);
			expect(screen).not.toContain("There are still incomplete todos");
			expect(screen).not.toContain("Auto-continuing");
			expect(screen).toMatch(EDITOR_WITH_X);
			expect(screen).toMatch(FOOTER_1);
		}, 20_000);

		it("restores the same footer status from the session with -c after quitting", async () => {
			const { env, sessionDir } = setup();
			const first = await tui(env, sessionDir);
			await runToCountdown(first);
			await interrupt(first);
			await quit(first);
			expect(env.readLog()).toHaveLength(4);

			// The restored chat fills the screen, so the startup header is scrolled away: wait for the footer instead.
			const second = await tui(env, sessionDir, ["-c"], /scripted\s*$/m);
			const screen = await second.waitForScreen(FOOTER_1, 5000);
			expect(screen).toContain("Finished item 0.");
			expect(screen).not.toContain("Auto-continuing");
			// Restoring starts no run: the model was not called again.
			await sleep(300);
			expect(env.readLog()).toHaveLength(4);
		}, 20_000);
	});
});
