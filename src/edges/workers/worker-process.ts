/**
 * One worker's process: a `pi --mode json -p` child (as pi's own `subagent` example starts one) in its own process
 * group, read line by line for what it spent and how it ended, and stopped whole (its group killed) on a timeout or
 * when the run that started it is aborted. Every process it starts carries its mark, `setsid` and `nohup` ones too:
 * whatever of it is left when it ends, however it ends, is killed by that mark before its end is told.
 */

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readUsage, type UsageRecord } from "../../core/rules/usage.ts";
import { textOfContent } from "../../core/texts/sanitize.ts";
import { killMarked, markedEnv, newMark, signalGroup } from "../host/processes.ts";
import { WORKER_MARK } from "../host/role.ts";

/** How long a killed worker's group has to exit on SIGTERM before it gets SIGKILL. */
export const WORKER_KILL_GRACE_MS = 2_000;

/** The command that runs this very pi again: its script under its runtime, as pi's `subagent` example does. */
export function piCommand(): { command: string; args: string[] } {
	const script = process.argv[1];
	if (script && existsSync(script)) return { command: process.execPath, args: [script] };
	return { command: "pi", args: [] };
}

/** What a worker is started with. */
export interface WorkerStart {
	command: string;
	args: readonly string[];
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** How long the worker may run before its group is killed. */
	timeoutMs: number;
	/** The abort of the run that started it: its group is killed. */
	signal: AbortSignal;
	/** Each model call of the worker, as it ends: its usage counts in the chain's spend at once. */
	onUsage?: (usage: UsageRecord) => void;
	/** Each model call of the worker that wrote text, as it ends: its last answer so far. */
	onAnswer?: (answer: string) => void;
	/** The model call in progress, as its stream reports what it has spent so far (before the call ends). */
	onStreaming?: (usage: UsageRecord) => void;
}

/** What a worker's stream is reported to, as it comes. */
type Listeners = Pick<WorkerStart, "onUsage" | "onAnswer" | "onStreaming">;

/** How a worker ended. */
export interface WorkerEnd {
	/** The process's exit code, or null when a signal ended it. */
	code: number | null;
	/** Its last answer's text, and how that answer stopped (`stop`, `error`, `length`, `aborted`). */
	answer: string;
	stopReason?: string;
	/** The provider's error of its last answer, when that answer stopped on one. */
	errorMessage?: string;
	/** Its model calls, and when the first one ended (ms since the epoch). */
	calls: number;
	firstCallAt?: number;
	timedOut: boolean;
	aborted: boolean;
	/** The end of what it wrote to stderr. */
	stderr: string;
}

/** The exit code a worker whose process could not be started is read with, as a shell says a command it cannot run. */
const SPAWN_FAILED = 127;

/** Characters of a worker's stderr kept, from its end. */
const STDERR_CHARS = 4_000;

/**
 * Kills a worker: its process group first asked (SIGTERM), then, if it is still there after the grace, told
 * (SIGKILL) with everything that carries its mark.
 */
function killWorker(pid: number | undefined, mark: string): void {
	if (pid === undefined) return;
	signalGroup(pid, "SIGTERM");
	setTimeout(() => {
		signalGroup(pid, "SIGKILL");
		killMarked(mark);
	}, WORKER_KILL_GRACE_MS).unref();
}

/** One JSON line of the worker's stdout, as far as it is read. */
interface StreamEvent {
	type?: unknown;
	/** A `message_update`'s usage so far (pi's JSON mode puts it beside the event, or in its message). */
	usage?: unknown;
	message?: { role?: unknown; stopReason?: unknown; errorMessage?: unknown; content?: unknown; usage?: unknown };
}

/**
 * Reads one JSON line of the worker's stdout into `end`: an assistant message's end is a model call; an update of one
 * says what the call in progress has spent so far.
 */
function readLine(line: string, end: WorkerEnd, listeners: Listeners): void {
	let event: StreamEvent;
	try {
		event = JSON.parse(line);
	} catch {
		return;
	}
	if (event?.type === "message_update") {
		const usage = readUsage({ role: "assistant", usage: event.usage ?? event.message?.usage });
		if (usage) listeners.onStreaming?.(usage);
		return;
	}
	if (event?.type !== "message_end" || event.message?.role !== "assistant") return;
	end.calls++;
	end.firstCallAt ??= Date.now();
	end.answer = textOfContent(event.message.content);
	end.stopReason = typeof event.message.stopReason === "string" ? event.message.stopReason : undefined;
	end.errorMessage = typeof event.message.errorMessage === "string" ? event.message.errorMessage : undefined;
	const usage = readUsage(event.message);
	if (usage) listeners.onUsage?.(usage);
	if (end.answer.trim() !== "") listeners.onAnswer?.(end.answer);
}

/** Starts a worker and resolves once its process has closed, however it ended. */
export function runWorker(start: WorkerStart): Promise<WorkerEnd> {
	const end: WorkerEnd = { code: null, answer: "", calls: 0, timedOut: false, aborted: false, stderr: "" };
	const mark = newMark();
	return new Promise((resolve) => {
		const child = spawn(start.command, [...start.args], {
			cwd: start.cwd,
			env: markedEnv({ ...start.env, [WORKER_MARK]: mark }, mark),
			detached: true,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let pending = "";
		// Decoded as a stream: a character cut between two chunks is joined, never read as two broken ones.
		child.stdout.setEncoding("utf8");
		child.stderr.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			const lines = (pending + chunk).split("\n");
			pending = lines.pop() ?? "";
			for (const line of lines) readLine(line, end, start);
		});
		child.stderr.on("data", (chunk: string) => {
			end.stderr = (end.stderr + chunk).slice(-STDERR_CHARS);
		});
		const stop = (why: "timedOut" | "aborted") => {
			end[why] = true;
			killWorker(child.pid, mark);
		};
		const timer = setTimeout(() => stop("timedOut"), start.timeoutMs);
		const abort = () => stop("aborted");
		if (start.signal.aborted) abort();
		else start.signal.addEventListener("abort", abort, { once: true });
		let finished = false;
		const finish = (code: number | null) => {
			if (finished) return;
			finished = true;
			clearTimeout(timer);
			start.signal.removeEventListener("abort", abort);
			if (pending.trim() !== "") readLine(pending, end, start);
			end.code = code;
			resolve(end);
		};
		// What it left running goes with it: a leftover holding its output open would hold its end too.
		child.on("exit", () => killMarked(mark));
		child.on("close", (code) => {
			killMarked(mark);
			finish(code);
		});
		// Its pi could not even be started (its folder or program missing): an exit before any call, never a signal.
		child.on("error", (error) => {
			end.stderr = error.message;
			finish(SPAWN_FAILED);
		});
	});
}
