/**
 * `/todos diff`, `/todos revert` and `/todos checkpoints`: what an item changed, putting it back, and the checkpoints
 * on the branch. The decisions are in core/rules/checkpoint-rules.ts, git in edges/git/git.ts.
 */

import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import {
	type Checkpoint,
	checkpointsOn,
	filesToRevert,
	itemWork,
	leftOutAtStart,
	parseNameStatus,
} from "../../core/rules/checkpoint-rules.ts";
import { type Parsed, parseOneIndex, parseOptionalWord } from "../../core/rules/todo-args.ts";
import { CHECKPOINT_TEXTS, diffAsData } from "../../core/texts/user/checkpoints.ts";
import { getTodos } from "../../state.ts";
import { snapshotBound } from "../git/bound.ts";
import {
	changedFiles,
	cleanCheckpointRefs,
	diffSnapshots,
	findRepo,
	gitBusy,
	type Repo,
	restoreFiles,
	snapshotTree,
} from "../git/git.ts";
import { checkpointsSettled } from "../git/queue.ts";
import { ownEntries } from "../host/own-branch.ts";
import { tell } from "../host/tell.ts";

/** What a checkpoint subcommand needs: the context, its arguments, and how to refuse (its arguments, with the usage). */
export interface CheckpointCall {
	ctx: ExtensionCommandContext;
	rest: string;
	refuseArgs(why: string): void;
	refuse(text: string): void;
}

/** An item's work and its repository, or undefined once the user has been told why there is none. */
interface Work {
	index: number;
	text: string;
	start: Checkpoint;
	done: Checkpoint;
	repo: Repo;
}

/** The start and completion checkpoints of the item `rest` names, once every checkpoint asked for is taken. */
async function workOf(call: CheckpointCall): Promise<Work | undefined> {
	const parsed: Parsed<number> = parseOneIndex(call.rest, getTodos().length);
	if ("error" in parsed) return void call.refuseArgs(parsed.error);
	await checkpointsSettled();
	const index = parsed.value;
	const text = getTodos()[index]?.text ?? "";
	const work = itemWork(checkpointsOn(ownEntries(call.ctx)), itemKey(index, text));
	if (!work) return void call.refuse(CHECKPOINT_TEXTS.noWork(index));
	const repo = await findRepo(call.ctx.cwd);
	if (!repo) return void call.refuse(CHECKPOINT_TEXTS.noRepo(call.ctx.cwd));
	return { index, text, ...work, repo };
}

/** `/todos diff <i>`: `git diff --stat --patch` from the item's start to its completion, shown as data. */
export async function showDiff(call: CheckpointCall): Promise<void> {
	const work = await workOf(call);
	if (!work) return;
	const diff = await diffSnapshots(work.repo, work.start.commit, work.done.commit);
	if (diff === undefined) return call.refuse(CHECKPOINT_TEXTS.gone(work.index));
	if (diff.trim() === "") return tell(call.ctx, CHECKPOINT_TEXTS.noChanges(work.index, work.text));
	const head = CHECKPOINT_TEXTS.diffHead(work.index, work.text, work.start.commit, work.done.commit);
	tell(call.ctx, `${head}\n${diffAsData(diff, work.start.commit, work.done.commit)}`);
}

/**
 * `/todos revert <i>`: the files the item changed go back to their state before it (created ones are removed),
 * unless any of them changed since it was completed: then nothing changes and those files are named.
 */
export async function revertItem(call: CheckpointCall): Promise<void> {
	const work = await workOf(call);
	if (!work) return;
	const { repo, index } = work;
	const listed = await changedFiles(repo, work.start.commit, work.done.commit);
	if (listed === undefined) return call.refuse(CHECKPOINT_TEXTS.gone(index));
	const changes = parseNameStatus(listed);
	if (changes.length === 0) return tell(call.ctx, CHECKPOINT_TEXTS.noChanges(index, work.text));
	const busy = gitBusy(repo);
	if (busy !== undefined) return call.refuse(CHECKPOINT_TEXTS.busy(busy));
	const now = await snapshotTree(repo, { bound: snapshotBound(call.ctx) });
	const paths = changes.map((change) => change.path);
	const since = now === undefined ? undefined : await changedFiles(repo, work.done.commit, now, paths);
	if (since === undefined) return call.refuse(CHECKPOINT_TEXTS.revertFailed(index));
	const touched = parseNameStatus(since).map((change) => change.path);
	if (touched.length > 0) return call.refuse(CHECKPOINT_TEXTS.revertRefused(index, touched));
	const { restore, remove } = filesToRevert(changes);
	const unknown = leftOutAtStart(work.start, remove);
	if (unknown.length > 0) return call.refuse(CHECKPOINT_TEXTS.revertLeftOut(index, unknown));
	const restored = await restoreFiles(repo, work.start.commit, restore, remove);
	if (!restored) return call.refuse(CHECKPOINT_TEXTS.revertFailed(index));
	tell(call.ctx, CHECKPOINT_TEXTS.reverted(index, restore, remove));
}

/** `/todos checkpoints [clean]`: the checkpoints on the branch, or every checkpoint ref deleted. */
export async function showCheckpoints(call: CheckpointCall): Promise<void> {
	const parsed = parseOptionalWord(call.rest, ["clean"] as const);
	if ("error" in parsed) return call.refuseArgs(parsed.error);
	await checkpointsSettled();
	if (parsed.value === undefined) {
		const checkpoints = checkpointsOn(ownEntries(call.ctx));
		return tell(call.ctx, checkpoints.length === 0 ? CHECKPOINT_TEXTS.none : CHECKPOINT_TEXTS.list(checkpoints));
	}
	const repo = await findRepo(call.ctx.cwd);
	if (!repo) return call.refuse(CHECKPOINT_TEXTS.noRepo(call.ctx.cwd));
	const count = await cleanCheckpointRefs(repo);
	if (count === undefined) return call.refuse(CHECKPOINT_TEXTS.cleanFailed);
	tell(call.ctx, CHECKPOINT_TEXTS.cleaned(count));
}
