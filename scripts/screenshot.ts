/**
 * `npm run screenshot`: renders docs/demo.png, the README screenshot, from a real run of `npm run demo`.
 *
 * NEEDS tmux and a Chromium binary (Debian: `apt-get install -y chromium`; override with `CHROMIUM=/path/to/it`)
 * and the fonts DejaVu Sans Mono and Noto Color Emoji (`fonts-dejavu-core fonts-noto-color-emoji`): the columns line
 * up because both fonts' widths are known. This is a manual tool for maintainers and is NOT part of CI or `npm test`.
 *
 * It starts scripts/demo.ts in a private tmux server (`tmux -L <own socket>`, 110 x 32), waits until the second
 * auto-continue countdown is on screen (3 of 5 todos done), captures the pane with colours (`capture-pane -p -e`),
 * turns the capture into HTML (the `anser` package, inside a small terminal-window page) and has headless Chromium
 * take the picture. The demo is then quit with Ctrl+C (it removes its own temp folder) and the tmux server is killed.
 *
 *   node scripts/screenshot.ts [output.png]      (default docs/demo.png; `--html` also keeps the .html next to it)
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Anser from "anser";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const COLS = 110;
const ROWS = 32;
/** Device pixels per CSS pixel: 2 keeps the text sharp when GitHub scales the image down. */
const SCALE = 2;
const TITLE = "npm run demo — pi-til-done";
/** The moment to capture: the second countdown, at its first tick. */
const READY = (screen: string) => screen.includes("Auto-continuing in 3s") && screen.includes("📋 3/5");
const TIMEOUT_MS = 120_000;
const FONT_PX = 15;
/** Advance width of DejaVu Sans Mono (1233/2048 em), the width of one terminal cell. */
const CELL_PX = (FONT_PX * 1233) / 2048;
const LINE_PX = Math.round(FONT_PX * 1.3);
const TITLE_BAR_PX = 32;
const PADDING_PX = 14;
/** Scales Noto Color Emoji (2560/2048 em wide) so that an emoji takes exactly two cells, as in the terminal. */
const EMOJI_SIZE_ADJUST = `${((2 * 1233) / 2560) * 100}%`;

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

/** The capture as a terminal window with a title bar; anser turns the SGR colours and attributes into styled spans. */
function terminalPage(capture: string): { html: string; width: number; height: number } {
	const termWidth = Math.ceil(COLS * CELL_PX);
	const title = Anser.escapeForHtml(TITLE);
	// The HTML parser drops the one newline right after <pre>, so a blank first line of the capture survives.
	const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>
@font-face { font-family: "Emoji2Cells"; src: local("Noto Color Emoji"); size-adjust: ${EMOJI_SIZE_ADJUST}; }
html, body { margin: 0; padding: 0; background: rgb(24,26,31); overflow: hidden; }
.bar { height: ${TITLE_BAR_PX}px; background: #2b2e36; display: flex; align-items: center; padding: 0 12px;
	font: 13px system-ui, sans-serif; color: #a0a4ad; position: relative; }
.dot { width: 12px; height: 12px; border-radius: 50%; margin-right: 8px; }
.bar .t { position: absolute; left: 0; right: 0; text-align: center; }
.term { margin: 0; padding: ${PADDING_PX}px; width: ${termWidth}px; height: ${ROWS * LINE_PX}px; overflow: hidden;
	font: ${FONT_PX}px/${LINE_PX}px "DejaVu Sans Mono", "Emoji2Cells", monospace; color: rgb(215,218,224);
	font-variant-ligatures: none; white-space: pre; }
</style></head><body>
<div class="bar"><span class="dot" style="background:#ff5f57"></span><span class="dot" style="background:#febc2e"></span><span class="dot" style="background:#28c840"></span><span class="t">${title}</span></div>
<pre class="term">
${Anser.ansiToHtml(Anser.escapeForHtml(capture))}</pre>
</body></html>
`;
	return { html, width: termWidth + 2 * PADDING_PX, height: TITLE_BAR_PX + ROWS * LINE_PX + 2 * PADDING_PX };
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

type Tmux = (...tmuxArgs: string[]) => string;

/** Runs the demo in a detached tmux window and returns its screen (with escapes) once the countdown shows. */
async function captureDemo(tmux: Tmux, work: string): Promise<string> {
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
	const deadline = performance.now() + TIMEOUT_MS;
	for (;;) {
		const capture = tmux("capture-pane", "-p", "-e", "-N");
		if (READY(capture.replace(ESCAPES, ""))) return capture;
		if (tmux("display-message", "-p", "#{pane_dead}").trim() === "1") {
			throw new Error(`the demo exited early; last screen:\n${capture.replace(ESCAPES, "")}`);
		}
		if (performance.now() > deadline) {
			throw new Error(`no countdown within ${TIMEOUT_MS} ms; last screen:\n${capture.replace(ESCAPES, "")}`);
		}
		await sleep(100);
	}
}

/** Quits the demo the way a user would (Ctrl+C twice), so it removes its temp folder. */
async function quitDemo(tmux: Tmux): Promise<void> {
	tmux("send-keys", "C-c");
	await sleep(300);
	tmux("send-keys", "C-c");
	for (let i = 0; i < 50 && tmux("display-message", "-p", "#{pane_dead}").trim() !== "1"; i++) await sleep(100);
}

/** Draws the capture as a terminal window and has headless chromium save it as the PNG. */
async function renderPng(chromium: string, work: string, capture: string): Promise<void> {
	const page = terminalPage(capture);
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
}

async function main(): Promise<void> {
	if (spawnSync("tmux", ["-V"], { stdio: "ignore" }).status !== 0) throw new Error("tmux is not installed");
	const chromium = findChromium();
	const work = mkdtempSync(join(tmpdir(), "pi-til-done-shot-"));
	const socket = `til-done-shot-${process.pid}`;
	const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color", COLORTERM: "truecolor" };
	delete env.TMUX;
	delete env.TMUX_PANE;
	const tmux: Tmux = (...tmuxArgs) => execFileSync("tmux", ["-L", socket, ...tmuxArgs], { env, encoding: "utf8" });
	const stopServer = () => spawnSync("tmux", ["-L", socket, "kill-server"], { env, stdio: "ignore" });
	process.once("exit", () => {
		stopServer();
		rmSync(work, { recursive: true, force: true });
	});
	try {
		const capture = await captureDemo(tmux, work);
		await quitDemo(tmux);
		stopServer();
		await renderPng(chromium, work, capture);
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
