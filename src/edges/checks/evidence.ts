/**
 * What the judge reads off the session and the work tree beside the user's own requests (core/rules/branch.ts reads
 * those): the change of the work tree (each finished item's diff where checkpoints took it, else the work tree's since
 * the chain started), which is the work; and the tool calls with their results, which are context. Read here, bounded
 * by core/rules/judge.ts.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import type { TodoItem } from "../../core/model/types.ts";
import { messageOf } from "../../core/rules/branch.ts";
import { checkpointsOn, itemWork } from "../../core/rules/checkpoint-rules.ts";
import type { Evidence } from "../../core/rules/judge.ts";
import { JUDGE_PROMPT } from "../../core/texts/model.ts";
import { textOfContent } from "../../core/texts/sanitize.ts";
import { getChainStart } from "../../state.ts";
import { checkpointsSettled } from "../git/queue.ts";

/** Characters of a tool call (its name and arguments) that name a piece of evidence. */
const CALL_CHARS = 300;

/** Every tool call on the branch with its result, oldest first: what the agent did and what it got back. */
export function toolEvidence(branch: readonly unknown[]): Evidence[] {
	const calls = new Map<string, string>();
	const evidence: Evidence[] = [];
	for (const entry of branch) {
		const message = messageOf(entry);
		if (message?.role === "assistant" && Array.isArray(message.content)) {
			for (const block of message.content as { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown }[]) {
				if (block?.type !== "toolCall" || typeof block.id !== "string") continue;
				calls.set(block.id, `${String(block.name)} ${JSON.stringify(block.arguments ?? {})}`);
			}
		}
		if (message?.role !== "toolResult") continue;
		const call = typeof message.toolCallId === "string" ? calls.get(message.toolCallId) : undefined;
		const what = JUDGE_PROMPT.evidence.call(call ?? String(message.toolName), message.isError === true);
		evidence.push({ what: what.slice(0, CALL_CHARS), text: textOfContent(message.content) });
	}
	return evidence;
}

/** A diff as the judge reads it: an empty one says that no file changed. */
const diffPiece = (what: string, diff: string): Evidence => ({
	what,
	text: diff.trim() === "" ? JUDGE_PROMPT.evidence.noChange : diff,
});

/**
 * Each completed item's diff from its start to its completion, where checkpoints took both, and how many completed
 * items have none.
 */
async function itemChanges(ctx: ExtensionContext, branch: readonly unknown[], todos: readonly TodoItem[]) {
	await checkpointsSettled();
	const { findRepo, diffSnapshots } = await import("../git/git.ts");
	const repo = await findRepo(ctx.cwd);
	const checkpoints = checkpointsOn(branch);
	const diffs: Evidence[] = [];
	let without = 0;
	for (const [index, todo] of todos.entries()) {
		if (todo.status !== "completed") continue;
		const work = itemWork(checkpoints, itemKey(index, todo.text));
		const diff = repo && work && (await diffSnapshots(repo, work.start.commit, work.done.commit));
		if (diff === undefined) without++;
		else diffs.push(diffPiece(JUDGE_PROMPT.evidence.itemChange(index), diff));
	}
	return { diffs, without };
}

/** Why no snapshot was taken as the chain started, as the judge reads it. */
const UNREAD_START = { "not-git": JUDGE_PROMPT.evidence.notGit, failed: JUDGE_PROMPT.evidence.unreadable } as const;

/** The work tree's change since the chain started, or why it cannot be read (git is asked only when it can be). */
async function treeChange(ctx: ExtensionContext): Promise<Evidence> {
	const what = JUDGE_PROMPT.evidence.treeChange;
	const start = getChainStart();
	if (start === undefined) return { what, text: JUDGE_PROMPT.evidence.noStart };
	if ("unread" in start) return { what, text: UNREAD_START[start.unread] };
	const { changeSince } = await import("../git/chain-start.ts");
	const diff = await changeSince(ctx, start);
	return diff === undefined ? { what, text: JUDGE_PROMPT.evidence.unreadable } : diffPiece(what, diff);
}

/**
 * What the judge reads of the work, whatever `--til-done-checkpoints` says: the work tree's change (each completed
 * item's diff where checkpoints took it; the work tree's since the chain started where any item has none, or no item
 * is completed, as for a goal), then every tool call with its result as context.
 */
export async function gatherEvidence(
	ctx: ExtensionContext,
	branch: readonly unknown[],
	todos: readonly TodoItem[],
	checkpoints: boolean,
): Promise<{ changes: Evidence[]; calls: Evidence[] }> {
	const items = checkpoints ? await itemChanges(ctx, branch, todos) : undefined;
	const covered = items !== undefined && items.without === 0 && items.diffs.length > 0;
	const changes = covered ? items.diffs : [...(items?.diffs ?? []), await treeChange(ctx)];
	return { changes, calls: toolEvidence(branch) };
}
