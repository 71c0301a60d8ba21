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
import { Waiters } from "./waiters.ts";

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

/** The folders of one harness, all inside its temp root `dir`. */
interface Dirs {
	dir: string;
	cwd: string;
	agentDir: string;
	sessionDir: string;
}

/** Makes the temp root and the folders inside it. */
function makeDirs(cwd: string | undefined): Dirs {
	const dir = mkdtempSync(join(tmpdir(), "pi-harness-"));
	const dirs = {
		dir,
		cwd: cwd ?? join(dir, "project"),
		agentDir: join(dir, "agent"),
		sessionDir: join(dir, "sessions"),
	};
	for (const path of [dirs.cwd, dirs.agentDir, dirs.sessionDir, join(dir, "home")])
		mkdirSync(path, { recursive: true });
	return dirs;
}

const ISOLATION_ENV = ["HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_SKIP_VERSION_CHECK", "PI_TELEMETRY"] as const;

/** Isolates pi from the user's config (home, agent folder, no network, no telemetry); returns the undo. */
function isolateEnv({ dir, agentDir }: Dirs): () => void {
	const saved = new Map(ISOLATION_ENV.map((key) => [key, process.env[key]]));
	process.env.HOME = join(dir, "home");
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.PI_OFFLINE = "1";
	process.env.PI_SKIP_VERSION_CHECK = "1";
	process.env.PI_TELEMETRY = "0";
	return () => {
		for (const [key, value] of saved) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	};
}

