/**
 * The work tree as a chain started, so that the judge reads the work as the change of the files since then, never as
 * what a tool printed. Taken by the git edge's private snapshot (the person's index, HEAD, branches and stash
 * untouched) and kept under the session's chain ref, among its checkpoints' refs and pruned as they are; the next
 * chain's replaces it.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ChainStart } from "../../core/model/types.ts";
import { chainStartRef } from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_TEXTS } from "../../core/texts/user/checkpoints.ts";
import { quietly } from "../host/quietly.ts";
import { snapshotBound } from "./bound.ts";
import { diffSnapshots, findRepo, snapshotTree, takeCheckpoint } from "./git.ts";

/** Snapshots the work tree as a chain starts; or says why it could not. */
export async function snapshotChainStart(ctx: ExtensionContext): Promise<ChainStart> {
	const repo = await findRepo(ctx.cwd);
	if (!repo) return { unread: "not-git" };
	let sessionId = "session";
	quietly(() => {
		sessionId = ctx.sessionManager.getSessionId();
	});
	const bound = { bound: snapshotBound(ctx) };
	const commit = await takeCheckpoint(repo, chainStartRef(sessionId), CHECKPOINT_TEXTS.chainStartMessage, bound);
	return commit === undefined ? { unread: "failed" } : { commit };
}

/** The change of the work tree since `start`, as `git diff --stat --patch`; undefined when git cannot give it. */
export async function changeSince(ctx: ExtensionContext, start: { commit: string }): Promise<string | undefined> {
	const repo = await findRepo(ctx.cwd);
	const now = repo && (await snapshotTree(repo, { bound: snapshotBound(ctx) }));
	return repo && now !== undefined ? diffSnapshots(repo, start.commit, now) : undefined;
}
