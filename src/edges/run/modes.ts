/**
 * What carrying out a step does in each mode, chosen once when a session starts. Interactive (TUI, RPC): a countdown
 * the user can interrupt, a message that starts a new turn, notices. In-run (print, JSON; nobody can interrupt and
 * the process exits when the run ends): a back-off inside the run, one more model call through
 * `agent_before_settle`, a `[til-done]` line on stderr and a session entry.
 */

import type {
	BoundaryResult,
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import { matchesKey, type TUI } from "@earendil-works/pi-tui";
import { hasIncomplete } from "../../core/list/queries.ts";
import type { Decision } from "../../core/model/types.ts";
import { endsChainForUser } from "../../core/rules/decision.ts";
import { COMPLETE_MESSAGE_TYPE, ESCAPE_WATCH_WIDGET_ID } from "../../core/rules/keys.ts";
import type { Step, StepInput, StepMessage } from "../../core/rules/next-step.ts";
import { chainEndLine, type ReportLine } from "../../core/rules/reports.ts";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { checksAndJudge } from "../../core/rules/verdict.ts";
import { type EscapeScene, escapeStopsWorkers } from "../../core/rules/worker-dispatch.ts";
import { backoffMessage, NOTICES, reviewWaitText } from "../../core/texts/user.ts";
import {
	getChain,
	getRole,
	getVerification,
	isCompletionAnnounced,
	markCompletionAnnounced,
	markReviewAnnounced,
	markRunRefused,
} from "../../state.ts";
import { quietly } from "../host/quietly.ts";
import { tell, tellLasting } from "../host/tell.ts";
import { startCountdown } from "./countdown.ts";

/** How a wait before a send ended: it ran out, the user interrupted it, or it was cancelled (the user acted, the session changed). */
export type WaitEnd = "go" | "interrupted" | "cancelled";

/** A step that ends what follows a run, or waits: shown to the user, never sent. */
export type EndStep = Extract<Step, { kind: "stop" | "end-loop" | "idle" }>;

/** Where a step is carried out: after a run, from a command, or inside `agent_before_settle` (the boundary). */
export interface Turn {
	ctx: ExtensionContext;
	/** Inside `agent_before_settle`: what it is to return, filled by the in-run mode. */
	boundary?: { result?: BoundaryResult };
}

export interface Mode {
	/** Whether steps are carried out inside the run, in `agent_before_settle`, rather than once pi has settled. */
	readonly actsBeforeSettle: boolean;
	/** Whether what a command starts is carried out before the command returns (the process ends then). */
	readonly holdsCommands: boolean;
	/** Waits before a step's message goes out (a countdown, longer by the back-off; or the back-off alone). */
	wait(backoffMs: number, signal: AbortSignal): Promise<WaitEnd>;
	/** Sends a step's message as the next turn; false when pi cannot take it now. */
	deliver(message: StepMessage, turn: Turn): Promise<boolean>;
	/** Shows the user how the chain ended, or why it waits. */
	show(step: EndStep, decision: Decision, input: StepInput, turn: Turn): void;
	/** Starts a run from a command, and returns once pi has it (in-run: once it ran, since the process then ends). */
	startRun(message: StepMessage, ctx: ExtensionContext): Promise<boolean>;
	/** Resolves when the user presses Esc while workers are at work (never where nobody can); `signal` ends the wait. */
	stopKey(signal: AbortSignal): Promise<void>;
}

/** What a mode needs from the extension. */
export interface ModeEnv {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	config: TilDoneConfig;
}

/** Modes in which the process exits when the run ends, so nobody can watch or interrupt a countdown. */
export function runsInRun(ctx: ExtensionContext): boolean {
	return ctx.mode === "print" || ctx.mode === "json";
}

/** The mode of a session, chosen once when it starts. */
export function modeFor(env: ModeEnv): Mode {
	return runsInRun(env.ctx) ? inRunMode(env) : interactiveMode(env);
}

/** A custom message that starts a turn: at once when pi is idle, else after the current run. */
function sendTurn(pi: ExtensionAPI, ctx: ExtensionContext, message: StepMessage): boolean {
	return quietly(() =>
		pi.sendMessage(
			{ ...message, display: true },
			ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" },
		),
	);
}

function interactiveMode({ pi, ctx, config }: ModeEnv): Mode {
	return {
		actsBeforeSettle: false,
		holdsCommands: false,
		wait(backoffMs, signal) {
			if (backoffMs > 0) tell(ctx, backoffMessage(backoffMs), "warning");
			let ui: ExtensionContext["ui"] | undefined;
			quietly(() => {
				ui = ctx.hasUI ? ctx.ui : undefined;
			});
			return new Promise((resolve) => {
				const countdown = startCountdown({
					seconds: config.countdownSeconds + backoffMs / 1000,
					ui,
					onFinish: () => resolve("go"),
					onInterrupt: () => resolve("interrupted"),
				});
				signal.addEventListener("abort", () => {
					countdown.cancel();
					resolve("cancelled");
				});
			});
		},
		async deliver(message) {
			let sent = false;
			quietly(() => {
				// Sent only if pi is idle right now; otherwise it is decided again after the next settle.
				if (!ctx.isIdle() || ctx.hasPendingMessages()) return;
				pi.sendMessage({ ...message, display: true }, { triggerTurn: true });
				sent = true;
			});
			return sent;
		},
		show(step, decision, input) {
			// Only the TUI owns a terminal to ring; RPC clients and pipes get no escape sequences.
			if (config.notify && ctx.mode === "tui" && endsChainForUser(step, input)) ring(decision.text);
			if (step.kind === "stop") return showStop(pi, step.text);
			if (step.kind === "idle" && step.code === "review-wait" && step.index !== undefined)
				return announceReviewWait(ctx, step.index);
			const verification = getVerification();
			const passed = verification && checksAndJudge(verification);
			const line = chainEndLine(step, { decision: decision.text, items: input.todos.length, passed });
			if (!line) return;
			if (step.kind === "end-loop") tellLasting(pi, ctx, line);
			else announceEnd(pi, ctx, line);
		},
		startRun: async (message, command) => sendTurn(pi, command, message),
		stopKey: (signal) => escapeKey(ctx, signal),
	};
}

/**
 * Resolves on the first Esc in the TUI that nothing else on screen takes (core/rules/worker-dispatch.ts `escapeStopsWorkers`),
 * which is consumed (pi does not act on it); never without a terminal. `onTerminalInput` sees every key before pi's
 * components do, so what the key would do there is asked first: the editor's text, and what has the focus, asked of
 * the TUI pi hands a widget's factory (an empty widget, mounted while the wait lasts).
 */
function escapeKey(ctx: ExtensionContext, signal: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		let unsubscribe: (() => void) | undefined;
		let tui: TUI | undefined;
		const end = () =>
			quietly(() => {
				unsubscribe?.();
				ctx.ui.setWidget(ESCAPE_WATCH_WIDGET_ID, undefined);
			});
		quietly(() => {
			if (!ctx.hasUI || signal.aborted) return;
			ctx.ui.setWidget(ESCAPE_WATCH_WIDGET_ID, (given) => {
				tui = given;
				return { render: () => [], invalidate: () => {} };
			});
			unsubscribe = ctx.ui.onTerminalInput((data) => {
				if (!matchesKey(data, "escape") || !escapeStopsWorkers(sceneOf(ctx, tui))) return undefined;
				end();
				resolve();
				return { consume: true };
			});
		});
		signal.addEventListener("abort", end, { once: true });
	});
}

