/** A fake pi `ExtensionContext` for unit tests: a recording UI and a session branch given by the test. */

import type {
	ExtensionCommandContext,
	ExtensionContext,
	ExtensionUIContext,
	TerminalInputHandler,
} from "@earendil-works/pi-coding-agent";
import type { Component, TUI } from "@earendil-works/pi-tui";
import { plainTheme } from "./theme.ts";
import {
	applyUiCall,
	EMPTY_UI,
	type Notification,
	type UiCall,
	type UiState,
	type Widget,
	widgetCall,
} from "./ui-state.ts";

type ExtensionMode = ExtensionContext["mode"];

export interface FakeCtxOptions {
	hasUI?: boolean;
	mode?: ExtensionMode;
	/** Entries `sessionManager.getBranch()` returns; a function may throw to simulate an unreadable session. */
	branch?: readonly unknown[] | (() => readonly unknown[]);
	idle?: boolean;
	pendingMessages?: boolean;
	/** The terminal's height a component shown with `ctx.ui.custom` is given (default 30). */
	rows?: number;
	/** The session's folder (default `/tmp`). */
	cwd?: string;
	/** A model's answer to each call through `ctx.modelRegistry.complete` (the judge's); none: the session has no model. */
	complete?: (
		context: { systemPrompt?: string; messages: unknown[] },
		options?: { signal?: AbortSignal },
	) => Promise<unknown>;
	/** The models `ctx.modelRegistry.find` knows, by `provider/id`. */
	models?: Record<string, unknown>;
	/** Whether pi has credentials for every model (default true). */
	auth?: boolean;
	/**
	 * pi's quick answer on credentials (`hasConfiguredAuth`) when it differs from `auth`: false for a provider an
	 * extension registered a moment ago, whose credentials pi has not looked at yet.
	 */
	quickAuth?: boolean;
	/** pi's word on trusting the project (`ctx.isProjectTrusted()`); none: a pi without the question. */
	trusted?: boolean;
}

/** The session's model in a fake context that has one. */
export const FAKE_SESSION_MODEL = { provider: "fake", id: "session", cost: { input: 0, output: 0 } };

export interface FakeUi {
	/** Current status text by key; a cleared key is removed. */
	readonly status: ReadonlyMap<string, string>;
	/** Every `setStatus` call in order. */
	readonly statusCalls: { key: string; text: string | undefined }[];
	/** Current widget by key (its lines and placement); a cleared widget is removed. */
	readonly widgets: ReadonlyMap<string, Widget>;
	/** Every `setWidget` call in order. */
	readonly widgetCalls: { key: string; content: unknown; options: unknown }[];
	/** Every `notify` call in order. */
	readonly notifications: readonly Notification[];
	/** Handlers registered with `onTerminalInput` and not yet unsubscribed. */
	readonly inputHandlers: Set<TerminalInputHandler>;
	/** The component `ctx.ui.custom` shows in place of the editor, until it calls `done`. */
	readonly view: Component | undefined;
}

/**
 * What the TUI shows around the editor, which the test sets: the editor's text, whether its completion popup is open,
 * whether the editor or another component (a dialog, a selector) has the focus, and whether a widget's factory is
 * given the TUI at all (pi does in the TUI, not over RPC).
 */
export interface FakeScreen {
	editorText: string;
	popup: boolean;
	focus: "editor" | "other";
	tui: boolean;
}

export interface FakeCtx {
	ctx: ExtensionContext;
	/** The screen `ctx.ui.getEditorText()` and a widget factory's TUI report; the test changes it as it goes. */
	screen: FakeScreen;
	/** The same context as a command sees it (`waitForIdle` resolves at once). */
	commandCtx: ExtensionCommandContext;
	ui: FakeUi;
	/** Changes what `ctx.isIdle()` answers from now on. */
	setIdle(idle: boolean): void;
	/** Changes what `ctx.hasPendingMessages()` answers from now on. */
	setPendingMessages(pending: boolean): void;
	/** From now on every UI call and `isIdle`/`hasPendingMessages` throw, like a context whose session is gone. */
	makeStale(): void;
	/** How many calls the stale context refused (threw on): proof that the extension used it, and survived. */
	refused(): number;
}

/** What the fake UI shows (folded with ui-state's `applyUiCall`) and every call it received. */
class FakeUiRecording implements FakeUi {
	#state: UiState = EMPTY_UI;
	readonly statusCalls: FakeUi["statusCalls"] = [];
	readonly widgetCalls: FakeUi["widgetCalls"] = [];
	readonly inputHandlers = new Set<TerminalInputHandler>();
	view: Component | undefined;

	get status() {
		return this.#state.statuses;
	}
	get widgets() {
		return this.#state.widgets;
	}
	get notifications() {
		return this.#state.notifications;
	}

	apply(call: UiCall): void {
		this.#state = applyUiCall(this.#state, call);
	}
}

/** The answers the context gives, which a test changes as it goes. */
interface Switches {
	idle: boolean;
	pendingMessages: boolean;
	stale: boolean;
	/** Calls refused since the context went stale. */
	refused: number;
}

