/**
 * One plan worked by sessions of two machines through their remote, in the real pi on both lines, against a `git
 * daemon` on the loopback address that the test starts and stops: each item lands once on the plan's branch (one
 * commit, its plan-file line checked, its claim gone in the same push), each machine's work tree takes what the other
 * landed, and nothing of the remote changes but the branch.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { listMessage } from "../../src/core/rules/shared-list.ts";
import type { FakeStep } from "../helpers/cli.ts";
import {
	EXTENSION_ENTRY,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	piArgs,
	runPrint,
	spawnPi,
	waitForExit,
	waitForValue,
} from "../helpers/cli.ts";
import {
	allFinished,
	CLAIM_LOST_WHY,
	cannotJoin,
	claimsMalformedStop,
	JOIN_WHY,
	KEY,
	listJoined,
	listTaken,
	PLAN_NOTICES,
	REMOTE_DOWN_STOP,
	RUN_REFUSED,
	releasedClaim,
	sharedUnverifiedStop,
	sharedVerdictLine,
	stderrLine,
	WORKERS,
	workerFailures,
} from "../helpers/expected.ts";
import { type GitServer, startGitServer } from "../helpers/git-server.ts";
import { JUDGE_ARGS, judgeCalls, judgeSays, scriptJudge } from "../helpers/judge.ts";
import {
	ADD_LINE,
	ADD_LINE_WORKERS,
	bash,
	CLAIMS,
	claimBy,
	ITEMS,
	NOTES,
	NOTES_DONE,
	planOf,
} from "../helpers/notes-plan.ts";
import { perTest } from "../helpers/per-test.ts";
import { planWith } from "../helpers/plan-remote.ts";
import { reportedLines } from "../helpers/rpc.ts";
import { sayStep, writeStep } from "../helpers/scripts.ts";
import { keptRefs, startedLine, stderrOf, untilWorkerWaits, untilWorkKept, workerPid } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
/** A landing on the branch, as a session says it on stderr: its item captured. */
const ON_BRANCH = /^\[til-done\] Worker on \[(\d)\]: landed on main of origin as [0-9a-f]{12}\.$/;
const ON_BRANCH_ANY = /^\[til-done\] Worker on \[(\d+)\]: landed on main of origin as [0-9a-f]{12}\.$/;

let server: GitServer;
let repos = 0;

beforeAll(async () => {
	server = await startGitServer();
});
afterAll(async () => {
	await server.close();
});

const gitIn = (cwd: string, ...args: string[]) =>
	execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd, encoding: "utf8" }).trim();

/** The served remote holding the plan's branch (`main`: notes.txt and the plan file); its bare repository's path. */
function servedPlan(
	env: IsolatedEnv,
	texts: readonly string[],
	plan = planOf(texts, false),
): { bare: string; url: string } {
	const seed = join(env.root, "seed");
	execFileSync("mkdir", ["-p", seed]);
	gitIn(seed, "init", "-q", "-b", "main");
	writeFileSync(join(seed, "notes.txt"), NOTES);
	writeFileSync(join(seed, "PLAN.md"), plan);
	gitIn(seed, "add", "-A");
	gitIn(seed, "commit", "-qm", "start");
	const name = `team-${++repos}.git`;
	return { bare: server.bare(name, { repo: seed, branch: "main" }), url: server.url(name) };
}

/** A machine: a clone of the remote (`origin`) in a folder of its own. */
function machine(env: IsolatedEnv, url: string, name: string): string {
	const dir = join(env.root, name);
	execFileSync("git", ["clone", "-q", url, dir]);
	return dir;
}

/**
 * One item on a served plan, a laptop and a desktop cloned from it, one worker each (its worker adds line 0); `lease`:
 * the claims' lease in seconds, the setting's default when undefined.
 */
function oneItemTwoMachines(lease?: string) {
	const env = pi.env([sayStep("Working the plan.")], {
		TIL_DONE_WORKERS: "1",
		...(lease === undefined ? {} : { TIL_DONE_LEASE: lease }),
	});
	const { bare, url } = servedPlan(env, ITEMS.slice(0, 1));
	const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
	env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
	return { env, bare, laptop, desktop };
}

/**
 * `pi -p` with two workers on the plan file, joined to `origin`, in `cwd`, its session in a folder of its own (`more`:
 * pi's own flags, `--continue` to go on with the folder's last session).
 */
function session(host: PiHost, env: IsolatedEnv, cwd: string, name: string, more: readonly string[] = []) {
	const args = ["--til-done-plan", "PLAN.md", "--til-done-remote", "origin", ...more, "-p", "Work the plan."];
	return runPrint(args, env.env, {
		host,
		cwd,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, `sessions-${name}`) },
		timeoutMs: 200_000,
	});
}

/** `pi -p` on the plan with the workers, joined to `origin`, as a process the test can signal. */
function startSession(host: PiHost, env: NodeJS.ProcessEnv, cwd: string, sessions: string): ChildProcess {
	const args = ["--til-done-plan", "PLAN.md", "--til-done-remote", "origin", "-p", "Work the plan."];
	const child = spawnPi(piArgs({ extensions: [EXTENSION_ENTRY], session: { dir: sessions }, args }), env, cwd, host);
	// pi -p reads a piped stdin to its end first.
	child.stdin?.end();
	return child;
}

/** The processes whose first argument is `name`. */
function processesNamed(name: string): string[] {
	return readdirSync("/proc")
		.filter((pid) => /^\d+$/.test(pid))
		.filter((pid) => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === name;
			} catch {
				return false;
			}
		});
}

/**
 * The laptop's `pi -p` verifying the one item's plan with a done-check whose first run (its own) writes into its tree
 * and hangs as a sleep of a name of its own (`name`); any later run passes on line 0. Resolves once that sleep runs.
 */
async function verifierWithHangingCheck(host: PiHost, machines: { env: IsolatedEnv; laptop: string }, name: string) {
	const { env, laptop } = machines;
	const started = join(env.root, "check-started");
	const first = join(env.root, "first-run");
	const sleeper = `til-done-check-${name}-${host.version}`;
	const check = `echo x > made-by-check.txt; if mkdir '${first}' 2>/dev/null; then touch '${started}'; exec -a ${sleeper} sleep 600; fi; grep -qx 'line 0' notes.txt`;
	const child = startSession(host, { ...env.env, TIL_DONE_CHECK: check }, laptop, join(env.root, "sessions-laptop"));
	await waitForValue(() => (existsSync(started) ? true : undefined), 60_000, "the laptop's check running");
	await waitForValue(() => (processesNamed(sleeper).length > 0 ? true : undefined), 10_000, "its sleep");
	// The check's watcher ends it once its pi lets it go or is gone, at its next look.
	const checkGone = () =>
		waitForValue(() => (processesNamed(sleeper).length === 0 ? true : undefined), 10_000, "the check gone");
	return { check, child, checkGone };
}

/** The desktop's `pi -p` with the laptop's check: it verifies the tip itself and says so, exit 0. */
async function desktopVerifies(
	host: PiHost,
	machines: { env: IsolatedEnv; bare: string; desktop: string },
	check: string,
) {
	const { env, bare, desktop } = machines;
	const run = await session(host, env, desktop, "desktop", ["--til-done-check", check]);
	expect(run.code).toBe(0);
	const tip = gitIn(bare, "rev-parse", "main");
	expect(stderrOf(run.stderr)).toContain(`[til-done] ${sharedVerdictLine(tip, hostname(), "passed (1 check)")}`);
}

/** Worker scripts for items 0 and 1: each adds its line in a call of a second, then answers. */
function slowTwoItems(env: IsolatedEnv): void {
	env.writeWorkerScripts({
		"0": [{ ...bash(ADD_LINE[0] ?? ""), delayMs: 1000 }, sayStep("Added line 0.")],
		"1": [{ ...bash(ADD_LINE[1] ?? ""), delayMs: 1000 }, sayStep("Added line 1.")],
	});
}

/** What a child wrote to stderr so far. */
function collect(child: ChildProcess): () => string {
	let text = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		text += chunk;
	});
	return () => text;
}

/** Worker scripts of their own for another machine: item 0's worker adds its line and answers at once. */
function quickWorker(env: IsolatedEnv): NodeJS.ProcessEnv {
	const file = join(env.root, "quick-worker-scripts.json");
	writeFileSync(file, JSON.stringify({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] }));
	return { TIL_DONE_FAKE_WORKER_SCRIPTS: file };
}