/** A component pi's TUI may report: its editor has its text and its completion popup. */
type Focusable = { getText?: unknown; isShowingAutocomplete?: unknown } | null;

/**
 * What the screen shows, for Esc: the editor's text, and what has the focus, pi's editor or another component. The TUI
 * says so through `getFocusedComponent`, public on pi-tui's TUI class (0.87.1 and 1.6.0) but not on its interface:
 * asked where it is there.
 */
function sceneOf(ctx: ExtensionContext, tui: TUI | undefined): EscapeScene {
	let editorText = "";
	quietly(() => {
		editorText = ctx.ui.getEditorText();
	});
	const focusOf = (tui as { getFocusedComponent?: () => Focusable } | undefined)?.getFocusedComponent;
	if (tui === undefined || typeof focusOf !== "function") return { editorText, focus: "unknown", popup: false };
	const focused = focusOf.call(tui);
	if (typeof focused?.getText !== "function" || typeof focused.isShowingAutocomplete !== "function")
		return { editorText, focus: "other", popup: false };
	return { editorText, focus: "editor", popup: focused.isShowingAutocomplete.call(focused) === true };
}

/** A tripped breaker or budget: shown once, as a warning message on the branch (it stays in the transcript). */
function showStop(pi: ExtensionAPI, text: string): void {
	quietly(() =>
		pi.sendMessage(
			{ customType: COMPLETE_MESSAGE_TYPE, content: text, display: true, details: { level: "warning" } },
			{ triggerTurn: false },
		),
	);
}

