/**
 * `npm run demo` and `npm run demo:<name>`: the real interactive pi TUI with pi-til-done and a scripted fake model.
 * No API key, no network. `node scripts/demo.ts [<name> | <folder>]` runs a demo of demo/ by its name (without one,
 * the loop) or one of your own folders, laid out the same way.
 *
 * - `loop` (`npm run demo`): the model is asked to add a `--json` flag to a tiny CLI (a copy of demo/project/). It
 *   plans five todos, finishes one, stops half way "to continue later", and is brought back twice by the
 *   auto-continue countdown until the footer shows `✓ Done (5 items)`. Press any key during a countdown to
 *   interrupt it and type yourself.
 * - `judge`: the model calls an item done without doing it; the judge (`--til-done-judge til-done-fake/judge`, the
 *   fake's second model) sends it back with its reason, the model fixes it, and the judge passes the list.
 * - `goal`: `/goal <condition>`; the judge finds it not met after the first run, with a reason, and met after the
 *   second.
 * - `workers`: three workers on three items in a throw-away git repository; two change the same lines, so one
 *   conflicts and lands on its retry. Then type any line for a second run, whose workers wait until you press Esc.
 *
 * A demo is a folder: `demo.json` (`{ "prompt": "...", "args": [...], "git": true }`: the prompt submitted for you,
 * pi's extra arguments, and whether the project is made a git repository), `script.json` for the session's model, and
 * `judge-script.json` or `worker-scripts.json` when it has them (README: "Script the fake model yourself"). Quit pi
 * with Ctrl+C twice or Ctrl+D.
 *
 * Everything runs in a fresh temp folder (HOME, PI_CODING_AGENT_DIR, TMPDIR, the project; `--no-session`), which is
 * removed on exit, so your own pi settings, sessions and credentials are never read or written.
 *
 * Env vars:
 * - `TIL_DONE_DEMO_SPEED`: speed factor (default 1; the tests use 20): scripted delays are divided by it and the
 *   streaming rate multiplied by it.
 * - `TIL_DONE_COUNTDOWN` and the extension's other `TIL_DONE_*` settings are passed through (`TIL_DONE_COUNTDOWN=1`
 *   makes the pauses shorter).
 * - `TIL_DONE_FAKE_LOG`, `TIL_DONE_FAKE_JUDGE_LOG`: if set, the fake model appends one JSON line per model call
 *   (per call of the judge) to that file.
 * - `TIL_DONE_DEMO_PI`: which tested pi version runs the demo (default: the newest, fetched on first use).
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** One demo: a folder whose `demo.json` says what to ask and how pi runs, beside the fake model's scripts. */
interface Demo {
	folder: string;
	/** The prompt submitted for you. */
	prompt: string;
	/** pi's arguments beyond the fake model, the extension and the isolation. */
	args: string[];
	/** The project is a git repository with one commit: the judge reads its change, and workers need one. */
	git: boolean;
}

/** The scripts a demo may have, each with the fake model's variable that names it. */
const SCRIPT_FILES = [
	{ file: "script.json", variable: "TIL_DONE_FAKE_SCRIPT", byItem: false },
	{ file: "judge-script.json", variable: "TIL_DONE_FAKE_JUDGE_SCRIPT", byItem: false },
	{ file: "worker-scripts.json", variable: "TIL_DONE_FAKE_WORKER_SCRIPTS", byItem: true },
] as const;

function fail(message: string): never {
	process.stderr.write(`demo: ${message}\n`);
	process.exit(1);
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The demos of demo/: its folders that hold a `demo.json`. */
const demoNames = (): string[] => readdirSync(DEMO_DIR).filter((name) => existsSync(join(DEMO_DIR, name, "demo.json")));

/** The demo the command line names: a folder of demo/ by its name (none: the loop), or a path to a folder of yours. */
function demoNamed(arg = "loop"): Demo {
	const ours = /^[\w-]+$/.test(arg) && demoNames().includes(arg);
	const folder = ours ? join(DEMO_DIR, arg) : resolve(process.env.INIT_CWD ?? process.cwd(), arg);
	if (!existsSync(join(folder, "demo.json"))) {
		fail(`no demo named ${JSON.stringify(arg)}: name one of ${demoNames().join(", ")}, or a folder with a demo.json`);
	}
	return readDemo(folder);
}

/** A demo's `demo.json`: `{ "prompt": "...", "args": ["..."], "git": true }`; anything else is refused, named. */
function readDemo(folder: string): Demo {
	const file = join(folder, "demo.json");
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(file, "utf8"));
	} catch (error) {
		fail(`${file}: ${messageOf(error)}`);
	}
	const { prompt, args = [], git = false } = (parsed ?? {}) as Record<string, unknown>;
	if (typeof prompt !== "string" || prompt.trim() === "") fail(`${file}: "prompt" must be a text that is not empty`);
	if (!Array.isArray(args) || !args.every((arg): arg is string => typeof arg === "string")) {
		fail(`${file}: "args" must be a list of texts`);
	}
	if (typeof git !== "boolean") fail(`${file}: "git" must be true or false`);
	return { folder, prompt, args, git };
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

