/**
 * Shared code for end-to-end tests that run the real `pi` CLI as a child process: paths, an isolated environment,
 * scripted fake-model files, the standard argument list, and print/json mode runners.
 *
 * Every pi child runs on Node >= 22.19 (`process.execPath` under `npm run`/`npx`, else the repo's `node` package).
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
	appendFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeLogLine, FakeStep, FakeUsageLine } from "../../demo/fake-model-extension.ts";
import { isolatedPiEnv } from "../../scripts/pi-env.ts";
import { type PiHost, piHosts } from "../../scripts/pi-hosts.ts";

export type { FakeLogLine, FakeStep, PiHost };

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const PI_PACKAGE_DIR = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent");
/** Every tested pi version with its CLI entry; the global set-up (test/global-setup.ts) has fetched them. */
export const ALL_HOSTS: readonly [PiHost, ...PiHost[]] = piHosts();
/**
 * The full lines, 0.87.1 and the current 1.6.0 (package exports are import-only, so the CLI paths are built from the
 * package folders): every command-line suite runs once per host.
 */
export const PI_HOSTS: readonly [PiHost, ...PiHost[]] = [
	ALL_HOSTS[0],
	...ALL_HOSTS.slice(1).filter((host) => host.full),
];
/** The lines before the current one (1.5.2): only the smoke suite runs on them. */
export const SMOKE_HOSTS: readonly PiHost[] = ALL_HOSTS.filter((host) => !host.full);
/** The pinned devDependency, which the in-process SDK tests also use. */
export const DEFAULT_HOST: PiHost = ALL_HOSTS[0];
/** The newest tested pi: the demo runs on it. */
export const NEWEST_HOST: PiHost = PI_HOSTS[PI_HOSTS.length - 1] ?? DEFAULT_HOST;
export const FAKE_MODEL_EXTENSION = join(REPO_ROOT, "demo/fake-model-extension.ts");
/** The extension under development. */
export const EXTENSION_ENTRY = join(REPO_ROOT, "src/index.ts");
export const FAKE_MODEL_ARGS = ["--provider", "til-done-fake", "--model", "scripted"] as const;

function nodeIsNewEnough(version: string): boolean {
	// A missing part counts as 0: "22" reads as 22.0.
	const [major = 0, minor = 0] = version.split(".").map(Number);
	return major > 22 || (major === 22 && minor >= 19);
}

/** A Node binary able to run pi: the current one if new enough, else the repo's `node` devDependency. */
export const NODE =
	nodeIsNewEnough(process.versions.node) || !existsSync(join(REPO_ROOT, "node_modules/node/bin/node"))
		? process.execPath
		: join(REPO_ROOT, "node_modules/node/bin/node");

/** Env var holding the isolated project folder; runners use it as the default cwd. */
export const CWD_ENV = "TIL_DONE_TEST_CWD";

export interface IsolatedEnv {
	/** Temp root; everything below is removed by cleanup(). */
	root: string;
	home: string;
	agentDir: string;
	tmpDir: string;
	/** An empty project folder, used as pi's cwd. */
	cwd: string;
	/** Environment for pi children (a copy of process.env, isolated, API keys stripped). */
	env: NodeJS.ProcessEnv;
	/** Write a fake-model script; its env vars are also merged into `env`. */
	writeScript(steps: FakeStep[]): ScriptFiles;
	/**
	 * Write the scripts pi-til-done's workers play, by item index (`"<index>/again"` for a next try), and point
	 * `TIL_DONE_FAKE_WORKER_SCRIPTS` at them; the file's path (a mark a worker's environment carries). The fake model
	 * logs every answer's usage from then on (`TIL_DONE_FAKE_USAGE_LOG`): {@link IsolatedEnv.workerTries}.
	 */
	writeWorkerScripts(scripts: Record<string, FakeStep[]>): string;
	/** Each worker's try, in the order of its first answer: its item and the tokens of its answers, as pi recorded them. */
	workerTries(): { item: number; tokens: number }[];
	/** Lines appended by the fake model to its log so far ([] if none). */
	readLog(): FakeLogLine[];
	cleanup(): void;
}

