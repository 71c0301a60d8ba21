/**
 * Takes a checkpoint whenever the store's list starts or completes an item: one at a time, in order, recorded on the
 * branch as a `til-done-checkpoint` entry. Each problem (no work tree, the user's git operation under way, a failed
 * snapshot) is said once.
 */

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import type { TodoItem } from "../../core/model/types.ts";
import {
	type Checkpoint,
	checkpointRef,
	MAX_LEFT_OUT_NAMED,
	type Transition,
	transitions,
} from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { CHECKPOINT_TEXTS } from "../../core/texts/user/checkpoints.ts";
import { getTodos, getWorkers, subscribe, takeUnreported } from "../../state.ts";
import { quietly } from "../host/quietly.ts";
import { tell } from "../host/tell.ts";
import { snapshotBound } from "./bound.ts";
import { findRepo, gitBusy, type Repo, type SnapshotBound, takeCheckpoint } from "./git.ts";
import { queueCheckpoint } from "./queue.ts";

/** `bound` that also notes into `left` what the snapshot leaves out, which the checkpoint names. */
function keepingLeftOut(bound: SnapshotBound, left: string[]): SnapshotBound {
	return {
		...bound,
		leftOut: (files) => {
			left.push(...files.map((file) => file.path));
			bound.leftOut?.(files);
		},
		beyondTotal: (files) => {
			left.push(...files.map((file) => file.path));
			bound.beyondTotal?.(files);
		},
		emptyRepositories: (paths) => {
			left.push(...paths);
			bound.emptyRepositories?.(paths);
		},
	};
}

/** Says `text` as a warning, once per pi process. */
function warnOnce(ctx: ExtensionContext, text: string): void {
	for (const fresh of takeUnreported([text])) tell(ctx, fresh, "warning");
}

interface Session {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	sessionId: string;
	repo: Promise<Repo | undefined>;
	signal: AbortSignal;
	bound: SnapshotBound;
}

async function take(session: Session, transition: Transition): Promise<void> {
	const repo = await session.repo;
	if (!repo || session.signal.aborted) return;
	const busy = gitBusy(repo);
	if (busy !== undefined) return warnOnce(session.ctx, CHECKPOINT_TEXTS.busy(busy));
	const key = itemKey(transition.index, transition.text);
	const ref = checkpointRef(session.sessionId, key, transition.phase);
	const message = CHECKPOINT_TEXTS.commitMessage(transition.phase, transition.index);
	const left: string[] = [];
	const bound = keepingLeftOut(session.bound, left);
	const commit = await takeCheckpoint(repo, ref, message, { signal: session.signal, bound });
	if (session.signal.aborted) return;
	if (!commit) return warnOnce(session.ctx, CHECKPOINT_TEXTS.failed);
	const { index, text, phase } = transition;
	const leftOut = left.slice(0, MAX_LEFT_OUT_NAMED);
	const checkpoint: Checkpoint = {
		key,
		index,
		text,
		phase,
		commit,
		ref,
		at: Date.now(),
		...(leftOut.length > 0 ? { leftOut } : {}),
	};
	quietly(() => session.pi.appendEntry(CHECKPOINT_ENTRY_TYPE, checkpoint));
}

/**
 * The start of each item whose worker began landing since the last call (`seen`: the workers landing already, kept
 * up to date): taken before the landing writes a file, since the workers wait for the checkpoints before it lands.
 */
function landingStarts(seen: Set<string>): Transition[] {
	const workers = getWorkers();
	for (const key of seen) if (!workers.some((worker) => worker.key === key && worker.landing)) seen.delete(key);
	return workers.flatMap((worker): Transition[] => {
		const text = getTodos()[worker.index]?.text;
		if (!worker.landing || seen.has(worker.key) || text === undefined) return [];
		seen.add(worker.key);
		return [{ index: worker.index, text, phase: "start" }];
	});
}

/** A follower of the store for one session; `hold` runs a rebuild of the store that is no start or completion. */
export interface CheckpointFollower {
	hold(rebuild: () => void): void;
	stop(): void;
}

/** Starts taking checkpoints for the session of `ctx` (checkpoints on); says once when its folder is no work tree. */
export function followCheckpoints(pi: ExtensionAPI, ctx: ExtensionContext): CheckpointFollower {
	const abort = new AbortController();
	const repo = findRepo(ctx.cwd, abort.signal).then((found) => {
		if (!found && !abort.signal.aborted) warnOnce(ctx, CHECKPOINT_TEXTS.notGitTree(ctx.cwd));
		return found;
	});
	let sessionId = "session";
	quietly(() => {
		sessionId = ctx.sessionManager.getSessionId();
	});
	const session: Session = { pi, ctx, sessionId, repo, signal: abort.signal, bound: snapshotBound(ctx) };
	let before: readonly TodoItem[] = getTodos();
	let holding = false;
	const landing = new Set<string>();
	const unsubscribe = subscribe(() => {
		if (!holding) for (const change of landingStarts(landing)) queueCheckpoint(() => take(session, change));
		const after = getTodos();
		if (after === before) return;
		const held = new Set(getWorkers().map((worker) => worker.index));
		const changes = holding ? [] : transitions(before, after, held);
		before = after;
		for (const change of changes) queueCheckpoint(() => take(session, change));
	});
	return {
		hold(rebuild) {
			holding = true;
			try {
				rebuild();
			} finally {
				holding = false;
				before = getTodos();
			}
		},
		stop() {
			abort.abort();
			unsubscribe();
		},
	};
}
