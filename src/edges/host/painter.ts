/**
 * The status bar and the panel, painted from the store: events.ts subscribes one painter per session, so every change
 * of the list, the chain or the loop reaches the screen and nothing else draws them.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { PANEL_WIDGET_ID } from "../../core/rules/keys.ts";
import { formatPanelLines } from "../../core/views/panel.ts";
import { statusEntries, type UiView } from "../../core/views/status-entries.ts";
import { fitStatusLine, STATUS_WIDTH_DEFAULT } from "../../core/views/status-line.ts";
import { PLAIN_STYLE } from "../../core/views/themed-list.ts";
import { quietly } from "./quietly.ts";

/** The terminal's width in the TUI; elsewhere (RPC clients lay out what they get) the default. */
export function screenWidth(ctx: ExtensionContext): number {
	const columns = ctx.mode === "tui" ? process.stdout.columns : undefined;
	return columns && columns > 0 ? columns : STATUS_WIDTH_DEFAULT;
}

/**
 * A painter for one session's UI: the first paint sets every key (clearing what an earlier session left), later
 * paints only what changed. A no-op without a UI; a stale context after the session is gone is ignored.
 */
export function createPainter(ctx: ExtensionContext, read: () => UiView): () => void {
	const shown = new Map<string, string | undefined>();
	let first = true;
	let panel: string | undefined;
	return () => {
		quietly(() => {
			if (!ctx.hasUI) return;
			const view = read();
			const width = screenWidth(ctx);
			for (const [key, value] of fitStatusLine(statusEntries(view), width)) {
				if (!first && shown.get(key) === value) continue;
				ctx.ui.setStatus(key, value);
				shown.set(key, value);
			}
			first = false;
			panel = paintPanel(ctx, view, panel, width);
		});
	};
}

/** pi draws a widget's lines with one column of padding on each side. */
const PANEL_PADDING = 2;

/** Whether a painter left the panel on screen, which is the process's: the painter of the next session must clear it. */
let panelOnScreen = false;

/** Shows, updates or clears the panel widget; returns what it now shows. */
function paintPanel(ctx: ExtensionContext, view: UiView, shown: string | undefined, width: number): string | undefined {
	if (!view.panelEnabled || view.todos.length === 0) {
		if (panelOnScreen) ctx.ui.setWidget(PANEL_WIDGET_ID, undefined);
		panelOnScreen = false;
		return undefined;
	}
	// Escape codes only where a terminal draws them; RPC clients get plain lines.
	const lines = formatPanelLines(view.todos, ctx.mode === "tui" ? ctx.ui.theme : PLAIN_STYLE, width - PANEL_PADDING);
	const joined = lines.join("\n");
	if (joined !== shown || !panelOnScreen) ctx.ui.setWidget(PANEL_WIDGET_ID, lines, { placement: "aboveEditor" });
	panelOnScreen = true;
	return joined;
}
