/**
 * The status bar and the panel, painted from the store: events.ts subscribes one painter per session, so every change
 * of the list, the chain or the loop reaches the screen and nothing else draws them.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { stopWords } from "../continue/breakers.ts";
import { PLAIN_STYLE } from "../formatting.ts";
import { isAllFinished, pickNextIndex } from "../list/queries.ts";
import { hasLinks } from "../plan/links.ts";
import { waitingItems } from "../plan/ready.ts";
import {
	ACTIVE_STATUS_KEY,
	CHECK_STATUS_KEY,
	LOOP_STATUS_KEY,
	PANEL_WIDGET_ID,
	PAUSED_STATUS_KEY,
	PLAN_STATUS_KEY,
	REVIEW_STATUS_KEY,
	STATUS_KEY,
	STOP_STATUS_KEY,
} from "../session/keys.ts";
import type { UiView, Verification } from "../state.ts";
import {
	activeStatus,
	checkStatus,
	loopStatus,
	pausedStatus,
	planStatus,
	progressStatus,
	reviewStatus,
	type StatusText,
	stopStatus,
} from "../texts/status.ts";
import { passesFor } from "../verify/verdict.ts";
import { quietly } from "./guard.ts";
import { formatPanelLines } from "./panel.ts";
import { fitStatusLine, STATUS_WIDTH_DEFAULT, type StatusEntry } from "./status-line.ts";

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

/** Whether a painter left the panel on screen: the painter of the next session must clear it. */
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

/**
 * Every status-bar entry by key. pi's footer shows them sorted by key, which is this order: what is open or done
 * (progress once), the item in progress, the verification, then why the chain waits or stopped.
 */
export function statusEntries(view: UiView): StatusEntry[] {
	const verified = passesFor(view.verification, view.todos);
	// A finished list waits while it has a verification to pass, or failed its last one, whatever the settings say now.
	const unverified = view.toVerify || view.verification?.passed === false;
	const waitsForVerification = isAllFinished(view.todos) && unverified && !verified;
	return [
		[STATUS_KEY, progressStatus(view.todos, isAllFinished(view.todos) && !waitsForVerification)],
		[ACTIVE_STATUS_KEY, activeStatus(view.todos)],
		[CHECK_STATUS_KEY, checkStatus(view.checking, verdictToShow(view, verified), waitsForVerification)],
		[LOOP_STATUS_KEY, view.loop ? loopStatus(view.loop.iteration, view.loop.max) : undefined],
		[PAUSED_STATUS_KEY, view.chain.paused ? pausedStatus(view.chain.pauseReason) : undefined],
		[PLAN_STATUS_KEY, planEntry(view.todos)],
		[REVIEW_STATUS_KEY, reviewStatus(view.todos)],
		[STOP_STATUS_KEY, stopStatus(view.chain.stopped && stopWords(view.chain.stopped))],
	];
}

/** What a plan with waits or subtasks adds to the bar; a list without links adds nothing. */
function planEntry(todos: UiView["todos"]): StatusText | undefined {
	if (!hasLinks(todos)) return undefined;
	const next = pickNextIndex(todos);
	const todo = next === undefined ? undefined : todos[next];
	return planStatus(next === undefined || todo === undefined ? undefined : [next, todo], waitingItems(todos).length);
}

/** The verdict the status bar may show: a failure, or a pass that holds for the list as it is now. */
function verdictToShow({ verification }: UiView, verified: boolean): Verification | undefined {
	return verification?.passed && !verified ? undefined : verification;
}
