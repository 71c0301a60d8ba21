/**
 * Joining a plan shared through a remote: whether this clone may (the remote exists, answers, takes pushes, has the
 * branch this clone is on, and that branch still holds what this clone last fetched of it), and where the plan's
 * claims then live. Nothing here pushes: a push-rights probe is a dry run.
 */

import { readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { type BranchPlanProblem, branchPlanProblem } from "../../core/rules/branch-landing.ts";
import { planName } from "../../core/rules/leases.ts";
import { REMOTE_TEXTS } from "../../core/texts/user/remote.ts";
import { hasJoined, markJoined } from "../../state.ts";
import { findRepo, type Repo, runGit } from "../git/git.ts";
import { type ClaimPlace, fetchCommit, OVER_NETWORK } from "../git/leases.ts";

/** A plan this session works with others: where its claims live, and the branch its items land on. */
export interface Team extends ClaimPlace {
	branch: string;
}

/** The last line git wrote to stderr: why it failed, as git says it. */
const lastLine = (stderr: string) =>
	stderr
		.trim()
		.split("\n")
		.filter((line) => line.trim() !== "")
		.at(-1) ?? "";

/** A remote written as a URL or a path (`git://…`, `file://…`, `host:path`, `/srv/team.git`) rather than a name. */
const isLocation = (remote: string) => /[:/]/.test(remote);

/** Why a plan cannot be joined: a line for the user. */
type Refusal = { problem: string };

/**
 * The plan of the session in `cwd`, shared through `remote` (undefined: this machine's sessions, through the repository
 * itself), or why it cannot be joined. `planFile` names the plan (its path, as the setting says). A remote this
 * session joined before is its plan's without asking again: its claims then say whether it answers.
 */
export async function joinTeam(
	cwd: string,
	remote: string | undefined,
	planFile: string | undefined,
): Promise<{ team: Team } | Refusal> {
	const refuse = (why: string) => ({ problem: REMOTE_TEXTS.cannotJoin(remote ?? ".", why) });
	const local = await localTeam(cwd, planFile);
	if ("why" in local) return refuse(local.why);
	if (remote === undefined) return { team: local.team };
	const key = joinKey(remote, local.planPath, local.team.repo.top);
	// Joined once, the session's claims and landings meet what the remote is now (silent, moved, the plan changed by
	// its model): asked again, a join would turn its workers off and leave its own model uncoordinated.
	if (hasJoined(key)) return { team: { ...local.team, remote } };
	const joined = await joinRemote({ ...local.team, remote }, local.planPath, refuse);
	if ("team" in joined) markJoined(key);
	return joined;
}

/** What joining a remote is named by in the session: the remote, the plan file and the repository. */
const joinKey = (remote: string, planPath: string | undefined, top: string) => `${remote}\0${planPath ?? ""}\0${top}`;

/** The plan's place in this clone: the repository, the branch it is on, the plan's name; or why there is none. */
async function localTeam(
	cwd: string,
	planFile: string | undefined,
): Promise<{ team: Team; planPath: string | undefined } | { why: string }> {
	const repo = await findRepo(cwd);
	if (!repo) return { why: REMOTE_TEXTS.noRepo };
	const head = await runGit(repo.top, ["symbolic-ref", "-q", "--short", "HEAD"]);
	const branch = head.stdout.trim();
	if (head.code !== 0 || branch === "") return { why: REMOTE_TEXTS.detached };
	const planPath = planFile === undefined ? undefined : relative(repo.top, resolve(cwd, planFile));
	return { team: { repo, plan: planName(branch, planPath), branch }, planPath };
}

/**
 * Whether `team.remote` may be joined: it is a remote, answers, has the branch as this clone last fetched it, holds the
 * plan file there, and takes a push (a dry run); the team, or the refusal.
 */
async function joinRemote(
	team: Team & { remote: string },
	planPath: string | undefined,
	refuse: (why: string) => Refusal,
): Promise<{ team: Team } | Refusal> {
	const { repo, remote, branch } = team;
	const unreachable = (why: string) => refuse(REMOTE_TEXTS.unreachable(why));
	if (!isLocation(remote) && (await runGit(repo.top, ["remote", "get-url", "--", remote])).code !== 0)
		return refuse(REMOTE_TEXTS.unknownRemote);
	const listed = await runGit(repo.top, ["ls-remote", "--heads", remote, `refs/heads/${branch}`], OVER_NETWORK);
	if (listed.code !== 0) return unreachable(lastLine(listed.stderr));
	const tip = listed.stdout
		.split("\n")
		.find((line) => line.endsWith(`\trefs/heads/${branch}`))
		?.split("\t")[0];
	if (tip === undefined) return refuse(REMOTE_TEXTS.noBranch(branch));
	if (!(await holdsLastFetched(repo, remote, branch, tip))) return refuse(REMOTE_TEXTS.rewritten(branch));
	if (planPath !== undefined) {
		if (isOutside(planPath)) return refuse(REMOTE_TEXTS.planOutside(planPath));
		if (!(await fetchCommit(repo, remote, tip))) return unreachable(`fetching ${tip} failed`);
		if (!(await holdsFile(repo, tip, planPath))) return refuse(REMOTE_TEXTS.planNotOnBranch(planPath, branch));
		const problem = await planProblem(repo, tip, planPath);
		if (problem?.kind === "not-a-plan") return refuse(REMOTE_TEXTS.planNotAPlan(planPath, branch));
		if (problem?.kind === "differs") return refuse(REMOTE_TEXTS.planDiffers(planPath, branch, problem.index));
	}
	const probe = ["push", "--dry-run", "--porcelain", "--no-verify", remote, `${tip}:refs/til-done/probe`];
	const pushed = await runGit(repo.top, probe, OVER_NETWORK);
	if (pushed.code !== 0) return refuse(REMOTE_TEXTS.noPush(lastLine(pushed.stderr)));
	return { team };
}

/**
 * Whether the remote's branch (at `tip`) still holds what this clone last fetched of it (its remote-tracking ref): a
 * branch others rewrote does not. Its commits are fetched first where this clone lacks them (no ref of ours written).
 */
export async function holdsLastFetched(repo: Repo, remote: string, branch: string, tip: string): Promise<boolean> {
	if (isLocation(remote)) return true;
	const seen = await runGit(repo.top, ["rev-parse", "--verify", "-q", `refs/remotes/${remote}/${branch}^{commit}`]);
	if (seen.code !== 0) return true;
	await fetchCommit(repo, remote, tip);
	return (await runGit(repo.top, ["merge-base", "--is-ancestor", seen.stdout.trim(), tip])).code === 0;
}

/**
 * What the plan file at `path` on the branch's `tip` holds that no landing could check: no plan, or an item other than
 * the one this clone's file (in its work tree, where the session follows it) has at the same place.
 */
async function planProblem(repo: Repo, tip: string, path: string): Promise<BranchPlanProblem | undefined> {
	const shown = await runGit(repo.top, ["cat-file", "blob", `${tip}:${path}`]);
	if (shown.code !== 0) return undefined;
	let local: string | undefined;
	try {
		local = readFileSync(join(repo.top, path), "utf8");
	} catch {
		// No file of this clone's to compare: the session's plan-file notice says so.
		local = undefined;
	}
	return branchPlanProblem(shown.stdout, local);
}

/** Whether a path relative to the repository's top (as `relative` gives it) leads out of it: no branch holds it. */
const isOutside = (path: string) => path.startsWith(`..${sep}`) || isAbsolute(path);

/** Whether commit `tip` holds a file at `path` (relative to the top): the plan file each landing checks. */
async function holdsFile(repo: Repo, tip: string, path: string): Promise<boolean> {
	const listed = await runGit(repo.top, ["ls-tree", "-z", tip, "--", path]);
	return listed.code === 0 && / blob [0-9a-f]+\t/.test(listed.stdout);
}
