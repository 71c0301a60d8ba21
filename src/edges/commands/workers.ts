/** `/todos workers`: the workers at work, or how many may work at once in this session (loaded on first use). */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { WORKER_TEXTS } from "../../core/texts/user.ts";
import { allowWorkers, getTodos, getWorkers, workersAllowed } from "../../state.ts";
import { findRepo } from "../git/git.ts";
import { tell } from "../host/tell.ts";

/** `/todos workers` alone: the setting in force, then each worker at work with its item, time, tokens and tree. */
export function showWorkers(ctx: ExtensionContext, configured: number, now = Date.now()): void {
	const lines = getWorkers().map((worker) =>
		WORKER_TEXTS.line(
			worker.index,
			getTodos()[worker.index]?.text ?? "",
			Math.round((now - worker.startedAt) / 1000),
			worker.tokens,
			worker.dir,
		),
	);
	tell(ctx, WORKER_TEXTS.list(workersAllowed(configured), lines));
}

/**
 * `/todos workers <n>|off`: how many may work at once in this session. Workers need a git work tree: elsewhere the
 * refusal says so and nothing changes (`refuse`). True when the count was taken.
 */
export async function setWorkers(
	ctx: ExtensionContext,
	count: number,
	refuse: (why: string) => void,
): Promise<boolean> {
	if (count > 0 && !(await findRepo(ctx.cwd))) {
		refuse(WORKER_TEXTS.noRepoRefused);
		return false;
	}
	allowWorkers(count);
	tell(ctx, WORKER_TEXTS.set(count));
	return true;
}
