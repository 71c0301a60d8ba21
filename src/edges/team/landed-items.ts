/**
 * What other sessions landed of a shared plan, as this session takes it: an item whose line the branch's plan file
 * has checked is completed in the list, and its landed commit's change taken into the person's work tree as a worker's
 * landing is (edges/team/item-landing.ts `receiveLanded`); said when the tree cannot take it.
 */

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import { isItemDone } from "../../core/rules/branch-landing.ts";
import { stillHolds } from "../../core/rules/workers.ts";
import { WORKER_TEXTS, workerWhy } from "../../core/texts/user/workers.ts";
import { forgetClaimedElsewhere, getTodos, updateTodoStatus } from "../../state.ts";
import { runGit } from "../git/git.ts";
import { landOneAtATime } from "../git/queue.ts";
import { storeList } from "../host/commit.ts";
import { quietly } from "../host/quietly.ts";
import { tellLasting } from "../host/tell.ts";
import { planAtTip, type SharedTeam } from "./branch-landing.ts";
import { receiveLanded } from "./item-landing.ts";

/** A session of a shared plan: where it tells and stores, its team, and its plan file relative to the repository's top. */
export interface TeamSession {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	team: SharedTeam;
	/** Undefined: the plan has no file, and nothing on the branch says which items landed. */
	planPath: string | undefined;
}

/** An item where the list holds it: its index, text and key. */
export type ItemAt = { index: number; text: string; key: string };

/** Item `index` (still `text` there) completed in the list: another session landed it. */
export function completeHere(pi: ExtensionAPI, index: number, text: string): void {
	if (!stillHolds(getTodos(), { index, text })) return;
	updateTodoStatus([index], "completed");
	quietly(() => storeList(pi));
}

/** Whether the list holds the item where it was, completed. */
export function isCompleted(item: ItemAt): boolean {
	const now = getTodos()[item.index];
	return now?.text === item.text && now.status === "completed";
}

/** Whether the branch has the item landed, read now (completed here then, its work taken in). */
export async function landedOnBranch(session: TeamSession, item: ItemAt): Promise<boolean> {
	if (!(await takeInLanded(session, item))) return false;
	return isCompleted(item);
}

/**
 * The item completed here and its work taken in when the branch's plan file, read now, has it checked; whether it
 * had. Not when the remote was not reached (the item's own landing will tell).
 */
export async function takeInLanded(session: TeamSession, item: ItemAt): Promise<boolean> {
	if (session.planPath === undefined) return false;
	const plan = await planAtTip(session.team, session.planPath);
	if (plan === "unreachable" || plan.text === undefined || !isItemDone(plan.text, item.index, item.text)) return false;
	completeHere(session.pi, item.index, item.text);
	await receive(session, item, plan.tip);
	return true;
}

/**
 * After this session landed `commit` on the branch: each of `held` (items other sessions held) that its plan file has
 * checked landed before it, and is completed here and its work taken in now, not at the next look at the claims.
 */
export async function takeInLandedBefore(session: TeamSession, commit: string, held: readonly string[]) {
	if (session.planPath === undefined || held.length === 0) return;
	const shown = await runGit(session.team.repo.top, ["cat-file", "blob", `${commit}:${session.planPath}`]);
	if (shown.code !== 0) return;
	for (const [index, todo] of getTodos().entries()) {
		const item = { index, text: todo.text, key: itemKey(index, todo.text) };
		if (todo.status === "completed" || !held.includes(item.key)) continue;
		if (!isItemDone(shown.stdout, index, todo.text)) continue;
		completeHere(session.pi, index, todo.text);
		forgetClaimedElsewhere([item.key]);
		await receive(session, item, commit);
	}
}

/** What another session landed of `item` (on the branch at `tip`) taken into the work tree; said when it cannot be. */
async function receive({ pi, ctx, team, planPath }: TeamSession, item: ItemAt, tip: string): Promise<void> {
	const taken = await landOneAtATime(() => receiveLanded(team, { key: item.key, planPath }, tip));
	if (taken === undefined || taken.kind === "landed") return;
	const text = WORKER_TEXTS.notInWorkTree(item.index, team.branch, workerWhy(taken));
	tellLasting(pi, ctx, { level: "warning", text });
}