/** Throws, as pi does, once the context's session was replaced or reloaded. */
function live(switches: Switches): void {
	if (!switches.stale) return;
	switches.refused++;
	throw new Error("This extension context is stale: its session was replaced or reloaded");
}

type CustomFactory = Parameters<ExtensionUIContext["custom"]>[0];

/** Shows the factory's component as `ui.view` (a synchronous factory: ours are) until it calls `done`. */
function showCustom<T>(ui: FakeUiRecording, factory: CustomFactory, theme: unknown, rows: number): Promise<T> {
	const tui = { terminal: { rows, columns: 100 }, requestRender: () => undefined } as unknown as TUI;
	return new Promise<T>((resolve) => {
		const done = (result: unknown) => {
			ui.view = undefined;
			resolve(result as T);
		};
		ui.view = factory(tui, theme as never, {} as never, done) as Component;
	});
}

/** The TUI a widget's factory is given: what has the focus is pi's editor (its text, its popup) or another component. */
function screenTui(screen: FakeScreen): TUI {
	const editor = { getText: () => screen.editorText, isShowingAutocomplete: () => screen.popup };
	const dialog = { render: () => [], invalidate: () => undefined };
	return { getFocusedComponent: () => (screen.focus === "editor" ? editor : dialog) } as unknown as TUI;
}

/** The `ctx.ui` the extension calls: each call recorded into `ui`, each refused once the context is stale. */
function uiContext(ui: FakeUiRecording, switches: Switches, rows: number, screen: FakeScreen) {
	return {
		theme: plainTheme,
		custom<T>(factory: CustomFactory): Promise<T> {
			live(switches);
			return showCustom<T>(ui, factory, this.theme, rows);
		},
		setStatus(key: string, text: string | undefined) {
			live(switches);
			ui.statusCalls.push({ key, text });
			ui.apply({ method: "setStatus", key, text });
		},
		setWidget(key: string, content: unknown, widgetOptions?: { placement?: Widget["placement"] }) {
			live(switches);
			ui.widgetCalls.push({ key, content, options: widgetOptions });
			if (typeof content === "function" && screen.tui) content(screenTui(screen), plainTheme);
			ui.apply(widgetCall(key, content, widgetOptions));
		},
		notify(message: string, type?: Notification["type"]) {
			live(switches);
			ui.apply({ method: "notify", message, type });
		},
		onTerminalInput(handler: TerminalInputHandler) {
			live(switches);
			ui.inputHandlers.add(handler);
			return () => ui.inputHandlers.delete(handler);
		},
		getEditorText() {
			live(switches);
			return screen.editorText;
		},
	};
}

/** pi's question on trusting the project, answered `trusted`; none when the option is not given (a pi without it). */
function trustQuestion(trusted: boolean | undefined, switches: Switches) {
	if (trusted === undefined) return {};
	return {
		isProjectTrusted: () => {
			live(switches);
			return trusted;
		},
	};
}

/** pi's model registry as the options have it: the models it finds, their credentials, and the one completion. */
function modelRegistryOf(options: FakeCtxOptions) {
	return {
		find: (provider: string, id: string) => options.models?.[`${provider}/${id}`],
		hasConfiguredAuth: () => options.quickAuth ?? options.auth ?? true,
		getProviderAuth: async () => ((options.auth ?? true) ? { auth: {} } : undefined),
		complete: (_model: unknown, context: never, callOptions?: { signal?: AbortSignal }) =>
			options.complete ? options.complete(context, callOptions) : Promise.reject(new Error("no model")),
	};
}

export function createFakeCtx(options: FakeCtxOptions = {}): FakeCtx {
	const switches: Switches = {
		idle: options.idle ?? true,
		pendingMessages: options.pendingMessages ?? false,
		stale: false,
		refused: 0,
	};
	const ui = new FakeUiRecording();
	const screen: FakeScreen = { editorText: "", popup: false, focus: "editor", tui: true };
	const branch = options.branch ?? [];
	const ctx = {
		// Like pi: a UI in the TUI and over RPC, none in print and JSON modes.
		hasUI: options.hasUI ?? (options.mode === undefined || options.mode === "tui" || options.mode === "rpc"),
		mode: options.mode ?? "tui",
		cwd: options.cwd ?? "/tmp",
		ui: uiContext(ui, switches, options.rows ?? 30, screen),
		sessionManager: {
			getBranch: () => (typeof branch === "function" ? branch() : [...branch]),
			getSessionId: () => "test-session",
		},
		isIdle: () => {
			live(switches);
			return switches.idle;
		},
		hasPendingMessages: () => {
			live(switches);
			return switches.pendingMessages;
		},
		waitForIdle: async () => undefined,
		...trustQuestion(options.trusted, switches),
		model: options.complete ? FAKE_SESSION_MODEL : undefined,
		modelRegistry: modelRegistryOf(options),
	};
	return {
		ctx: ctx as unknown as ExtensionContext,
		commandCtx: ctx as unknown as ExtensionCommandContext,
		ui,
		screen,
		setIdle: (value) => {
			switches.idle = value;
		},
		setPendingMessages: (value) => {
			switches.pendingMessages = value;
		},
		makeStale: () => {
			switches.stale = true;
		},
		refused: () => switches.refused,
	};
}
