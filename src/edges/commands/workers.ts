/**
 * `/todos workers`: the workers at work and those that ended, what one last answered, or how many may work at once in
 * this session (loaded on first use).
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { leastWorkers } from "../../core/rules/worker-dispatch.ts";
import { lastWorkerOf, tokensSoFar } from "../../core/rules/workers.ts";
import { type LeftoverCounts, WORKER_TEXTS } from "../../core/texts/user/workers.ts";
import { allowWorkers, getEndedWorkers, getTodos, getWorkers } from "../../state.ts";
import { findRepo } from "../git/git.ts";
import { tell } from "../host/tell.ts";
import { findLeftovers, type Leftovers, putBackLines, removeLeftovers } from "../workers/leftovers.ts";

/**
 * `/todos workers` alone: the setting in force, each worker at work with its item, time, tokens (its model call in
 * progress too, as it streams) and tree, those that ended in this chain, then what earlier runs left in the
 * repository and TMPDIR, if anything.
 */
export async function showWorkers(ctx: ExtensionContext, allowed: number, now = Date.now()): Promise<void> {
	const lines = getWorkers().map((worker) =>
		WORKER_TEXTS.line(
			worker.index,
			getTodos()[worker.index]?.text ?? "",
			Math.round((now - worker.startedAt) / 1000),
			tokensSoFar(worker),
			worker.dir,
		),
	);
	const repo = await findRepo(ctx.cwd);
	const found = repo && (await findLeftovers(repo));
	const left = found && WORKER_TEXTS.leftovers(countsOf(found), found.kept);
	const cut = found && found.landings.length > 0 ? [WORKER_TEXTS.cutLandings(found.landings)] : [];
	const ended = getEndedWorkers().map(WORKER_TEXTS.ended);
	const shown = WORKER_TEXTS.list(allowed, lines, ended);
	tell(ctx, [shown, ...(left ? [left] : []), ...cut].join("\n"));
}

/**
 * `/todos workers [<i>]`: the last worker of item `index` (the one at work on it, else the last that ended; the
 * command's parser took only an item one had), and its last answer whole.
 */
export function showWorkerAnswer(ctx: ExtensionContext, index: number, now = Date.now()): void {
	const last = lastWorkerOf(index, getWorkers(), getEndedWorkers());
	if (last === undefined) return;
	if ("ended" in last) {
		tell(ctx, WORKER_TEXTS.answerOfEnded(last.ended));
		return;
	}
	const { startedAt, answer } = last.atWork;
	const seconds = Math.round((now - startedAt) / 1000);
	const tokens = tokensSoFar(last.atWork);
	tell(ctx, WORKER_TEXTS.answerOfLive({ index, text: getTodos()[index]?.text ?? "", seconds, tokens, answer }));
}

/** How many of each thing a finding of leftovers holds. */
function countsOf(left: Leftovers): LeftoverCounts {
	return {
		folders: left.folders.length + left.aside.length,
		bases: left.bases.length,
		kept: left.kept.length,
	};
}

/**
 * `/todos workers clean`: removes what earlier runs left, the work of items given back with it; outside a git work
 * tree, the refusal says so. True when it cleaned.
 */
export async function cleanWorkers(ctx: ExtensionContext, refuse: (why: string) => void): Promise<boolean> {
	const repo = await findRepo(ctx.cwd);
	if (!repo) {
		refuse(WORKER_TEXTS.noRepoRefused);
		return false;
	}
	const removed = await removeLeftovers(repo, { kept: true });
	const counts = countsOf(removed);
	const putBack = putBackLines(removed);
	// "Nothing was left" is not said where a landing cut short was put back or its backups kept.
	const cleaned = Object.values(counts).some((count) => count > 0) || putBack.length === 0;
	tell(ctx, [...(cleaned ? [WORKER_TEXTS.cleaned(counts)] : []), ...putBack].join("\n"));
	return true;
}

/**
 * `/todos workers <n>|off`: how many may work at once in this session. Workers need a git work tree, and a plan shared
 * through a remote (`asked.remote`) needs at least one: otherwise the refusal says so and nothing changes (`refuse`).
 * True when the count was taken.
 */
export async function setWorkers(
	ctx: ExtensionContext,
	asked: { count: number; remote: string | undefined },
	refuse: (why: string) => void,
): Promise<boolean> {
	const { count, remote } = asked;
	if (remote !== undefined && count < leastWorkers(true)) {
		refuse(WORKER_TEXTS.sharedNeedsOne(remote));
		return false;
	}
	if (count > 0 && !(await findRepo(ctx.cwd))) {
		refuse(WORKER_TEXTS.noRepoRefused);
		return false;
	}
	allowWorkers(count);
	tell(ctx, WORKER_TEXTS.set(count));
	return true;
}
