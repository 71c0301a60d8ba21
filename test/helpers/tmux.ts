/**
 * Run the interactive pi TUI inside tmux on a private socket, for end-to-end tests.
 *
 *   describe.skipIf(!hasTmux())("tui (needs tmux)", () => { ... });
 *   const tui = await startTui({ env: iso.env, extensions: [EXTENSION_ENTRY] });
 *   await tui.waitForScreen(/ready/);
 *   await tui.type("hello"); await tui.sendKeys("Enter");
 *   await tui.kill();
 */
import { execFile, spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { CWD_ENV, DEFAULT_HOST, NODE, type PiArgsOptions, piArgs, REPO_ROOT } from "./cli.ts";

const execFileAsync = promisify(execFile);

let tmuxAvailable: boolean | undefined;

/** True when a `tmux` binary runs. Use with `describe.skipIf(!hasTmux())`. */
export function hasTmux(): boolean {
	if (tmuxAvailable === undefined) {
		const result = spawnSync("tmux", ["-V"], { encoding: "utf8" });
		tmuxAvailable = result.status === 0;
	}
	return tmuxAvailable;
}

export const TMUX_MISSING = "tmux is not installed: skipping TUI end-to-end tests";

export interface TuiOptions extends PiArgsOptions {
	env: NodeJS.ProcessEnv;
	/** Default: env.TIL_DONE_TEST_CWD, else the repo root. */
	cwd?: string;
	/** Default 100 x 30. */
	width?: number;
	height?: number;
	/**
	 * Run this command line instead of `node <cli.js> <piArgs>` (e.g. `[NODE, "scripts/demo.ts"]`); the piArgs options
	 * (extensions, session, args) are then ignored.
	 */
	command?: string[];
	/** Resolve once the screen matches this (default `/\[Extensions\]/`: startup done, prompts accepted). */
	readyPattern?: RegExp;
	startTimeoutMs?: number;
}

export type ScreenPredicate = RegExp | string | ((screen: string) => boolean);

export interface TuiSession {
	/** The private tmux socket name (`tmux -L <socket>`). */
	readonly socket: string;
	/** pid of pi (the pane's process; the launcher `exec`s node). */
	readonly pid: number | undefined;
	/** Milliseconds from start to readyPattern. */
	readonly startupMs: number;
	/** `tmux send-keys` with key names, e.g. sendKeys("Enter"), sendKeys("C-c"), sendKeys("Escape"). */
	sendKeys(...keys: string[]): Promise<void>;
	/** Type literal text (`send-keys -l`). */
	type(text: string): Promise<void>;
	/** The visible pane as text (`capture-pane -p`); `escapes: true` keeps colour escape sequences (`-e`). */
	capture(options?: { escapes?: boolean }): Promise<string>;
	/** Poll capture-pane every `intervalMs` (default 50) until the predicate matches; returns that screen. */
	waitForScreen(predicate: ScreenPredicate, timeoutMs?: number, intervalMs?: number): Promise<string>;
	/** True while the pi process in the pane is alive. */
	isAlive(): Promise<boolean>;
	/** Resolves once the pi process in the pane has exited (checked every 50 ms); rejects after `timeoutMs`. */
	waitForExit(timeoutMs?: number): Promise<void>;
	/**
	 * SIGKILL pi, kill the tmux server and wait until pi is gone. Idempotent. `graceful: true` sends only the SIGHUP
	 * from kill-server, so pi runs its shutdown (session_shutdown handlers) first; that takes about 1.2 s.
	 */
	kill(options?: { graceful?: boolean }): Promise<void>;
	/**
	 * From now on, appends every byte pi writes to the pane (escape sequences included, before tmux draws them) to
	 * `file` (`tmux pipe-pane -O`): what a terminal receives beyond what it shows.
	 */
	recordOutput(file: string): Promise<void>;
}

const live = new Set<string>();
let socketCounter = 0;

function tmuxSync(socket: string, args: string[]) {
	return spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
}

process.once("exit", () => {
	for (const socket of live) tmuxSync(socket, ["kill-server"]);
});

/** Alive and not a zombie (in containers nobody may reap pi once the tmux server is gone). */
function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return process.platform !== "linux";
	}
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPidExit(pid: number, timeoutMs: number): Promise<void> {
	const deadline = performance.now() + timeoutMs;
	while (pidAlive(pid)) {
		if (performance.now() > deadline) {
			try {
				process.kill(pid, "SIGKILL");
			} catch {
				// gone
			}
			return;
		}
		await pause(20);
	}
}

