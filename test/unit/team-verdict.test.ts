/**
 * A shared plan's finished list through the engine, with a fake pi, against a real repository and its remote (a bare
 * repository beside it): verified once per tip of the branch, in a tree of the tip; a verdict recorded for the tip is
 * taken with nothing run; a verification another session holds is waited for; a failed verdict stops the run with
 * nothing reopened; a remote that does not answer stops it after a lease.
 */
import { execFileSync } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { planName } from "../../src/core/rules/leases.ts";
import {
	type SharedVerdict,
	VERIFICATION_KEY,
	verdictMessage,
	verdictRef,
} from "../../src/core/rules/shared-verdict.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { newNonce, takeClaim } from "../../src/edges/git/leases.ts";
import { beginSession, getDecisions, getTodos, isVerified, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startEngine } from "../helpers/engine.ts";
import { REMOTE_DOWN_STOP, sharedUnverifiedStop, sharedVerdictLine, WORKERS } from "../helpers/expected.ts";
import { runnerEnded } from "../helpers/fake-runner.ts";
import { must } from "../helpers/must.ts";
import { planWith, repoWithRemote } from "../helpers/plan-remote.ts";

/** What each try of the verification came to, in order. */
const tried = vi.hoisted(() => ({ outcomes: [] as string[] }));
vi.mock("../../src/edges/team/shared-verdict.ts", async (load) => {
	const real = await load<typeof import("../../src/edges/team/shared-verdict.ts")>();
	return {
		...real,
		verifyShared: async (run: Parameters<typeof real.verifyShared>[0]) => {
			const outcome = await real.verifyShared(run);
			tried.outcomes.push(outcome.kind);
			return outcome;
		},
	};
});

const TEXTS = ["Write a.txt", "Write b.txt"];
const PLAN = planName("main", "PLAN.md");
const PERSON = ["-c", "user.name=u", "-c", "user.email=u@u"];
const CHECK = "test -f a.txt";

let dir = "";
let bare = "";
const git = (cwd: string, ...args: string[]) =>
	execFileSync("git", [...PERSON, ...args], { cwd, encoding: "utf8" }).trim();

beforeEach(() => {
	({ dir, bare } = repoWithRemote("til-done-team-verdict-", { "PLAN.md": planWith(TEXTS, [0, 1]), "a.txt": "a\n" }));
});
afterEach(() => {
	tried.outcomes = [];
	for (const path of [dir, bare, `${bare}.away`]) rmSync(path, { recursive: true, force: true });
});

const finished = (): TodoItem[] => TEXTS.map((text) => ({ text, status: "completed" }));

function setup(leaseSeconds = 120) {
	const config = { workers: 2, countdownSeconds: 0, remote: "origin", planFile: "PLAN.md", leaseSeconds };
	const s = startEngine({ mode: "rpc", cwd: dir }, { ...config, doneCheck: CHECK });
	beginSession("own", s.config);
	const cwds: string[] = [];
	s.pi.onExec = async (call) => {
		cwds.push(call.options?.cwd ?? "");
		return runnerEnded(call.args, 0);
	};
	const notices = () => s.ui.notifications.map((notice) => notice.message);
	const sent = () => s.pi.sent.map((message) => (message as { message?: { content?: unknown } }).message?.content);
	return { ...s, cwds, notices, sent };
}

const until = (done: () => boolean, what: string) => waitForValue(() => (done() ? true : undefined), 20_000, what);
const tip = () => git(bare, "rev-parse", "main");
const refs = () => git(bare, "for-each-ref", "--format=%(refname)").split("\n");

/** Another machine's verdict on the tip, pushed to the remote's verdict ref. */
function verdictOfAnother(passed: boolean, judge?: SharedVerdict["judge"], command = CHECK): void {
	const verdict: SharedVerdict = {
		plan: PLAN,
		tip: tip(),
		checks: [{ name: "the done-check", command, passed, ended: passed ? "exit code 0" : "exit code 1" }],
		session: "s-desktop",
		host: "desktop",
		...(judge ? { judge } : {}),
	};
	const empty = execFileSync("git", ["mktree"], { cwd: dir, input: "", encoding: "utf8" }).trim();
	const commit = execFileSync("git", [...PERSON, "commit-tree", empty], {
		cwd: dir,
		input: verdictMessage(verdict),
		encoding: "utf8",
	}).trim();
	git(dir, "push", "-q", "origin", `${commit}:${verdictRef(PLAN)}`);
}

