/**
 * The session's side of its workers, which every session loads: how many may work at once and how many that ended a
 * chain remembers, which ready items go to workers now, which items a worker had, whether one left, what an Esc stops,
 * and a stop's tally. Pure.
 */

import { workableItems } from "../list/ready.ts";
import type { StopTally, TodoItem, WorkerEnd, WorkerWork } from "../model/types.ts";

/** The most workers at once. */
export const MAX_WORKERS = 16;

/**
 * The fewest workers of a session sharing its plan through a remote: only a worker's work lands on the plan's branch
 * as one commit with its claim, so the session's own model never works an item there (unclaimed, another machine
 * would do it too). Elsewhere none: the session's model works the list.
 */
export function leastWorkers(sharedThroughRemote: boolean): number {
	return sharedThroughRemote ? 1 : 0;
}

/** The most workers that ended a chain remembers (its last ones), each with its last answer. */
export const MAX_ENDED_WORKERS = 100;

/**
 * The items to hand to workers now, in list order: workable (open, every wait completed, not a parent with open
 * subtasks), not a review item (the user closes those), not claimed by a worker already; at most `free` of them.
 */
export function itemsForWorkers(todos: readonly TodoItem[], claimed: ReadonlySet<number>, free: number): number[] {
	if (free <= 0) return [];
	return workableItems(todos)
		.filter((index) => !claimed.has(index) && todos[index]?.review !== true)
		.slice(0, free);
}

/** The items a worker worked on in this chain, at work or ended, in order. */
export function itemsWorkedOn(atWork: readonly { index: number }[], ended: readonly { index: number }[]): number[] {
	return [...new Set([...atWork, ...ended].map((worker) => worker.index))].sort((a, b) => a - b);
}

/**
 * Whether a worker left between two states of those at work: it ended, or another process won its item's claim. Either
 * way its place is free for the next ready item; each such wake tries an item not tried before (one held elsewhere is
 * not handed out again until the claims are tried anew), so it never spins.
 */
export function workerLeftBetween(before: readonly { key: string }[], after: readonly { key: string }[]): boolean {
	const still = new Set(after.map((worker) => worker.key));
	return before.some((worker) => !still.has(worker.key));
}

/** What a stop of the user's did, worker by worker, counted by what became of each one's work. */
export function stopTally(ends: readonly WorkerEnd[]): StopTally {
	const count = (work: WorkerWork) => ends.filter((end) => end.work === work).length;
	const landed = count("landed");
	return { givenBack: ends.length - landed, kept: count("kept"), notKept: count("not-kept"), landed };
}

/**
 * What the screen shows when Esc is pressed, as far as pi lets an extension see it: the editor's text, and, where pi
 * gives the TUI, whether the editor has the keyboard's focus and shows its completion popup.
 */
export interface EscapeScene {
	editorText: string;
	/** `unknown`: pi gave no TUI to ask. */
	focus: "editor" | "other" | "unknown";
	popup: boolean;
}

/**
 * Whether Esc stops the workers: only when nothing else on screen takes it. pi's editor, empty and without its popup,
 * does nothing with a single Esc while pi is idle (the workers' wait comes after a run), so taking it there takes
 * nothing from the user. A popup (`/`, `@`, Tab), a dialog, a selector or the `/todos` view (the focus elsewhere) and
 * text being typed are pi's or another component's, and keep their Esc.
 */
export function escapeStopsWorkers(scene: EscapeScene): boolean {
	return scene.focus !== "other" && !scene.popup && scene.editorText.trim() === "";
}
