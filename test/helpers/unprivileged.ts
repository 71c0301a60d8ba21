/**
 * pi -p run as a person runs it, without root's power to read and remove any folder: as `nobody` through `setpriv`
 * when the tests run as root (its environment's folders handed to `nobody` for the run, and back after), as is
 * otherwise. A folder of mode 000 blocks its removal only then.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { PI_HOSTS_CACHE } from "../../scripts/pi-hosts.ts";
import { type IsolatedEnv, NODE, type PiHost, piArgs, type RunResult } from "./cli.ts";

/** The user a root test runs pi as. */
const NOBODY = 65534;

const asRoot = process.getuid?.() === 0;

/** A fetched host's folder, made by `mkdtemp` (mode 700) before scripts/pi-hosts.ts opened it: readable by all. */
function readableByAll(host: PiHost): void {
	const inCache = relative(PI_HOSTS_CACHE, host.cli);
	if (!inCache.startsWith("..")) chmodSync(join(PI_HOSTS_CACHE, inCache.split(sep)[0] ?? ""), 0o755);
}

/** pi -p with the fake model and `extensions`, in `env`'s project, as an unprivileged user; how it ended. */
export function runPrintUnprivileged(
	args: string[],
	env: IsolatedEnv,
	options: { host: PiHost; extensions: string[]; sessionDir: string; timeoutMs: number },
): Promise<RunResult> {
	const full = [
		options.host.cli,
		...piArgs({ extensions: options.extensions, session: { dir: options.sessionDir }, args }),
	];
	const [command, commandArgs] = asRoot
		? ["setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", NODE, ...full]]
		: [NODE, full];
	if (asRoot) {
		execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, env.root]);
		readableByAll(options.host);
	}
	const child = spawn(command, commandArgs, { cwd: env.cwd, env: env.env, stdio: ["pipe", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
	});
	child.stdin.end();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		child.kill("SIGKILL");
	}, options.timeoutMs);
	return new Promise((resolve, reject) => {
		child.once("error", reject);
		child.once("close", (code, signal) => {
			clearTimeout(timer);
			// Back to the test's user: its git reads the repository, and its clean-up removes everything.
			if (asRoot) execFileSync("chown", ["-R", "0:0", env.root]);
			resolve({ stdout, stderr, code, signal, timedOut });
		});
	});
}