/** The faux provider, registered in a model runtime that keeps its credentials and catalog in memory. */
async function fauxRuntime(fauxOptions: StartPiOptions["fauxOptions"]) {
	const faux = fauxProvider({
		...fauxOptions,
		provider: "faux",
		models: [{ id: "faux-1", contextWindow: 200_000, maxTokens: 8192 }],
	});
	// Nothing is written to disk: late async writes would outlive dispose.
	const modelRuntime = await ModelRuntime.create({
		credentials: new InMemoryCredentialStore(),
		modelsPath: null,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	await modelRuntime.setRuntimeApiKey("faux", "faux-key");
	return { faux, modelRuntime };
}

/** Plain text of a user or custom message content. */
function contentText(content: Message["content"] | undefined): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((part) => (part.type === "text" ? part.text : ""))
		.filter((text) => text !== "")
		.join("\n");
}

/** What the model was sent in one request. */
function modelCallOf(context: TranscriptContext): ModelCall {
	const messages = [...context.messages];
	const userTexts = messages.filter((m) => m.role === "user").map((m) => contentText(m.content));
	return { messages, userTexts, lastUserText: userTexts.at(-1) };
}

/** Whether the session lives in a file (`persist`, or an existing `sessionFile`). */
const persists = (options: StartPiOptions) => options.persist === true || options.sessionFile !== undefined;

/** The session manager the harness starts with: the given file, a new file, or memory. */
function firstManager(options: StartPiOptions, { cwd, sessionDir }: Dirs): SessionManager {
	if (options.sessionFile) return SessionManager.open(options.sessionFile, sessionDir);
	return persists(options) ? SessionManager.create(cwd, sessionDir) : SessionManager.inMemory(cwd);
}

/** The resource loader of one session: only the given extensions, no skills, prompts, themes or context files. */
async function loadResources(options: StartPiOptions, dirs: Dirs, settingsManager: SettingsManager) {
	const resourceLoader = new DefaultResourceLoader({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		settingsManager,
		additionalExtensionPaths: options.extensionPaths ?? [],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	return resourceLoader;
}

/** What a command may ask of the session beyond the extension API: only waiting, moving in the tree and reloading. */
function commandActions(session: AgentSession) {
	return {
		waitForIdle: () => session.waitForIdle(),
		newSession: async () => ({ cancelled: true }),
		fork: async () => ({ cancelled: true }),
		navigateTree: async (targetId: string, navigateOptions?: Parameters<AgentSession["navigateTree"]>[1]) => ({
			cancelled: (await session.navigateTree(targetId, navigateOptions)).cancelled,
		}),
		switchSession: async () => ({ cancelled: true }),
		reload: async () => session.reload(),
	};
}

/** A running in-process pi: its current session, the fake model, and everything recorded across reopens. */
class InProcessPi implements PiHarness {
	readonly ui = createUiRecorder();
	readonly events: AgentSessionEvent[] = [];
	readonly extensionErrors: ExtensionError[] = [];
	readonly modelCalls: ModelCall[] = [];
	readonly dir: string;
	readonly cwd: string;
	readonly agentDir: string;
	readonly sessionDir: string;
	readonly #waiters = new Waiters(() => `; events: ${this.events.map((event) => event.type).join(", ")}`);
	#session: AgentSession | undefined;
	#unsubscribe: (() => void) | undefined;
	#mode: PiMode;
	#disposed = false;

	readonly options: StartPiOptions;
	readonly dirs: Dirs;
	readonly faux: FauxProviderHandle;
	readonly modelRuntime: ModelRuntime;
	readonly restoreEnv: () => void;

	// Fields set one by one: node runs these files by stripping types, which cannot rewrite parameter properties.
	constructor(
		options: StartPiOptions,
		dirs: Dirs,
		faux: FauxProviderHandle,
		modelRuntime: ModelRuntime,
		restoreEnv: () => void,
	) {
		this.options = options;
		this.dirs = dirs;
		this.faux = faux;
		this.modelRuntime = modelRuntime;
		this.restoreEnv = restoreEnv;
		({ dir: this.dir, cwd: this.cwd, agentDir: this.agentDir, sessionDir: this.sessionDir } = dirs);
		this.#mode = options.mode ?? "tui";
		faux.setResponses((options.responses ?? []).map((step) => this.#recorded(step)));
	}

	get session(): AgentSession {
		if (!this.#session) throw new Error("the harness has no session yet");
		return this.#session;
	}

	get sessionFile() {
		return this.session.sessionFile;
	}

	/** `step`, wrapped so the harness records what the model was sent. */
	#recorded(step: FauxResponseStep): FauxResponseStep {
		return (context, streamOptions, state, model) => {
			this.modelCalls.push(modelCallOf(context));
			this.#waiters.changed();
			return typeof step === "function" ? step(context, streamOptions, state, model) : step;
		};
	}

	/** Creates an AgentSession over `sessionManager`, fires session_start and binds the extensions. */
	async open(sessionManager: SessionManager, sessionStartEvent?: SessionStartEvent): Promise<void> {
		const { options, dirs } = this;
		const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, ...options.settings });
		const result = await createAgentSession({
			cwd: dirs.cwd,
			agentDir: dirs.agentDir,
			model: this.faux.getModel(),
			thinkingLevel: "off",
			modelRuntime: this.modelRuntime,
			resourceLoader: await loadResources(options, dirs, settingsManager),
			sessionManager,
			settingsManager,
			tools: options.tools,
			sessionStartEvent,
		});
		for (const error of result.extensionsResult.errors) {
			this.extensionErrors.push({ extensionPath: error.path, event: "load", error: error.error });
		}
		await this.#bind(result.session);
	}

	/** Records the session's events and binds its extensions to the recording UI (or none). */
	async #bind(session: AgentSession): Promise<void> {
		this.#session = session;
		this.#unsubscribe = session.subscribe((event) => {
			this.events.push(event);
			this.#waiters.changed();
		});
		const withUI = this.options.withUI ?? (this.#mode === "tui" || this.#mode === "rpc");
		await session.bindExtensions({
			uiContext: withUI ? this.ui.ui : undefined,
			mode: this.#mode,
			commandContextActions: commandActions(session),
			onError: (error) => {
				this.extensionErrors.push(error);
				this.#waiters.changed();
			},
		});
	}

	/** Fires session_shutdown like pi does before replacing or quitting a session, then disposes it. */
	async #teardown(reason: "quit" | "resume", targetSessionFile?: string): Promise<void> {
		const session = this.session;
		await session.abort();
		if (session.extensionRunner.hasHandlers("session_shutdown")) {
			await session.extensionRunner.emit({ type: "session_shutdown", reason, targetSessionFile });
		}
		this.#unsubscribe?.();
		session.dispose();
	}

	prompt(text: string): Promise<void> {
		return this.session.prompt(text);
	}

	respond(...steps: FauxResponseStep[]): void {
		this.faux.appendResponses(steps.map((step) => this.#recorded(step)));
	}

	count(type: AgentSessionEvent["type"]): number {
		return this.events.filter((event) => event.type === type).length;
	}

	agentRuns(): number {
		return this.count("agent_start");
	}

	userTexts(): string[] {
		return this.modelCalls.map((call) => call.lastUserText ?? "");
	}

	branch(): SessionEntry[] {
		return this.session.sessionManager.getBranch();
	}

	async waitFor(predicate: () => boolean, timeoutMs = 10_000, label = "condition"): Promise<void> {
		await this.#waiters.until({ predicate, label, timeoutMs, pollMs: 5 });
	}

	waitForEvent(type: AgentSessionEvent["type"], n = 1, timeoutMs?: number): Promise<void> {
		return this.waitFor(() => this.count(type) >= n, timeoutMs, `${n}x ${type}`);
	}

	waitForSettled(n?: number, timeoutMs?: number): Promise<void> {
		const target = n ?? this.count("agent_settled") + 1;
		return this.waitFor(() => this.count("agent_settled") >= target, timeoutMs, `${target}x agent_settled`);
	}

	navigateTree(entryId: string): ReturnType<AgentSession["navigateTree"]> {
		return this.session.navigateTree(entryId, { summarize: false });
	}

	async reopen(reopenOptions: ReopenOptions = {}): Promise<AgentSession> {
		const reason = reopenOptions.reason ?? "startup";
		const manager = this.#sameSession();
		const file = this.session.sessionFile;
		await this.#teardown(reason === "resume" ? "resume" : "quit", file);
		if (reopenOptions.mode) this.#mode = reopenOptions.mode;
		const resumed = { type: "session_start", reason: "resume", previousSessionFile: file } as const;
		await this.open(manager(), reason === "resume" ? resumed : undefined);
		return this.session;
	}

	/** How to open the current session again: its file, or in memory a copy of its entries taken now. */
	#sameSession(): () => SessionManager {
		const { sessionManager, sessionFile: file } = this.session;
		if (persists(this.options)) {
			if (!file || !existsSync(file)) {
				throw new Error(
					"reopen(): the session file is not on disk yet (pi writes it after the first assistant message)",
				);
			}
			return () => SessionManager.open(file, this.sessionDir);
		}
		const header = sessionManager.getHeader();
		const entries = sessionManager.getEntries();
		return () => SessionManager.inMemory(this.cwd, undefined, header ? [header, ...entries] : entries);
	}

	reload(): Promise<void> {
		return this.session.reload();
	}

	async dispose(): Promise<void> {
		if (this.#disposed) return;
		this.#disposed = true;
		try {
			await this.#teardown("quit");
		} finally {
			this.restoreEnv();
			rmSync(this.dir, { recursive: true, force: true });
		}
	}
}

/** Start a real pi AgentSession in process with the faux model and the given extensions. */
export async function startPi(options: StartPiOptions = {}): Promise<PiHarness> {
	const dirs = makeDirs(options.cwd);
	const restoreEnv = isolateEnv(dirs);
	const { faux, modelRuntime } = await fauxRuntime(options.fauxOptions);
	const harness = new InProcessPi(options, dirs, faux, modelRuntime, restoreEnv);
	await harness.open(firstManager(options, dirs));
	return harness;
}
