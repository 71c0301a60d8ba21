/** The store as a unit test needs it: emptied, and painted into a fake context the way a session paints it. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { FinishedWorker } from "../../src/core/model/types.ts";
import type { Decision } from "../../src/core/rules/decision.ts";
import { createPainter } from "../../src/edges/host/painter.ts";
import { PARENT_MARKER } from "../../src/edges/host/role.ts";
import {
	getChain,
	getDecisions,
	getLoop,
	getState,
	inSession,
	recordSend,
	removeWorker,
	resetState,
	sessionOf,
	subscribe,
} from "../../src/state.ts";

/** Empties the store; with `ctx`, every later change is painted into its UI, as a session's painter does. */
export function freshStore(ctx?: ExtensionContext): void {
	resetState();
	if (ctx) subscribe(createPainter(ctx, () => ({ ...getState(), toVerify: false })));
}

/** What sending a continuation stores: one more continuation, and no progress yet since it. */
export function sendContinuation(): void {
	const chain = getChain();
	recordSend({ chain: { ...chain, continuations: chain.continuations + 1, progressed: false }, loop: getLoop() });
}

/**
 * The auto-continue's last decision, by its kind and code (undefined before its first). Only a live engine decides:
 * a test that proves "nothing happens" asserts this too, so that it fails against an engine that does nothing.
 */
export function lastDecision(
	decisions: readonly Decision[] = getDecisions(),
): Pick<Decision, "kind" | "code"> | undefined {
	const last = decisions.at(-1);
	return last && { kind: last.kind, code: last.code };
}

/** `read`, in the session of the extension instance the factory was given `api` for: that instance's part of the store. */
export function inInstance<T>(api: object, read: () => T): T {
	return inSession(sessionOf(api), read);
}

/**
 * Forgets which session holds the process, and the marker it set: the next session to start is the user's own, as in
 * a fresh pi (test files share a worker process, and a session another file started may still hold it).
 */
export function freshProcess(): void {
	delete (globalThis as Record<symbol, unknown>)[Symbol.for("pi-til-done.process-ownership")];
	delete process.env[PARENT_MARKER];
}

/** A worker that ended, as the session records it: the chain lists it in `/todos workers`. */
export function endedWorker(worker: FinishedWorker): void {
	removeWorker(`ended-${worker.index}`, worker);
}
