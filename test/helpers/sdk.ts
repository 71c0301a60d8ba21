import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type FauxProviderHandle,
	type FauxResponseStep,
	fauxProvider,
	InMemoryCredentialStore,
	type Message,
	type RegisterFauxProviderOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import {
	type AgentSession,
	type AgentSessionEvent,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionError,
	ModelRuntime,
	type SessionEntry,
	SessionManager,
	type SessionStartEvent,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { createUiRecorder, type UiRecorder } from "./ui-recorder.ts";

/** Run mode handed to `bindExtensions`; becomes `ctx.mode`. */
export type PiMode = "tui" | "rpc" | "print" | "json";

/** Settings accepted by `SettingsManager.inMemory`. */
type SettingsInput = NonNullable<Parameters<typeof SettingsManager.inMemory>[0]>;

/** Options for `startPi`. */
export interface StartPiOptions {
	/** Absolute paths of extension files to load (no other extension discovery happens). */
	extensionPaths?: string[];
	/** Scripted model responses: faux assistant messages or functions of the request context. */
	responses?: FauxResponseStep[];
	/** `ctx.mode` for extensions. Default "tui". */
	mode?: PiMode;
	/** Bind the recording UI context (makes `ctx.hasUI` true). Default: true for tui/rpc, false for print/json. */
	withUI?: boolean;
	/** Store the session in a JSONL file under the temp dir instead of in memory. Default false. */
	persist?: boolean;
	/** Open this existing session file instead of starting a new session (implies persist). */
	sessionFile?: string;
	/** Tool allowlist passed to createAgentSession (default: pi's defaults plus all extension tools). */
	tools?: string[];
	/** Settings overrides (in-memory settings; default: pi defaults with compaction off). */
	settings?: SettingsInput;
	/** Working directory (default: an empty folder inside the temp dir). */
	cwd?: string;
	/** Extra faux provider options, e.g. `{ tokensPerSecond: 20 }` for slow streaming. */
	fauxOptions?: Omit<RegisterFauxProviderOptions, "provider" | "models">;
}

/** One request the fake model received. */
export interface ModelCall {
	/** The full message list sent to the model (system messages included). */
	messages: Message[];
	/** Text of every user-role message in this request, in order. */
	userTexts: string[];
	/** Text of the last user-role message in this request (what triggered it). */
	lastUserText: string | undefined;
}

/** Options for `reopen`. */
export interface ReopenOptions {
	/** "startup" (default): like restarting pi on the file; "resume": like /resume (shutdown reason "resume"). */
	reason?: "startup" | "resume";
	/** Change the mode of the new session (default: same as before). */
	mode?: PiMode;
}

/** A running in-process pi session with a fake model and recorders. */
export interface PiHarness {
	/** Current AgentSession (replaced by `reopen`). */
	readonly session: AgentSession;
	/** Fake model handle (`appendResponses`, `state.callCount`, `getPendingResponseCount`). */
	readonly faux: FauxProviderHandle;
	/** Recording UI context (shared across `reopen`). */
	readonly ui: UiRecorder;
	/** Temp root; `cwd`, `agentDir` and `sessionDir` live inside it. */
	readonly dir: string;
	readonly cwd: string;
	readonly agentDir: string;
	readonly sessionDir: string;
	/** Session file path (undefined for in-memory sessions or before the first assistant message is flushed). */
	readonly sessionFile: string | undefined;
	/** Every session event seen, across reopens. */
	readonly events: AgentSessionEvent[];
	/** Every extension error reported by pi (handler throws, async sendUserMessage failures, ...). */
	readonly extensionErrors: ExtensionError[];
	/** Every request the fake model received. */
	readonly modelCalls: ModelCall[];
	/** `session.prompt(text)` with source "interactive". */
	prompt(text: string): Promise<void>;
	/** Append scripted responses to the fake model. */
	respond(...steps: FauxResponseStep[]): void;
	/** Number of session events of this type seen so far. */
	count(type: AgentSessionEvent["type"]): number;
	/** Number of agent runs started (`agent_start` events). */
	agentRuns(): number;
	/** The `lastUserText` of every model call, in order. */
	userTexts(): string[];
	/** Entries on the current branch (root to leaf). */
	branch(): SessionEntry[];
	/** Resolve once `predicate()` is true (checked after each event and every 5 ms); rejects after `timeoutMs`. */
	waitFor(predicate: () => boolean, timeoutMs?: number, label?: string): Promise<void>;
	/** Resolve once `count(type) >= n`. */
	waitForEvent(type: AgentSessionEvent["type"], n?: number, timeoutMs?: number): Promise<void>;
	/** Wait until `agent_settled` has fired n times in total (n defaults to count + 1 = the next one). */
	waitForSettled(n?: number, timeoutMs?: number): Promise<void>;
	/** `session.navigateTree(entryId, { summarize: false })`; fires `session_tree`. */
	navigateTree(entryId: string): ReturnType<AgentSession["navigateTree"]>;
	/** Emit `session_shutdown`, dispose the session and open the same session again in a new AgentSession. */
	reopen(options?: ReopenOptions): Promise<AgentSession>;
	/** `session.reload()`: session_shutdown(reload), fresh extension load, session_start(reload). */
	reload(): Promise<void>;
	/** Emit `session_shutdown` (reason "quit"), dispose the session and remove the temp dir. */
	dispose(): Promise<void>;
}

const ISOLATION_ENV = ["HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_SKIP_VERSION_CHECK", "PI_TELEMETRY"] as const;

/** Plain text of a user or custom message content. */
function contentText(content: Message["content"] | undefined): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((part) => (part.type === "text" ? part.text : ""))
		.filter((text) => text !== "")
		.join("\n");
}