export interface ScriptFiles {
	scriptFile: string;
	logFile: string;
	/** `{ TIL_DONE_FAKE_SCRIPT, TIL_DONE_FAKE_LOG }` */
	env: { TIL_DONE_FAKE_SCRIPT: string; TIL_DONE_FAKE_LOG: string };
}

const liveRoots = new Set<string>();

/**
 * Make a temp HOME / PI_CODING_AGENT_DIR / TMPDIR / project folder and an env that points pi at them, with
 * PI_OFFLINE=1, PI_SKIP_VERSION_CHECK=1, PI_TELEMETRY=0 and no real provider credentials.
 */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): IsolatedEnv {
	const root = mkdtempSync(join(tmpdir(), "til-done-e2e-"));
	liveRoots.add(root);
	const { env, home, agentDir, tmpDir } = isolatedPiEnv(root, (key) => key.startsWith("TIL_DONE_"));
	const cwd = join(root, "project");
	mkdirSync(cwd, { recursive: true });
	shareJitiCache(tmpDir);
	Object.assign(env, { [CWD_ENV]: cwd, ...extra });
	const iso: IsolatedEnv = {
		root,
		home,
		agentDir,
		tmpDir,
		cwd,
		env,
		writeScript(steps) {
			const files = writeScript(steps, root);
			Object.assign(env, files.env);
			env.TIL_DONE_WORKER_WRITABLE = workerWritable(env);
			return files;
		},
		writeWorkerScripts(scripts) {
			const file = join(root, "worker-scripts.json");
			writeFileSync(file, JSON.stringify(scripts));
			env.TIL_DONE_FAKE_WORKER_SCRIPTS = file;
			env.TIL_DONE_FAKE_USAGE_LOG = join(root, "usage.jsonl");
			appendFileSync(env.TIL_DONE_FAKE_USAGE_LOG, "");
			env.TIL_DONE_WORKER_WRITABLE = workerWritable(env);
			return file;
		},
		workerTries() {
			const tries = new Map<string, { item: number; tokens: number }>();
			for (const line of workerUsage(env)) {
				const found = tries.get(line.process) ?? { item: line.worker, tokens: 0 };
				found.tokens += line.tokens;
				tries.set(line.process, found);
			}
			return [...tries.values()];
		},
		readLog() {
			const file = env.TIL_DONE_FAKE_LOG;
			return file ? readFakeLog(file) : [];
		},
		cleanup() {
			liveRoots.delete(root);
			rmSync(root, { recursive: true, force: true, maxRetries: 5 });
		},
	};
	return iso;
}

/**
 * jiti's cache of compiled modules, shared by every pi a test starts. pi compiles each extension's TypeScript with jiti
 * into `$TMPDIR/jiti`; a fresh `TMPDIR` per test would compile this extension (and pi-subagents, about 100,000 lines)
 * again in every process. The cache is keyed by each file's content, so a changed source is compiled afresh. Kept
 * under node_modules, so a fresh clone starts cold.
 */
export const SHARED_JITI_CACHE = join(REPO_ROOT, "node_modules/.cache/pi-til-done-jiti");

function shareJitiCache(tmpDir: string): void {
	mkdirSync(SHARED_JITI_CACHE, { recursive: true });
	symlinkSync(SHARED_JITI_CACHE, join(tmpDir, "jiti"));
}

/**
 * What a confined worker may write besides its tree (`TIL_DONE_WORKER_WRITABLE`): the fake model's logs (by depth too),
 * which the model in a worker's pi appends to.
 */
export function workerWritable(env: NodeJS.ProcessEnv): string {
	const logs = Object.keys(env).filter((name) => /^TIL_DONE_FAKE_(LOG|USAGE_LOG|LOG_\d+)$/.test(name));
	return logs.flatMap((name) => env[name] ?? []).join(":");
}