/**
 * How a finished list ended, said once per list (and verdict), as a line that stays: the transcript keeps it, and the
 * model needs no tokens for it.
 */
function announceEnd(pi: ExtensionAPI, ctx: ExtensionContext, line: ReportLine): void {
	if (isCompletionAnnounced()) return;
	markCompletionAnnounced();
	tellLasting(pi, ctx, line);
}

/** Once per wait in a chain: the item the auto-continue waits on until the user approves it (or prompts). */
function announceReviewWait(ctx: ExtensionContext, index: number): void {
	if (getChain().reviewAnnounced === index) return;
	markReviewAnnounced(index);
	tell(ctx, reviewWaitText(index), "info");
}

/** The title of the desktop notification a chain's end raises. */
const RING_TITLE = "pi-til-done";

/** Rings the terminal, the ring loaded on first use (it is off unless asked for). */
function ring(body: string): void {
	void import("../host/ring.ts").then(({ ringTerminal }) => ringTerminal(RING_TITLE, body)).catch(() => {});
}

/**
 * Exit status of `pi -p` when nothing of what it was told ran: a setting not understood, a plan file that could not be
 * loaded, a judge pi cannot call, a refused command.
 */
export const REFUSED_EXIT_CODE = 2;
/** Exit status of `pi -p` when every item is finished but the list did not pass its verification. */
export const UNVERIFIED_EXIT_CODE = 3;
/** Exit status of `pi -p` when the list it worked on ends with items open, whatever stopped it. */
export const OPEN_ITEMS_EXIT_CODE = 4;

function inRunMode({ pi, ctx }: ModeEnv): Mode {
	/** A run from a command: the process ends when the command returns, so the run happens inside this invocation. */
	const startRun = async (message: StepMessage, command: ExtensionContext) => {
		if (!sendTurn(pi, command, message)) return false;
		await (command as Partial<ExtensionCommandContext>).waitForIdle?.();
		return true;
	};
	return {
		actsBeforeSettle: true,
		holdsCommands: true,
		async wait(backoffMs, signal) {
			if (backoffMs > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs));
			return signal.aborted ? "cancelled" : "go";
		},
		async deliver(message, turn) {
			// Inside a run, one more model call in it; from a command, a run of its own.
			if (!turn.boundary) return startRun(message, turn.ctx);
			turn.boundary.result = { entries: [{ type: "custom_message", ...message, display: true }], continue: true };
			return true;
		},
		show(step, decision, input, turn) {
			// Without a list or a loop the extension had nothing to do with how the invocation ended.
			if (step.kind === "idle" && step.code === "no-todos") return;
			tell(ctx, decision.text, "info");
			setExitStatus(step, input);
			const data = endData(step, decision);
			if (turn.boundary)
				turn.boundary.result = { entries: [{ type: "custom", customType: COMPLETE_MESSAGE_TYPE, data }] };
			else quietly(() => pi.appendEntry(COMPLETE_MESSAGE_TYPE, data));
		},
		startRun,
		// Nobody can press a key in print and JSON modes.
		stopKey: () => new Promise(() => {}),
	};
}

