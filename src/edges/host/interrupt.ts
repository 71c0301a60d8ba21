/**
 * An interrupt (SIGINT: Ctrl+C of `pi -p`) held while a piece of work lets go of what it holds elsewhere (a claim on a
 * remote): the first one stops the work, and is raised again once the work has ended, so the process ends by it as it
 * would have. A second one, while the first is held, ends the process at once.
 */

import { removeInUse } from "./owner.ts";

/**
 * Holds SIGINT until the returned function is called: `stop` is called at the first, which is then raised again, what
 * the process made on disk removed first (an end by a signal runs no exit listener). The returned promise resolves
 * one full turn of the event loop later, when the signal has been read: what follows never runs before pi ends by it.
 */
export function holdInterrupt(stop: () => void): () => Promise<void> {
	let caught = false;
	const onInterrupt = () => {
		caught = true;
		stop();
	};
	process.once("SIGINT", onInterrupt);
	return async () => {
		process.off("SIGINT", onInterrupt);
		if (!caught) return;
		removeInUse();
		process.kill(process.pid, "SIGINT");
		await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
	};
}
