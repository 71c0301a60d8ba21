/**
 * A recording `ExtensionUIContext` for the in-process SDK tests: what the extension shows (statuses, widgets, notices,
 * the title, folded with ui-state's `applyUiCall`), every call in order, and simulated keypresses. The dialogs answer
 * nothing, and the parts of pi's UI the extension does not use are inert.
 */

import type { ExtensionUIContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent";
import { plainTheme } from "./theme.ts";
import {
	applyUiCall,
	EMPTY_UI,
	type Notification,
	type Placement,
	type UiCall,
	type UiState,
	type Widget,
	widgetCall,
} from "./ui-state.ts";

/** One `setStatus` call. */
export interface StatusCall {
	key: string;
	text: string | undefined;
}

/** One `setWidget` call; `lines` is undefined when cleared or when a component factory was passed. */
export interface WidgetCall {
	key: string;
	lines: string[] | undefined;
	placement: Placement | undefined;
	isFactory: boolean;
}

/** One `notify` call. */
export type NotifyCall = Notification;

/** A call to a method that changes nothing the recorder shows (`setWorkingMessage`, `setEditorText`, ...). */
export interface MiscCall {
	method: string;
	args: unknown[];
}

/** What the recorder saw, plus a way to simulate keypresses. */
export interface UiRecorder {
	/** Plain object to pass as `uiContext` (pi copies it with `{...ui}`). */
	readonly ui: ExtensionUIContext;
	/** Current status texts by key (cleared keys are removed). */
	readonly status: ReadonlyMap<string, string>;
	/** Every `setStatus` call in order. */
	readonly statusHistory: StatusCall[];
	/** Current widgets by key (cleared keys are removed); a component shows with no lines. */
	readonly widgets: ReadonlyMap<string, Widget>;
	/** Every `setWidget` call in order. */
	readonly widgetHistory: WidgetCall[];
	/** Every `notify` call in order. */
	readonly notifications: readonly NotifyCall[];
	/** The last title set. */
	readonly title: string | undefined;
	/** Every `setWorkingMessage` / `setTitle` / `setEditorText` call, by method name. */
	readonly misc: MiscCall[];
	/** Number of live `onTerminalInput` handlers. */
	terminalHandlerCount(): number;
	/** Feed raw terminal input to every live handler in order; returns true if one consumed it. */
	pressKey(data: string): boolean;
	/** Forget all recorded calls (current state included). */
	reset(): void;
}

/** What the recorder keeps: the state shown, the histories, the live key handlers and the editor. */
class Recording {
	state: UiState = EMPTY_UI;
	readonly statusHistory: StatusCall[] = [];
	readonly widgetHistory: WidgetCall[] = [];
	readonly misc: MiscCall[] = [];
	readonly handlers = new Set<TerminalInputHandler>();
	editorText = "";
	toolsExpanded = false;

	apply(call: UiCall): void {
		this.state = applyUiCall(this.state, call);
	}

	/** A method that only records that it was called. */
	note(method: string): (...args: unknown[]) => void {
		return (...args) => {
			this.misc.push({ method, args });
		};
	}

	reset(): void {
		this.state = EMPTY_UI;
		this.statusHistory.length = 0;
		this.widgetHistory.length = 0;
		this.misc.length = 0;
	}
}

/** The methods whose calls change what the recorder shows. */
function shownParts(rec: Recording) {
	return {
		notify: (message: string, type?: Notification["type"]) => rec.apply({ method: "notify", message, type }),
		setStatus: (key: string, text: string | undefined) => {
			rec.statusHistory.push({ key, text });
			rec.apply({ method: "setStatus", key, text });
		},
		setWidget: (key: string, content: unknown, options?: { placement?: Placement }) => {
			const call = widgetCall(key, content, options);
			const lines = Array.isArray(content) ? [...(content as string[])] : undefined;
			rec.widgetHistory.push({ key, lines, placement: options?.placement, isFactory: typeof content === "function" });
			rec.apply(call);
		},
		setTitle: (title: string) => {
			rec.misc.push({ method: "setTitle", args: [title] });
			rec.apply({ method: "setTitle", title });
		},
	};
}

/** The keyboard: each registration a subscription of its own, even for the same handler twice. */
function inputParts(rec: Recording) {
	return {
		onTerminalInput: (handler: TerminalInputHandler) => {
			const entry: TerminalInputHandler = (data) => handler(data);
			rec.handlers.add(entry);
			return () => {
				rec.handlers.delete(entry);
			};
		},
	};
}

/** The working indicator and the editor: recorded in `misc`, the editor's text kept. */
function editorParts(rec: Recording) {
	return {
		setWorkingMessage: rec.note("setWorkingMessage"),
		setWorkingVisible: rec.note("setWorkingVisible"),
		setWorkingIndicator: rec.note("setWorkingIndicator"),
		setHiddenThinkingLabel: rec.note("setHiddenThinkingLabel"),
		pasteToEditor: (text: string) => {
			rec.editorText += text;
		},
		setEditorText: (text: string) => {
			rec.misc.push({ method: "setEditorText", args: [text] });
			rec.editorText = text;
		},
		getEditorText: () => rec.editorText,
		getToolsExpanded: () => rec.toolsExpanded,
		setToolsExpanded: (expanded: boolean) => {
			rec.toolsExpanded = expanded;
		},
	};
}

/** Dialogs that answer nothing, and the parts of pi's UI the extension does not use. */
function inertParts() {
	return {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined as never,
		setFooter: () => {},
		setHeader: () => {},
		addAutocompleteProvider: () => {},
		setEditorComponent: () => {},
		getEditorComponent: () => undefined,
		theme: plainTheme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "UI recorder has no themes" }),
	};
}

/** Feeds `data` to every live handler in order; true once one consumes it. */
function pressKey(handlers: Set<TerminalInputHandler>, data: string): boolean {
	let input = data;
	// Snapshot so handlers that unsubscribe while running do not disturb iteration.
	for (const handler of [...handlers]) {
		if (!handlers.has(handler)) continue;
		const result = handler(input);
		if (result?.consume) return true;
		if (result?.data !== undefined) input = result.data;
	}
	return false;
}

/** Build a recording ExtensionUIContext: every method is an own property of a plain object. */
export function createUiRecorder(): UiRecorder {
	const rec = new Recording();
	const ui: ExtensionUIContext = {
		...shownParts(rec),
		...inputParts(rec),
		...editorParts(rec),
		...inertParts(),
	};
	return {
		ui,
		get status() {
			return rec.state.statuses;
		},
		get widgets() {
			return rec.state.widgets;
		},
		get notifications() {
			return rec.state.notifications;
		},
		get title() {
			return rec.state.title;
		},
		statusHistory: rec.statusHistory,
		widgetHistory: rec.widgetHistory,
		misc: rec.misc,
		terminalHandlerCount: () => rec.handlers.size,
		pressKey: (data) => pressKey(rec.handlers, data),
		reset: () => rec.reset(),
	};
}
