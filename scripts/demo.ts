/**
 * `npm run demo`: the real interactive pi TUI with pi-til-done and a scripted fake model. No API key, no network.
 *
 * The model (demo/fake-model-extension.ts playing demo/script.json) is asked to add a `--json` flag to a tiny CLI
 * (a copy of demo/project/). It plans five todos, finishes one, stops half way "to continue later", and is brought
 * back twice by the auto-continue countdown until the footer shows `✓ Done (5 items)`. The prompt is submitted for
 * you; press any key during a countdown to interrupt it and type yourself. Quit pi with Ctrl+C twice or Ctrl+D.
 *
 * Everything runs in a fresh temp folder (HOME, PI_CODING_AGENT_DIR, TMPDIR, the project; `--no-session`), which is
 * removed on exit, so your own pi settings, sessions and credentials are never read or written.
 *
 * Env vars:
 * - `TIL_DONE_DEMO_SPEED`: speed factor (default 1; the tests use 20): scripted delays are divided by it and the
 *   streaming rate multiplied by it.
 * - `TIL_DONE_COUNTDOWN` and the extension's other `TIL_DONE_*` settings are passed through (`TIL_DONE_COUNTDOWN=1`
 *   makes the pauses shorter).
 * - `TIL_DONE_FAKE_LOG`: if set, the fake model appends one JSON line per model call to that file.
 * - `TIL_DONE_DEMO_PI`: which tested pi version runs the demo (default: the newest, fetched on first use).
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeStep } from "../demo/fake-model-extension.ts";
import { isolatedPiEnv } from "./pi-env.ts";
import { ensurePiHosts } from "./pi-hosts.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DEMO_DIR = join(REPO_ROOT, "demo");
const EXTENSION = join(REPO_ROOT, "src/index.ts");
const FAKE_MODEL = join(DEMO_DIR, "fake-model-extension.ts");
/** Streaming rate of the fake model at speed 1, in tokens per second. */
const TOKENS_PER_SECOND = 60;

const PROMPT = "Add a --json flag to wordcount (cli.mjs) that prints the counts as JSON, and document it.";

function fail(message: string): never {
	process.stderr.write(`demo: ${message}\n`);
	process.exit(1);
}

function nodeIsNewEnough(version: string): boolean {
	// A missing part counts as 0: "22" reads as 22.0.
	const [major = 0, minor = 0] = version.split(".").map(Number);
	return major > 22 || (major === 22 && minor >= 19);
}

/** pi needs Node >= 22.19: this one if new enough, else the repo's `node` devDependency. */
function piNode(): string {
	if (nodeIsNewEnough(process.versions.node)) return process.execPath;
	const local = join(REPO_ROOT, "node_modules/node/bin/node");
	if (existsSync(local)) return local;
	return fail(`pi needs Node >= 22.19 (this is ${process.version}); run \`npm install\` and \`npm run demo\``);
}

function speedFactor(): number {
	const raw = process.env.TIL_DONE_DEMO_SPEED;
	if (raw === undefined || raw.trim() === "") return 1;
	const speed = Number(raw);
	if (!(speed > 0) || !Number.isFinite(speed)) fail(`TIL_DONE_DEMO_SPEED=${raw}: expected a positive number`);
	return speed;
}

/** The demo script with every delay divided by `speed`. */
function scaledScript(speed: number): FakeStep[] {
	const steps = JSON.parse(readFileSync(join(DEMO_DIR, "script.json"), "utf8")) as FakeStep[];
	return steps.map((step) => (step.delayMs ? { ...step, delayMs: Math.round(step.delayMs / speed) } : step));
}

function isolatedEnv(root: string, scriptFile: string, speed: number): NodeJS.ProcessEnv {
	const drop = (key: string) => key === "TIL_DONE_FAKE_SCRIPT" || key === "TIL_DONE_FAKE_TOKENS_PER_SECOND";
	return Object.assign(isolatedPiEnv(root, drop).env, {
		TIL_DONE_FAKE_SCRIPT: scriptFile,
		TIL_DONE_FAKE_TOKENS_PER_SECOND: String(TOKENS_PER_SECOND * speed),
	});
}

/** The CLI of the pi version `TIL_DONE_DEMO_PI` names, else of the newest tested one. */
function piCli(): string {
	const wanted = process.env.TIL_DONE_DEMO_PI?.trim();
	let hosts: ReturnType<typeof ensurePiHosts>;
	try {
		hosts = ensurePiHosts();
	} catch (error) {
		return fail(`${error instanceof Error ? error.message : String(error)}; run \`npm install\` first`);
	}
	const host = wanted ? hosts.find((candidate) => candidate.version === wanted) : hosts.at(-1);
	if (!host) return fail(`TIL_DONE_DEMO_PI=${wanted}: tested versions are ${hosts.map((h) => h.version).join(", ")}`);
	return host.cli;
}

function main(): void {
	const cli = piCli();
	const node = piNode();
	const speed = speedFactor();
	const root = mkdtempSync(join(tmpdir(), "pi-til-done-demo-"));
	let cleaned = false;
	const cleanup = () => {
		if (cleaned) return;
		cleaned = true;
		rmSync(root, { recursive: true, force: true, maxRetries: 5 });
	};
	process.once("exit", cleanup);

	const scriptFile = join(root, "script.json");
	writeFileSync(scriptFile, JSON.stringify(scaledScript(speed)));
	const env = isolatedEnv(root, scriptFile, speed);
	// Inside the temp HOME, so pi's footer shows it as `~/wordcount`.
	const project = join(root, "home", "wordcount");
	cpSync(join(DEMO_DIR, "project"), project, { recursive: true });

	const args = [
		cli,
		"--no-extensions",
		"-e",
		FAKE_MODEL,
		"-e",
		EXTENSION,
		"--provider",
		"til-done-fake",
		"--model",
		"scripted",
		"--no-session",
		"--no-context-files",
		"--no-skills",
		"--no-prompt-templates",
		"--",
		PROMPT,
	];
	const child = spawn(node, args, { cwd: project, env, stdio: "inherit" });
	// Ctrl+C belongs to pi (it reads raw keys); if a SIGINT reaches us anyway, pi decides what happens.
	process.on("SIGINT", () => {});
	for (const signal of ["SIGTERM", "SIGHUP"] as const) {
		process.on(signal, () => {
			child.kill(signal);
		});
	}
	child.once("error", (error) => {
		cleanup();
		fail(`could not start pi: ${error.message}`);
	});
	child.once("exit", (code, signal) => {
		cleanup();
		process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
	});
}

main();
