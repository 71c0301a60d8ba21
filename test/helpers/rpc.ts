/**
 * A plain Node client for `pi --mode rpc` (JSON lines on stdin/stdout), for end-to-end tests.
 *
 *   const pi = await startRpc({ env: iso.env, extensions: [EXTENSION_ENTRY] });
 *   await pi.prompt("hello");
 *   await pi.waitForSettled();
 *   expect(pi.statuses.get("til-done")).toContain("...");
 *   await pi.close();
 *
 * Every stdout record is kept in `records`; session events (everything except responses and extension UI requests)
 * also in `events`. Fire-and-forget UI requests update `statuses`, `widgets`, `notifications` and `title` the way the
 * TUI would show them; dialog requests (select/confirm/input/editor) are answered by `onDialog` (default: cancel).
 */
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type {
	RpcCommand,
	RpcExtensionUIRequest,
	RpcExtensionUIResponse,
	RpcResponse,
} from "@earendil-works/pi-coding-agent";
import { killGroup, type PiArgsOptions, piArgs, spawnPi, waitForExit } from "./cli.ts";

export type RpcRecord = Record<string, unknown> & { type: string };
export type UiRequest = RpcExtensionUIRequest;
export type DialogRequest = Extract<UiRequest, { method: "select" | "confirm" | "input" | "editor" }>;
/** The answer fields for a dialog: `{ value }`, `{ confirmed }` or `{ cancelled: true }`. */
export type DialogAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

export interface Widget {
	lines: string[];
	placement: "aboveEditor" | "belowEditor";
}

export interface Notification {
	message: string;
	type: "info" | "warning" | "error";
}

export interface RpcOptions extends PiArgsOptions {
	env: NodeJS.ProcessEnv;
	/** Default: env.TIL_DONE_TEST_CWD, else the repo root. */
	cwd?: string;
	/** Answer a dialog request. Default: `{ cancelled: true }`. */
	onDialog?: (request: DialogRequest) => DialogAnswer | Promise<DialogAnswer>;
	/** How long startRpc waits for the first `get_state` response (default 15 s). */
	startTimeoutMs?: number;
	/** Mirror pi's stderr to this process's stderr (default false; it is always kept in `stderr`). */
	echoStderr?: boolean;
}

export interface PiRpc {
	readonly child: ChildProcess;
	/** Every stdout record, in order. */
	readonly records: RpcRecord[];
	/** Session events only (agent_start, message_update, agent_end, agent_settled, ...). */
	readonly events: RpcRecord[];
	/** Every extension_ui_request, in order (including dialogs). */
	readonly uiRequests: UiRequest[];
	/** Current footer statuses by key (cleared keys are removed). */
	readonly statuses: Map<string, string>;
	/** Current widgets by key (cleared keys are removed). */
	readonly widgets: Map<string, Widget>;
	readonly notifications: Notification[];
	readonly title: string | undefined;
	/** Accumulated stderr text. */
	readonly stderr: string;
	/** Exit status once the process has exited. */
	readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	/** Milliseconds from spawn to the first get_state response. */
	readonly startupMs: number;

	/** Send a command, resolve with its response (rejects on timeout or exit; does NOT reject on success:false). */
	send(command: RpcCommand | Record<string, unknown>, timeoutMs?: number): Promise<RpcResponse>;
	/** Send a raw record without waiting (e.g. an extension_ui_response). */
	write(record: Record<string, unknown>): void;
	/** `prompt`; resolves with the response (the run continues in the background). Throws if rejected. */
	prompt(text: string, options?: { streamingBehavior?: "steer" | "followUp" }): Promise<RpcResponse>;
	/** prompt() then wait for the next agent_settled. */
	promptAndSettle(text: string, timeoutMs?: number): Promise<void>;
	abort(): Promise<RpcResponse>;
	getState(): Promise<Record<string, unknown>>;
	getMessages(): Promise<Record<string, unknown>[]>;

