/**
 * A pi extension for tests of a long session: `/churn` allocates in pi's own process until V8 has run
 * {@link FULL_COLLECTIONS} full garbage collections, as hours of a session would, then says so. V8 drops the compiled
 * code of a function that has not run through six of them, so what only a start ran is gone from the process after.
 */

import { constants, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** This file, to load with `-e`. */
export const LONG_SESSION_EXTENSION = fileURLToPath(import.meta.url);

/** More than V8's age at which it drops a function's compiled code (`--bytecode-old-age`, 6 on Node 22). */
export const FULL_COLLECTIONS = 8;
/** What `/churn` says once the collections have run. */
export const CHURNED = `churned through ${FULL_COLLECTIONS} full collections`;

/** Objects allocated per turn of the event loop, kept for a few turns so they reach the old generation. */
const OBJECTS_PER_TURN = 100_000;
const TURNS_KEPT = 4;

/** Resolves once V8 has run `count` full collections, allocating between turns of the event loop until then. */
function churn(count: number): Promise<void> {
	return new Promise((resolve) => {
		let full = 0;
		const kept: object[][] = [];
		const observer = new PerformanceObserver((list) => {
			for (const entry of list.getEntries()) {
				if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
			}
		});
		observer.observe({ entryTypes: ["gc"] });
		const turn = () => {
			if (full >= count) {
				observer.disconnect();
				kept.length = 0;
				resolve();
				return;
			}
			kept.push(Array.from({ length: OBJECTS_PER_TURN }, (_, index) => ({ index, text: `item ${index}` })));
			if (kept.length > TURNS_KEPT) kept.shift();
			setImmediate(turn);
		};
		turn();
	});
}

export default function longSession(pi: ExtensionAPI): void {
	pi.registerCommand("churn", {
		description: "Allocate until V8 has run several full collections",
		handler: async (_args, ctx) => {
			await churn(FULL_COLLECTIONS);
			ctx.ui.notify(CHURNED, "info");
		},
	});
}
