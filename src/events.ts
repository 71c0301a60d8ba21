/** Wires pi's events to the store, the context injection and the auto-continue engine; registers the renderers. */

import type { ExtensionAPI, ExtensionContext, MessageRenderer, Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import {
	BOOLEAN_SETTINGS,
	DEFAULT_CONFIG,
	type FlagValues,
	NUMERIC_SETTINGS,
	resolveConfig,
	type TilDoneConfig,
} from "./config.ts";
import { createEngine, type Engine } from "./engine.ts";
import { buildContextInjection, textOfContent } from "./formatting.ts";
import { LOOP_MESSAGE_TYPE } from "./loop.ts";
import { getTodos, pauseAutoContinue, reconstructState, setPanelEnabled, updateUI } from "./state.ts";
import { COMPLETE_MESSAGE_TYPE, CONTEXT_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE, COUNTDOWN_WIDGET_ID } from "./types.ts";
import { isIncomplete } from "./validation.ts";

type ThemeColor = Parameters<Theme["fg"]>[0];

function iconRenderer(icon: string, iconColor: ThemeColor, textColor: ThemeColor): MessageRenderer {
	return (message, _options, theme) =>
		new Text(`${theme.fg(iconColor, icon)} ${theme.fg(textColor, textOfContent(message.content))}`, 0, 0);
}

export function registerMessageRenderers(pi: ExtensionAPI): void {
	pi.registerMessageRenderer(CONTEXT_MESSAGE_TYPE, iconRenderer("📋", "accent", "dim"));
	pi.registerMessageRenderer(COUNTDOWN_MESSAGE_TYPE, iconRenderer("⏳", "accent", "dim"));
	pi.registerMessageRenderer(LOOP_MESSAGE_TYPE, iconRenderer("🔁", "accent", "text"));
	const success = iconRenderer("✓", "success", "text");
	const warning = iconRenderer("⚠", "warning", "warning");
	// A tripped breaker is a warning, not a success: `details.level` says which one this message is.
	pi.registerMessageRenderer(COMPLETE_MESSAGE_TYPE, (message, options, theme) => {
		const level = (message.details as { level?: unknown } | undefined)?.level;
		return (level === "warning" ? warning : success)(message, options, theme);
	});
	// Print and JSON modes record a breaker stop as a custom entry (see engine.ts); show it the same way on resume.
	pi.registerEntryRenderer(COMPLETE_MESSAGE_TYPE, (entry, _options, theme) => {
		const data = entry.data as { text?: unknown } | undefined;
		const text = typeof data?.text === "string" ? data.text : "";
		return new Text(`${theme.fg("warning", "⚠")} ${theme.fg("warning", text)}`, 0, 0);
	});
}

/** Registers the extension's CLI flags; their values are read at session start. */
export function registerFlags(pi: ExtensionAPI): void {
	for (const setting of NUMERIC_SETTINGS) {
		pi.registerFlag(setting.flag, { type: "string", description: setting.description });
	}
	for (const setting of BOOLEAN_SETTINGS) {
		pi.registerFlag(setting.flag, { type: "boolean", description: setting.description });
	}
}

function readFlags(pi: ExtensionAPI): FlagValues {
	const flags: Record<string, string | boolean | undefined> = {};
	for (const setting of [...NUMERIC_SETTINGS, ...BOOLEAN_SETTINGS]) flags[setting.flag] = pi.getFlag(setting.flag);
	return flags;
}

/** Whether pi says the run starts from a custom message (pi 1.2+; older versions fire only for prompts). */
export function startedByCustomMessage(event: object): boolean {
	return (event as { messageType?: unknown }).messageType === "custom";
}

/** Registers every event handler; returns the engine and a live view of the configuration for the commands. */
export function registerEventHandlers(pi: ExtensionAPI): { engine: Engine; getConfig: () => TilDoneConfig } {
	let config: TilDoneConfig = { ...DEFAULT_CONFIG };
	const getConfig = () => config;
	const engine = createEngine(pi, getConfig);

	const rebuild = (ctx: ExtensionContext) => {
		engine.onSessionChange();
		reconstructState(ctx);
		updateUI(ctx, getTodos());
	};

	pi.on("session_start", (_event, ctx) => {
		const resolved = resolveConfig(readFlags(pi), process.env);
		config = resolved.config;
		if (ctx.hasUI) for (const warning of resolved.warnings) ctx.ui.notify(`pi-til-done: ${warning}`, "warning");
		setPanelEnabled(config.panel);
		engine.onSessionChange();
		reconstructState(ctx);
		if (config.startPaused) pauseAutoContinue("user", "started with auto-continue off");
		updateUI(ctx, getTodos());
	});
	pi.on("session_tree", (_event, ctx) => rebuild(ctx));
	pi.on("session_shutdown", (_event, ctx) => {
		engine.onSessionChange();
		try {
			if (ctx.hasUI) ctx.ui.setWidget(COUNTDOWN_WIDGET_ID, undefined);
		} catch {
			// Shutting down with a context that is already gone: nothing left to clear.
		}
	});

	pi.on("input", (event, ctx) => {
		if (event.source !== "extension") {
			engine.onUserInput(ctx);
			// A model's pause ends with the user's prompt: take it off the status bar.
			updateUI(ctx, getTodos());
		}
		return { action: "continue" };
	});

	pi.on("before_agent_start", (event) => {
		// pi 1.2+ also fires this for runs a custom message starts (continuations, /loop), and says so in `messageType`;
		// their prompt already carries the current list, so a second copy would only cost tokens and bury the prompt.
		if (startedByCustomMessage(event)) return undefined;
		const todos = getTodos();
		if (!todos.some((todo) => isIncomplete(todo.status))) return undefined;
		return { message: { customType: CONTEXT_MESSAGE_TYPE, content: buildContextInjection(todos), display: false } };
	});

	pi.on("agent_end", (event, ctx) => engine.onRunEnd(event.messages, ctx));
	pi.on("agent_settled", (_event, ctx) => engine.onSettled(ctx));
	pi.on("agent_before_settle", (event, ctx) => engine.onBeforeSettle(event, ctx));
	return { engine, getConfig };
}
