/**
 * Joining a plan shared through a remote: whether this clone may (the remote exists, answers, takes pushes, has the
 * branch this clone is on, and that branch still holds what this clone last fetched of it), and where the plan's
 * claims then live. Nothing here pushes: a push-rights probe is a dry run.
 */

import { relative, resolve } from "node:path";
import { planName } from "../../core/rules/leases.ts";
import { REMOTE_TEXTS } from "../../core/texts/user/remote.ts";
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

/**
 * The plan of the session in `cwd`, shared through `remote` (undefined: this machine's sessions, through the repository
 * itself), or why it cannot be joined (a line for the user). `planFile` names the plan (its path, as the setting says).
 */
export async function joinTeam(
	cwd: string,
	remote: string | undefined,
	planFile: string | undefined,
): Promise<{ team: Team } | { problem: string }> {
	const repo = await findRepo(cwd);
	const refuse = (why: string) => ({ problem: REMOTE_TEXTS.cannotJoin(remote ?? ".", why) });
	if (!repo) return refuse(REMOTE_TEXTS.noRepo);
	const head = await runGit(repo.top, ["symbolic-ref", "-q", "--short", "HEAD"]);
	const branch = head.stdout.trim();
	if (head.code !== 0 || branch === "") return refuse(REMOTE_TEXTS.detached);
	const plan = planName(branch, planFile === undefined ? undefined : relative(repo.top, resolve(cwd, planFile)));
	if (remote === undefined) return { team: { repo, plan, branch } };
	if (!isLocation(remote) && (await runGit(repo.top, ["remote", "get-url", "--", remote])).code !== 0)
		return refuse(REMOTE_TEXTS.unknownRemote);
	const listed = await runGit(repo.top, ["ls-remote", "--heads", remote, `refs/heads/${branch}`], OVER_NETWORK);
	if (listed.code !== 0) return refuse(REMOTE_TEXTS.unreachable(lastLine(listed.stderr)));
	const tip = listed.stdout
		.split("\n")
		.find((line) => line.endsWith(`\trefs/heads/${branch}`))
		?.split("\t")[0];
	if (tip === undefined) return refuse(REMOTE_TEXTS.noBranch(branch));
	if (!(await holdsLastFetched(repo, remote, branch, tip))) return refuse(REMOTE_TEXTS.rewritten(branch));
	const probe = ["push", "--dry-run", "--porcelain", "--no-verify", remote, `${tip}:refs/til-done/probe`];
	const pushed = await runGit(repo.top, probe, OVER_NETWORK);
	if (pushed.code !== 0) return refuse(REMOTE_TEXTS.noPush(lastLine(pushed.stderr)));
	return { team: { repo, remote, plan, branch } };
}

/**
 * Whether the remote's branch (at `tip`) still holds what this clone last fetched of it (its remote-tracking ref): a
 * branch others rewrote does not. Its commits are fetched first where this clone lacks them (no ref of ours written).
 */
async function holdsLastFetched(repo: Repo, remote: string, branch: string, tip: string): Promise<boolean> {
	if (isLocation(remote)) return true;
	const seen = await runGit(repo.top, ["rev-parse", "--verify", "-q", `refs/remotes/${remote}/${branch}^{commit}`]);
	if (seen.code !== 0) return true;
	await fetchCommit(repo, remote, tip);
	return (await runGit(repo.top, ["merge-base", "--is-ancestor", seen.stdout.trim(), tip])).code === 0;
}