let scriptCounter = 0;

/** Write `steps` to a new script file in `dir` (default: a fresh temp folder) and return it with its env vars. */
export function writeScript(steps: FakeStep[], dir?: string): ScriptFiles {
	const folder = dir ?? mkdtempSync(join(tmpdir(), "til-done-script-"));
	const n = ++scriptCounter;
	const scriptFile = join(folder, `fake-script-${n}.json`);
	const logFile = join(folder, `fake-log-${n}.jsonl`);
	writeFileSync(scriptFile, JSON.stringify(steps, null, 2));
	appendFileSync(logFile, "");
	return { scriptFile, logFile, env: { TIL_DONE_FAKE_SCRIPT: scriptFile, TIL_DONE_FAKE_LOG: logFile } };
}

/**
 * Resolves with `read()`'s value once it is not undefined, checked every 50 ms; rejects after `timeoutMs`. For states
 * only the file system shows, such as a file another process writes when it is done.
 */
export async function waitForValue<T>(read: () => T | undefined, timeoutMs = 10_000, label = "a value"): Promise<T> {
	const deadline = performance.now() + timeoutMs;
	for (;;) {
		const value = read();
		if (value !== undefined) return value;
		if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/**
 * The whole lines of a JSON-lines log that pi processes append to while a test reads it, parsed: a last line still
 * being written (no newline yet) is left for the next read.
 */
export function readLogLines<T>(file: string): T[] {
	const text = readFileSync(file, "utf8");
	return text
		.slice(0, text.lastIndexOf("\n") + 1)
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as T);
}

export function readFakeLog(file: string): FakeLogLine[] {
	return existsSync(file) ? readLogLines<FakeLogLine>(file) : [];
}

/** The lines of the fake model's usage log that are workers' answers. */
function workerUsage(env: NodeJS.ProcessEnv): (FakeUsageLine & { worker: number })[] {
	const file = env.TIL_DONE_FAKE_USAGE_LOG;
	const lines = file && existsSync(file) ? readFakeUsage(file) : [];
	return lines.flatMap((line) => (line.worker === null ? [] : [{ ...line, worker: line.worker }]));
}

/** The fake model's usage log: one line per answer. */
function readFakeUsage(file: string): FakeUsageLine[] {
	return readLogLines<FakeUsageLine>(file);
}

/** Remove every isolated folder not yet cleaned up (call from afterAll if tests may fail midway). */
export function cleanupAll(): void {
	for (const root of liveRoots) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
	liveRoots.clear();
}

export type SessionOption = { none: true } | { dir: string } | { file: string };

export interface PiArgsOptions {
	/** Which pi runs (default {@link DEFAULT_HOST}). */
	host?: PiHost;
	/** Extensions loaded after the fake model (absolute or cwd-relative paths). */
	extensions?: string[];
	/** Default `{ none: true }` (`--no-session`). */
	session?: SessionOption;
	/** Appended last (e.g. `["-p", "hello"]`). */
	args?: string[];
}

/** `-ne -e <fake model> -e <ext>... --provider til-done-fake --model scripted <session> <args>` */
export function piArgs(options: PiArgsOptions = {}): string[] {
	const session = options.session ?? { none: true };
	const sessionArgs =
		"none" in session
			? ["--no-session"]
			: "dir" in session
				? ["--session-dir", session.dir]
				: ["--session", session.file];
	return [
		"-ne",
		"-e",
		FAKE_MODEL_EXTENSION,
		...(options.extensions ?? []).flatMap((ext) => ["-e", ext]),
		...FAKE_MODEL_ARGS,
		...sessionArgs,
		...(options.args ?? []),
	];
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes

const liveChildren = new Set<ChildProcess>();

/** Spawn `node <cli.js> ...args` in its own process group, tracked so that nothing outlives the test process. */
export function spawnPi(args: string[], env: NodeJS.ProcessEnv, cwd?: string, host = DEFAULT_HOST): ChildProcess {
	const child = spawn(NODE, [host.cli, ...args], {
		cwd: cwd ?? env[CWD_ENV] ?? REPO_ROOT,
		env,
		stdio: ["pipe", "pipe", "pipe"],
		detached: true,
	});
	liveChildren.add(child);
	child.once("exit", () => liveChildren.delete(child));
	return child;
}

/** Signal the child's whole process group (falls back to the child alone). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// already gone
		}
	}
}

/** Wait for exit; SIGTERM after `graceMs`, SIGKILL after another `graceMs`. Resolves with the exit status. */
export function waitForExit(
	child: ChildProcess,
	graceMs = 3000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
	return new Promise((resolvePromise) => {
		if (child.exitCode !== null || child.signalCode !== null) {
			resolvePromise({ code: child.exitCode, signal: child.signalCode });
			return;
		}
		const term = setTimeout(() => killGroup(child, "SIGTERM"), graceMs);
		const kill = setTimeout(() => killGroup(child, "SIGKILL"), graceMs * 2);
		child.once("exit", (code, signal) => {
			clearTimeout(term);
			clearTimeout(kill);
			// Reap anything the child left behind in its group (e.g. a bash tool's subprocess).
			if (child.pid !== undefined) {
				try {
					process.kill(-child.pid, "SIGKILL");
				} catch {
					// group empty
				}
			}
			resolvePromise({ code, signal });
		});
	});
}

process.once("exit", () => {
	for (const child of liveChildren) killGroup(child, "SIGKILL");
});

export interface RunResult {
	stdout: string;
	stderr: string;
	code: number | null;
	signal: NodeJS.Signals | null;
	timedOut: boolean;
}

export interface RunOptions extends Omit<PiArgsOptions, "args"> {
	/** Default: env.TIL_DONE_TEST_CWD (the isolated project folder), else the repo root. */
	cwd?: string;
	/** Kill the run after this long (default 20 s). */
	timeoutMs?: number;
	/** Written to stdin, which is then closed (default: closed immediately). */
	input?: string;
	/** Pass `args` to the CLI unchanged instead of wrapping them with {@link piArgs}. */
	raw?: boolean;
}

/**
 * Run pi to completion, e.g. `runPrint(["-p", "hello"], iso.env, { extensions: [EXTENSION_ENTRY] })`.
 * Unless `raw`, args are wrapped as `piArgs({ extensions, session, args })`.
 */
export function runPrint(args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<RunResult> {
	const fullArgs = options.raw ? args : piArgs({ extensions: options.extensions, session: options.session, args });
	const child = spawnPi(fullArgs, env, options.cwd, options.host);
	let stdout = "";
	let stderr = "";
	let timedOut = false;
	child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
	});
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
	});
	child.stdin?.end(options.input ?? "");
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, "SIGKILL");
	}, options.timeoutMs ?? 20_000);
	return new Promise((resolvePromise, reject) => {
		child.once("error", (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.once("close", (code, signal) => {
			clearTimeout(timer);
			resolvePromise({ stdout, stderr, code, signal, timedOut });
		});
	});
}

export interface JsonRunResult extends RunResult {
	/** Every JSONL record on stdout (the first is the session header). */
	events: Record<string, unknown>[];
}

/** Like {@link runPrint} with `--mode json`; stdout is split on LF only and parsed. */
export async function runJson(
	args: string[],
	env: NodeJS.ProcessEnv,
	options: RunOptions = {},
): Promise<JsonRunResult> {
	const result = await runPrint(["--mode", "json", ...args], env, options);
	return { ...result, events: parseJsonLines(result.stdout) };
}

/** Parse JSONL split on "\n" only (Unicode line separators are legal inside JSON strings). */
export function parseJsonLines(text: string): Record<string, unknown>[] {
	return text
		.split("\n")
		.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}
