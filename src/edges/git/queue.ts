/**
 * The checkpoints still being taken in this process, and its landings in the work tree, each one at a time: the
 * sessions of one process share its work tree.
 * Small and loaded at start-up, so the end of a run, a tool call and the commands can wait for checkpoints without
 * loading the git edge when checkpoints are off.
 */

let pending: Promise<void> = Promise.resolve();

/** Resolves once every checkpoint asked for so far is taken (or given up). */
export function checkpointsSettled(): Promise<void> {
	return pending;
}

/** Takes a checkpoint after every one asked for before it; its failure is its own (the recorder says it). */
export function queueCheckpoint(take: () => Promise<void>): void {
	pending = pending.then(take).catch(() => {});
}

/** The landings of this process, one at a time: an item's checkpoints around its landing hold its work alone. */
let landings: Promise<unknown> = Promise.resolve();

/** Runs `landing` after every landing asked for before it (whatever became of them); its own result. */
export function landOneAtATime<T>(landing: () => Promise<T>): Promise<T> {
	const done = landings.then(landing);
	landings = done.catch(() => {});
	return done;
}
