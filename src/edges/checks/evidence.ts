/**
 * What the judge reads off the session and the work tree: the user's own requests, verbatim, and the evidence of the
 * work (each finished item's diff where checkpoints are on, else the last tool calls with their results). Read here,
 * bounded by core/rules/judge.ts.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { checkpointsOn, itemKey, itemWork } from "../../core/rules/checkpoint-rules.ts";
import type { Evidence } from "../../core/rules/judge.ts";
import { textOfContent } from "../../core/texts/sanitize.ts";
import type { TodoItem } from "../../types.ts";
import { checkpointsSettled } from "../git/queue.ts";

/** Characters of a tool call (its name and arguments) that name a piece of evidence. */
const CALL_CHARS = 300;

/** The message of a branch entry, when it is one. */
function messageOf(entry: unknown): Record<string, unknown> | undefined {
	const { type, message } = (entry ?? {}) as { type?: unknown; message?: unknown };
	return type === "message" && typeof message === "object" && message !== null
		? (message as Record<string, unknown>)
		: undefined;
}

/** The user's own prompts on the branch, oldest first, as typed (pi's and our custom messages are not the user's). */
export function userRequests(branch: readonly unknown[]): string[] {
	return branch.flatMap((entry) => {
		const message = messageOf(entry);
		return message?.role === "user" ? [textOfContent(message.content)] : [];
	});
}

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
		const what = `${message.isError === true ? "error of" : "result of"} ${call ?? String(message.toolName)}`;
		evidence.push({ what: what.slice(0, CALL_CHARS), text: textOfContent(message.content) });
	}
	return evidence;
}

/** Each completed item's diff from its start to its completion, where checkpoints took both; [] when none did. */
async function diffEvidence(ctx: ExtensionContext, branch: readonly unknown[], todos: readonly TodoItem[]) {
	await checkpointsSettled();
	const { findRepo, diffSnapshots } = await import("../git/git.ts");
	const repo = await findRepo(ctx.cwd);
	if (!repo) return [];
	const checkpoints = checkpointsOn(branch);
	const evidence: Evidence[] = [];
	for (const [index, todo] of todos.entries()) {
		if (todo.status !== "completed") continue;
		const work = itemWork(checkpoints, itemKey(index, todo.text));
		const diff = work && (await diffSnapshots(repo, work.start.commit, work.done.commit));
		if (diff !== undefined) evidence.push({ what: `diff of [${index}]`, text: diff });
	}
	return evidence;
}

/** The evidence the judge reads: the items' diffs where checkpoints are on and took them, else the tool calls. */
export async function gatherEvidence(
	ctx: ExtensionContext,
	branch: readonly unknown[],
	todos: readonly TodoItem[],
	checkpoints: boolean,
): Promise<Evidence[]> {
	const diffs = checkpoints ? await diffEvidence(ctx, branch, todos) : [];
	return diffs.length > 0 ? diffs : toolEvidence(branch);
}
