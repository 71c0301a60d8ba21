/**
 * What the user reads of a plan shared through a remote (`--til-done-remote`, `/todos remote`). Loaded with the
 * remote.
 */

import { oneLine, prefix } from "../sanitize.ts";
import { formatClock, remoteShown } from "../user.ts";

// ── One plan shared through a remote (--til-done-remote, /todos remote) ───────────────────────────────────────────

/** One session at work, as `/todos remote` lists it: what another machine wrote is data, on one line, cut. */
export interface TeamClaimLine {
	/** The item's index in this session's list, when it has the item. */
	index: number | undefined;
	key: string;
	host: string;
	session: string;
	/** When its holder took it, by the holder's clock (ms since 1970). */
	since: number;
	fence: number;
}

/** The most characters of another machine's host or session name shown. */
const TEAM_NAME_CHARS = 40;

/** What the user reads about the remote a plan is shared through. */
export const REMOTE_TEXTS = {
	/** Why the session cannot join the remote: said at its start (pi -p then runs nothing), or as `/todos remote`'s refusal. */
	cannotJoin: (remote: string, why: string) => `the remote ${remoteShown(remote)} cannot be joined: ${why}`,
	noRepo: "this folder is in no git work tree",
	unknownRemote: "it is no remote of this repository (git remote lists them) nor a URL",
	detached: "this clone is on no branch (a detached HEAD): the plan's branch is the one every session is on",
	unreachable: (why: string) => `git cannot reach it (${prefix(oneLine(why), 200)})`,
	noBranch: (branch: string) =>
		`it has no branch ${oneLine(branch)}, the one this clone is on: push it there first, then join`,
	rewritten: (branch: string) =>
		`its branch ${oneLine(branch)} no longer holds what this clone last fetched of it (rewritten by someone): fetch and set the branch right first`,
	noPush: (why: string) => `it refuses a push (${prefix(oneLine(why), 200)})`,
	planNotOnBranch: (path: string, branch: string) =>
		`its branch ${oneLine(branch)} holds no plan file ${oneLine(path)}, where each item's landing checks its line: commit and push the plan file there first, then join`,
	planOutside: (path: string) =>
		`the plan file ${oneLine(path)} is outside this repository, so no branch of it can hold the plan: follow a plan file inside the repository`,
	planNotAPlan: (path: string, branch: string) =>
		`its branch ${oneLine(branch)} holds ${oneLine(path)}, but it is no plan file: each item's landing checks its line there; set it right on the branch first, then join`,
	planDiffers: (path: string, branch: string, index: number) =>
		`its branch ${oneLine(branch)} holds ${oneLine(path)} with another item [${index}] than this clone's: pull the branch (or push this clone's plan file) first, then join`,
	joined: (remote: string, branch: string) =>
		`Working the plan with every session on ${remoteShown(remote)}, branch ${oneLine(branch)}: an item another holds is never taken.`,
	alone: "Working the plan with this machine's sessions only: claims live in this repository.",
	/** `/todos remote` alone: the remote (or none), then each session at work there. */
	list: (remote: string | undefined, branch: string, lines: readonly TeamClaimLine[]) =>
		[
			remote === undefined
				? `Plan shared by this machine's sessions (branch ${oneLine(branch)}); no remote.`
				: `Plan shared on ${remoteShown(remote)} (branch ${oneLine(branch)}).`,
			lines.length === 0
				? "No session holds an item."
				: `${lines.length} item(s) held:\n${lines.map(teamLine).join("\n")}`,
		].join("\n"),
	/** A session without a plan file takes the list another shared first on the remote, in place of its own. */
	listTaken: (remote: string, branch: string, items: number, host: string) =>
		`Working the list ${prefix(oneLine(host), TEAM_NAME_CHARS)} shared first on ${remoteShown(remote)}, branch ${oneLine(branch)} (${items} item(s)), in place of this session's own: every session works one list.`,
	/** A session that joined with no list of its own takes the list shared on the remote. */
	listJoined: (remote: string, branch: string, items: number, host: string) =>
		`Working the list ${prefix(oneLine(host), TEAM_NAME_CHARS)} shared on ${remoteShown(remote)}, branch ${oneLine(branch)} (${items} item(s)).`,
	malformedClaim: (key: string) => `  ${key}: a ref that holds no claim (/todos remote release frees it)`,
	unreachableNow: (remote: string) => `The remote ${remoteShown(remote)} cannot be reached now: no claim listed.`,
	released: (index: number, host: string | undefined) =>
		`Freed the claim on [${index}]${host === undefined ? "" : ` (held on ${prefix(oneLine(host), TEAM_NAME_CHARS)})`}: if that session still works on it, it can no longer land it, and another session may take the item.`,
	notClaimed: (index: number) => `[${index}] is not claimed: nothing to free.`,
	releaseLost: (index: number) =>
		`The claim on [${index}] changed while it was being freed: nothing was freed; look again.`,
} as const;

/** One held item: by which machine and session, since when (the holder's clock), at which fence. */
function teamLine(line: TeamClaimLine): string {
	const item = line.index === undefined ? line.key : `[${line.index}]`;
	const host = prefix(oneLine(line.host), TEAM_NAME_CHARS);
	const session = prefix(oneLine(line.session), TEAM_NAME_CHARS);
	return `  ${item}: ${host}, session ${session}, since ${formatClock(line.since)} (fence ${line.fence})`;
}
