/**
 * A plan shared through a remote, in the real pi on both lines, against a `git daemon` on the loopback address that
 * the test starts and stops: a remote that cannot be joined stops `pi -p` before any model call, with one line and
 * exit 2, and nothing is pushed.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import { cannotJoin, JOIN_WHY, RUN_REFUSED, stderrLine } from "../helpers/expected.ts";
import { type GitServer, startGitServer } from "../helpers/git-server.ts";
import { perTest } from "../helpers/per-test.ts";
import { lazyScript } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
const ITEMS = ["Write a.txt", "Write b.txt"];
let server: GitServer;

beforeAll(async () => {
	server = await startGitServer();
});
afterAll(async () => {
	await server.close();
});

/** The isolated project folder made a clone of a served repository, remote `origin`; the bare repository's path. */
function cloneOfServed(cwd: string, name: string): string {
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd, encoding: "utf8" });
	git("init", "-q", "-b", "main");
	git("commit", "-q", "--allow-empty", "-m", "start");
	const bare = server.bare(name, { repo: cwd, branch: "main" });
	git("remote", "add", "origin", server.url(name));
	git("fetch", "-q", "origin");
	return bare;
}

const refsOf = (dir: string) =>
	execFileSync("git", ["for-each-ref", "--format=%(objectname) %(refname)"], { cwd: dir, encoding: "utf8" });

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("a remote that is no remote of the clone: its line, exit 2, no model call, nothing pushed", async () => {
		const env = pi.env(lazyScript(ITEMS));
		const bare = cloneOfServed(env.cwd, `unknown-${host.version}.git`);
		const before = refsOf(bare);
		const result = await runPrint(["--til-done-remote", "nosuch", "-p", "Do the list"], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
		});
		expect(result.stderr).toBe(
			stderrLine(`pi-til-done: ${cannotJoin("nosuch", JOIN_WHY.unknownRemote)}`) + stderrLine(RUN_REFUSED),
		);
		expect(result.code).toBe(2);
		expect(result.stdout).toBe("");
		expect(env.readLog()).toEqual([]);
		expect(refsOf(bare)).toBe(before);
	});

	it("TIL_DONE_REMOTE naming a remote that lacks the clone's branch: its line, exit 2, nothing pushed", async () => {
		const env = pi.env(lazyScript(ITEMS), { TIL_DONE_REMOTE: "origin" });
		const bare = cloneOfServed(env.cwd, `branchless-${host.version}.git`);
		execFileSync("git", ["checkout", "-q", "-b", "topic"], { cwd: env.cwd });
		const before = refsOf(bare);
		const result = await runPrint(["-p", "Do the list"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		expect(result.stderr).toBe(
			stderrLine(`pi-til-done: ${cannotJoin("origin", JOIN_WHY.noBranch("topic"))}`) + stderrLine(RUN_REFUSED),
		);
		expect(result.code).toBe(2);
		expect(env.readLog()).toEqual([]);
		expect(refsOf(bare)).toBe(before);
		expect(refsOf(join(env.cwd, ".git"))).not.toContain("refs/til-done/");
	});
});
