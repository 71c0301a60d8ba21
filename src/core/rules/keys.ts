/** Every name this extension shows to pi: message and entry types, status-bar keys, widget ids. */

/** The hidden list sent before a prompt of the user while items remain. */
export const CONTEXT_MESSAGE_TYPE = "til-done-context";
/** A breaker's stop, a warning; sessions of the original design also hold completion messages of this type (✓). */
export const COMPLETE_MESSAGE_TYPE = "til-done-complete";
/** Each continuation prompt, rendered with ⏳. */
export const COUNTDOWN_MESSAGE_TYPE = "til-done-countdown";
/** Each `/loop` iteration, rendered with 🔁. */
export const LOOP_MESSAGE_TYPE = "til-done-loop";
/** A goal's first prompt and each one after a run the judge did not find it met, rendered with 🎯. */
export const GOAL_MESSAGE_TYPE = "til-done-goal";
/** The stale-list reminder added to one model call's messages; never stored, never shown. */
export const REMINDER_MESSAGE_TYPE = "til-done-reminder";

/** A custom session entry holding a list the user changed with `/todos`, replayed like a tool result. */
export const SNAPSHOT_ENTRY_TYPE = "til-done-snapshot";
/** A custom session entry holding the done-check the user set with `/todos check` (`{ command: string | null }`). */
export const DONE_CHECK_ENTRY_TYPE = "til-done-check";
/** A custom session entry holding one decision of the auto-continue (`Decision`), for `/todos why` after a reload. */
export const DECISION_ENTRY_TYPE = "til-done-decision";
/** A custom session entry holding the user's pause or resume (`{ paused: boolean, reason?: string }`). */
export const PAUSE_ENTRY_TYPE = "til-done-pause";
/**
 * A custom session entry a guest (a child agent) writes when it starts on a branch it inherited (`{ sessionId }`):
 * the list, decisions and pause before it are its parent's, and a rebuild never reads past it.
 */
export const GUEST_ENTRY_TYPE = "til-done-guest";
/**
 * A custom session entry holding a line that stays in the transcript (`{ level, text }`): a worker's start and end, how
 * a chain ended. An entry, not a message: the model never reads it.
 */
export const REPORT_ENTRY_TYPE = "til-done-report";
/**
 * A custom session entry holding a worker that ended (a `FinishedWorker`): a resumed session lists it in
 * `/todos workers` with its whole kept answer, where the transcript's line is short.
 */
export const WORKER_ENTRY_TYPE = "til-done-worker";
/** A custom session entry holding what a verification of the finished list found (`{ passed, failed, checks }`). */
export const VERDICT_ENTRY_TYPE = "til-done-verdict";

/** `📋 done/total` or `✓ Done (N items)`. */
export const STATUS_KEY = "til-done";
/** `[i] text` per item in progress. */
export const ACTIVE_STATUS_KEY = "til-done-active";
export const PAUSED_STATUS_KEY = "til-done-paused";
export const LOOP_STATUS_KEY = "til-done-loop";
/** The goal in progress. */
export const GOAL_STATUS_KEY = "til-done-goal";
/** The workers at work. */
export const WORKERS_STATUS_KEY = "til-done-workers";
/** A check running, or what the last verification of the finished list found. */
export const CHECK_STATUS_KEY = "til-done-check";
/** In a list with waits or subtasks: the next item ready to start, and how many open items wait. */
export const NEXT_STATUS_KEY = "til-done-next";
/** The item the auto-continue waits on for the user's review. */
export const REVIEW_STATUS_KEY = "til-done-review";
/** Why the chain stopped (a breaker, a budget, no item ready, the user's key), until the user acts. */
export const STOP_STATUS_KEY = "til-done-stop";

export const COUNTDOWN_WIDGET_ID = "til-done-countdown";
export const PANEL_WIDGET_ID = "til-done-panel";
/** An empty widget, while Esc may stop workers: pi gives a widget's factory its TUI, which knows what has the focus. */
export const ESCAPE_WATCH_WIDGET_ID = "til-done-escape-watch";

/** A custom session entry holding one per-item git checkpoint (`Checkpoint` of core/rules/checkpoint-rules.ts). */
export const CHECKPOINT_ENTRY_TYPE = "til-done-checkpoint";
/** Where the checkpoint commits are kept in the user's repository: `refs/til-done/<session-id>/<item-key>/<phase>`. */
export const CHECKPOINT_REF_ROOT = "refs/til-done/";
