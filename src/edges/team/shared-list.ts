/**
 * A plan shared through a remote without a plan file, at the edge: before its workers start, a session shares its list
 * on the remote where none is shared (or the one shared has landed whole), or takes the shared one in its place
 * (core/rules/shared-list.ts decides which); and which items landed, read from the branch's landing trailers since the
 * list was shared. Each change of the list ref is one compare-and-swap push: of two sessions sharing at once, one list
 * wins and the other session takes it.
 */

import { hostname } from "node:os";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import type { TodoItem } from "../../core/model/types.ts";
import {
	itemsToShare,
	listMessage,
	listRef,
	listStep,
	readListMessage,
	type SharedList,
	shareSince,
} from "../../core/rules/shared-list.ts";
import { REMOTE_TEXTS } from "../../core/texts/user/remote.ts";
import { getTodos, listSharedSince, markListShared, setTodos } from "../../state.ts";
import type { SessionClaimant } from "../git/claims.ts";
import { runGit } from "../git/git.ts";
import { commitMessage, fetchCommit, OVER_NETWORK, recordCommit, swapRefs } from "../git/leases.ts";
import { storeList } from "../host/commit.ts";
import { quietly } from "../host/quietly.ts";
import { tellLasting } from "../host/tell.ts";
import { landedSince, type SharedTeam } from "./branch-landing.ts";
import { receive } from "./landed-items.ts";

/** How often a share that another session's raced is read and tried again before the session gives up for now. */
const MAX_SHARE_TRIES = 3;

/** What the remote holds of the plan: its branch's tip, and the shared list's commit and record (undefined: none, or malformed). */
type SeenList = { tip: string; sha: string | undefined; list: SharedList | undefined };

/** The branch's tip and the plan's shared list, read with one `ls-remote` and fetched; "unreachable" when not reached. */
async function readShared(team: SharedTeam): Promise<SeenList | "unreachable"> {
	const branch = `refs/heads/${team.branch}`;
	const ref = listRef(team.plan);
	const listed = await runGit(team.repo.top, ["ls-remote", team.remote, branch, ref], OVER_NETWORK);
	if (listed.code !== 0) return "unreachable";
	const refs = new Map(listed.stdout.split("\n").map((line) => [line.split("\t")[1], line.split("\t")[0]]));
	const tip = refs.get(branch);
	if (tip === undefined || !(await fetchCommit(team.repo, team.remote, tip))) return "unreachable";
	const sha = refs.get(ref);
	if (sha === undefined) return { tip, sha, list: undefined };
	if (!(await fetchCommit(team.repo, team.remote, sha))) return "unreachable";
	const message = await commitMessage(team.repo, sha);
	const list = readListMessage(message ?? "", team.plan);
	// A list shared since a commit the branch no longer holds (rewritten, or pushed by hand) is not this branch's.
	return { tip, sha, list: list && (await isOnBranch(team, list.since, tip)) ? list : undefined };
}

/** Whether `since` is `tip` or one of its ancestors, in this clone (which has `tip` fetched). */
async function isOnBranch(team: SharedTeam, since: string, tip: string): Promise<boolean> {
	return (await runGit(team.repo.top, ["merge-base", "--is-ancestor", since, tip])).code === 0;
}

/** A session of a shared plan without a plan file: where it tells and stores, its team, and who it is. */
export interface ListSession {
	pi: ExtensionAPI;
	ctx: ExtensionContext;
	team: SharedTeam;
	me: Pick<SessionClaimant, "session" | "host">;
}

/** What became of the session's list: kept or shared as it was, replaced by the shared one, or the remote not reached. */
export type ListSettled = "kept" | "shared" | "adopted" | "unreachable";

/**
 * The session's list made the plan's before its workers start: shared where none is (or the one shared landed whole),
 * kept where it is the one shared, else replaced by the shared one (the items landed completed) and said. A list ref
 * that holds no list, or one shared since a commit not on the branch, is shared over, with a lease on what it held.
 */
