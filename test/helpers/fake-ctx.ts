/** A fake pi `ExtensionContext` for unit tests: a recording UI and a session branch given by the test. */

import type { ExtensionCommandContext, ExtensionContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent";
import { plainTheme } from "./theme.ts";

type ExtensionMode = ExtensionContext["mode"];

export interface FakeCtxOptions {
	hasUI?: boolean;
	mode?: ExtensionMode;
	/** Entries `sessionManager.getBranch()` returns; a function may throw to simulate an unreadable session. */
	branch?: readonly unknown[] | (() => readonly unknown[]);
	idle?: boolean;
	pendingMessages?: boolean;
}

export interface FakeUi {
	/** Current status text by key; a cleared key is removed. */
	readonly status: Map<string, string>;
	/** Every `setStatus` call in order. */
	readonly statusCalls: { key: string; text: string | undefined }[];
	/** Current widget content by key; a cleared widget is removed. */
	readonly widgets: Map<string, unknown>;
	/** Every `setWidget` call in order. */
	readonly widgetCalls: { key: string; content: unknown; options: unknown }[];
	/** Every `notify` call in order. */
	readonly notifications: { message: string; type: string | undefined }[];
	/** Handlers registered with `onTerminalInput` and not yet unsubscribed. */
	readonly inputHandlers: Set<TerminalInputHandler>;
}

export interface FakeCtx {
	ctx: ExtensionContext;
	/** The same context as a command sees it (`waitForIdle` resolves at once). */
	commandCtx: ExtensionCommandContext;
	ui: FakeUi;
	/** Changes what `ctx.isIdle()` answers from now on. */
	setIdle(idle: boolean): void;
	/** Changes what `ctx.hasPendingMessages()` answers from now on. */
	setPendingMessages(pending: boolean): void;
	/** From now on every UI call and `isIdle`/`hasPendingMessages` throw, like a context whose session is gone. */
	makeStale(): void;
}

export function createFakeCtx(options: FakeCtxOptions = {}): FakeCtx {
	const ui: FakeUi = {
		status: new Map(),
		statusCalls: [],
		widgets: new Map(),
		widgetCalls: [],
		notifications: [],
		inputHandlers: new Set(),
	};
	let idle = options.idle ?? true;
	let pendingMessages = options.pendingMessages ?? false;
	let stale = false;
	const live = () => {
		if (stale) throw new Error("This extension context is stale: its session was replaced or reloaded");
	};
	const uiContext = {
		theme: plainTheme,
		setStatus(key: string, text: string | undefined) {
			live();
			ui.statusCalls.push({ key, text });
			if (text === undefined) ui.status.delete(key);
			else ui.status.set(key, text);
		},
		setWidget(key: string, content: unknown, widgetOptions?: unknown) {
			live();
			ui.widgetCalls.push({ key, content, options: widgetOptions });
			if (content === undefined) ui.widgets.delete(key);
			else ui.widgets.set(key, content);
		},
		notify(message: string, type?: string) {
			live();
			ui.notifications.push({ message, type });
		},
		onTerminalInput(handler: TerminalInputHandler) {
			live();
			ui.inputHandlers.add(handler);
			return () => ui.inputHandlers.delete(handler);
		},
	};
	const branch = options.branch ?? [];
	const ctx = {
		// Like pi: a UI in the TUI and over RPC, none in print and JSON modes.
		hasUI: options.hasUI ?? (options.mode === undefined || options.mode === "tui" || options.mode === "rpc"),
		mode: options.mode ?? "tui",
		cwd: "/tmp",
		ui: uiContext,
		sessionManager: {
			getBranch: () => (typeof branch === "function" ? branch() : [...branch]),
		},
		isIdle: () => {
			live();
			return idle;
		},
		hasPendingMessages: () => {
			live();
			return pendingMessages;
		},
		waitForIdle: async () => undefined,
	};
	return {
		ctx: ctx as unknown as ExtensionContext,
		commandCtx: ctx as unknown as ExtensionCommandContext,
		ui,
		setIdle: (value) => {
			idle = value;
		},
		setPendingMessages: (value) => {
			pendingMessages = value;
		},
		makeStale: () => {
			stale = true;
		},
	};
}
