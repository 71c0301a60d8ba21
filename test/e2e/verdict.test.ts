/**
 * "Done and verified" is true every time, in the real pi over RPC on every tested version: a change of the list while
 * the done-check runs cancels its verdict; the verdict survives a restart, and the first pass after a failure is
 * announced; the status bar never says Done while the list is not; a check that leaves a job in the background still
 * ends when its shell does, and takes the job with it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS } from "../helpers/cli.ts";
import {
	allDone,
	doneStatus,
	KEY,
	notVerifiedStatus,
	progressStatus,
	verifiedNotice,
	verifiedStatus,
} from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { commandAnswer, type PiRpc, reported } from "../helpers/rpc.ts";
import { completeStep, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { sessionFile } from "../helpers/session-file.ts";
import { killAll, runningExactly } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const leftover: number[] = [];
afterEach(() => killAll(leftover.splice(0)));
const setup = (steps: FakeStep[], env: Record<string, string> = {}): IsolatedEnv => pi.env(steps, env);

const TWO = ["Write the code", "Write the docs"];
/** The model finishes both items in its first run. */
const FINISHES_BOTH: FakeStep[] = [
	writeStep(TWO),
	startStep(0),
	completeStep(0),
	startStep(1),
	completeStep(1),
	sayStep("Both done."),
];
const doneAndVerified = (total: number, checks: number) => verifiedNotice(total, checks);
const verified = (checks: number) => verifiedStatus(checks);
const notVerified = notVerifiedStatus;

const messages = (client: PiRpc) => client.notifications.map((notice) => notice.message);

