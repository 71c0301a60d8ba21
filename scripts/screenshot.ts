/**
 * `npm run screenshot`: renders docs/demo.png, the README screenshot, from a real run of `npm run demo`.
 *
 * NEEDS tmux and a Chromium binary (Debian: `apt-get install -y chromium`; override with `CHROMIUM=/path/to/it`);
 * fonts DejaVu Sans Mono and Noto Color Emoji give the intended look. This is a manual tool for maintainers and is
 * NOT part of CI or `npm test`.
 *
 * It starts scripts/demo.ts in a private tmux server (`tmux -L <own socket>`, 110 x 32), waits until the second
 * auto-continue countdown is on screen (3 of 5 todos done), captures the pane with colours (`capture-pane -p -e`),
 * turns the capture into HTML (scripts/ansi-html.ts) and has headless Chromium take the picture. The demo is then
 * quit with Ctrl+C (it removes its own temp folder) and the tmux server is killed.
 *
 *   node scripts/screenshot.ts [output.png]      (default docs/demo.png; `--html` also keeps the .html next to it)
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { captureToPage } from "./ansi-html.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const COLS = 110;
const ROWS = 32;
/** Device pixels per CSS pixel: 2 keeps the text sharp when GitHub scales the image down. */
const SCALE = 2;
const TITLE = "npm run demo — pi-til-done";
/** The moment to capture: the second countdown, at its first tick. */
const READY = (screen: string) => screen.includes("Auto-continuing in 3s") && screen.includes("📋 3/5");
const TIMEOUT_MS = 120_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping escape sequences
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;

const args = process.argv.slice(2);
const keepHtml = args.includes("--html");
const output = resolve(args.find((arg) => !arg.startsWith("--")) ?? join(REPO_ROOT, "docs/demo.png"));

function shellQuote(value: string): string {
	return `'${value.replace(/'/g, `'\\''`)}'`;
}

function findChromium(): string {
	const candidates = [process.env.CHROMIUM, "chromium", "chromium-browser", "google-chrome"].filter(
		(name): name is string => Boolean(name),
	);
	for (const name of candidates) {
		if (spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0) return name;
	}
	throw new Error("Chromium not found: install it (Debian: apt-get install -y chromium) or set CHROMIUM=/path");
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

async function main(): Promise<void> {
	if (spawnSync("tmux", ["-V"], { stdio: "ignore" }).status !== 0) throw new Error("tmux is not installed");
	const chromium = findChromium();
	const work = mkdtempSync(join(tmpdir(), "pi-til-done-shot-"));
	const socket = `til-done-shot-${process.pid}`;
	const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color", COLORTERM: "truecolor" };
	delete env.TMUX;
	delete env.TMUX_PANE;
	const tmux = (...tmuxArgs: string[]) => execFileSync("tmux", ["-L", socket, ...tmuxArgs], { env, encoding: "utf8" });
	let serverUp = false;
	const stopServer = () => {
		if (!serverUp) return;
		serverUp = false;
		spawnSync("tmux", ["-L", socket, "kill-server"], { env, stdio: "ignore" });
	};
	process.once("exit", () => {
		stopServer();
		rmSync(work, { recursive: true, force: true });
	});

	try {
		const launcher = join(work, "demo.sh");
		const demo = [process.execPath, join(REPO_ROOT, "scripts/demo.ts")].map(shellQuote).join(" ");
		writeFileSync(launcher, `#!/bin/sh\ncd ${shellQuote(REPO_ROOT)} || exit 1\nexec ${demo}\n`);
		chmodSync(launcher, 0o755);
		const config = join(work, "tmux.conf");
		writeFileSync(
			config,
			'set -g extended-keys on\nset -g remain-on-exit on\nset -g status off\nset -g default-terminal "tmux-256color"\n',
		);
		tmux("-f", config, "new-session", "-d", "-x", String(COLS), "-y", String(ROWS), launcher);
		serverUp = true;

		const deadline = performance.now() + TIMEOUT_MS;
		let capture = "";
		for (;;) {
			capture = tmux("capture-pane", "-p", "-e", "-N");
			if (READY(capture.replace(ESCAPES, ""))) break;
			if (tmux("display-message", "-p", "#{pane_dead}").trim() === "1") {
				throw new Error(`the demo exited early; last screen:\n${capture.replace(ESCAPES, "")}`);
			}
			if (performance.now() > deadline) {
				throw new Error(`no countdown within ${TIMEOUT_MS} ms; last screen:\n${capture.replace(ESCAPES, "")}`);
			}
			await sleep(100);
		}

		// Quit the demo the way a user would, so it removes its temp folder.
		tmux("send-keys", "C-c");
		await sleep(300);
		tmux("send-keys", "C-c");
		for (let i = 0; i < 50 && tmux("display-message", "-p", "#{pane_dead}").trim() !== "1"; i++) await sleep(100);
		stopServer();

		const page = captureToPage(capture, { cols: COLS, rows: ROWS, title: TITLE });
		const htmlFile = join(work, "demo.html");
		writeFileSync(htmlFile, page.html);
		mkdirSync(dirname(output), { recursive: true });
		await runChromium(chromium, [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--no-first-run",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
			"--hide-scrollbars",
			`--force-device-scale-factor=${SCALE}`,
			`--user-data-dir=${join(work, "chromium-profile")}`,
			`--screenshot=${output}`,
			`--window-size=${page.width},${page.height}`,
			pathToFileURL(htmlFile).href,
		]);
		if (keepHtml) writeFileSync(`${output.replace(/\.png$/, "")}.html`, page.html);
		process.stdout.write(`wrote ${output} (${page.width}x${page.height} CSS px at ${SCALE}x)\n`);
	} finally {
		stopServer();
	}
}

function runChromium(binary: string, chromiumArgs: string[]): Promise<void> {
	return new Promise((resolveRun, reject) => {
		const child = spawn(binary, chromiumArgs, { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
		child.once("error", reject);
		child.once("exit", (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolveRun();
			else reject(new Error(`chromium failed (${code ?? signal}):\n${stderr.slice(-2000)}`));
		});
	});
}

main().catch((error: unknown) => {
	process.stderr.write(`screenshot: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