/**
 * A `pi -p` of the user's whose settings were not understood (or whose plan file could not be loaded) runs nothing:
 * a script must never read success from work that did not run, nor from work other than what was typed. The lines
 * above this one say what was wrong and how to fix it.
 */
export function refuseRun(ctx: ExtensionContext): void {
	markRunRefused();
	tell(ctx, NOTICES.runRefused(REFUSED_EXIT_CODE), "error");
	exitRefused();
}

/** The invocation exits 2: what it was told did not run. Only the user's own session sets the process's status. */
export function exitRefused(): void {
	if (getRole() === "own") process.exitCode = REFUSED_EXIT_CODE;
}

/**
 * Why the invocation ended, as a session entry a script can read (an entry, not a message: print mode prints the
 * last message, which must stay the model's answer).
 */
function endData(step: EndStep, decision: Decision) {
	const level = step.kind === "stop" || (step.kind === "end-loop" && step.level === "warning") ? "warning" : "info";
	return { level, code: decision.code, text: decision.text, counters: decision.counters };
}

/** The stops that leave a list open whatever its items say: `pi -p` ends with {@link OPEN_ITEMS_EXIT_CODE}. */
const OPEN_STOPS: ReadonlySet<string> = new Set(["remote-down", "claims-malformed", "shared-unverified"]);

/**
 * What a script reads from `pi -p`'s exit status: 0 when the list is finished (and verified where it has a
 * verification), 3 when it is finished but unverified, 4 when items of its own are open (not those another pi holds).
 * A goal without a list gives 0 on the judge's met and 3 otherwise (paused too). A `/loop`, no list or a guest's
 * session leaves it alone, and pi's own failure (an error answer) sets its own status
 * after this.
 */
function setExitStatus(step: EndStep, { todos, doneCheck, modelChecks, judge, goal, workers }: StepInput): void {
	// A guest's exit status is pi's own: the parent reads the child's answer, not our verdict on its list.
	if (getRole() !== "own") return;
	// A goal without a list: 0 only on the judge's met. Paused, it ends with this invocation unmet (a start does not
	// resume a goal), and a script must not read it as met.
	const paused = step.kind === "idle" && step.code === "paused";
	if (goal && todos.length === 0 && (step.kind === "end-loop" || paused)) {
		process.exitCode = step.kind === "end-loop" && step.code === "goal-met" ? 0 : UNVERIFIED_EXIT_CODE;
		return;
	}
	if (step.kind === "end-loop" || todos.length === 0) return;
	// A remote that does not answer, or claim refs that hold no claim, leave open here the items this session would
	// have claimed: not finished, whoever holds them. A shared plan that failed its verdict stops every session alike.
	if (step.kind === "stop" && OPEN_STOPS.has(step.code)) {
		process.exitCode = OPEN_ITEMS_EXIT_CODE;
		return;
	}
	// An item another pi holds is its to finish and report: open here, it is not this session's failure.
	const held = new Set(workers?.claimed ?? []);
	if (hasIncomplete(todos.filter((_, index) => !held.has(index)))) {
		process.exitCode = OPEN_ITEMS_EXIT_CODE;
		return;
	}
	const itemChecks = modelChecks === true && todos.some((todo) => todo.check !== undefined);
	const verified = step.kind === "idle" && step.code === "all-done" && step.verified === true;
	const verifies = doneCheck !== undefined || itemChecks || judge === true || goal !== undefined;
	process.exitCode = !verifies || verified ? 0 : UNVERIFIED_EXIT_CODE;
}
