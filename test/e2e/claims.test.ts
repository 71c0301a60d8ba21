/**
 * The workers' claims in the real pi on both lines, against a real repository: two sessions on one plan file do each
 * item once; a claim its holder no longer renews (a process gone, another machine) is taken over after its lease; a
 * worker whose claim another session took over stops, its work kept under a ref and never landed.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { CLAIM_LOST_WHY, stderrLine, WORKERS } from "../helpers/expected.ts";
import { ADD_LINE, bash, CLAIMS, claimBy, ITEMS, NOTES, planOf } from "../helpers/notes-plan.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { stderrOf, untilWorkerWaits, untilWorkKept } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
/** A worker's landing line on stderr, its item captured. */
const WORKER_LANDED = /^\[til-done\] Worker on \[(\d)\] landed in /;

/** A project repository holding notes.txt and the plan file of `texts` (both untracked, as a person's new files). */
function planRepo(env: IsolatedEnv, texts: readonly string[]) {
	const state = userRepo(env);
	writeFileSync(join(env.cwd, "notes.txt"), NOTES);
	writeFileSync(join(env.cwd, "PLAN.md"), planOf(texts, false));
	return state;
}

/** `pi -p --til-done-plan PLAN.md` with the workers, its session in a folder of its own. */
function session(host: PiHost, env: IsolatedEnv, name: string) {
	return runPrint(["--til-done-plan", "PLAN.md", "-p", "Work the plan."], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, `sessions-${name}`) },
		// Two sessions and their workers on two cores: a loaded machine takes its time.
		timeoutMs: 90_000,
	});
}

const git = (env: IsolatedEnv, ...args: string[]) =>
	execFileSync("git", args, { cwd: env.cwd, encoding: "utf8" }).trim();

const claimRefs = (env: IsolatedEnv) => git(env, "for-each-ref", "--format=%(refname)", "refs/til-done/claims/");
const countOf = (text: string, line: string) => text.split("\n").filter((at) => at === line).length;

describe.each(PI_HOSTS)("pi $version", (host) => {
	it.each([
		["0.2 s apart", 200],
		["at the same instant", 0],
	])(
		"two sessions with workers on one plan file, started %s: each item's line once, the plan all [x], both exit 0",
		async (_, apartMs) => {
			const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "2", TIL_DONE_LEASE: "5" });
			const state = planRepo(env, ITEMS);
			env.writeWorkerScripts({
				"0": [{ ...bash(ADD_LINE[0] ?? ""), delayMs: 1500 }, sayStep("Added line 0.")],
				"1": [{ ...bash(ADD_LINE[1] ?? ""), delayMs: 1500 }, sayStep("Added line 1.")],
			});
			const before = state();
			const first = session(host, env, "a");
			if (apartMs > 0) await new Promise((resolve) => setTimeout(resolve, apartMs));
			const runs = await Promise.all([first, session(host, env, "b")]);
			expect(runs.map((run) => run.code)).toEqual([0, 0]);
			expect(readFileSync(join(env.cwd, "notes.txt"), "utf8")).toBe("start\nline 0\n1\n2\n3\nline 1\nend\n");
			expect(readFileSync(join(env.cwd, "PLAN.md"), "utf8")).toBe(planOf(ITEMS, true));
			// Each item landed once, by one session (a try given back meanwhile, while the other session's landing was under
			// way, is no landing): the landings the two sessions say are one per item.
			const landings = runs.flatMap((run) => stderrOf(run.stderr)).filter((line) => WORKER_LANDED.test(line));
			expect(landings.map((line) => Number(WORKER_LANDED.exec(line)?.[1])).toSorted()).toEqual([0, 1]);
			expect(claimRefs(env)).toBe("");
			expect(state()).toBe(before);
		},
		120_000,
	);

	it.each([
		["a process of this machine that is gone (a pi that was process 1 before a restart)", hostname()],
		["a session of another machine", "another-machine"],
	])(
		"a claim of %s, never renewed: taken over after its lease, the item worked once",
		async (_, holderHost) => {
			const texts = ITEMS.slice(0, 1);
			const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "1" });
			const state = planRepo(env, texts);
			env.writeWorkerScripts({ "0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")] });
			const stale = claimBy(env.cwd, { key: itemKey(0, ITEMS[0] ?? ""), session: "an-old-session", host: holderHost });
			git(env, "update-ref", `${CLAIMS}${itemKey(0, texts[0] ?? "")}`, stale);
			const before = state();
			const run = await session(host, env, "a");
			expect(run.code).toBe(0);
			expect(countOf(readFileSync(join(env.cwd, "notes.txt"), "utf8"), "line 0")).toBe(1);
			expect(readFileSync(join(env.cwd, "PLAN.md"), "utf8")).toBe(planOf(texts, true));
			expect(env.workerTries().map((worker) => worker.item)).toEqual([0]);
			// Taken over, then let go once its landing was recorded: no claim is left.
			expect(claimRefs(env)).toBe("");
			expect(state()).toBe(before);
		},
		90_000,
	);

	it("a worker whose claim another session took over stops: its work kept under a ref, never landed, the line says why", async () => {
		const texts = ITEMS.slice(0, 1);
		const env = pi.env([sayStep("Working the plan.")], { TIL_DONE_WORKERS: "1", TIL_DONE_LEASE: "1" });
		const state = planRepo(env, texts);
		const go = join(env.root, "go");
		env.writeWorkerScripts({
			// The first try adds its line, then waits on a file the test never makes: its claim is taken meanwhile.
			"0": [bash(ADD_LINE[0] ?? ""), { ...sayStep("Added line 0."), waitForFile: go }],
			"0/again": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")],
		});
		const before = state();
		const running = session(host, env, "a");
		await untilWorkerWaits(env, "the first try waiting");
		const key = itemKey(0, texts[0] ?? "");
		git(
			env,
			"update-ref",
			`${CLAIMS}${key}`,
			claimBy(env.cwd, { key, session: "another-session", host: "another-machine" }),
		);
		const kept = await untilWorkKept(env.cwd).finally(() => writeFileSync(go, ""));
		const run = await running;
		expect(stderrOf(run.stderr)).toContain(stderrLine(WORKERS.givenBack(0, CLAIM_LOST_WHY)).trimEnd());
		expect(run.code).toBe(0);
		// The kept try holds its own line; the work tree has the line of the try that landed, once.
		expect(git(env, "show", `${kept}:notes.txt`)).toBe("start\nline 0\n1\n2\n3\nend");
		expect(countOf(readFileSync(join(env.cwd, "notes.txt"), "utf8"), "line 0")).toBe(1);
		expect(readFileSync(join(env.cwd, "PLAN.md"), "utf8")).toBe(planOf(texts, true));
		expect(env.workerTries().map((worker) => worker.item)).toEqual([0, 0]);
		expect(state()).toBe(before);
	}, 120_000);
});
