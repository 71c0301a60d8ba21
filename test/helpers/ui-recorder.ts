import type { ExtensionUIContext, TerminalInputHandler, Theme } from "@earendil-works/pi-coding-agent";

/** One `setStatus` call. */
export interface StatusCall {
	key: string;
	text: string | undefined;
}

/** One `setWidget` call; `lines` is undefined when cleared or when a component factory was passed. */
export interface WidgetCall {
	key: string;
	lines: string[] | undefined;
	placement: "aboveEditor" | "belowEditor" | undefined;
	isFactory: boolean;
}

/** One `notify` call. */
export interface NotifyCall {
	message: string;
	type: "info" | "warning" | "error" | undefined;
}

/** What the recorder saw, plus a way to simulate keypresses. */
export interface UiRecorder {
	/** Plain object to pass as `uiContext` (pi copies it with `{...ui}`). */
	readonly ui: ExtensionUIContext;
	/** Current status texts by key (cleared keys are removed). */
	readonly status: Map<string, string>;
	/** Every `setStatus` call in order. */
	readonly statusHistory: StatusCall[];
	/** Current widget lines by key (cleared keys are removed). */
	readonly widgets: Map<string, string[]>;
	/** Every `setWidget` call in order. */
	readonly widgetHistory: WidgetCall[];
	/** Every `notify` call in order. */
	readonly notifications: NotifyCall[];
	/** Every `setWorkingMessage` / `setTitle` / `setEditorText` call, by method name. */
	readonly misc: Array<{ method: string; args: unknown[] }>;
	/** Number of live `onTerminalInput` handlers. */
	terminalHandlerCount(): number;
	/** Feed raw terminal input to every live handler in order; returns true if one consumed it. */
	pressKey(data: string): boolean;
	/** Forget all recorded calls (current maps included). */
	reset(): void;
}

/** Theme stub whose styling methods return the text unchanged. */
export function createStubTheme(): Theme {
	const same = (_color: unknown, text: string): string => text;
	const one = (text: string): string => text;
	const stub = {
		name: "stub",
		fg: same,
		bg: same,
		bold: one,
		italic: one,
		underline: one,
		inverse: one,
		strikethrough: one,
		getFgAnsi: () => "",
		getBgAnsi: () => "",
		getColorMode: () => "truecolor",
		getThinkingBorderColor: () => one,
		getBashModeBorderColor: () => one,
	};
	return stub as unknown as Theme;
}

/** Build a recording ExtensionUIContext: every method is an own property of a plain object. */
export function createUiRecorder(): UiRecorder {
	const status = new Map<string, string>();
	const statusHistory: StatusCall[] = [];
	const widgets = new Map<string, string[]>();
	const widgetHistory: WidgetCall[] = [];
	const notifications: NotifyCall[] = [];
	const misc: Array<{ method: string; args: unknown[] }> = [];
	const handlers = new Set<TerminalInputHandler>();
	const theme = createStubTheme();
	let editorText = "";
	let toolsExpanded = false;

	const ui: ExtensionUIContext = {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		notify: (message, type) => {
			notifications.push({ message, type });
		},
		onTerminalInput: (handler) => {
			// Wrap so the same handler registered twice gets two independent subscriptions.
			const entry: TerminalInputHandler = (data) => handler(data);
			handlers.add(entry);
			return () => {
				handlers.delete(entry);
			};
		},
		setStatus: (key, text) => {
			statusHistory.push({ key, text });
			if (text === undefined) status.delete(key);
			else status.set(key, text);
		},
		setWorkingMessage: (...args: unknown[]) => {
			misc.push({ method: "setWorkingMessage", args });
		},
		setWorkingVisible: (...args: unknown[]) => {
			misc.push({ method: "setWorkingVisible", args });
		},
		setWorkingIndicator: (...args: unknown[]) => {
			misc.push({ method: "setWorkingIndicator", args });
		},
		setHiddenThinkingLabel: (...args: unknown[]) => {
			misc.push({ method: "setHiddenThinkingLabel", args });
		},
		setWidget: (key: string, content: unknown, options?: { placement?: "aboveEditor" | "belowEditor" }) => {
			const isFactory = typeof content === "function";
			const lines = Array.isArray(content) ? [...(content as string[])] : undefined;
			widgetHistory.push({ key, lines, placement: options?.placement, isFactory });
			if (content === undefined) widgets.delete(key);
			else widgets.set(key, lines ?? []);
		},
		setFooter: () => {},
		setHeader: () => {},
		setTitle: (...args: unknown[]) => {
			misc.push({ method: "setTitle", args });
		},
		custom: async () => undefined as never,
		pasteToEditor: (text) => {
			editorText += text;
		},
		setEditorText: (text) => {
			misc.push({ method: "setEditorText", args: [text] });
			editorText = text;
		},
		getEditorText: () => editorText,
		editor: async () => undefined,
		addAutocompleteProvider: () => {},
		setEditorComponent: () => {},
		getEditorComponent: () => undefined,
		theme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "UI recorder has no themes" }),
		getToolsExpanded: () => toolsExpanded,
		setToolsExpanded: (expanded) => {
			toolsExpanded = expanded;
		},
	};

	return {
		ui,
		status,
		statusHistory,
		widgets,
		widgetHistory,
		notifications,
		misc,
		terminalHandlerCount: () => handlers.size,
		pressKey: (data) => {
			// Snapshot so handlers that unsubscribe while running do not disturb iteration.
			for (const handler of [...handlers]) {
				if (!handlers.has(handler)) continue;
				const result = handler(data);
				if (result?.consume) return true;
				if (result?.data !== undefined) data = result.data;
			}
			return false;
		},
		reset: () => {
			status.clear();
			statusHistory.length = 0;
			widgets.clear();
			widgetHistory.length = 0;
			notifications.length = 0;
			misc.length = 0;
		},
	};
}