function shellQuote(value: string): string {
	return `'${value.replace(/'/g, `'\\''`)}'`;
}

function matches(predicate: ScreenPredicate, screen: string): boolean {
	if (typeof predicate === "string") return screen.includes(predicate);
	if (predicate instanceof RegExp) return predicate.test(screen);
	return predicate(screen);
}

/** A tmux server on a private socket running one pane, and the environment it was started with. */
interface Pane {
	socket: string;
	env: NodeJS.ProcessEnv;
	/** pid of the pane's process: pi, since the launcher `exec`s it. */
	pid: number | undefined;
}

/** Writes the launcher script and tmux's config beside the test's files; returns the launcher's path and the config's. */
function writeLauncher(options: TuiOptions, socket: string): { launcher: string; config: string } {
	const cwd = options.cwd ?? options.env[CWD_ENV] ?? REPO_ROOT;
	const scriptDir = options.env.TMPDIR ?? options.env[CWD_ENV] ?? REPO_ROOT;
	// A launcher script keeps quoting simple and leaves the pane open (remain-on-exit) if pi dies, for diagnostics.
	const launcher = join(scriptDir, `${socket}.sh`);
	const command = (options.command ?? [NODE, (options.host ?? DEFAULT_HOST).cli, ...piArgs(options)])
		.map(shellQuote)
		.join(" ");
	writeFileSync(launcher, `#!/bin/sh\ncd ${shellQuote(cwd)} || exit 1\nexec ${command}\n`);
	chmodSync(launcher, 0o755);
	// Own config: extended keys (pi warns without them) and keep a dead pane's last screen for diagnostics.
	const config = join(scriptDir, `${socket}.conf`);
	writeFileSync(config, "set -g extended-keys on\nset -g remain-on-exit on\nset -g status off\n");
	return { launcher, config };
}

/** Starts a detached tmux session on a new private socket, running the launcher in one pane of the given size. */
function launch(options: TuiOptions): Pane {
	const socket = `til-done-${process.pid}-${++socketCounter}-${Math.random().toString(36).slice(2, 8)}`;
	const { launcher, config } = writeLauncher(options, socket);
	const size = ["-x", String(options.width ?? 100), "-y", String(options.height ?? 30)];
	const env: NodeJS.ProcessEnv = { ...options.env, TERM: "xterm-256color" };
	delete env.TMUX;
	const result = spawnSync("tmux", ["-L", socket, "-f", config, "new-session", "-d", ...size, launcher], {
		env,
		encoding: "utf8",
	});
	if (result.status !== 0) throw new Error(`tmux new-session failed: ${result.stderr}`);
	live.add(socket);
	const pid = Number(tmuxSync(socket, ["display-message", "-p", "#{pane_pid}"]).stdout.trim()) || undefined;
	return { socket, env, pid };
}

/** The TUI in a tmux pane, driven with tmux commands. */
class TmuxTui implements TuiSession {
	startupMs = Number.NaN;
	#killed = false;

	readonly pane: Pane;

	constructor(pane: Pane) {
		this.pane = pane;
	}

	get socket() {
		return this.pane.socket;
	}

	get pid() {
		return this.pane.pid;
	}

