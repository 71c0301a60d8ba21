/**
 * A lock between the pi processes of one machine, for a short synchronous section (a read, a decision and a write of
 * a file the user shares between sessions): a lock file made only where there is none. A lock older than
 * {@link LOCK_STALE_MS} is one a killed pi left, and is taken over; one held longer than {@link LOCK_WAIT_MS} (or that
 * cannot be made: a folder we cannot write) is gone without, as before there was one.
 */

import { closeSync, openSync, rmSync, statSync } from "node:fs";

/** How long a lock may stand before it is taken for one a killed pi left. */
export const LOCK_STALE_MS = 5_000;
/** How long a section waits for another process's section to end before it goes on without the lock. */
export const LOCK_WAIT_MS = 1_000;

/** The locks this process holds: a section run inside another on the same lock runs at once. */
const held = new Set<string>();

/** Runs `section` while no other process of this machine runs one under the lock file `lock`. */
export function underLock<T>(lock: string, section: () => T): T {
	if (held.has(lock)) return section();
	const taken = takeLock(lock);
	if (taken) held.add(lock);
	try {
		return section();
	} finally {
		if (taken) {
			held.delete(lock);
			rmSync(lock, { force: true });
		}
	}
}

function takeLock(lock: string): boolean {
	const until = Date.now() + LOCK_WAIT_MS;
	const pause = new Int32Array(new SharedArrayBuffer(4));
	for (;;) {
		try {
			closeSync(openSync(lock, "wx"));
			return true;
		} catch (error) {
			if ((error as { code?: unknown }).code !== "EEXIST") return false;
		}
		if (ageMs(lock) > LOCK_STALE_MS) rmSync(lock, { force: true });
		else if (Date.now() > until) return false;
		// The other process holds it for a few synchronous file operations: milliseconds.
		else Atomics.wait(pause, 0, 0, 2);
	}
}

function ageMs(lock: string): number {
	try {
		return Date.now() - statSync(lock).mtimeMs;
	} catch {
		return 0;
	}
}