	/**
	 * Resolve once `predicate` returns a truthy value (which is returned), re-checked after every record, on exit and
	 * every 10 ms (for predicates that read files, such as the fake model's log). Rejects after `timeoutMs` (default
	 * 10 s) or if pi exits first, with `description` and the stderr tail.
	 */
	waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number, description?: string): Promise<T>;
	/** Wait for the `n`-th (1-based) event of `type` counting from the start, or the next one after now if omitted. */
	waitForEvent(type: string, options?: { nth?: number; timeoutMs?: number }): Promise<RpcRecord>;
	/** Wait for the next agent_settled after the call (or the `nth` overall). */
	waitForSettled(options?: { nth?: number; timeoutMs?: number }): Promise<RpcRecord>;

	/** Number of agent_start events so far (low-level agent runs). */
	countAgentRuns(): number;
	/** Count events of one type. */
	count(type: string): number;
	/** Final text of every assistant message_end so far. */
	assistantTexts(): string[];

	/** Close stdin (orderly shutdown), then SIGTERM/SIGKILL the process group if needed. Idempotent. */
	close(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface Waiter {
	check(): void;
	fail(error: Error): void;
}

export async function startRpc(options: RpcOptions): Promise<PiRpc> {
	const started = performance.now();
	const child = spawnPi(["--mode", "rpc", ...piArgs(options)], options.env, options.cwd, options.host);
	const records: RpcRecord[] = [];
	const events: RpcRecord[] = [];
	const uiRequests: UiRequest[] = [];
	const statuses = new Map<string, string>();
	const widgets = new Map<string, Widget>();
	const notifications: Notification[] = [];
	const pending = new Map<string, (response: RpcResponse) => void>();
	const waiters = new Set<Waiter>();
	let title: string | undefined;
	let stderr = "";
	let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	let nextId = 0;
	let startupMs = Number.NaN;
	let closing: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;

	const notifyWaiters = () => {
		for (const waiter of [...waiters]) waiter.check();
	};
	const tail = () => {
		const last = records
			.slice(-5)
			.map((r) => JSON.stringify(r).slice(0, 200))
			.join("\n  ");
		return `\n--- last records:\n  ${last}\n--- stderr tail:\n${stderr.slice(-2000)}`;
	};

	const handleUi = (request: UiRequest) => {
		uiRequests.push(request);
		switch (request.method) {
			case "setStatus":
				if (request.statusText === undefined || request.statusText === null) statuses.delete(request.statusKey);
				else statuses.set(request.statusKey, request.statusText);
				break;
			case "setWidget":
				if (!request.widgetLines) widgets.delete(request.widgetKey);
				else
					widgets.set(request.widgetKey, {
						lines: request.widgetLines,
						placement: request.widgetPlacement ?? "aboveEditor",
					});
				break;
			case "notify":
				notifications.push({ message: request.message, type: request.notifyType ?? "info" });
				break;
			case "setTitle":
				title = request.title;
				break;
			case "set_editor_text":
				break;
			default: {
				const dialog = request;
				Promise.resolve(options.onDialog ? options.onDialog(dialog) : ({ cancelled: true } as const))
					.catch(() => ({ cancelled: true }) as const)
					.then((answer) => {
						const response = { type: "extension_ui_response", id: dialog.id, ...answer } as RpcExtensionUIResponse;
						api.write(response);
					});
			}
		}
	};

	const handleRecord = (record: RpcRecord) => {
		records.push(record);
		if (record.type === "response") {
			const id = typeof record.id === "string" ? record.id : undefined;
			const resolve = id ? pending.get(id) : undefined;
			if (id && resolve) {
				pending.delete(id);
				resolve(record as unknown as RpcResponse);
			}
		} else if (record.type === "extension_ui_request") {
			handleUi(record as unknown as UiRequest);
		} else {
			events.push(record);
		}
		notifyWaiters();
	};

	// Strict JSONL: split on LF only.
	const decoder = new StringDecoder("utf8");
	let buffer = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		buffer += decoder.write(chunk);
		let newline = buffer.indexOf("\n");
		while (newline !== -1) {
			let line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 1);
			if (line.endsWith("\r")) line = line.slice(0, -1);
			if (line.trim() !== "") {
				try {
					handleRecord(JSON.parse(line) as RpcRecord);
				} catch {
					stderr += `[rpc client] unparsable stdout line: ${line}\n`;
				}
			}
			newline = buffer.indexOf("\n");
		}
	});
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		stderr += chunk;
		if (options.echoStderr) process.stderr.write(chunk);
	});
	child.stdin?.on("error", () => {
		// EPIPE after the child exited; surfaced through `exit` instead.
	});
	child.once("exit", (code, signal) => {
		exit = { code, signal };
		for (const waiter of [...waiters]) waiter.fail(new Error(`pi exited (code ${code}, signal ${signal})${tail()}`));
	});

	const api: PiRpc = {
		child,
		records,
		events,
		uiRequests,
		statuses,
		widgets,
		notifications,
		get title() {
			return title;
		},
		get stderr() {
			return stderr;
		},
		get exit() {
			return exit;
		},
		get startupMs() {
			return startupMs;
		},
		write(record) {
			if (exit || !child.stdin || child.stdin.destroyed || child.stdin.writableEnded) {
				throw new Error(`pi is not running; cannot send ${JSON.stringify(record)}`);
			}
			child.stdin.write(`${JSON.stringify(record)}\n`);
		},
		send(command, timeoutMs = 10_000) {
			const id = `c${++nextId}`;
			const record = { ...command, id };
			return new Promise<RpcResponse>((resolve, reject) => {
				const timer = setTimeout(() => {
					pending.delete(id);
					waiters.delete(waiter);
					reject(new Error(`no response to ${JSON.stringify(record)} within ${timeoutMs} ms${tail()}`));
				}, timeoutMs);
				const waiter: Waiter = {
					check() {},
					fail(error) {
						clearTimeout(timer);
						pending.delete(id);
						waiters.delete(waiter);
						reject(error);
					},
				};
				waiters.add(waiter);
				pending.set(id, (response) => {
					clearTimeout(timer);
					waiters.delete(waiter);
					resolve(response);
				});
				try {
					api.write(record);
				} catch (error) {
					waiter.fail(error as Error);
				}
			});
		},
		async prompt(text, promptOptions = {}) {
			const response = await api.send({ type: "prompt", message: text, ...promptOptions });
			if (!response.success) throw new Error(`prompt rejected: ${JSON.stringify(response)}`);
			return response;
		},
		async promptAndSettle(text, timeoutMs = 10_000) {
			const nth = api.count("agent_settled") + 1;
			await api.prompt(text);
			await api.waitForSettled({ nth, timeoutMs });
		},
		abort() {
			return api.send({ type: "abort" });
		},
		async getState() {
			const response = (await api.send({ type: "get_state" })) as RpcResponse & { data?: Record<string, unknown> };
			if (!response.success) throw new Error(`get_state failed: ${JSON.stringify(response)}`);
			return response.data ?? {};
		},
		async getMessages() {
			const response = (await api.send({ type: "get_messages" })) as RpcResponse & {
				data?: { messages: Record<string, unknown>[] };
			};
			if (!response.success) throw new Error(`get_messages failed: ${JSON.stringify(response)}`);
			return response.data?.messages ?? [];
		},
		waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 10_000, description = "condition") {
			return new Promise<T>((resolve, reject) => {
				const first = predicate();
				if (first) {
					resolve(first);
					return;
				}
				if (exit) {
					reject(new Error(`waiting for ${description}: pi already exited (code ${exit.code})${tail()}`));
					return;
				}
				const timer = setTimeout(() => {
					clearInterval(poll);
					waiters.delete(waiter);
					reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}${tail()}`));
				}, timeoutMs);
				const waiter: Waiter = {
					check() {
						let value: T | undefined | null | false;
						try {
							value = predicate();
						} catch (error) {
							this.fail(error as Error);
							return;
						}
						if (value) {
							clearTimeout(timer);
							clearInterval(poll);
							waiters.delete(waiter);
							resolve(value);
						}
					},
					fail(error) {
						clearTimeout(timer);
						clearInterval(poll);
						waiters.delete(waiter);
						reject(new Error(`waiting for ${description}: ${error.message}`));
					},
				};
				const poll = setInterval(() => waiter.check(), 10);
				waiters.add(waiter);
			});
		},
		waitForEvent(type, { nth, timeoutMs } = {}) {
			const target = nth ?? api.count(type) + 1;
			return api.waitFor(() => events.filter((e) => e.type === type)[target - 1], timeoutMs, `${type} #${target}`);
		},
		waitForSettled(settledOptions = {}) {
			return api.waitForEvent("agent_settled", settledOptions);
		},
		countAgentRuns() {
			return api.count("agent_start");
		},
		count(type) {
			let n = 0;
			for (const e of events) if (e.type === type) n++;
			return n;
		},
		assistantTexts() {
			const texts: string[] = [];
			for (const e of events) {
				const message = e.message as { role?: string; content?: { type: string; text?: string }[] } | undefined;
				if (e.type !== "message_end" || message?.role !== "assistant") continue;
				texts.push(
					(message.content ?? [])
						.filter((c) => c.type === "text")
						.map((c) => c.text ?? "")
						.join(""),
				);
			}
			return texts;
		},
		close(graceMs = 3000) {
			if (!closing) {
				child.stdin?.end();
				closing = waitForExit(child, graceMs);
			}
			return closing;
		},
	};

	try {
		await api.send({ type: "get_state" }, options.startTimeoutMs ?? 15_000);
	} catch (error) {
		killGroup(child, "SIGKILL");
		throw error;
	}
	startupMs = performance.now() - started;
	return api;
}