	async #tmux(args: string[]): Promise<string> {
		return (await execFileAsync("tmux", ["-L", this.pane.socket, ...args], { env: this.pane.env })).stdout;
	}

	async sendKeys(...keys: string[]): Promise<void> {
		await this.#tmux(["send-keys", ...keys]);
	}

	async recordOutput(file: string): Promise<void> {
		await this.#tmux(["pipe-pane", "-O", `cat >> ${shellQuote(file)}`]);
	}

	async type(text: string): Promise<void> {
		await this.#tmux(["send-keys", "-l", text]);
	}

	capture({ escapes = false }: { escapes?: boolean } = {}): Promise<string> {
		return this.#tmux(["capture-pane", "-p", ...(escapes ? ["-e"] : [])]);
	}

	async waitForScreen(predicate: ScreenPredicate, timeoutMs = 10_000, intervalMs = 50): Promise<string> {
		const deadline = performance.now() + timeoutMs;
		for (;;) {
			const screen = await this.capture();
			if (matches(predicate, screen)) return screen;
			if (performance.now() > deadline) {
				const dead = (await this.isAlive()) ? "" : " (pi has exited)";
				throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(predicate)}${dead}; screen:\n${screen}`);
			}
			await pause(intervalMs);
		}
	}

	async isAlive(): Promise<boolean> {
		try {
			return (await this.#tmux(["display-message", "-p", "#{pane_dead}"])).trim() === "0";
		} catch {
			return false;
		}
	}

	async waitForExit(timeoutMs = 10_000): Promise<void> {
		const deadline = performance.now() + timeoutMs;
		while (await this.isAlive()) {
			if (performance.now() > deadline) throw new Error(`pi did not exit within ${timeoutMs} ms`);
			await pause(50);
		}
	}

	async kill({ graceful = false }: { graceful?: boolean } = {}): Promise<void> {
		if (this.#killed) return;
		this.#killed = true;
		const { socket, pid } = this.pane;
		live.delete(socket);
		// SIGHUP (what kill-server sends) makes pi spend ~1 s draining terminal input; skip that unless asked.
		if (!graceful && pid !== undefined && pidAlive(pid)) process.kill(pid, "SIGKILL");
		try {
			await this.#tmux(["kill-server"]);
		} catch {
			// server already gone
		}
		// kill-server only sends SIGHUP; wait for pi to be gone so its temp folders can be removed.
		if (pid !== undefined) await waitForPidExit(pid, 3000);
	}
}

/** Start `node <cli.js> <piArgs>` (or `options.command`) in a detached tmux session and wait until the TUI is drawn. */
export async function startTui(options: TuiOptions): Promise<TuiSession> {
	const started = performance.now();
	const session = new TmuxTui(launch(options));
	try {
		// "[Extensions]" is listed right after the editor's submit handler is installed and extensions are bound
		// (the fake model extension is always loaded); Enter pressed earlier only shows "Startup is still in progress".
		await session.waitForScreen(options.readyPattern ?? /\[Extensions\]/, options.startTimeoutMs ?? 45_000);
	} catch (error) {
		await session.kill();
		throw error;
	}
	session.startupMs = performance.now() - started;
	return session;
}

/**
 * Types a line into the editor and submits it. A command gets a trailing space: with the completion list of its
 * arguments open, Enter would take the highlighted completion instead of submitting. A command whose arguments are
 * completed from an empty word (`/todos` alone) is typed without it (`trailingSpace: false`): with the space, its
 * argument list would open; without it, Enter completes the command's name and submits it.
 */
export async function submit(
	session: TuiSession,
	text: string,
	{ trailingSpace = text.startsWith("/") }: { trailingSpace?: boolean } = {},
): Promise<void> {
	// Keys that arrive while pi 0.87 reloads are dropped: type again until the editor shows the line, then Enter.
	for (let attempt = 1; ; attempt++) {
		await session.type(trailingSpace ? `${text} ` : text);
		const shown = await session
			.waitForScreen((s) => editorLine(s) === text, 2000)
			.then(
				() => true,
				(error: unknown) => {
					if (attempt === 5) throw error;
					return false;
				},
			);
		if (shown) break;
	}
	await session.sendKeys("Enter");
}

/** The editor's text: the line between its two borders, the last two full-width rules on screen. */
export function editorLine(screen: string): string | undefined {
	const lines = screen.split("\n");
	const rules = lines.flatMap((line, at) => (/^─{20,}$/.test(line) ? [at] : []));
	const [top, bottom] = rules.slice(-2);
	return top !== undefined && bottom === top + 2 ? lines[top + 1]?.trim() : undefined;
}