/** `steps` with every delay divided by `speed`. */
function scaled(steps: readonly FakeStep[], speed: number): FakeStep[] {
	return steps.map((step) => (step.delayMs ? { ...step, delayMs: Math.round(step.delayMs / speed) } : step));
}

const isSteps = (value: unknown): value is FakeStep[] =>
	Array.isArray(value) && value.every((step) => typeof step === "object" && step !== null && !Array.isArray(step));

/** A script file of the fake model's, its delays scaled: a list of steps, or (`byItem`) lists of steps by item. */
function scaledScript(source: string, byItem: boolean, speed: number): unknown {
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(source, "utf8"));
	} catch (error) {
		fail(`${source}: ${messageOf(error)}`);
	}
	if (!byItem) return isSteps(parsed) ? scaled(parsed, speed) : fail(`${source}: expected a list of steps`);
	const items = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : [];
	const scripts = items.flatMap(([item, steps]) => (isSteps(steps) ? [[item, scaled(steps, speed)]] : []));
	if (items.length === 0 || scripts.length < items.length) {
		fail(`${source}: expected { "<item index>": [steps], "<item index>/again": [steps], ... }`);
	}
	return Object.fromEntries(scripts);
}

/** Writes the demo's scripts, sped up, into `root`; returns the fake model's variables that name them. */
function writeScripts(demo: Demo, root: string, speed: number): Record<string, string> {
	const variables: Record<string, string> = {};
	for (const { file, variable, byItem } of SCRIPT_FILES) {
		const source = join(demo.folder, file);
		if (!existsSync(source)) continue;
		const target = join(root, file);
		writeFileSync(target, JSON.stringify(scaledScript(source, byItem, speed)));
		variables[variable] = target;
	}
	return variables;
}

function isolatedEnv(root: string, scripts: Record<string, string>, speed: number): NodeJS.ProcessEnv {
	const ours = new Set([...SCRIPT_FILES.map((script) => script.variable), "TIL_DONE_FAKE_TOKENS_PER_SECOND"]);
	return Object.assign(isolatedPiEnv(root, (key) => ours.has(key)).env, scripts, {
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
		return fail(`${messageOf(error)}; run \`npm install\` first`);
	}
	const host = wanted ? hosts.find((candidate) => candidate.version === wanted) : hosts.at(-1);
	if (!host) return fail(`TIL_DONE_DEMO_PI=${wanted}: tested versions are ${hosts.map((h) => h.version).join(", ")}`);
	return host.cli;
}

/** Makes `project` a throw-away repository: the copy committed as it is, by a demo author of its own. */
function makeRepository(project: string, env: NodeJS.ProcessEnv): void {
	const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env, stdio: "pipe" });
	try {
		git("init", "-q");
		git("add", ".");
		git("-c", "user.name=demo", "-c", "user.email=demo@example.invalid", "commit", "-qm", "The project as it was");
	} catch (error) {
		fail(`this demo needs git, which failed: ${messageOf(error)}`);
	}
}

/** A copy of demo/project/ inside the temp HOME, so pi's footer shows it as `~/wordcount`. */
function makeProject(demo: Demo, root: string, env: NodeJS.ProcessEnv): string {
	const project = join(root, "home", "wordcount");
	cpSync(join(DEMO_DIR, "project"), project, { recursive: true });
	if (demo.git) makeRepository(project, env);
	return project;
}

function piArgs(cli: string, demo: Demo): string[] {
	return [
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
		...demo.args,
		"--",
		demo.prompt,
	];
}

/** Runs pi in this terminal; when it exits, `cleanup` runs and the demo exits as pi did. */
function runPi(node: string, args: string[], project: string, env: NodeJS.ProcessEnv, cleanup: () => void): void {
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

function main(): void {
	const demo = demoNamed(process.argv[2]);
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
	const env = isolatedEnv(root, writeScripts(demo, root, speed), speed);
	runPi(node, piArgs(cli, demo), makeProject(demo, root, env), env, cleanup);
}

main();
