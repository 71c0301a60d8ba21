/**
 * Running checks, the model's item checks and the user's done-check: shell commands through `pi.exec`, in the
 * session's folder, with a timeout and the run's abort signal. The edge where commands run; nothing here decides.
 */

import type { ExecOptions, ExecResult } from "@earendil-works/pi-coding-agent";
import type { CheckRun } from "../../core/model/types.ts";
import { killMarked, newMark, SWEEP_FUNCTION, shellMark } from "../host/processes.ts";

/** `pi.exec`, or a stand-in with its shape. */
export type Exec = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

/** Bytes of a check's output kept while it runs: a runaway command cannot fill memory. */
export const CHECK_CAPTURE_BYTES = 20_000;
/** Seconds a check gets after its timeout's TERM before it is killed. */
const KILL_GRACE_SECONDS = 5;

/**
 * The ways to run a command in a process-id namespace of its own, tried in turn (as root; as any user where the kernel
 * lets one make a user namespace): when its first process ends, the kernel kills every process left in it, those that
 * cleared their environment and left the session and the folder too, so none outlives the check or holds its output.
 */
const PID_NAMESPACES = ["unshare --pid --fork --kill-child", "unshare --map-current-user --pid --fork --kill-child"];

/**
 * The namespace's first process: the check's shell runs as its child, so the check is no namespace's init (which
 * ignores its own `kill $$`), and its end ends the namespace with its code; bash's word on a killed job is not the
 * check's, so only the check's stderr is kept.
 */
const NAMESPACE_INIT = 'exec 3>&2 2>/dev/null; bash -c "$1" 2>&3 3>&- & wait "$!"';

/**
 * Runs "$1" in bash with stdout and stderr merged, keeping only the last bytes, in a process-id namespace of its own
 * where one can be made ({@link PID_NAMESPACES}). The check's shell carries the mark "$2" in its environment, and so
 * does everything it starts (background jobs, `nohup`, `setsid`). When the shell exits, whatever it left running is
 * killed, by the namespace's end and by that mark, so its exit code is its result at once and no child holds the output
 * pipe open. The runner and the tail ignore TERM so that, when `timeout` stops the check's process group, the tail
 * still prints what the check said before it died.
 */
const TAIL_SCRIPT = [
	"trap '' TERM",
	SWEEP_FUNCTION,
	'check() { exec bash -c "$1"; }',
	`for way in ${PID_NAMESPACES.map((way) => `'${way}'`).join(" ")}; do`,
	`  if $way true 2>/dev/null; then check() { exec $way bash -c '${NAMESPACE_INIT}' _ "$1"; }; break; fi`,
	"done",
	`{ (trap - TERM; ${shellMark("$2")}; check "$1") 2>&1; code=$?; sweep "$2"; exit "$code"; } 2>/dev/null | (trap '' TERM; exec tail -c ${CHECK_CAPTURE_BYTES})`,
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
	'exit "${PIPESTATUS[0]}"',
].join("\n");

/** Seconds between two looks of a check's runner for the pi that started it. */
const PARENT_WATCH_SECONDS = 1;

/**
 * Watches the pi that started the runner ("$1") and the runner ("$3"); once either is gone (pi by a SIGKILL, which no
 * handler of ours sees), kills the check's process group ("$2", `timeout`'s): the check ends with them rather than at
 * its timeout. In a session of its own, so the runner ends it and its `sleep` as one group once the check has ended.
 */
const PARENT_WATCH = `while kill -0 "$1" && kill -0 "$3"; do sleep ${PARENT_WATCH_SECONDS}; done 2>/dev/null; kill -KILL -- -"$2"`;

/**
 * Starts the check under coreutils `timeout`, which runs it in a process group of its own and kills the whole group
 * when the time is up. The runner waits for `timeout` rather than becoming it, so it stays outside that group: a check
 * that kills its own group (`kill -KILL 0`) ends with 137 through the runner, where `pi.exec` would report the group's
 * leader killed by a signal as exit 0 (pi 0.87). The runner ignores the TERM `pi.exec` sends on a stop: the stop kills
 * the check by its mark, and the runner waits for the tail's last words. Without `timeout` (macOS without coreutils)
 * the check runs plainly and `pi.exec`'s own timeout stops it. A watcher beside it ends the check once the pi that
 * started the runner is gone ({@link PARENT_WATCH}). Its last words are its status, after the token "$5"
 * ({@link readStatus}): a runner killed by a signal, which pi 0.87 reads as exit 0, never says them.
 */