/** The claims on the remote. */
const claimsOn = (bare: string) =>
	gitIn(bare, "for-each-ref", "--format=%(refname)", "refs/til-done/claims/")
		.split("\n")
		.filter((ref) => ref !== "");

/** The `Til-done-item` trailers of the branch's commits, newest first. */
const landedKeys = (bare: string) =>
	gitIn(bare, "log", "--format=%(trailers:key=Til-done-item,valueonly,separator=)", "main")
		.split("\n")
		.filter((line) => line !== "");

/** `pi -p` joined to `origin` with no plan file, in `cwd`, its own model playing `steps` (its session folder its own). */
function listSession(
	host: PiHost,
	env: IsolatedEnv,
	cwd: string,
	name: string,
	steps: readonly FakeStep[],
	more: readonly string[] = [],
) {
	const script = join(env.root, `script-${name}.json`);
	writeFileSync(script, JSON.stringify(steps));
	const args = ["--til-done-remote", "origin", ...more, "-p", "Work the plan."];
	return runPrint(
		args,
		{ ...env.env, TIL_DONE_FAKE_SCRIPT: script },
		{
			host,
			cwd,
			extensions: [EXTENSION_ENTRY],
			session: { dir: join(env.root, `sessions-${name}`) },
			timeoutMs: 200_000,
		},
	);
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("two machines with two workers each, started at once: each item lands once on the branch, and both work trees have it all", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		slowTwoItems(env);
		const laptop = machine(env, url, "laptop");
		const desktop = machine(env, url, "desktop");
		const runs = await Promise.all([session(host, env, laptop, "laptop"), session(host, env, desktop, "desktop")]);
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		// The branch: one commit per item on the start, its plan line checked; no claim left, nothing else there.
		expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
		expect(gitIn(bare, "show", "main:PLAN.md")).toBe(planOf(ITEMS, true).trimEnd());
		expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "rev-list", "--count", "main")).toBe("3");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		// Each item said landed once, by one of the two.
		const landings = runs.flatMap((run) => stderrOf(run.stderr)).filter((line) => ON_BRANCH.test(line));
		expect(landings.map((line) => Number(ON_BRANCH.exec(line)?.[1])).toSorted()).toEqual([0, 1]);
		// Each machine's work tree has both lines (what it landed, and what the other did) and the plan all checked.
		for (const dir of [laptop, desktop]) {
			expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe(NOTES_DONE);
			expect(readFileSync(join(dir, "PLAN.md"), "utf8")).toBe(planOf(ITEMS, true));
		}
	}, 120_000);

	it.each([
		["passes", "", 0, (tip: string) => sharedVerdictLine(tip, hostname(), "passed (1 check)")],
		["fails", " && exit 1", 4, (tip: string) => sharedUnverifiedStop(tip, "the done-check (exit code 1)")],
	] as const)(
		"two machines with two workers each and a done-check that %s: it runs once, on the branch's tip with every item's work, and both say the same verdict",
		async (_what, tail, code, said) => {
			// A lease no loaded machine's renewals fall behind: here a verifier taken over would run the check twice.
			const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "30" });
			const { bare, url } = servedPlan(env, ITEMS);
			env.writeWorkerScripts({
				"0": [{ ...bash(ADD_LINE[0] ?? ""), delayMs: 500 }, sayStep("Added line 0.")],
				"1": [{ ...bash(ADD_LINE[1] ?? ""), delayMs: 500 }, sayStep("Added line 1.")],
			});
			// Outside every repository: each run of the check adds a line, then it passes only on a tree with both lines.
			const log = join(env.root, "check-runs.log");
			const check = `echo ran >> '${log}' && grep -qx 'line 0' notes.txt && grep -qx 'line 1' notes.txt${tail}`;
			const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
			const more = ["--til-done-check", check];
			const runs = await Promise.all([
				session(host, env, laptop, "laptop", more),
				session(host, env, desktop, "desktop", more),
			]);
			expect(runs.map((run) => run.code)).toEqual([code, code]);
			expect(readFileSync(log, "utf8")).toBe("ran\n");
			const tip = gitIn(bare, "rev-parse", "main");
			expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
			for (const run of runs) expect(stderrOf(run.stderr)).toContain(`[til-done] ${said(tip)}`);
			// The verdict is recorded for the tip, the verification's claim gone with its push.
			expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe(
				"refs/heads/main\nrefs/til-done/verdicts/main--PLAN_md",
			);
			expect(gitIn(bare, "log", "-1", "--format=%B", "refs/til-done/verdicts/main--PLAN_md")).toContain(
				`"tip":"${tip}"`,
			);
		},
		120_000,
	);

	it("two machines joined without --til-done-workers: each works through one worker, its own model never sent an item; each item lands once", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		env.writeWorkerScripts(ADD_LINE_WORKERS);
		const laptop = machine(env, url, "laptop");
		const desktop = machine(env, url, "desktop");
		const runs = await Promise.all([session(host, env, laptop, "laptop"), session(host, env, desktop, "desktop")]);
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
		expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		// Each session's model answered its prompt once and was sent nothing more: no item went to it.
		const sessionCalls = env.readLog().filter((line) => line.userHeads[0] === "Work the plan.");
		expect(sessionCalls).toHaveLength(2);
		expect(
			env
				.workerTries()
				.map((at) => at.item)
				.toSorted(),
		).toEqual([0, 1]);
		for (const dir of [laptop, desktop]) expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe(NOTES_DONE);
	}, 120_000);

	it("two machines without a plan file whose models wrote other lists, started at once: one list shared, each of its items lands once", async () => {
		const env = pi.env([], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		env.writeWorkerScripts(ADD_LINE_WORKERS);
		const lists = { laptop: ITEMS, desktop: ITEMS.map((text) => `${text}, please`) };
		const runs = await Promise.all(
			Object.entries(lists).map(([name, texts]) =>
				listSession(host, env, machine(env, url, name), name, [writeStep(texts), sayStep("Listed.")]),
			),
		);
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		// One list is the plan's: its items land once each; the other session says it took it.
		const taken = runs.map((run) =>
			stderrOf(run.stderr).some((line) => line.startsWith("[til-done] Working the list ")),
		);
		expect(taken.toSorted()).toEqual([false, true]);
		const shared = taken[0] === true ? lists.desktop : lists.laptop;
		// Both "machines" here share this machine's host name, which names the sharer.
		expect(runs[taken.indexOf(true)]?.stderr).toContain(stderrLine(listTaken("origin", "main", 2, hostname())));
		expect(landedKeys(bare).toSorted()).toEqual(shared.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)").split("\n")).toEqual([
			"refs/heads/main",
			"refs/til-done/lists/main--list",
		]);
		expect(
			env
				.workerTries()
				.map((at) => at.item)
				.toSorted(),
		).toEqual([0, 1]);
		for (const name of Object.keys(lists))
			expect(readFileSync(join(env.root, name, "notes.txt"), "utf8")).toBe(NOTES_DONE);
	}, 120_000);

	it("a list ref pushed by hand, shared since a commit the branch does not hold: the session's own list is shared over it and each item lands once", async () => {
		const env = pi.env([], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		env.writeWorkerScripts(ADD_LINE_WORKERS);
		const forged = { plan: "main--list", since: "b".repeat(40), session: "s-x", host: "elsewhere" };
		const message = listMessage({ ...forged, items: [{ text: "Forged item", status: "not_started" }] });
		const empty = execFileSync("git", ["mktree"], { cwd: bare, input: "", encoding: "utf8" }).trim();
		const commit = execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", empty], {
			cwd: bare,
			input: message,
			encoding: "utf8",
		}).trim();
		gitIn(bare, "update-ref", "refs/til-done/lists/main--list", commit);
		const dir = machine(env, url, "laptop");
		const run = await listSession(host, env, dir, "laptop", [writeStep(ITEMS), sayStep("Listed.")]);
		expect(run.code).toBe(0);
		expect(stderrOf(run.stderr).filter((line) => line.startsWith("[til-done] Working the list "))).toEqual([]);
		expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "log", "-1", "--format=%B", "refs/til-done/lists/main--list")).toContain(`"text":"${ITEMS[0]}"`);
	}, 120_000);

	it("a machine that joins with no list while another works the shared one: it takes that list and works what is left; each item lands once", async () => {
		const texts = ["Write out/0.txt", "Write out/1.txt", "Write out/2.txt"];
		const env = pi.env([], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		const write = (index: number) => ({
			...bash(`mkdir -p out && echo 'item ${index}' > out/${index}.txt`),
			delayMs: 1500,
		});
		env.writeWorkerScripts(
			Object.fromEntries(texts.map((_, index) => [String(index), [write(index), sayStep("Done.")]])),
		);
		const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
		const first = listSession(host, env, laptop, "laptop", [writeStep(texts), sayStep("Listed.")]);
		const listed = () => gitIn(bare, "for-each-ref", "--format=%(refname)", "refs/til-done/lists/");
		await waitForValue(() => (listed() === "" ? undefined : true), 60_000, "the laptop's list shared");
		const second = await listSession(host, env, desktop, "desktop", [sayStep("Helping.")]);
		const runs = [await first, second];
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		expect(second.stderr).toContain(stderrLine(listJoined("origin", "main", 3, hostname())));
		expect(landedKeys(bare).toSorted()).toEqual(texts.map((text, index) => itemKey(index, text)).toSorted());
		expect(
			env
				.workerTries()
				.map((at) => at.item)
				.toSorted(),
		).toEqual([0, 1, 2]);
		// The second machine worked some of them: its landings are said on its own stderr.
		expect(stderrOf(second.stderr).some((line) => ON_BRANCH.test(line))).toBe(true);
		for (const dir of [laptop, desktop])
			expect(texts.map((_, index) => readFileSync(join(dir, "out", `${index}.txt`), "utf8"))).toEqual(
				texts.map((_, index) => `item ${index}\n`),
			);
	}, 120_000);

	it("`pi -p --continue` of a session that took the shared list: its replay holds the taken list, nothing is said again, and the run ends with each item landed once", async () => {
		const texts = ["Write out/0.txt", "Write out/1.txt"];
		const env = pi.env([], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		// Shared by another machine that is gone: the list ref on the remote, since the branch's tip.
		const since = gitIn(bare, "rev-parse", "main");
		const items = texts.map((text) => ({ text, status: "not_started" as const }));
		const message = listMessage({ plan: "main--list", since, items, session: "s-laptop", host: "laptop" });
		const empty = execFileSync("git", ["mktree"], { cwd: bare, input: "", encoding: "utf8" }).trim();
		const commit = execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", empty], {
			cwd: bare,
			input: message,
			encoding: "utf8",
		}).trim();
		gitIn(bare, "update-ref", "refs/til-done/lists/main--list", commit);
		const write = (index: number) => bash(`mkdir -p out && echo 'item ${index}' > out/${index}.txt`);
		// Item 1's first worker waits for a file no one writes: at work until its pi is stopped.
		const never = join(env.root, "never");
		const scripts = env.writeWorkerScripts({
			"0": [write(0), sayStep("Done.")],
			"1": [{ ...write(1), waitForFile: never }, sayStep("Done.")],
		});
		const desktop = machine(env, url, "desktop");
		const script = join(env.root, "script-first.json");
		writeFileSync(script, JSON.stringify([writeStep(["Write the notes"]), sayStep("Listed.")]));
		const args = ["--til-done-remote", "origin", "-p", "Work the plan."];
		const sessions = { dir: join(env.root, "sessions-desktop") };
		const first = spawnPi(
			piArgs({ extensions: [EXTENSION_ENTRY], session: sessions, args }),
			{ ...env.env, TIL_DONE_FAKE_SCRIPT: script },
			desktop,
			host,
		);
		first.stdin?.end();
		const said = collect(first);
		await waitForValue(() => (landedKeys(bare).length === 1 ? true : undefined), 60_000, "item 0 landed");
		await waitForValue(() => workerPid("data): [1]", scripts), 60_000, "item 1 at work");
		process.kill(first.pid ?? 0, "SIGTERM");
		await waitForExit(first);
		expect(said()).toContain(stderrLine(listTaken("origin", "main", 2, "laptop")));
		env.writeWorkerScripts({ "1": [write(1), sayStep("Done.")] });
		const again = await listSession(host, env, desktop, "desktop", [sayStep("Going on.")], ["--continue"]);
		expect(again.code).toBe(0);
		expect(stderrOf(again.stderr).filter((line) => line.startsWith("[til-done] Working the list "))).toEqual([]);
		expect(landedKeys(bare).toSorted()).toEqual(texts.map((text, index) => itemKey(index, text)).toSorted());
		// Item 1's first worker was stopped before its first answer: each item answered once.
		expect(env.workerTries().map((at) => at.item)).toEqual([0, 1]);
		expect(texts.map((_, index) => readFileSync(join(desktop, "out", `${index}.txt`), "utf8"))).toEqual([
			"item 0\n",
			"item 1\n",
		]);
	}, 120_000);

	it("the list ref deleted on the remote mid-run: the next dispatch shares the list again since the tip it was shared at, nothing said; each item lands once", async () => {
		const texts = ["Write out/0.txt", "Write out/1.txt", "Write out/2.txt"];
		const env = pi.env([], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		const since = gitIn(bare, "rev-parse", "main");
		const write = (index: number) => bash(`mkdir -p out && echo 'item ${index}' > out/${index}.txt`);
		// Item 1's worker waits for the test to delete the list ref.
		const go = join(env.root, "go");
		env.writeWorkerScripts({
			"0": [write(0), sayStep("Done.")],
			"1": [{ ...write(1), waitForFile: go }, sayStep("Done.")],
			"2": [write(2), sayStep("Done.")],
		});
		const laptop = machine(env, url, "laptop");
		const running = listSession(host, env, laptop, "laptop", [writeStep(texts), sayStep("Listed.")]);
		const listed = () => gitIn(bare, "for-each-ref", "--format=%(refname)", "refs/til-done/lists/");
		await waitForValue(() => (landedKeys(bare).length === 1 ? true : undefined), 60_000, "item 0 landed");
		expect(listed()).toBe("refs/til-done/lists/main--list");
		gitIn(bare, "update-ref", "-d", "refs/til-done/lists/main--list");
		writeFileSync(go, "");
		const run = await running;
		expect(run.code).toBe(0);
		expect(stderrOf(run.stderr).filter((line) => !ON_BRANCH.test(line) && !line.includes("Worker on ["))).toEqual([
			stderrLine(allFinished(3)).trimEnd(),
		]);
		expect(landedKeys(bare).toSorted()).toEqual(texts.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "log", "-1", "--format=%B", "refs/til-done/lists/main--list")).toContain(`"since":"${since}"`);
	}, 120_000);

	it("three machines with two workers each on twelve items: each item one commit on the branch, every work tree with all of them", async () => {
		const texts = Array.from({ length: 12 }, (_, index) => `Write out/${index}.txt`);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "10" });
		const { bare, url } = servedPlan(env, texts);
		const write = (index: number) => bash(`mkdir -p out && echo 'item ${index}' > out/${index}.txt`);
		env.writeWorkerScripts(
			Object.fromEntries(texts.map((_, index) => [String(index), [write(index), sayStep(`Wrote ${index}.`)]])),
		);
		const machines = ["laptop", "desktop", "runner"].map((name) => machine(env, url, name));
		const runs = await Promise.all(
			machines.map((dir, at) => session(host, env, dir, ["laptop", "desktop", "runner"][at] ?? "")),
		);
		expect(runs.map((run) => run.code)).toEqual([0, 0, 0]);
		const keys = texts.map((text, index) => itemKey(index, text));
		expect(landedKeys(bare).toSorted()).toEqual(keys.toSorted());
		expect(gitIn(bare, "rev-list", "--count", "main")).toBe("13");
		expect(gitIn(bare, "show", "main:PLAN.md")).toBe(planOf(texts, true).trimEnd());
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		const landings = runs.flatMap((run) => stderrOf(run.stderr)).filter((line) => ON_BRANCH_ANY.test(line));
		expect(landings.map((line) => Number(ON_BRANCH_ANY.exec(line)?.[1])).toSorted((a, b) => a - b)).toEqual(
			texts.map((_, index) => index),
		);
		for (const dir of machines) {
			const files = texts.map((_, index) => readFileSync(join(dir, "out", `${index}.txt`), "utf8"));
			expect(files).toEqual(texts.map((_, index) => `item ${index}\n`));
			expect(readFileSync(join(dir, "PLAN.md"), "utf8")).toBe(planOf(texts, true));
		}
	}, 240_000);

	it("a claim of another machine on the remote, never renewed: counted on the status bar as held, taken over after its lease, landed once", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "2" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
		// Another machine's claim, as its session pushed it, then never renewed (the machine slept, or its pi was killed).
		const key = itemKey(0, texts[0] ?? "");
		const stale = claimBy(laptop, { key, session: "s-desktop", host: "desktop" });
		gitIn(laptop, "push", "-q", "origin", `${stale}:refs/til-done/claims/main--PLAN_md/${key}`);
		const args = ["--til-done-plan", "PLAN.md", "--til-done-remote", "origin"];
		const client = await pi.rpc({ host, env: env.env, cwd: laptop, extensions: [EXTENSION_ENTRY], args });
		await client.prompt("Work the plan.");
		const landed = `Worker on [0]: landed on main of origin as `;
		await client.waitFor(
			() => reportedLines(client).some((line) => line.text.startsWith(landed)),
			60_000,
			"the item landed on the branch",
		);
		const shown = client.uiRequests.flatMap((request) =>
			request.method === "setStatus" && request.statusKey === KEY.workers ? [request.statusText] : [],
		);
		expect(shown).toContain("⇄ 1 held by other sessions");
		// Held, then (its lease run out) taken over: a worker of ours at work on it after.
		const working = `⚙ 1 worker(s): [0] ${texts[0]}`;
		expect(shown.lastIndexOf(working)).toBeGreaterThan(shown.indexOf("⇄ 1 held by other sessions"));
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(landedKeys(bare)).toEqual([key]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
	}, 90_000);

	it("a machine whose done-check differs from the verifier's: it does not take that verdict, it verifies the tip with its own check and pushes its verdict over", async () => {
		const { env, bare, laptop, desktop } = oneItemTwoMachines();
		// Outside every repository: each machine's check logs its name.
		const log = join(env.root, "check-runs.log");
		const lax = await session(host, env, laptop, "laptop", ["--til-done-check", `echo laptop >> '${log}'`]);
		expect(lax.code).toBe(0);
		const strict = `echo desktop >> '${log}' && grep -qx 'line 0' notes.txt`;
		const run = await session(host, env, desktop, "desktop", ["--til-done-check", strict]);
		expect(run.code).toBe(0);
		const tip = gitIn(bare, "rev-parse", "main");
		expect(stderrOf(run.stderr)).toContain(`[til-done] ${sharedVerdictLine(tip, hostname(), "passed (1 check)")}`);
		expect(readFileSync(log, "utf8")).toBe("laptop\ndesktop\n");
		expect(gitIn(bare, "log", "-1", "--format=%B", "refs/til-done/verdicts/main--PLAN_md")).toContain("grep -qx");
	}, 120_000);

	it("the judge on both machines: the verifier asks it once on the tip, the other machine takes that verdict with the judge's word and asks nothing", async () => {
		const { env, bare, laptop, desktop } = oneItemTwoMachines();
		scriptJudge(env, [judgeSays([[0, "met", "notes.txt has line 0."]])]);
		const first = await session(host, env, laptop, "laptop", JUDGE_ARGS);
		expect(first.code).toBe(0);
		const tip = gitIn(bare, "rev-parse", "main");
		expect(judgeCalls(env)).toHaveLength(1);
		expect(gitIn(bare, "log", "-1", "--format=%B", "refs/til-done/verdicts/main--PLAN_md")).toContain(
			"notes.txt has line 0.",
		);
		const second = await session(host, env, desktop, "desktop", JUDGE_ARGS);
		expect(second.code).toBe(0);
		expect(stderrOf(second.stderr)).toEqual([
			"[til-done] Loaded 1 item(s) from PLAN.md.",
			`[til-done] ${sharedVerdictLine(tip, hostname(), "passed (1 check)")}`,
			"[til-done] Every todo is finished (1) and the list passed its verification: nothing to continue.",
		]);
		expect(judgeCalls(env)).toHaveLength(1);
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
	}, 120_000);

	it("a judge that finds the item not met: the verdict fails on the tip for every machine alike, exit 4, the judge asked once", async () => {
		const { env, bare, laptop, desktop } = oneItemTwoMachines();
		scriptJudge(env, [judgeSays([[0, "not met", "notes.txt lacks the end line."]])]);
		const first = await session(host, env, laptop, "laptop", JUDGE_ARGS);
		const tip = gitIn(bare, "rev-parse", "main");
		const failed = "the judge ([0] not met: notes.txt lacks the end line.)";
		const lines = [
			`[til-done] ${sharedVerdictLine(tip, hostname(), `failed: ${failed}`)}`,
			`[til-done] ${sharedUnverifiedStop(tip, failed)}`,
		];
		expect(first.code).toBe(4);
		expect(stderrOf(first.stderr).slice(-2)).toEqual(lines);
		const second = await session(host, env, desktop, "desktop", JUDGE_ARGS);
		expect(second.code).toBe(4);
		expect(stderrOf(second.stderr).slice(-2)).toEqual(lines);
		expect(judgeCalls(env)).toHaveLength(1);
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
	}, 120_000);

	it("a verifier that dies during its done-check (its pi SIGKILLed): its claim runs out, another machine verifies the tip and both runs of the check are logged", async () => {
		const { env, bare, laptop, desktop } = oneItemTwoMachines("2");
		// The first run of the check (the laptop's) hangs until its pi is gone; any later one passes on line 0.
		const log = join(env.root, "check-runs.log");
		const first = join(env.root, "first-run");
		const check = `if mkdir '${first}' 2>/dev/null; then echo hung >> '${log}'; sleep 600; fi; echo ran >> '${log}'; grep -qx 'line 0' notes.txt`;
		const laptopEnv = { ...env.env, TIL_DONE_CHECK: check };
		const dying = startSession(host, laptopEnv, laptop, join(env.root, "sessions-laptop"));
		await waitForValue(() => (existsSync(log) ? true : undefined), 60_000, "the laptop's check running");
		process.kill(dying.pid ?? 0, "SIGKILL");
		expect((await waitForExit(dying)).signal).toBe("SIGKILL");
		expect(claimsOn(bare)).toEqual(["refs/til-done/claims/main--PLAN_md/verification"]);
		const run = await session(host, env, desktop, "desktop", ["--til-done-check", check]);
		expect(run.code).toBe(0);
		const tip = gitIn(bare, "rev-parse", "main");
		expect(stderrOf(run.stderr)).toContain(`[til-done] ${sharedVerdictLine(tip, hostname(), "passed (1 check)")}`);
		expect(readFileSync(log, "utf8")).toBe("hung\nran\n");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe(
			"refs/heads/main\nrefs/til-done/verdicts/main--PLAN_md",
		);
	}, 120_000);

	it("SIGTERM to the verifier's pi during its done-check: the check's process gone, its tree removed, nothing pushed, pi ends by the signal; another machine verifies the tip", async () => {
		const machines = oneItemTwoMachines("2");
		const { env, bare, laptop, desktop } = machines;
		const { check, child, checkGone } = await verifierWithHangingCheck(host, machines, "term");
		process.kill(child.pid ?? 0, "SIGTERM");
		// On a loaded machine stopping the check and letting the claim go take seconds: the test's own kill comes late.
		const end = await waitForExit(child, 30_000);
		expect({ code: end.code, signal: end.signal }).toEqual({ code: 143, signal: null });
		await checkGone();
		expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-"))).toEqual([]);
		expect(existsSync(join(laptop, "made-by-check.txt"))).toBe(false);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		await desktopVerifies(host, machines, check);
		expect(gitIn(bare, "ls-tree", "--name-only", "main")).toBe("PLAN.md\nnotes.txt");
		expect(existsSync(join(desktop, "made-by-check.txt"))).toBe(false);
		expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-"))).toEqual([]);
	}, 120_000);

	it("Ctrl+C (SIGINT) to the verifier's pi during its done-check: the check ends, its tree is removed, its claim let go at once, pi ends by the signal; another machine verifies the tip with no lease to wait out", async () => {
		// A lease far longer than the test: only a claim let go lets the desktop verify.
		const machines = oneItemTwoMachines("600");
		const { env, bare } = machines;
		const { check, child, checkGone } = await verifierWithHangingCheck(host, machines, "int");
		process.kill(child.pid ?? 0, "SIGINT");
		// On a loaded machine stopping the check and letting the claim go take seconds: the test's own kill comes late.
		const end = await waitForExit(child, 30_000);
		expect({ code: end.code, signal: end.signal }).toEqual({ code: null, signal: "SIGINT" });
		await checkGone();
		expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-"))).toEqual([]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		await desktopVerifies(host, machines, check);
	}, 120_000);

	it("Ctrl+C twice to the verifier's pi, the second while the first is held: pi ends by the signal, nothing of its left past a later run, another machine verifies the tip once the claim is let go or after the lease", async () => {
		const machines = oneItemTwoMachines("2");
		const { env, bare } = machines;
		const { check, child, checkGone } = await verifierWithHangingCheck(host, machines, "int2");
		process.kill(child.pid ?? 0, "SIGINT");
		// The first is held once its check is stopped: the second comes while the claim is let go.
		await checkGone();
		try {
			process.kill(child.pid ?? 0, "SIGINT");
		} catch {
			// Ended by the first before the second came: the same end.
		}
		const end = await waitForExit(child);
		expect({ code: end.code, signal: end.signal }).toEqual({ code: null, signal: "SIGINT" });
		await desktopVerifies(host, machines, check);
		// No claim is left, the laptop's let go or taken over; the verdict's record stays.
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)", "refs/til-done/claims/")).toBe("");
		expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-"))).toEqual([]);
	}, 120_000);

	it("a machine that dies mid-item (its pi and worker SIGKILLed): its claim runs out, another machine takes it over and lands it once", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "2" });
		const { bare, url } = servedPlan(env, texts);
		const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
		// The laptop's worker adds its line, then waits on a file the test never makes: it dies before it answers.
		env.writeWorkerScripts({
			"0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: join(env.root, "never") }],
		});
		const dying = startSession(host, env.env, laptop, join(env.root, "sessions-laptop"));
		await untilWorkerWaits(env, "the laptop's worker at work");
		expect(claimsOn(bare)).toHaveLength(1);
		// A machine that dies: its pi, and its worker with it (the worker ends with the session that started it).
		process.kill(dying.pid ?? 0, "SIGKILL");
		expect((await waitForExit(dying)).signal).toBe("SIGKILL");
		const run = await session(host, { ...env, env: { ...env.env, ...quickWorker(env) } }, desktop, "desktop");
		expect(run.code).toBe(0);
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES);
	}, 120_000);

	it("a holder whose git clock is a day ahead, renewing: another machine waiting through more than its lease never takes the claim over; the item lands once, by the holder", async () => {
		const texts = ITEMS.slice(0, 1);
		const key = itemKey(0, texts[0] ?? "");
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "3" });
		const { bare, url } = servedPlan(env, texts);
		const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
		const go = join(env.root, "go");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		// Every commit of the laptop's (its claims and their renewals among them) dated a day ahead.
		const aheadMs = Date.now() + 86_400_000;
		const ahead = new Date(aheadMs).toISOString();
		const laptopEnv = { ...env.env, GIT_COMMITTER_DATE: ahead, GIT_AUTHOR_DATE: ahead };
		const holder = startSession(host, laptopEnv, laptop, join(env.root, "sessions-laptop"));
		await untilWorkerWaits(env, "the laptop's worker at work");
		const renewals = () => {
			const record = gitIn(bare, "log", "-1", "--format=%B", `${CLAIMS}${key}`).split("\n")[2] ?? "{}";
			return (JSON.parse(record) as { renewals?: number }).renewals ?? 0;
		};
		const waiting = startSession(
			host,
			{ ...env.env, ...quickWorker(env) },
			desktop,
			join(env.root, "sessions-desktop"),
		);
		const desktopErr = collect(waiting);
		const started = `[til-done] ${PLAN_NOTICES.loaded("PLAN.md", 1)}`;
		await waitForValue(() => (desktopErr().includes(started) ? true : undefined), 60_000, "the desktop started");
		// Nine renewals from then, at a third of the lease each: the desktop has looked on for over two leases.
		const from = renewals();
		await waitForValue(() => (renewals() >= from + 9 ? true : undefined), 60_000, "nine renewals by the laptop");
		writeFileSync(go, "");
		const [held, desktopRun] = [await waitForExit(holder, 60_000), await waitForExit(waiting, 60_000)];
		expect([held.code, desktopRun.code]).toEqual([0, 0]);
		expect(stderrOf(desktopErr()).filter((line) => ON_BRANCH.test(line))).toEqual([]);
		expect(landedKeys(bare)).toEqual([key]);
		// The landing is the laptop's, dated by its clock.
		expect(gitIn(bare, "log", "-1", "--format=%ct", "main")).toBe(String(Math.floor(aheadMs / 1000)));
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		for (const dir of [laptop, desktop])
			expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("start\nline 0\n1\n2\n3\nend\n");
	}, 120_000);

	it("a stopped session (SIGSTOP) whose claim was taken over meanwhile never lands: its work kept under a ref and said, the item landed once", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "2" });
		const { bare, url } = servedPlan(env, texts);
		const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
		const go = join(env.root, "go");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		const zombie = startSession(host, env.env, laptop, join(env.root, "sessions-laptop"));
		const zombieErr = collect(zombie);
		await untilWorkerWaits(env, "the laptop's worker at work");
		// A laptop that sleeps: its pi stops renewing; its worker, done, waits for it.
		process.kill(zombie.pid ?? 0, "SIGSTOP");
		const desktopRun = await session(host, { ...env, env: { ...env.env, ...quickWorker(env) } }, desktop, "desktop");
		expect(desktopRun.code).toBe(0);
		process.kill(zombie.pid ?? 0, "SIGCONT");
		writeFileSync(go, "");
		const woke = await waitForExit(zombie, 60_000);
		expect(woke.code).toBe(0);
		expect(stderrOf(zombieErr())).toContain(stderrLine(WORKERS.givenBack(0, CLAIM_LOST_WHY)).trimEnd());
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		const kept = keptRefs(laptop);
		expect(kept).toHaveLength(1);
		expect(gitIn(laptop, "show", `${kept[0]}:notes.txt`)).toBe("start\nline 0\n1\n2\n3\nend");
		// The laptop's work tree took what the desktop landed: the line once.
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES_DONE.replace("line 1\n", ""));
	}, 180_000);

	it("SIGINT while the item's push is under way: the landing holds, the item lands once on the branch and in the work tree, said, and pi ends by the signal", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
		// The remote holds the branch's push (the landing) until the test says go; claims pass at once.
		const [entered, go] = [join(env.root, "push-entered"), join(env.root, "push-go")];
		const hook = join(bare, "hooks", "pre-receive");
		writeFileSync(
			hook,
			`#!/bin/sh\ngrep -q ' refs/heads/main$' || exit 0\ntouch '${entered}'\nwhile [ ! -f '${go}' ]; do sleep 0.05; done\n`,
		);
		chmodSync(hook, 0o755);
		const running = startSession(host, env.env, laptop, join(env.root, "sessions-laptop"));
		const stderr = collect(running);
		await waitForValue(() => (existsSync(entered) ? true : undefined), 60_000, "the landing's push at the remote");
		process.kill(running.pid ?? 0, "SIGINT");
		writeFileSync(go, "");
		const ended = await waitForExit(running, 60_000);
		expect(ended).toEqual({ code: null, signal: "SIGINT" });
		const lines = stderrOf(stderr());
		expect(lines.filter((line) => ON_BRANCH.test(line))).toHaveLength(1);
		expect(lines).toContain(stderrLine(WORKERS.landedOnStop(0)).trimEnd());
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe("start\nline 0\n1\n2\n3\nend\n");
	}, 120_000);

	it("the remote lost once the session joined: nothing claimed or landed, said once, then after a lease the run stops with exit 4", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "1" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		// The session's own model cuts the network in its first turn: the remote answers "not found" from then on.
		env.writeScript([bash(`mv '${bare}' '${bare}.away'`), sayStep("Working the plan.")]);
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
		const run = await session(host, env, laptop, "laptop");
		expect(stderrOf(run.stderr)).toEqual([
			`[til-done] Loaded 1 item(s) from PLAN.md.`,
			`[til-done] ${WORKERS.claimsUnreachable("origin")}`,
			`[til-done] ${REMOTE_DOWN_STOP}`,
		]);
		expect(run.code).toBe(4);
		expect(env.workerTries()).toEqual([]);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES);
		expect(readFileSync(join(laptop, "PLAN.md"), "utf8")).toBe(planOf(texts, false));
		expect(gitIn(laptop, "for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe("");
		execFileSync("mv", [`${bare}.away`, bare]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(gitIn(bare, "rev-list", "--count", "main")).toBe("1");
	}, 60_000);

	/**
	 * One item on the laptop, whose first try adds its line and waits until `takeAway` has taken its claim from it: the
	 * try's work is kept and said, never landed; the next try claims it again and lands it, once.
	 */
	async function workerWhoseClaimGoes(
		lease: string,
		takeAway: (on: { env: IsolatedEnv; bare: string; url: string; key: string }) => Promise<void>,
	) {
		const texts = ITEMS.slice(0, 1);
		const key = itemKey(0, texts[0] ?? "");
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: lease });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		const go = join(env.root, "go");
		env.writeWorkerScripts({
			// The first try adds its line, then waits on a file the test makes once the try's work is kept.
			"0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }],
			"0/again": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")],
		});
		const start = gitIn(bare, "rev-parse", "main");
		const running = session(host, env, laptop, "laptop");
		await untilWorkerWaits(env, "the first try waiting");
		await takeAway({ env, bare, url, key });
		const kept = await untilWorkKept(laptop).finally(() => writeFileSync(go, ""));
		const run = await running;
		expect(run.code).toBe(0);
		const lines = stderrOf(run.stderr);
		// Said as what it is: no longer its claim, taken over or freed by hand.
		expect(lines).toContain(stderrLine(WORKERS.givenBack(0, CLAIM_LOST_WHY)).trimEnd());
		expect(lines.filter((line) => ON_BRANCH.test(line))).toHaveLength(1);
		// The kept try holds its own line; the branch has the item once, landed by the try that took the claim back.
		expect(gitIn(laptop, "show", `${kept}:notes.txt`)).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(landedKeys(bare)).toEqual([key]);
		expect(gitIn(bare, "rev-parse", "main^")).toBe(start);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0, 0]);
	}

	it("a worker whose claim another machine took over on the remote never lands: its work kept under a ref and said, the item landed once by the next try", async () => {
		await workerWhoseClaimGoes("1", async ({ bare, key }) => {
			gitIn(bare, "update-ref", `${CLAIMS}${key}`, claimBy(bare, { key, session: "s2", host: "desktop", fence: 2 }));
		});
	}, 120_000);

	it("`/todos remote release 0` from another machine's `pi -p` while a live worker holds the item: the holder's landing is refused, its work kept under a ref and said, the item landed once", async () => {
		await workerWhoseClaimGoes("60", async ({ env, bare, url, key }) => {
			expect(claimsOn(bare)).toEqual([`${CLAIMS}${key}`]);
			const args = ["--til-done-plan", "PLAN.md", "--til-done-remote", "origin", "-p", "/todos remote release 0"];
			const release = await runPrint(args, env.env, {
				host,
				cwd: machine(env, url, "desktop"),
				extensions: [EXTENSION_ENTRY],
				session: { dir: join(env.root, "sessions-desktop") },
			});
			expect(stderrOf(release.stderr)).toContain(`[til-done] ${releasedClaim(0, hostname())}`);
			expect(release.code).toBe(0);
		});
	}, 120_000);

	it("an item whose change conflicts with what another machine landed on the branch: given back naming the branch and the file, nothing pushed, the work tree untouched", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_MAX_FAILURES: "1" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		const desktop = machine(env, url, "desktop");
		const go = join(env.root, "go");
		// The worker adds its line under `start`, then waits while the other machine rewrites that very line.
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		const running = session(host, env, laptop, "laptop");
		await untilWorkerWaits(env, "the worker waiting");
		writeFileSync(join(desktop, "notes.txt"), NOTES.replace("start", "START"));
		gitIn(desktop, "commit", "-qam", "another machine's edit");
		gitIn(desktop, "push", "-q", "origin", "main");
		const theirs = gitIn(bare, "rev-parse", "main");
		writeFileSync(go, "");
		const run = await running;
		const why = WORKERS.conflictsOnBranch("main", "origin", "notes.txt");
		expect(stderrOf(run.stderr)).toEqual([
			`[til-done] ${PLAN_NOTICES.loaded("PLAN.md", 1)}`,
			startedLine(0, texts[0] ?? ""),
			stderrLine(WORKERS.givenBack(0, why)).trimEnd(),
			// The stop, which the session's model reads, names no file of the worker's.
			stderrLine(workerFailures(1, WORKERS.conflictsOnBranch("main", "origin"))).trimEnd(),
		]);
		expect(run.code).toBe(4);
		expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(`${theirs} refs/heads/main`);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES);
		expect(readFileSync(join(laptop, "PLAN.md"), "utf8")).toBe(planOf(texts, false));
		// Work given back for a conflict is never landed blindly: `--continue` works the item again.
		expect(keptRefs(laptop)).toHaveLength(1);
		const tries = env.workerTries();
		// The next try adds its line where the branch has no change of another's.
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[1]?.replace("line 1", "line 0") ?? ""), sayStep("Added line 0.")] });
		const again = await session(host, env, laptop, "laptop", ["--continue"]);
		expect(again.code).toBe(0);
		expect(env.workerTries().map((one) => one.item)).toEqual([...tries.map((one) => one.item), 0]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("START\n1\n2\n3\nline 0\nend");
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		// The conflicting try's work stays kept, under its ref.
		expect(keptRefs(laptop)).toHaveLength(1);
	}, 180_000);

	it("a ref on the remote where the item's claim should be that holds no claim: one line, nothing worked or pushed, the run ends", async () => {
		const texts = ITEMS.slice(0, 1);
		const key = itemKey(0, texts[0] ?? "");
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "1" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
		const tree = execFileSync("git", ["mktree"], { cwd: bare, input: "", encoding: "utf8" }).trim();
		gitIn(bare, "update-ref", `${CLAIMS}${key}`, gitIn(bare, "commit-tree", tree, "-m", "not a claim"));
		const before = gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)");
		const run = await session(host, env, laptop, "laptop");
		expect(stderrOf(run.stderr)).toEqual([
			`[til-done] ${PLAN_NOTICES.loaded("PLAN.md", 1)}`,
			`[til-done] ${WORKERS.malformedClaim(0)}`,
			`[til-done] ${claimsMalformedStop(0)}`,
		]);
		expect(run.code).toBe(4);
		expect(env.workerTries()).toEqual([]);
		expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(before);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES);
	}, 120_000);

	it("a branch with slashes, a plan file with a space, and the person's own edit of the line the item changes: the item lands on the branch once, their bytes kept, said", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
		const seed = join(env.root, "seed");
		execFileSync("mkdir", ["-p", seed]);
		gitIn(seed, "init", "-q", "-b", "team/plan-a");
		writeFileSync(join(seed, "notes.txt"), NOTES);
		writeFileSync(join(seed, "my plan.md"), planOf(texts, false));
		gitIn(seed, "add", "-A");
		gitIn(seed, "commit", "-qm", "start");
		gitIn(seed, "tag", "v1");
		const name = `team-${++repos}.git`;
		const bare = server.bare(name, { repo: seed, branch: "team/plan-a" });
		gitIn(seed, "push", "-q", bare, "v1", "team/plan-a:refs/heads/other");
		const laptop = machine(env, server.url(name), "laptop");
		const go = join(env.root, "go");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		const others = () =>
			gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)", "refs/tags", "refs/heads/other");
		const before = others();
		const args = ["--til-done-plan", "my plan.md", "--til-done-remote", "origin", "-p", "Work the plan."];
		const running = runPrint(args, env.env, { host, cwd: laptop, extensions: [EXTENSION_ENTRY], timeoutMs: 90_000 });
		await untilWorkerWaits(env, "the worker waiting");
		// The person edits the very line the item changes, after its worker took its snapshot.
		const mine = NOTES.replace("start", "START, mine");
		writeFileSync(join(laptop, "notes.txt"), mine);
		writeFileSync(go, "");
		const run = await running;
		const lines = stderrOf(run.stderr);
		expect(lines.filter((line) => /landed on team\/plan-a of origin as [0-9a-f]{12}\.$/.test(line))).toHaveLength(1);
		expect(lines).toContain(
			stderrLine(WORKERS.notInWorkTree(0, "team/plan-a", WORKERS.conflicts("notes.txt"))).trimEnd(),
		);
		expect(run.code).toBe(0);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(mine);
		expect(gitIn(bare, "show", "team/plan-a:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "show", "team/plan-a:my plan.md")).toBe(planOf(texts, true).trimEnd());
		expect(gitIn(bare, "rev-list", "--count", "team/plan-a")).toBe("2");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe("");
		expect(others()).toBe(before);
	}, 120_000);

	it("another machine lands on the branch between the landing's read and its push: refused for the tip, merged again, landed once on top of it", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		const desktop = machine(env, url, "desktop");
		const go = join(env.root, "go");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		// The other machine's commit reaches the remote's objects now, and its branch just before our next push.
		writeFileSync(join(desktop, "other.txt"), "the other machine's\n");
		gitIn(desktop, "add", "other.txt");
		gitIn(desktop, "commit", "-qm", "another machine's landing");
		const theirs = gitIn(desktop, "rev-parse", "HEAD");
		gitIn(desktop, "push", "-q", "origin", "HEAD:refs/scratch/theirs");
		gitIn(bare, "update-ref", "-d", "refs/scratch/theirs");
		const running = session(host, env, laptop, "laptop");
		await untilWorkerWaits(env, "the worker waiting");
		server.beforePush(1, ["--git-dir", bare, "update-ref", "refs/heads/main", theirs]);
		writeFileSync(go, "");
		const run = await running;
		server.serveAll();
		expect(run.code).toBe(0);
		expect(stderrOf(run.stderr).filter((line) => ON_BRANCH.test(line))).toHaveLength(1);
		expect(gitIn(bare, "rev-parse", "main^")).toBe(theirs);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.replace("line 1\n", "").trimEnd());
		expect(gitIn(bare, "show", "main:other.txt")).toBe("the other machine's");
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES_DONE.replace("line 1\n", ""));
	}, 120_000);

	it("the network cut as the item lands: nothing lands, the work kept under a ref and said, the run stops; `--continue` once the remote is back lands the kept work once, no worker again", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "3" });
		const { bare, url } = servedPlan(env, texts);
		const laptop = machine(env, url, "laptop");
		const go = join(env.root, "go");
		env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }] });
		const start = gitIn(bare, "rev-parse", "main");
		const running = session(host, env, laptop, "laptop");
		await untilWorkerWaits(env, "the worker waiting");
		server.refuseAfter(0);
		writeFileSync(go, "");
		const cut = await running;
		server.serveAll();
		const lines = stderrOf(cut.stderr);
		expect(lines).toContain(stderrLine(WORKERS.givenBack(0, WORKERS.unreachableBranch("main", "origin"))).trimEnd());
		expect(lines.at(-1)).toBe(`[til-done] ${REMOTE_DOWN_STOP}`);
		expect(cut.code).toBe(4);
		expect(gitIn(bare, "rev-parse", "main")).toBe(start);
		const kept = keptRefs(laptop);
		expect(kept).toHaveLength(1);
		expect(gitIn(laptop, "show", `${kept[0]}:notes.txt`)).toBe("start\nline 0\n1\n2\n3\nend");
		const tries = env.workerTries();
		expect(tries.map((one) => one.item)).toEqual([0]);
		// The remote back, the same session goes on: the work kept lands, no worker works the item again.
		const again = await session(host, env, laptop, "laptop", ["--continue"]);
		const landed = gitIn(bare, "rev-parse", "main");
		expect(stderrOf(again.stderr)).toContain(stderrLine(WORKERS.keptLanded(0, "main", "origin", landed)).trimEnd());
		expect(again.code).toBe(0);
		expect(env.workerTries()).toEqual(tries);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe("start\nline 0\n1\n2\n3\nend");
		expect(gitIn(bare, "show", "main:PLAN.md")).toBe(planOf(texts, true).trimEnd());
		expect(landedKeys(bare)).toEqual([itemKey(0, texts[0] ?? "")]);
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		expect(keptRefs(laptop)).toEqual([]);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe("start\nline 0\n1\n2\n3\nend\n");
	}, 180_000);

	it.each([
		{
			what: "a PLAN.md on the branch that is no plan",
			branchPlan: "# Plan\n\n- [ ] Add line 0 to notes.txt\n\nProse after the items.\n",
			why: JOIN_WHY.planNotAPlan("PLAN.md", "main"),
		},
		{
			what: "a PLAN.md on the branch whose item differs from this clone's",
			branchPlan: planOf(["Add line zero to notes.txt"], false),
			why: JOIN_WHY.planDiffers("PLAN.md", "main", 0),
		},
	])(
		"$what: its line before any model call, exit 2, nothing pushed",
		async ({ branchPlan, why }) => {
			const texts = ITEMS.slice(0, 1);
			const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
			const { bare, url } = servedPlan(env, texts, branchPlan);
			const laptop = machine(env, url, "laptop");
			// This clone's plan file is a plan of its own (an edit not committed): the list the session loads.
			writeFileSync(join(laptop, "PLAN.md"), planOf(texts, false));
			env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
			const before = gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)");
			const run = await session(host, env, laptop, "laptop");
			expect(run.stderr).toBe(
				stderrLine(`pi-til-done: ${cannotJoin("origin", why)}`) +
					stderrLine(PLAN_NOTICES.loaded("PLAN.md", 1)) +
					stderrLine(RUN_REFUSED),
			);
			expect(run.code).toBe(2);
			expect(env.readLog()).toEqual([]);
			expect(env.workerTries()).toEqual([]);
			expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(before);
		},
		120_000,
	);

	it.each([
		["relative", () => "../PLAN.md"],
		["absolute", (top: string) => join(top, "PLAN.md")],
	] as const)(
		"pi started in a subfolder of the clone, the plan file named by a %s path: each item lands once on the branch, the plan file true, exit 0",
		async (_how, planPath) => {
			const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
			const { bare, url } = servedPlan(env, ITEMS);
			// Wherever in its tree the worker's pi starts, its item's line goes to the top's notes.txt.
			const atTop = (index: number) => bash(`cd "$(git rev-parse --show-toplevel)" && ${ADD_LINE[index]}`);
			env.writeWorkerScripts({
				"0": [atTop(0), sayStep("Added line 0.")],
				"1": [atTop(1), sayStep("Added line 1.")],
			});
			const laptop = machine(env, url, "laptop");
			const sub = join(laptop, "sub");
			execFileSync("mkdir", ["-p", sub]);
			writeFileSync(join(sub, "here.txt"), "the person's own\n");
			const args = ["--til-done-plan", planPath(laptop), "--til-done-remote", "origin", "-p", "Work the plan."];
			const run = await runPrint(args, env.env, {
				host,
				cwd: sub,
				extensions: [EXTENSION_ENTRY],
				session: { dir: join(env.root, "sessions-laptop") },
				timeoutMs: 200_000,
			});
			expect(stderrOf(run.stderr).filter((line) => ON_BRANCH.test(line))).toHaveLength(2);
			expect(run.code).toBe(0);
			expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
			expect(gitIn(bare, "show", "main:PLAN.md")).toBe(planOf(ITEMS, true).trimEnd());
			expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
			expect(gitIn(bare, "rev-list", "--count", "main")).toBe("3");
			expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
			expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES_DONE);
			expect(readFileSync(join(laptop, "PLAN.md"), "utf8")).toBe(planOf(ITEMS, true));
			expect(readFileSync(join(sub, "here.txt"), "utf8")).toBe("the person's own\n");
		},
		120_000,
	);

	it("an item that makes run.sh executable and one that adds a symlink, on two machines at once: each work tree has both, mode 100755 and a link, the person's 0600 file and uncommitted change kept", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		env.writeWorkerScripts({
			"0": [{ ...bash("printf 'echo hi\\n' > run.sh && chmod +x run.sh"), delayMs: 1000 }, sayStep("Made run.sh.")],
			"1": [{ ...bash("ln -s notes.txt link"), delayMs: 1000 }, sayStep("Linked.")],
		});
		const [laptop, desktop] = [machine(env, url, "laptop"), machine(env, url, "desktop")];
		for (const dir of [laptop, desktop]) {
			writeFileSync(join(dir, "secret.txt"), "the person's secret\n");
			chmodSync(join(dir, "secret.txt"), 0o600);
			writeFileSync(join(dir, "notes.txt"), NOTES.replace("\n2\n", "\ntwo\n"));
		}
		const runs = await Promise.all([session(host, env, laptop, "laptop"), session(host, env, desktop, "desktop")]);
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "ls-tree", "main", "run.sh", "link").replace(/ [0-9a-f]{40}\t/g, " ")).toBe(
			"120000 blob link\n100755 blob run.sh",
		);
		for (const dir of [laptop, desktop]) {
			expect(lstatSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755);
			expect(readFileSync(join(dir, "run.sh"), "utf8")).toBe("echo hi\n");
			expect(readlinkSync(join(dir, "link"))).toBe("notes.txt");
			expect(lstatSync(join(dir, "secret.txt")).mode & 0o777).toBe(0o600);
			expect(readFileSync(join(dir, "secret.txt"), "utf8")).toBe("the person's secret\n");
			expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe(NOTES.replace("\n2\n", "\ntwo\n"));
			expect(readFileSync(join(dir, "PLAN.md"), "utf8")).toBe(planOf(ITEMS, true));
		}
	}, 120_000);

	it("two sessions in one clone (the same work tree), both joined and started at once with two workers each: each item's work in the files once, the person's uncommitted change kept, both exit 0", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		slowTwoItems(env);
		const laptop = machine(env, url, "laptop");
		const edited = NOTES.replace("\n2\n", "\ntwo\n");
		writeFileSync(join(laptop, "notes.txt"), edited);
		writeFileSync(join(laptop, "mine.txt"), "the person's own\n");
		const runs = await Promise.all([session(host, env, laptop, "first"), session(host, env, laptop, "second")]);
		expect(runs.map((run) => run.code)).toEqual([0, 0]);
		expect(gitIn(bare, "show", "main:notes.txt")).toBe(NOTES_DONE.trimEnd());
		expect(landedKeys(bare).toSorted()).toEqual(ITEMS.map((text, index) => itemKey(index, text)).toSorted());
		expect(gitIn(bare, "rev-list", "--count", "main")).toBe("3");
		expect(gitIn(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
		const landings = runs.flatMap((run) => stderrOf(run.stderr)).filter((line) => ON_BRANCH.test(line));
		expect(landings.map((line) => Number(ON_BRANCH.exec(line)?.[1])).toSorted()).toEqual([0, 1]);
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES_DONE.replace("\n2\n", "\ntwo\n"));
		expect(readFileSync(join(laptop, "mine.txt"), "utf8")).toBe("the person's own\n");
		expect(readFileSync(join(laptop, "PLAN.md"), "utf8")).toBe(planOf(ITEMS, true));
		// Nothing else left in the work tree (its HEAD untouched: the landings are changes in it, as on one machine).
		expect(
			gitIn(laptop, "status", "--porcelain", "--untracked-files=all")
				.split("\n")
				.map((line) => line.trim()),
		).toEqual(["M PLAN.md", "M notes.txt", "?? mine.txt"]);
	}, 120_000);

	it("the branch force-pushed back to its start while a worker works, after another item landed: nothing lands on the rewritten tip, the person's work kept, each try said and the run stops", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS);
		const go = join(env.root, "go");
		env.writeWorkerScripts({
			"0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")],
			"1": [bash(ADD_LINE[1] ?? ""), { ...sayStep("Added line 1."), waitForFile: go }],
		});
		const laptop = machine(env, url, "laptop");
		const start = gitIn(bare, "rev-parse", "main");
		const running = session(host, env, laptop, "laptop");
		await untilWorkerWaits(env, "item 1's worker waiting");
		await waitForValue(() => (landedKeys(bare).length === 1 ? true : undefined), 60_000, "item 0 landed");
		// Someone force-pushes the branch back to where it started: item 0's landing is gone from it.
		gitIn(bare, "update-ref", "refs/heads/main", start);
		writeFileSync(go, "");
		const run = await running;
		const why = WORKERS.rewrittenBranch("main", "origin");
		const [landed, again] = [stderrLine(WORKERS.givenBack(1, why)).trimEnd(), startedLine(1, ITEMS[1] ?? "")];
		// Before, item 1 landed on the start as if item 0 were there: the branch lost it, and the run said all finished.
		expect(stderrOf(run.stderr).slice(4)).toEqual([
			startedLine(1, ITEMS[1] ?? ""),
			landed,
			again,
			landed,
			again,
			landed,
			stderrLine(workerFailures(3, why)).trimEnd(),
		]);
		expect(run.code).toBe(4);
		expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(`${start} refs/heads/main`);
		// The person's tree keeps item 0's landing; item 1's work is kept under its refs, one per try.
		expect(readFileSync(join(laptop, "notes.txt"), "utf8")).toBe(NOTES.replace("start\n", "start\nline 0\n"));
		expect(readFileSync(join(laptop, "PLAN.md"), "utf8")).toBe(planWith(ITEMS, [0]));
		expect(keptRefs(laptop)).toHaveLength(3);
	}, 120_000);

	it("an item that makes run.sh executable, taken in by a machine whose person edited run.sh: their bytes kept, the mode 0755 with them, the branch 100755", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "5" });
		const { bare, url } = servedPlan(env, ITEMS.slice(0, 1));
		env.writeWorkerScripts({ "0": [bash("chmod +x run.sh"), sayStep("Made run.sh executable.")] });
		const desktop = machine(env, url, "desktop");
		writeFileSync(join(desktop, "run.sh"), "echo hi\n");
		gitIn(desktop, "add", "run.sh");
		gitIn(desktop, "commit", "-qm", "run.sh");
		gitIn(desktop, "push", "-q", "origin", "main");
		const laptop = machine(env, url, "laptop");
		writeFileSync(join(desktop, "run.sh"), "echo the person's\n");
		const first = await session(host, env, laptop, "laptop");
		expect(first.code).toBe(0);
		// The desktop finds the item landed: nothing worked there, the landing taken into its tree.
		const second = await session(host, env, desktop, "desktop");
		expect(second.code).toBe(0);
		expect(stderrOf(second.stderr)).toEqual([
			`[til-done] ${PLAN_NOTICES.loaded("PLAN.md", 1)}`,
			`[til-done] ${allFinished(1)}`,
		]);
		expect(gitIn(bare, "ls-tree", "--format=%(objectmode) %(path)", "main", "run.sh")).toBe("100755 run.sh");
		expect(lstatSync(join(desktop, "run.sh")).mode & 0o777).toBe(0o755);
		expect(readFileSync(join(desktop, "run.sh"), "utf8")).toBe("echo the person's\n");
		expect(readFileSync(join(desktop, "PLAN.md"), "utf8")).toBe(planOf(ITEMS.slice(0, 1), true));
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
	}, 120_000);

	it("a plan file outside the repository: its line before any model call, exit 2, nothing pushed", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
		const { bare, url } = servedPlan(env, ITEMS);
		const laptop = machine(env, url, "laptop");
		writeFileSync(join(env.root, "OUTSIDE.md"), planOf(ITEMS, false));
		const before = gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)");
		const args = ["--til-done-plan", "../OUTSIDE.md", "--til-done-remote", "origin", "-p", "Work the plan."];
		const run = await runPrint(args, env.env, { host, cwd: laptop, extensions: [EXTENSION_ENTRY] });
		expect(run.stderr).toBe(
			stderrLine(`pi-til-done: ${cannotJoin("origin", JOIN_WHY.planOutside("../OUTSIDE.md"))}`) +
				stderrLine(PLAN_NOTICES.loaded("../OUTSIDE.md", 2)) +
				stderrLine(RUN_REFUSED),
		);
		expect(run.code).toBe(2);
		expect(env.readLog()).toEqual([]);
		expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(before);
	});

	it("a plan file that is not on the remote's branch: its line before any model call, exit 2, nothing pushed", async () => {
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1" });
		const { bare, url } = servedPlan(env, ITEMS);
		const laptop = machine(env, url, "laptop");
		writeFileSync(join(laptop, "OTHER.md"), planOf(ITEMS, false));
		const before = gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)");
		const args = ["--til-done-plan", "OTHER.md", "--til-done-remote", "origin", "-p", "Work the plan."];
		const run = await runPrint(args, env.env, { host, cwd: laptop, extensions: [EXTENSION_ENTRY] });
		// The file is followed as always (the session has its list), but nothing runs.
		expect(run.stderr).toBe(
			stderrLine(`pi-til-done: ${cannotJoin("origin", JOIN_WHY.planNotOnBranch("OTHER.md", "main"))}`) +
				stderrLine(PLAN_NOTICES.loaded("OTHER.md", 2)) +
				stderrLine(RUN_REFUSED),
		);
		expect(run.code).toBe(2);
		expect(env.readLog()).toEqual([]);
		expect(gitIn(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(before);
	});
});
