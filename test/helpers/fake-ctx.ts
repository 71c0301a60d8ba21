/** A fake pi `ExtensionContext` for unit tests: a recording UI and a session branch given by the test. */

import type { ExtensionContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent";
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
	ui: FakeUi;
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
	const uiContext = {
		theme: plainTheme,
		setStatus(key: string, text: string | undefined) {
			ui.statusCalls.push({ key, text });
			if (text === undefined) ui.status.delete(key);
			else ui.status.set(key, text);
		},
		setWidget(key: string, content: unknown, widgetOptions?: unknown) {
			ui.widgetCalls.push({ key, content, options: widgetOptions });
			if (content === undefined) ui.widgets.delete(key);
			else ui.widgets.set(key, content);
		},
		notify(message: string, type?: string) {
			ui.notifications.push({ message, type });
		},
		onTerminalInput(handler: TerminalInputHandler) {
			ui.inputHandlers.add(handler);
			return () => ui.inputHandlers.delete(handler);
		},
	};
	const branch = options.branch ?? [];
	const ctx = {
		hasUI: options.hasUI ?? true,
		mode: options.mode ?? "tui",
		cwd: "/tmp",
		ui: uiContext,
		sessionManager: {
			getBranch: () => (typeof branch === "function" ? branch() : [...branch]),
		},
		isIdle: () => options.idle ?? true,
		hasPendingMessages: () => options.pendingMessages ?? false,
	};
	return { ctx: ctx as unknown as ExtensionContext, ui };
}