const RUNNER_SCRIPT = [
	"if command -v timeout >/dev/null 2>&1; then",
	"  trap '' TERM",
	// bash says on its own stderr when a job is killed: that line is not the check's, so only timeout's stderr is kept.
	"  exec 3>&2 2>/dev/null",
	`  timeout -k ${KILL_GRACE_SECONDS} "$2" bash -c "$3" _ "$1" "$4" 2>&3 3>&- &`,
	"  checked=$!",
	`  setsid bash -c '${PARENT_WATCH}' _ "$PPID" "$checked" "$$" 2>/dev/null &`,
	"  watcher=$!",
	'  wait "$checked"',
	"  code=$?",
	'  kill -KILL -- -"$watcher" 2>/dev/null',
	"else",
	'  bash -c "$3" _ "$1" "$4"',
	"  code=$?",
	"fi",
	`printf '\\n%s %s\\n' "$5" "$code"`,
	'exit "$code"',
].join("\n");

/**
 * The runner's stdout without its status line, and the status it gives; undefined when it has none: the runner did not
 * end by itself (a signal ended it).
 */
function readStatus(stdout: string, token: string): { output: string; code: number | undefined } {
	const at = stdout.lastIndexOf(`\n${token} `);
	const code = at < 0 ? undefined : Number(stdout.slice(at + token.length + 2).trim());
	return at < 0 || !Number.isInteger(code)
		? { output: stdout, code: undefined }
		: { output: stdout.slice(0, at), code };
}

/** The code a runner killed by a signal is read with when pi says 0 (pi 0.87): SIGKILL's, the one it cannot ignore. */
const KILLED_RUNNER_CODE = 128 + 9;

/** Seconds past its timeout and grace after which a check is killed by its mark, should `timeout` fail to. */
const BACKSTOP_SECONDS = KILL_GRACE_SECONDS + 5;

export interface CheckOptions {
	cwd: string;
	timeoutSeconds: number;
	signal?: AbortSignal;
}

/** Runs one check to its end, its timeout or the abort; never throws. */
export async function runCheck(exec: Exec, command: string, options: CheckOptions): Promise<CheckRun> {
	const started = performance.now();
	const timeoutMs = options.timeoutSeconds * 1000;
	const mark = newMark();
	const token = newMark();
	// A stop kills the check at once, by its mark: a command that ignores TERM must not hold it.
	const stop = () => killMarked(mark);
	options.signal?.addEventListener("abort", stop, { once: true });
	const backstop = setTimeout(stop, timeoutMs + BACKSTOP_SECONDS * 1000);
	let result: ExecResult;
	try {
		result = await exec(
			"bash",
			["-c", RUNNER_SCRIPT, "_", command, String(options.timeoutSeconds), TAIL_SCRIPT, mark, token],
			{
				cwd: options.cwd,
				// The last backstop, should the runner itself hang: later than the check's own.
				timeout: timeoutMs + 2 * BACKSTOP_SECONDS * 1000,
				signal: options.signal,
			},
		);
	} catch (error) {
		result = { stdout: "", stderr: error instanceof Error ? error.message : String(error), code: 1, killed: false };
	}
	clearTimeout(backstop);
	options.signal?.removeEventListener("abort", stop);
	killMarked(mark);
	const ms = performance.now() - started;
	const aborted = options.signal?.aborted === true;
	// A check still running at its timeout was stopped, whatever code comes back: `pi.exec` reports a process killed
	// by a signal as code 0, and `timeout` kills itself with the group when it has to send KILL.
	const timedOut = !aborted && (result.killed || ms >= timeoutMs);
	const stopped = aborted || timedOut;
	const status = readStatus(result.stdout, token);
	const code = status.code ?? (result.code === 0 ? KILLED_RUNNER_CODE : result.code);
	return {
		command,
		passed: !stopped && status.code === 0,
		code: stopped ? null : code,
		timedOut,
		aborted,
		output: `${status.output}${result.stderr}`,
		ms,
	};
}
