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
import type {
	RpcCommand,
	RpcExtensionUIRequest,
	RpcExtensionUIResponse,
	RpcResponse,
} from "@earendil-works/pi-coding-agent";
import { killGroup, type PiArgsOptions, piArgs, spawnPi, waitForExit } from "./cli.ts";
import { ENTRY_TYPE } from "./expected.ts";
import { readLines } from "./json-lines.ts";
import { applyUiCall, EMPTY_UI, type Notification, type UiCall, type UiState, type Widget } from "./ui-state.ts";
import { type Predicate, Waiters } from "./waiters.ts";

export type RpcRecord = Record<string, unknown> & { type: string };
export type UiRequest = RpcExtensionUIRequest;
export type DialogRequest = Extract<UiRequest, { method: "select" | "confirm" | "input" | "editor" }>;
/** The answer fields for a dialog: `{ value }`, `{ confirmed }` or `{ cancelled: true }`. */
export type DialogAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

export type { Notification, Widget };
/** How a process ended. */
export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

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
	/** Pass `args` to the CLI unchanged instead of wrapping them with {@link piArgs} (no `-ne`, no `-e`). */
	raw?: boolean;
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
	readonly statuses: ReadonlyMap<string, string>;
	/** Current widgets by key (cleared keys are removed); a widget without a placement stands above the editor. */
	readonly widgets: ReadonlyMap<string, Widget>;
	/** Every notice; one without a type is `info`. */
	readonly notifications: readonly Notification[];
	readonly title: string | undefined;
	/** Accumulated stderr text. */
	readonly stderr: string;
	/** Exit status once the process has exited. */
	readonly exit: ExitStatus | undefined;
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
	close(graceMs?: number): Promise<ExitStatus>;
}

/** The UI call a fire-and-forget request makes, as the TUI would show it (undefined for one that shows nothing). */
function uiCallOf(request: Exclude<UiRequest, DialogRequest>): UiCall | undefined {
	switch (request.method) {
		case "setStatus":
			return { method: "setStatus", key: request.statusKey, text: request.statusText ?? undefined };
		case "setWidget":
			return {
				method: "setWidget",
				key: request.widgetKey,
				lines: request.widgetLines ?? undefined,
				placement: request.widgetPlacement ?? "aboveEditor",
			};
		case "notify":
			return { method: "notify", message: request.message, type: request.notifyType ?? "info" };
		case "setTitle":
			return { method: "setTitle", title: request.title };
		default:
			return undefined;
	}
}

const FIRE_AND_FORGET: ReadonlySet<string> = new Set([
	"setStatus",
	"setWidget",
	"notify",
	"setTitle",
	"set_editor_text",
]);

/** Every request that is not fire-and-forget waits for an answer. */
function isDialog(request: UiRequest): request is DialogRequest {
	return !FIRE_AND_FORGET.has(request.method);
}

/** The final text of an assistant `message_end` event, or undefined for any other record. */
function assistantText(record: RpcRecord): string | undefined {
	const message = record.message as { role?: string; content?: { type: string; text?: string }[] } | undefined;
	if (record.type !== "message_end" || message?.role !== "assistant") return undefined;
	return (message.content ?? [])
		.filter((part) => part.type === "text")
		.map((part) => part.text ?? "")
		.join("");
}

interface PendingResponse {
	resolve(response: RpcResponse): void;
	reject(error: Error): void;
}

/** pi in `--mode rpc` as a child process: what it printed, and the commands a test sends it. */
class RpcClient implements PiRpc {
	readonly records: RpcRecord[] = [];
	readonly events: RpcRecord[] = [];
	readonly uiRequests: UiRequest[] = [];
	startupMs = Number.NaN;
	#ui: UiState = EMPTY_UI;
	#stderr = "";
	#exit: ExitStatus | undefined;
	#closing: Promise<ExitStatus> | undefined;
	#nextId = 0;
	readonly #pending = new Map<string, PendingResponse>();
	readonly #waiters = new Waiters(() => this.#tail());

	readonly child: ChildProcess;
	readonly options: RpcOptions;

	constructor(child: ChildProcess, options: RpcOptions) {
		this.child = child;
		this.options = options;
		if (child.stdout) readLines(child.stdout, (line) => this.#onLine(line));
		child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
			this.#stderr += chunk;
			if (options.echoStderr) process.stderr.write(chunk);
		});
		child.stdin?.on("error", () => {
			// EPIPE after the child exited; surfaced through `exit` instead.
		});
		child.once("exit", (code, signal) => this.#onExit({ code, signal }));
	}