describe("a shared plan's finished list is verified once per tip", () => {
	it("no verdict yet: the done-check runs once, in a tree of the tip; its verdict pushed, the claim gone, said; verified", async () => {
		const s = setup();
		setTodos(finished());
		s.endRun();
		await until(() => isVerified(), "verified");
		expect(s.cwds).toHaveLength(1);
		expect(s.cwds[0]).not.toBe(dir);
		expect(existsSync(s.cwds[0] ?? "")).toBe(false);
		expect(refs()).toEqual(["refs/heads/main", `refs/til-done/verdicts/${PLAN}`]);
		expect(s.notices()).toEqual([sharedVerdictLine(tip(), hostname(), "passed (1 check)")]);
		expect(getDecisions().at(-1)).toMatchObject({ kind: "idle", code: "all-done" });
	});

	it("a verdict of another machine's for the tip: taken, nothing run, said; a failed one stops the run, nothing reopened", async () => {
		verdictOfAnother(false);
		const s = setup();
		setTodos(finished());
		s.endRun();
		const stop = sharedUnverifiedStop(tip(), "the done-check (exit code 1)");
		await until(() => s.sent().includes(stop), "the stop");
		expect(s.cwds).toEqual([]);
		expect(s.notices()).toEqual([sharedVerdictLine(tip(), "desktop", "failed: the done-check (exit code 1)")]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "completed"]);
		expect(getDecisions().at(-1)).toMatchObject({ kind: "stop", code: "shared-unverified" });
	});

	it("a verdict of another machine's for the tip that did not run this session's done-check (another command): verified here, its verdict pushed over, said", async () => {
		verdictOfAnother(true, undefined, "true");
		const s = setup();
		setTodos(finished());
		s.endRun();
		await until(() => isVerified(), "verified");
		expect(s.cwds).toHaveLength(1);
		expect(s.notices()).toEqual([sharedVerdictLine(tip(), hostname(), "passed (1 check)")]);
		const verdict = git(bare, "log", "-1", "--format=%B", verdictRef(PLAN));
		expect(verdict).toContain(`"command":"${CHECK}"`);
		expect(verdict).toContain(`"host":"${hostname()}"`);
	});

	it("the verification held by another session: waited for, then its verdict taken once pushed; nothing run here", async () => {
		const place = { repo: must(await findRepo(dir), "the repository"), remote: "origin", plan: PLAN };
		const other = { session: "s-desktop", host: "desktop", nonce: newNonce() };
		const held = await takeClaim(place, VERIFICATION_KEY, other, 120_000);
		const claim = must(held.kind === "won" ? held.claim : undefined, "the other's claim");
		const s = setup();
		setTodos(finished());
		s.endRun();
		await until(() => tried.outcomes.includes("held"), "the verification found held");
		// Its verdict with the judge's: both items met.
		const items = TEXTS.map((_, index) => ({ index, verdict: "met" as const, reason: "done" }));
		verdictOfAnother(true, { judged: true, items });
		git(bare, "update-ref", "-d", claim.ref);
		await until(() => isVerified(), "verified");
		expect(s.cwds).toEqual([]);
		expect(s.notices()).toEqual([sharedVerdictLine(tip(), "desktop", "passed (2 checks)")]);
		expect(tried.outcomes).toEqual(["held", "verdict"]);
	});

	it("Esc during the wait for another session's verification ends it: interrupted, nothing run, nothing pushed", async () => {
		const place = { repo: must(await findRepo(dir), "the repository"), remote: "origin", plan: PLAN };
		await takeClaim(place, VERIFICATION_KEY, { session: "s-desktop", host: "desktop", nonce: newNonce() }, 120_000);
		const s = setup();
		setTodos(finished());
		s.endRun();
		await until(() => tried.outcomes.includes("held") && s.ui.inputHandlers.size === 1, "the wait");
		expect([...s.ui.inputHandlers].map((handler) => handler("\x1b")?.consume)).toEqual([true]);
		await until(() => getDecisions().at(-1)?.code === "interrupted", "the interruption");
		expect(tried.outcomes).toEqual(["held"]);
		expect(s.cwds).toEqual([]);
		expect(refs()).toEqual(["refs/heads/main", `refs/til-done/claims/${PLAN}/${VERIFICATION_KEY}`]);
	});

	it("the list changed while its check ran: the check stopped, nothing pushed, the claim let go", async () => {
		const s = setup();
		s.pi.onExec = (call) =>
			new Promise((resolve) => {
				s.cwds.push(call.options?.cwd ?? "");
				call.options?.signal?.addEventListener("abort", () => resolve({ ...runnerEnded(call.args, 1), killed: true }));
			});
		setTodos(finished());
		s.endRun();
		await until(() => s.cwds.length === 1, "the check running");
		setTodos([...finished(), { text: "Write c.txt", status: "not_started" }]);
		await until(() => tried.outcomes.includes("stopped"), "the verification stopped");
		expect(refs()).toEqual(["refs/heads/main"]);
		expect(s.notices()).toEqual([]);
	});

	it("the session ends while its check runs (pi's SIGTERM): its end waits until the check is stopped, the tip's tree removed and the claim let go", async () => {
		const s = setup();
		s.pi.onExec = (call) =>
			new Promise((resolve) => {
				s.cwds.push(call.options?.cwd ?? "");
				call.options?.signal?.addEventListener("abort", () => resolve({ ...runnerEnded(call.args, 1), killed: true }));
			});
		setTodos(finished());
		s.endRun();
		await until(() => s.cwds.length === 1, "the check running");
		await s.engine.onSessionChange();
		expect(tried.outcomes).toEqual(["stopped"]);
		expect(existsSync(s.cwds[0] ?? "")).toBe(false);
		expect(refs()).toEqual(["refs/heads/main"]);
	});

	it("a remote never joined that does not answer: said once, and after the lease the run stops, nothing verified", async () => {
		const s = setup(0.3);
		setTodos(finished());
		renameSync(bare, `${bare}.away`);
		s.endRun();
		await until(() => s.sent().includes(REMOTE_DOWN_STOP), "the stop");
		expect(s.cwds).toEqual([]);
		expect(s.notices()).toEqual([WORKERS.claimsUnreachable("origin")]);
	});

	it("the remote gone once joined: said once, and after the lease the run stops, nothing verified", async () => {
		const s = setup(0.3);
		setTodos(finished());
		const { joinTeam } = await import("../../src/edges/team/join.ts");
		expect("team" in (await joinTeam(dir, "origin", "PLAN.md"))).toBe(true);
		renameSync(bare, `${bare}.away`);
		s.endRun();
		await until(() => s.sent().includes(REMOTE_DOWN_STOP), "the stop");
		expect(s.cwds).toEqual([]);
		expect(s.notices()).toEqual([WORKERS.claimsUnreachable("origin")]);
	});
});