export async function settleList(session: ListSession): Promise<ListSettled> {
	const { team } = session;
	for (let tries = 0; tries < MAX_SHARE_TRIES; tries++) {
		const seen = await readShared(team);
		if (seen === "unreachable") return "unreachable";
		const landed = seen.list && (await landedSince(team.repo, seen.list.since, seen.tip));
		if (seen.list && landed === undefined) return "unreachable";
		const step = listStep(getTodos(), seen.list, landed ?? new Set());
		if (step.kind === "keep") {
			markListShared(sinceKey(team), seen.list?.since ?? seen.tip);
			return "kept";
		}
		if (step.kind === "adopt") {
			markListShared(sinceKey(team), step.from.since);
			await adopt(session, step.todos, { tip: seen.tip, list: step.from });
			return "adopted";
		}
		const shared = await share(session, seen);
		if (shared !== "refused") return shared;
	}
	return "unreachable";
}

/**
 * The shared list taken in place of the session's own, said; the work of each item landed on it (completed) taken into
 * the work tree as another session's landing is.
 */
async function adopt(session: ListSession, todos: TodoItem[], seen: { tip: string; list: SharedList }): Promise<void> {
	const { team } = session;
	const said = getTodos().length === 0 ? REMOTE_TEXTS.listJoined : REMOTE_TEXTS.listTaken;
	setTodos(todos);
	quietly(() => storeList(session.pi));
	const text = said(team.remote, team.branch, todos.length, seen.list.host);
	tellLasting(session.pi, session.ctx, { level: "info", text });
	const teamSession = { ...session, planPath: undefined, listSince: seen.list.since };
	for (const [index, todo] of todos.entries()) {
		if (todo.status === "completed")
			await receive(teamSession, { index, text: todo.text, key: itemKey(index, todo.text) }, seen.tip);
	}
}

/** The session's list shared on the remote in place of what the ref held (`seen.sha`), if it still holds it. */
async function share(session: ListSession, seen: SeenList): Promise<"shared" | "refused" | "unreachable"> {
	const { team, me } = session;
	const since = shareSince(seen.tip, getTodos(), seen.list ? undefined : await sharedBefore(team, seen.tip));
	const list = {
		plan: team.plan,
		since,
		items: itemsToShare(getTodos()),
		session: me.session,
		host: me.host,
	};
	const sha = await recordCommit(team.repo, listMessage(list));
	if (sha === undefined) return "unreachable";
	const outcome = await swapRefs(team, [{ ref: listRef(team.plan), expect: seen.sha ?? "", next: sha }]);
	if (outcome !== "done") return outcome;
	markListShared(sinceKey(team), since);
	return "shared";
}

/** The tip this session's list was shared at before, if still on the branch, with the items landed since it. */
async function sharedBefore(team: SharedTeam, tip: string) {
	const since = listSince(team);
	if (since === undefined || !(await isOnBranch(team, since, tip))) return undefined;
	const landed = await landedSince(team.repo, since, tip);
	return landed && { since, landed };
}

/** The store's name for a shared plan's list: its remote and plan. */
const sinceKey = (team: SharedTeam) => `${team.remote}\0${team.plan}`;

/** The branch's tip when the team's list was shared, as this session last read it; undefined before it settled. */
export const listSince = (team: SharedTeam): string | undefined => listSharedSince(sinceKey(team));

/**
 * A session that joined `team` with no list and no plan file takes the list shared there, if one is being worked (said);
 * nothing is shared or said otherwise.
 */
export async function joinSharedList(pi: ExtensionAPI, ctx: ExtensionContext, team: SharedTeam): Promise<void> {
	if (getTodos().length > 0) return;
	await settleList({ pi, ctx, team, me: { session: ctx.sessionManager.getSessionId(), host: hostname() } });
}
