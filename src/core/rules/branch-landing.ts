/**
 * Landing an item's work on the plan's branch, the rules: how often a push refused because the tip moved is merged
 * again, which lease a refused push broke (read off `git push --porcelain`), the conflicted files `git merge-tree`
 * names, and the plan file's line for the item checked in the same commit. The edge (edges/team/branch-landing.ts)
 * carries them out.
 */

import type { TodoItem } from "../model/types.ts";
import { parsePlanMarkdown, planToMarkdown, preambleOf } from "./plan-file.ts";

/** Pushes of one landing refused because the branch's tip moved before it gives up: others land meanwhile, boundedly. */
export const MAX_LANDING_TRIES = 5;

/**
 * Why an atomic push of the landing (the branch to its new commit, the claim deleted) was refused: the claim is no
 * longer the one held (taken over: nothing of ours may land), the tip moved (merge again), or the remote refused it
 * for a reason of its own (a hook, a protected branch). git checks the leases in ref order and stops at the first that
 * fails, marking the others "atomic push failed": a claim lost while the tip also moved shows as the tip alone, and is
 * found when the refs are read again before the next try. Two pushes at the same instant both pass git's own check of
 * the leases; the remote then takes one and refuses the other's whole transaction ("atomic transaction failed"), a
 * race read again and retried like a moved tip.
 */
export type Refusal = "claim-lost" | "tip-moved" | "raced" | "rejected";

/** A porcelain line of a ref git refused: `!`, then `<src>:<dst>`, then why in brackets. */
const REFUSED = /^!\t[^\t]*:([^\t]+)\t\[rejected\] \(stale info\)$/;

/** The refs whose lease did not hold in a push's `--porcelain` output. */
export function staleRefs(porcelain: string): string[] {
	return porcelain.split("\n").flatMap((line) => {
		const ref = REFUSED.exec(line)?.[1];
		return ref === undefined ? [] : [ref];
	});
}

/** The remote's refusal of a whole atomic push because one of its refs moved while the push was taken. */
const RACED = /^!\t[^\t]*:[^\t]+\t\[remote rejected\] \(atomic transaction failed\)$/m;

/** Why the landing's push was refused, from its porcelain lines, the branch's ref and the claim's. */
export function refusalOf(porcelain: string, branchRef: string, claimRef: string): Refusal {
	const stale = staleRefs(porcelain);
	if (stale.includes(claimRef)) return "claim-lost";
	if (stale.includes(branchRef)) return "tip-moved";
	return RACED.test(porcelain) ? "raced" : "rejected";
}

/** What `git merge-tree --write-tree --name-only --no-messages -z` said: the merged tree, and the files that conflict. */
export interface MergedTree {
	tree: string;
	conflicts: string[];
}

/** `merge-tree`'s output read: the tree's name first, then each conflicted file once (NUL-separated). */
export function readMergeTree(output: string): MergedTree | undefined {
	const [tree, ...files] = output.split("\0");
	if (tree === undefined || !/^[0-9a-f]{40,64}$/.test(tree)) return undefined;
	return { tree, conflicts: [...new Set(files.filter((file) => file !== ""))] };
}

/**
 * The plan file's text with item `index` checked, or why it cannot be: the file is no plan, or its item `index` is not
 * the item landed (the plan changed under it: the landing's conflict), or that item is checked already (another
 * session landed it first: this work never lands too).
 */
export type MarkedPlan = { ok: true; text: string } | { ok: false; why: "not-the-item" | "already-done" };

/** The plan file `planText` with item `index` completed, written back with its own preamble; or why it cannot be. */
export function markItemDone(planText: string, index: number, itemText: string): MarkedPlan {
	const parsed = parsePlanMarkdown(planText);
	if (!parsed.ok) return { ok: false, why: "not-the-item" };
	const item = parsed.todos[index];
	if (item?.text !== itemText) return { ok: false, why: "not-the-item" };
	if (item.status === "completed") return { ok: false, why: "already-done" };
	const todos: TodoItem[] = parsed.todos.map((todo, at) => (at === index ? { ...todo, status: "completed" } : todo));
	return { ok: true, text: planToMarkdown(todos, preambleOf(planText)) };
}

/** Whether the plan file `planText` holds item `index` as `itemText`, checked: it landed. */
export function isItemDone(planText: string, index: number, itemText: string): boolean {
	const marked = markItemDone(planText, index, itemText);
	return !marked.ok && marked.why === "already-done";
}

/** What stands in the way of joining, in the plan file the branch holds: no plan, or an item other than this clone's. */
export type BranchPlanProblem = { kind: "not-a-plan" } | { kind: "differs"; index: number };

/**
 * Whether the plan file as the branch holds it (`branchText`) can take this clone's items: a file that is no plan, or
 * one whose item at some index is not this clone's there (`localText`, when it is a plan), would refuse every landing.
 */
export function branchPlanProblem(branchText: string, localText: string | undefined): BranchPlanProblem | undefined {
	const branch = parsePlanMarkdown(branchText);
	if (!branch.ok) return { kind: "not-a-plan" };
	const local = localText === undefined ? undefined : parsePlanMarkdown(localText);
	if (local === undefined || !local.ok) return undefined;
	const index = local.todos.findIndex((todo, at) => at < branch.todos.length && branch.todos[at]?.text !== todo.text);
	return index < 0 ? undefined : { kind: "differs", index };
}