	get statuses() {
		return this.#ui.statuses;
	}
	get widgets() {
		return this.#ui.widgets;
	}
	get notifications() {
		return this.#ui.notifications;
	}
	get title() {
		return this.#ui.title;
	}
	get stderr() {
		return this.#stderr;
	}
	get exit() {
		return this.#exit;
	}

	/** The last records and the end of stderr, for a failure message. */
	#tail(): string {
		const last = this.records
			.slice(-5)
			.map((record) => JSON.stringify(record).slice(0, 200))
			.join("\n  ");
		return `\n--- last records:\n  ${last}\n--- stderr tail:\n${this.#stderr.slice(-2000)}`;
	}

	#onLine(line: string): void {
		let record: RpcRecord;
		try {
			record = JSON.parse(line) as RpcRecord;
		} catch {
			this.#stderr += `[rpc client] unparsable stdout line: ${line}\n`;
			return;
		}
		this.#onRecord(record);
	}

	#onRecord(record: RpcRecord): void {
		this.records.push(record);
		if (record.type === "response") this.#onResponse(record);
		else if (record.type === "extension_ui_request") this.#onUiRequest(record as unknown as UiRequest);
		else this.events.push(record);
		this.#waiters.changed();
	}

	#onResponse(record: RpcRecord): void {
		const id = typeof record.id === "string" ? record.id : undefined;
		if (id !== undefined) this.#pending.get(id)?.resolve(record as unknown as RpcResponse);
	}

	#onUiRequest(request: UiRequest): void {
		this.uiRequests.push(request);
		if (isDialog(request)) {
			void this.#answer(request);
			return;
		}
		const call = uiCallOf(request);
		if (call) this.#ui = applyUiCall(this.#ui, call);
	}

	/** Answers a dialog with `onDialog` (cancelled by default, and when it fails). */
	async #answer(dialog: DialogRequest): Promise<void> {
		const { onDialog } = this.options;
		const answer = await Promise.resolve(onDialog ? onDialog(dialog) : ({ cancelled: true } as const)).catch(
			() => ({ cancelled: true }) as const,
		);
		this.write({ type: "extension_ui_response", id: dialog.id, ...answer } as RpcExtensionUIResponse);
	}

	#onExit(exit: ExitStatus): void {
		this.#exit = exit;
		const error = new Error(`pi exited (code ${exit.code}, signal ${exit.signal})${this.#tail()}`);
		for (const pending of [...this.#pending.values()]) pending.reject(error);
		this.#waiters.end(error);
	}

	write(record: Record<string, unknown>): void {
		const stdin = this.child.stdin;
		if (this.#exit || !stdin || stdin.destroyed || stdin.writableEnded) {
			throw new Error(`pi is not running; cannot send ${JSON.stringify(record)}`);
		}
		stdin.write(`${JSON.stringify(record)}\n`);
	}

	send(command: RpcCommand | Record<string, unknown>, timeoutMs = 10_000): Promise<RpcResponse> {
		const id = `c${++this.#nextId}`;
		const record = { ...command, id };
		return new Promise<RpcResponse>((resolve, reject) => {
			const settle = (finish: () => void) => {
				clearTimeout(timer);
				this.#pending.delete(id);
				finish();
			};
			const timer = setTimeout(() => {
				settle(() =>
					reject(new Error(`no response to ${JSON.stringify(record)} within ${timeoutMs} ms${this.#tail()}`)),
				);
			}, timeoutMs);
			const pending: PendingResponse = {
				resolve: (response) => settle(() => resolve(response)),
				reject: (error) => settle(() => reject(error)),
			};
			this.#pending.set(id, pending);
			try {
				this.write(record);
			} catch (error) {
				pending.reject(error as Error);
			}
		});
	}

	async prompt(text: string, promptOptions: { streamingBehavior?: "steer" | "followUp" } = {}): Promise<RpcResponse> {
		const response = await this.send({ type: "prompt", message: text, ...promptOptions });
		if (!response.success) throw new Error(`prompt rejected: ${JSON.stringify(response)}`);
		return response;
	}

	async promptAndSettle(text: string, timeoutMs = 10_000): Promise<void> {
		const nth = this.count("agent_settled") + 1;
		await this.prompt(text);
		await this.waitForSettled({ nth, timeoutMs });
	}

	abort(): Promise<RpcResponse> {
		return this.send({ type: "abort" });
	}

	/** The `data` of a command's response; throws when pi refused the command. */
	async #dataOf<T>(type: string): Promise<T | undefined> {
		const response = (await this.send({ type })) as RpcResponse & { data?: T };
		if (!response.success) throw new Error(`${type} failed: ${JSON.stringify(response)}`);
		return response.data;
	}

	async getState(): Promise<Record<string, unknown>> {
		return (await this.#dataOf<Record<string, unknown>>("get_state")) ?? {};
	}

	async getMessages(): Promise<Record<string, unknown>[]> {
		return (await this.#dataOf<{ messages: Record<string, unknown>[] }>("get_messages"))?.messages ?? [];
	}

	waitFor<T>(predicate: Predicate<T>, timeoutMs = 10_000, description = "condition"): Promise<T> {
		return this.#waiters.until({ predicate, label: description, timeoutMs, pollMs: 10 });
	}

	waitForEvent(type: string, { nth, timeoutMs }: { nth?: number; timeoutMs?: number } = {}): Promise<RpcRecord> {
		const target = nth ?? this.count(type) + 1;
		const nthEvent = () => this.events.filter((event) => event.type === type)[target - 1];
		return this.waitFor(nthEvent, timeoutMs, `${type} #${target}`);
	}

	waitForSettled(settledOptions: { nth?: number; timeoutMs?: number } = {}): Promise<RpcRecord> {
		return this.waitForEvent("agent_settled", settledOptions);
	}

	countAgentRuns(): number {
		return this.count("agent_start");
	}

	count(type: string): number {
		return this.events.filter((event) => event.type === type).length;
	}

	assistantTexts(): string[] {
		return this.events.flatMap((event) => assistantText(event) ?? []);
	}

	close(graceMs = 3000): Promise<ExitStatus> {
		if (!this.#closing) {
			this.child.stdin?.end();
			this.#closing = waitForExit(this.child, graceMs);
		}
		return this.#closing;
	}
}

/** Starts pi in RPC mode and resolves once it answers its first command (`get_state`). */
export async function startRpc(options: RpcOptions): Promise<PiRpc> {
	const started = performance.now();
	const args = options.raw ? (options.args ?? []) : piArgs(options);
	const child = spawnPi(["--mode", "rpc", ...args], options.env, options.cwd, options.host);
	const client = new RpcClient(child, options);
	try {
		await client.send({ type: "get_state" }, options.startTimeoutMs ?? 15_000);
	} catch (error) {
		killGroup(child, "SIGKILL");
		throw error;
	}
	client.startupMs = performance.now() - started;
	return client;
}

/** Runs a command, which starts no run, and returns the notice it answers with once it has come. */
export async function commandAnswer(client: PiRpc, text: string): Promise<string> {
	const before = client.notifications.length;
	await client.prompt(text);
	await client.waitFor(() => client.notifications.length > before, 5000, `the answer to ${text}`);
	const answer = client.notifications.at(-1);
	if (answer === undefined) throw new Error(`no answer to ${text}`);
	return answer.message;
}

/**
 * The lines that stay in the transcript so far (the report entries, which a client reads as `entry_appended` records),
 * as `{ level, text }`, in order.
 */
export function reportedLines(client: PiRpc): { level: string; text: string }[] {
	return client.events.flatMap((event) => {
		const entry = event.entry as { type?: string; customType?: string; data?: unknown } | undefined;
		return event.type === "entry_appended" && entry?.type === "custom" && entry.customType === ENTRY_TYPE.report
			? [entry.data as { level: string; text: string }]
			: [];
	});
}

/** Their texts. */
export const reported = (client: PiRpc): string[] => reportedLines(client).map((line) => line.text);

/** The custom messages of one type that ended so far, as `{ content, details }`, in order. */
export function customMessages(client: PiRpc, customType: string): { content: unknown; details: unknown }[] {
	return client.events.flatMap((event) => {
		const message = event.message as { role?: string; customType?: string; content?: unknown; details?: unknown };
		return event.type === "message_end" && message?.role === "custom" && message.customType === customType
			? [{ content: message.content, details: message.details }]
			: [];
	});
}