describe.each(PI_HOSTS)("pi $version", (host) => {
	const rpc = (env: IsolatedEnv, session: { dir: string } | { file: string } = { dir: join(env.root, "sessions") }) =>
		pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY], session });

	describe("a verdict applies only to the list it verified", () => {
		/** A done-check that passes once the test lets it: it waits for the file `go`. */
		const GATED = "while [ ! -f go ]; do sleep 0.02; done; echo checked";

		it.each([
			["/todos add Write the changelog", progressStatus(2, 3)],
			["/todos start 1", progressStatus(1, 2)],
		])("%s while a passing done-check runs: no verdict, no notice, the list is not done", async (change, status) => {
			const env = setup(FINISHES_BOTH, { TIL_DONE_CHECK: GATED });
			const client = await rpc(env);
			await client.promptAndSettle("Do the list");
			await client.waitFor(() => client.statuses.get(KEY.check)?.startsWith("🔎 checking"), 10_000, "the check");
			await commandAnswer(client, change);
			writeFileSync(join(env.cwd, "go"), "");
			await client.waitFor(() => client.statuses.get(KEY.check) === undefined, 10_000, "the check's end");
			expect(client.statuses.get(KEY.status)).toBe(status);
			expect(messages(client).filter((message) => message.includes("verified"))).toEqual([]);
		});
	});

	describe("the verdict lives on the branch", () => {
		it("a restart shows the failed verdict; the first pass after it is announced once", async () => {
			const env = setup(FINISHES_BOTH, { TIL_DONE_CHECK: "test -f fixed" });
			const first = await rpc(env);
			await first.promptAndSettle("Do the list");
			const failed = notVerified("the done-check (exit code 1)");
			await first.waitFor(() => first.statuses.get(KEY.check) === failed, 10_000, "the failed verdict");
			await first.close();
			// The model of the restarted pi only answers: the list it works on is the one the session holds.
			env.writeScript([sayStep("The build is fixed.")]);

			const again = await rpc(env, { file: sessionFile(join(env.root, "sessions")) });
			await again.waitFor(() => again.statuses.get(KEY.check) === failed, 10_000, "the verdict after a restart");
			expect(again.statuses.get(KEY.status)).toBe(progressStatus(2, 2));

			writeFileSync(join(env.cwd, "fixed"), "");
			await again.promptAndSettle("I fixed the build; check again");
			await again.waitFor(() => reported(again).includes(doneAndVerified(2, 1)), 10_000, "the pass announced");
			expect(again.statuses.get(KEY.check)).toBe(verified(1));
			expect(again.statuses.get(KEY.status)).toBe(doneStatus(2));
			expect(reported(again).filter((text) => text.includes("verified"))).toEqual([doneAndVerified(2, 1)]);
			expect(messages(again).filter((message) => message.includes("verified"))).toEqual([]);
			// Once the check ran, only its own verdict was shown: never the old failure again.
			const shown = again.uiRequests.flatMap((request) =>
				request.method === "setStatus" && request.statusKey === KEY.check ? [request.statusText] : [],
			);
			expect(shown.slice(shown.indexOf("🔎 checking the done-check: test -f fixed"))).toEqual([
				"🔎 checking the done-check: test -f fixed",
				verified(1),
			]);
		});
	});

	describe("a pass after the user's own fix is announced", () => {
		it("a list announced done, then given a done-check that fails: the user's fix and /todos resume are announced", async () => {
			const env = setup(FINISHES_BOTH);
			const client = await rpc(env);
			await client.promptAndSettle("Do the list");
			await client.waitFor(() => reported(client).includes(allDone(2)), 10_000, "the list announced done");
			await commandAnswer(client, "/todos check test -f fixed");
			await commandAnswer(client, "/todos resume");
			const failed = notVerified("the done-check (exit code 1)");
			await client.waitFor(() => client.statuses.get(KEY.check) === failed, 10_000, "the failed verdict");
			writeFileSync(join(env.cwd, "fixed"), "");
			await commandAnswer(client, "/todos resume");
			await client.waitFor(() => reported(client).includes(doneAndVerified(2, 1)), 10_000, "the pass announced");
			expect(client.statuses.get(KEY.check)).toBe(verified(1));
			expect(reported(client)).toEqual([allDone(2), doneAndVerified(2, 1)]);
			expect(messages(client).filter((message) => message.startsWith("✓ All"))).toEqual([]);
		});

		it("a failed verdict leaves the status bar once the list is open again", async () => {
			const env = setup(FINISHES_BOTH, { TIL_DONE_CHECK: "test -f fixed" });
			const client = await rpc(env);
			await client.promptAndSettle("Do the list");
			const failed = notVerified("the done-check (exit code 1)");
			await client.waitFor(() => client.statuses.get(KEY.check) === failed, 10_000, "the failed verdict");
			await commandAnswer(client, "/todos start 1");
			expect(client.statuses.get(KEY.status)).toBe(progressStatus(1, 2));
			expect(client.statuses.has(KEY.check)).toBe(false);
		});
	});

	describe("the status bar never says Done while the list is not", () => {
		it("while the done-check runs, and after it failed: the bar, then what happens to the verification", async () => {
			const env = setup(FINISHES_BOTH, { TIL_DONE_CHECK: "while [ ! -f go ]; do sleep 0.02; done; exit 1" });
			const client = await rpc(env);
			await client.promptAndSettle("Do the list");
			await client.waitFor(() => client.statuses.get(KEY.check)?.startsWith("🔎 checking"), 10_000, "the check");
			expect(client.statuses.get(KEY.status)).toBe(progressStatus(2, 2));
			writeFileSync(join(env.cwd, "go"), "");
			const failed = notVerified("the done-check (exit code 1)");
			await client.waitFor(() => client.statuses.get(KEY.check) === failed, 10_000, "the failure");
			expect(client.statuses.get(KEY.status)).toBe(progressStatus(2, 2));
			expect([...client.statuses.keys()].filter((key) => key.startsWith("til-done"))).toEqual([KEY.status, KEY.check]);
			expect(reported(client)).toEqual([]);
		});
	});

	describe("a check ends when its shell exits", () => {
		it("a done-check that starts a job in the background passes at once, and the job is gone", async () => {
			// `$!` is the job's number in the check's own process-id namespace: that it was started is all it tells here.
			const check = "sleep 348 & echo $! > job.pid; echo started";
			const env = setup(FINISHES_BOTH, { TIL_DONE_CHECK: check, TIL_DONE_CHECK_TIMEOUT: "3600" });
			const client = await rpc(env);
			await client.promptAndSettle("Do the list");
			await client.waitFor(() => client.statuses.get(KEY.check) === verified(1), 20_000, "the pass");
			const alive = runningExactly(["sleep", "348"]);
			leftover.push(...alive);
			expect(Number(readFileSync(join(env.cwd, "job.pid"), "utf8"))).toBeGreaterThan(0);
			expect(alive).toEqual([]);
		});
	});
});
