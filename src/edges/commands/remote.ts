/** `/todos remote`: the sessions at work on the shared plan, the remote of this session, a claim freed by hand. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import { claimRef } from "../../core/rules/leases.ts";
import { REMOTE_TEXTS, type TeamClaimLine } from "../../core/texts/user/remote.ts";
import { chooseRemote, getTodos, sharedRemote } from "../../state.ts";
import { listClaims, type SeenClaimRef, swapRefs } from "../git/leases.ts";
import { tell } from "../host/tell.ts";
import { joinTeam, type Team } from "../team/join.ts";

/** What the command reads of the session's settings. */
export interface RemoteSettings {
	remote: string | undefined;
	planFile: string | undefined;
}

/** The session's team as it stands (the remote `/todos remote` chose, else the setting's), or the refusal said. */
async function currentTeam(
	ctx: ExtensionContext,
	settings: RemoteSettings,
	refuse: (why: string) => void,
): Promise<Team | undefined> {
	const joined = await joinTeam(ctx.cwd, sharedRemote(settings.remote), settings.planFile);
	if ("problem" in joined) return void refuse(joined.problem);
	return joined.team;
}

/** Each item's index in the session's list, by its claim key. */
function indicesByKey(): Map<string, number> {
	return new Map(getTodos().map((todo, index) => [itemKey(index, todo.text), index]));
}

/** `/todos remote` alone: the remote (or none) and each item held there, by machine, session, since when and fence. */
export async function showTeam(ctx: ExtensionContext, settings: RemoteSettings, refuse: (why: string) => void) {
	const team = await currentTeam(ctx, settings, refuse);
	if (!team) return;
	const claims = await listClaims(team);
	if (claims === "unreachable") return tell(ctx, REMOTE_TEXTS.unreachableNow(team.remote ?? "."), "warning");
	const indices = indicesByKey();
	const lines: TeamClaimLine[] = claims.flatMap(({ key, record }) =>
		record
			? [
					{
						index: indices.get(key),
						key,
						host: record.host,
						session: record.session,
						since: record.since,
						fence: record.fence,
					},
				]
			: [],
	);
	const malformed = claims
		.filter((claim) => claim.record === undefined)
		.map((claim) => REMOTE_TEXTS.malformedClaim(claim.key));
	tell(ctx, [REMOTE_TEXTS.list(team.remote, team.branch, lines), ...malformed].join("\n"));
}

/** `/todos remote <name>`: the session works the plan with that remote's sessions, once it can join it. */
export async function joinRemote(
	ctx: ExtensionContext,
	settings: RemoteSettings,
	remote: string,
	refuse: (why: string) => void,
): Promise<boolean> {
	const joined = await joinTeam(ctx.cwd, remote, settings.planFile);
	if ("problem" in joined) {
		refuse(joined.problem);
		return false;
	}
	chooseRemote(remote);
	tell(ctx, REMOTE_TEXTS.joined(remote, joined.team.branch));
	return true;
}

/** `/todos remote off`: the session works the plan with this machine's sessions only. */
export function workAlone(ctx: ExtensionContext): void {
	chooseRemote(null);
	tell(ctx, REMOTE_TEXTS.alone);
}

/**
 * `/todos remote release <i>`: frees item i's claim, whoever holds it (compare-and-swap on the claim as read, so a
 * claim renewed meanwhile stays): its holder can no longer land the item, and another session may take it. A warning.
 */
export async function releaseByHand(
	ctx: ExtensionContext,
	settings: RemoteSettings,
	index: number,
	refuse: (why: string) => void,
): Promise<void> {
	const team = await currentTeam(ctx, settings, refuse);
	const todo = getTodos()[index];
	if (!team || !todo) return;
	const key = itemKey(index, todo.text);
	const claims = await listClaims(team);
	if (claims === "unreachable") return tell(ctx, REMOTE_TEXTS.unreachableNow(team.remote ?? "."), "warning");
	const held: SeenClaimRef | undefined = claims.find((claim) => claim.key === key);
	if (!held) return tell(ctx, REMOTE_TEXTS.notClaimed(index));
	const freed = await swapRefs(team, [{ ref: claimRef(team.plan, key), expect: held.sha, next: "" }]);
	if (freed === "unreachable") return tell(ctx, REMOTE_TEXTS.unreachableNow(team.remote ?? "."), "warning");
	if (freed === "refused") return tell(ctx, REMOTE_TEXTS.releaseLost(index), "warning");
	tell(ctx, REMOTE_TEXTS.released(index, held.record?.host), "warning");
}
