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
import { landedSince, type SharedTeam, tipNow } from "./branch-landing.ts";
import { receiveLanded } from "./item-landing.ts";

/** A session of a shared plan: where it tells and stores, its team, and its plan file relative to the repository's top. */
export interface TeamSession {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	team: SharedTeam;
	/** Undefined: the plan has no file; its items landed are then those the branch's landings name since `listSince`. */
	planPath: string | undefined;
	/** Without a plan file: the branch's tip when its list was shared; undefined before the list settled. */
	listSince?: string;
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

/** Which items the branch at `tip` (fetched) has landed: checked in its plan file, or named by a landing since the list was shared. */
async function landedAt(session: TeamSession, tip: string): Promise<((item: ItemAt) => boolean) | undefined> {
	const { team, planPath, listSince } = session;
	if (planPath === undefined) {
		const keys = listSince === undefined ? undefined : await landedSince(team.repo, listSince, tip);
		return keys && ((item) => keys.has(item.key));
	}
	const shown = await runGit(team.repo.top, ["cat-file", "blob", `${tip}:${planPath}`]);
	return shown.code === 0 ? (item) => isItemDone(shown.stdout, item.index, item.text) : undefined;
}

/**
 * The item completed here and its work taken in when the branch, read now, has it landed; whether it had. Not when
 * the remote was not reached (the item's own landing will tell).
 */
export async function takeInLanded(session: TeamSession, item: ItemAt): Promise<boolean> {
	const tip = await tipNow(session.team);
	const landed = tip === "unreachable" ? undefined : await landedAt(session, tip);
	if (tip === "unreachable" || !landed?.(item)) return false;
	completeHere(session.pi, item.index, item.text);
	await receive(session, item, tip);
	return true;
}

/**
 * After this session landed `commit` on the branch: each of `held` (items other sessions held) that the branch has
 * landed before it is completed here and its work taken in now, not at the next look at the claims.
 */
export async function takeInLandedBefore(session: TeamSession, commit: string, held: readonly string[]) {
	if (held.length > 0) await takeInLandedAt(session, commit, (key) => held.includes(key));
}

/**
 * As workers are handed items: every open item the branch, read now, has landed (but those of `skip`, at work here)
 * completed here and its work taken in, so none is handed out only to be found landed. The tip read; "unreachable"
 * when the remote was not reached.
 */
export async function takeInAllLanded(
	session: TeamSession,
	skip: ReadonlySet<string>,
): Promise<string | "unreachable"> {
	const tip = await tipNow(session.team);
	if (tip !== "unreachable") await takeInLandedAt(session, tip, (key) => !skip.has(key));
	return tip;
}

/** Each open item whose key `takes` that the branch at `tip` has landed: completed here, its work taken in. */
async function takeInLandedAt(session: TeamSession, tip: string, takes: (key: string) => boolean) {
	const landed = await landedAt(session, tip);
	if (landed === undefined) return;
	for (const [index, todo] of getTodos().entries()) {
		const item = { index, text: todo.text, key: itemKey(index, todo.text) };
		if (todo.status === "completed" || !takes(item.key) || !landed(item)) continue;
		completeHere(session.pi, index, todo.text);
		forgetClaimedElsewhere([item.key]);
		await receive(session, item, tip);
	}
}

/** What another session landed of `item` (on the branch at `tip`) taken into the work tree; said when it cannot be. */
export async function receive({ pi, ctx, team, planPath }: TeamSession, item: ItemAt, tip: string): Promise<void> {
	const taken = await landOneAtATime(() => receiveLanded(team, { key: item.key, planPath }, tip));
	if (taken === undefined || taken.kind === "landed") return;
	const text = WORKER_TEXTS.notInWorkTree(item.index, team.branch, workerWhy(taken));
	tellLasting(pi, ctx, { level: "warning", text });
}