/** Start a real pi AgentSession in process with the faux model and the given extensions. */
export async function startPi(options: StartPiOptions = {}): Promise<PiHarness> {
	const dir = mkdtempSync(join(tmpdir(), "pi-harness-"));
	const cwd = options.cwd ?? join(dir, "project");
	const agentDir = join(dir, "agent");
	const sessionDir = join(dir, "sessions");
	for (const path of [cwd, agentDir, sessionDir, join(dir, "home")]) mkdirSync(path, { recursive: true });

	// Isolate pi from the user's config; restored on dispose.
	const savedEnv = new Map(ISOLATION_ENV.map((key) => [key, process.env[key]]));
	process.env.HOME = join(dir, "home");
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.PI_OFFLINE = "1";
	process.env.PI_SKIP_VERSION_CHECK = "1";
	process.env.PI_TELEMETRY = "0";

	const faux = fauxProvider({
		...options.fauxOptions,
		provider: "faux",
		models: [{ id: "faux-1", contextWindow: 200_000, maxTokens: 8192 }],
	});
	// In-memory credentials and model catalog: nothing is written to disk (late async writes would outlive dispose).
	const modelRuntime = await ModelRuntime.create({
		credentials: new InMemoryCredentialStore(),
		modelsPath: null,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	await modelRuntime.setRuntimeApiKey("faux", "faux-key");

	const ui = createUiRecorder();
	const events: AgentSessionEvent[] = [];
	const extensionErrors: ExtensionError[] = [];
	const modelCalls: ModelCall[] = [];
	const listeners = new Set<() => void>();
	const notify = () => {
		for (const listener of [...listeners]) listener();
	};

	// Wrap each step so the harness records what the model was sent.
	const record =
		(step: FauxResponseStep): FauxResponseStep =>
		(context: TranscriptContext, streamOptions, state, model) => {
			const messages = [...context.messages];
			const userTexts = messages.filter((m) => m.role === "user").map((m) => contentText(m.content));
			modelCalls.push({ messages, userTexts, lastUserText: userTexts.at(-1) });
			notify();
			return typeof step === "function" ? step(context, streamOptions, state, model) : step;
		};
	faux.setResponses((options.responses ?? []).map(record));

	let mode: PiMode = options.mode ?? "tui";
	const withUI = options.withUI;
	let session: AgentSession;
	let unsubscribe: (() => void) | undefined;
	let disposed = false;

	/** Create an AgentSession over `sessionManager` and fire session_start. */
	const open = async (sessionManager: SessionManager, sessionStartEvent?: SessionStartEvent) => {
		const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, ...options.settings });
		const resourceLoader = new DefaultResourceLoader({
			cwd,
			agentDir,
			settingsManager,
			additionalExtensionPaths: options.extensionPaths ?? [],
			noSkills: true,
			noPromptTemplates: true,
			noThemes: true,
			noContextFiles: true,
		});
		await resourceLoader.reload();
		const result = await createAgentSession({
			cwd,
			agentDir,
			model: faux.getModel(),
			thinkingLevel: "off",
			modelRuntime,
			resourceLoader,
			sessionManager,
			settingsManager,
			tools: options.tools,
			sessionStartEvent,
		});
		for (const error of result.extensionsResult.errors) {
			extensionErrors.push({ extensionPath: error.path, event: "load", error: error.error });
		}
		session = result.session;
		unsubscribe = session.subscribe((event) => {
			events.push(event);
			notify();
		});
		const current = session;
		await session.bindExtensions({
			uiContext: (withUI ?? (mode === "tui" || mode === "rpc")) ? ui.ui : undefined,
			mode,
			commandContextActions: {
				waitForIdle: () => current.waitForIdle(),
				newSession: async () => ({ cancelled: true }),
				fork: async () => ({ cancelled: true }),
				navigateTree: async (targetId, navigateOptions) => ({
					cancelled: (await current.navigateTree(targetId, navigateOptions)).cancelled,
				}),
				switchSession: async () => ({ cancelled: true }),
				reload: async () => current.reload(),
			},
			onError: (error) => {
				extensionErrors.push(error);
				notify();
			},
		});
	};

	/** Fire session_shutdown like pi does before replacing or quitting a session, then dispose it. */
	const teardown = async (reason: "quit" | "resume", targetSessionFile?: string) => {
		await session.abort();
		if (session.extensionRunner.hasHandlers("session_shutdown")) {
			await session.extensionRunner.emit({ type: "session_shutdown", reason, targetSessionFile });
		}
		unsubscribe?.();
		session.dispose();
	};

	const persist = options.persist === true || options.sessionFile !== undefined;
	const initialManager = options.sessionFile
		? SessionManager.open(options.sessionFile, sessionDir)
		: persist
			? SessionManager.create(cwd, sessionDir)
			: SessionManager.inMemory(cwd);
	await open(initialManager);

	const count = (type: AgentSessionEvent["type"]) => events.filter((event) => event.type === type).length;

	const waitFor = (predicate: () => boolean, timeoutMs = 10_000, label = "condition") =>
		new Promise<void>((resolve, reject) => {
			if (predicate()) return resolve();
			const check = () => {
				if (!predicate()) return;
				cleanup();
				resolve();
			};
			const poll = setInterval(check, 5);
			const timer = setTimeout(() => {
				cleanup();
				const seen = events.map((event) => event.type).join(", ");
				reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${label}; events: ${seen}`));
			}, timeoutMs);
			const cleanup = () => {
				clearInterval(poll);
				clearTimeout(timer);
				listeners.delete(check);
			};
			listeners.add(check);
		});

	const harness: PiHarness = {
		get session() {
			return session;
		},
		faux,
		ui,
		dir,
		cwd,
		agentDir,
		sessionDir,
		get sessionFile() {
			return session.sessionFile;
		},
		events,
		extensionErrors,
		modelCalls,
		prompt: (text) => session.prompt(text),
		respond: (...steps) => faux.appendResponses(steps.map(record)),
		count,
		agentRuns: () => count("agent_start"),
		userTexts: () => modelCalls.map((call) => call.lastUserText ?? ""),
		branch: () => session.sessionManager.getBranch(),
		waitFor,
		waitForEvent: (type, n = 1, timeoutMs) => waitFor(() => count(type) >= n, timeoutMs, `${n}x ${type}`),
		waitForSettled: (n, timeoutMs) => {
			const target = n ?? count("agent_settled") + 1;
			return waitFor(() => count("agent_settled") >= target, timeoutMs, `${target}x agent_settled`);
		},
		navigateTree: (entryId) => session.navigateTree(entryId, { summarize: false }),
		reopen: async (reopenOptions = {}) => {
			const reason = reopenOptions.reason ?? "startup";
			const file = session.sessionFile;
			const header = session.sessionManager.getHeader();
			const entries = session.sessionManager.getEntries();
			if (persist && (!file || !existsSync(file))) {
				throw new Error(
					"reopen(): the session file is not on disk yet (pi writes it after the first assistant message)",
				);
			}
			await teardown(reason === "resume" ? "resume" : "quit", file);
			if (reopenOptions.mode) mode = reopenOptions.mode;
			const manager =
				persist && file
					? SessionManager.open(file, sessionDir)
					: SessionManager.inMemory(cwd, undefined, header ? [header, ...entries] : entries);
			await open(
				manager,
				reason === "resume" ? { type: "session_start", reason: "resume", previousSessionFile: file } : undefined,
			);
			return session;
		},
		reload: () => session.reload(),
		dispose: async () => {
			if (disposed) return;
			disposed = true;
			try {
				await teardown("quit");
			} finally {
				for (const [key, value] of savedEnv) {
					if (value === undefined) delete process.env[key];
					else process.env[key] = value;
				}
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
	return harness;
}
