/**
 * "Done" means verified, in the real pi on every tested version, with pi's bash tool active and scripted models that
 * lie: one completes items whose check fails and fixes them only after seeing the failure, one finishes the list while
 * the done-check fails, one tries to close an item the user must review, one walks away from its work. Print mode
 * shows the in-run path and the exit status; RPC shows the countdown path, the notices and the user's approval.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import {
	abandoned,
	allDone,
	allFinished,
	allVerified,
	BASH_INACTIVE,
	CONTINUATION_HEAD,
	checkFailed,
	checkOutput,
	checkPassed,
	checksCannotRun,
	doneStatus,
	itemChecksLine,
	KEY,
	listLines,
	noProgress,
	repeatedAnswer,
	reviewWait,
	stderrLine,
	UNVERIFIED_ASK,
	UNVERIFIED_HEAD,
	UNVERIFIED_TAKE_OVER,
	verifiedNotice,
} from "../helpers/expected.ts";
import {
	ABANDONER,
	abandonStep,
	CHECK_LIAR,
	DONE_CHECK_LIAR,
	type LyingModel,
	REVIEW_CLOSER,
	writeChecked,
} from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
import { reported, reportedLines } from "../helpers/rpc.ts";
import { completeStep, continuationCalls, sayStep, startStep } from "../helpers/scripts.ts";
import { toolResults } from "../helpers/session-file.ts";
import { hasTmux, TMUX_MISSING } from "../helpers/tmux.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0.05" });
const setup = (steps: FakeStep[], env: Record<string, string> = {}): IsolatedEnv => pi.env(steps, env);

const setupLiar = (model: LyingModel): IsolatedEnv => setup(model.steps, model.env);

/** `pi -p <prompt>` with the session kept under the isolated root; `piArgs` go before `-p`. */
async function print(host: PiHost, env: IsolatedEnv, prompt: string, piArgs: string[] = []) {
	const sessionDir = join(env.root, "sessions");
	const result = await runPrint([...piArgs, "-p", prompt], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: sessionDir },
	});
	return {
		...result,
		edits: toolResults(sessionDir, "edit_todos"),
		writes: () => toolResults(sessionDir, "write_todos"),
	};
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("an item is completed only when its own check passes", () => {
		it("refuses every false completion; the model fixes each item after seeing the failure", async () => {
			const env = setupLiar(CHECK_LIAR);
			const result = await print(host, env, CHECK_LIAR.prompt);
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(allVerified(2)));
			expect(result.stdout).toBe("All done.\n");
			const completes = result.edits.filter((edit) => edit.text.startsWith("Completed") || edit.details.error);
			expect(completes.map((edit) => edit.text.split("\n")[0])).toEqual([
				checkFailed(0),
				checkPassed(0),
				checkFailed(1),
				checkPassed(1),
			]);
			// False completions accepted: none. Every accepted completion names its passed check.
			const accepted = completes.filter((edit) => !edit.details.error);
			expect(accepted.every((edit) => edit.details.checked?.length === 1)).toBe(true);
			expect(continuationCalls(env.readLog())).toHaveLength(5);
		});
	});

	describe("the list is done only when the user's done-check passes", () => {
		it("a finished list whose done-check fails gets a continuation with the failure; once fixed it ends verified", async () => {
			const env = setupLiar(DONE_CHECK_LIAR);
			const result = await print(host, env, DONE_CHECK_LIAR.prompt);
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(allVerified(1)));
			const prompts = env
				.readLog()
				.map((line) => line.lastUser)
				.filter((text) => text.startsWith(UNVERIFIED_HEAD));
			expect([...new Set(prompts)]).toEqual([
				[
					UNVERIFIED_HEAD,
					"- the done-check failed (exit code 1)",
					checkOutput("the done-check", ""),
					"",
					UNVERIFIED_ASK,
				].join("\n"),
			]);
		});

		it("a model that never fixes it and repeats itself is stopped by the breaker; pi -p exits with status 3", async () => {
			const env = setup([writeChecked([{ text: "Write the code" }]), startStep(0), completeStep(0), sayStep("Done.")], {
				TIL_DONE_CHECK: "false",
			});
			const result = await print(host, env, "Ship it");
			expect(result.code).toBe(3);
			expect(result.stderr).toBe(stderrLine(repeatedAnswer(3, UNVERIFIED_TAKE_OVER)));
			expect(env.readLog().filter((line) => line.lastUser.startsWith(UNVERIFIED_HEAD))).toHaveLength(3);
		});
	});

	describe("a verified end stays in the transcript", () => {
		it("over RPC: a line that stays (a record a client reads), no notice", async () => {
			const env = setupLiar(DONE_CHECK_LIAR);
			const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await client.prompt(DONE_CHECK_LIAR.prompt);
			await client.waitFor(() => reported(client).length > 0, 20_000, "the list's end");
			expect(reportedLines(client)).toEqual([{ level: "success", text: verifiedNotice(1, 1) }]);
			expect(client.notifications.map((notice) => notice.message)).not.toContain(verifiedNotice(1, 1));
		});

		it.skipIf(!hasTmux())(
			`in the TUI: still on screen after another notice${hasTmux() ? "" : ` (${TMUX_MISSING})`}`,
			async () => {
				const env = setupLiar(DONE_CHECK_LIAR);
				const session = await pi.tui({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
				await session.type(DONE_CHECK_LIAR.prompt);
				await session.sendKeys("Enter");
				await session.waitForScreen((screen) => screen.includes(verifiedNotice(1, 1)), 30_000);
				await session.type("/goal off");
				await session.sendKeys("Enter");
				const screen = await session.waitForScreen((s) => s.includes("No goal is in progress."));
				expect(screen).toContain(verifiedNotice(1, 1));
			},
		);
	});

	describe("an item the user must review is closed by the user", () => {
		it("the model cannot complete it; the auto-continue waits; the user approves and the chain goes on", async () => {
			const env = setup([...REVIEW_CLOSER.steps, startStep(1), completeStep(1), sayStep("Ran it.")]);
			const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await client.promptAndSettle(REVIEW_CLOSER.prompt);
			await client.waitFor(() => client.notifications.length > 0, 5000, "review notice");
			expect(client.notifications).toEqual([{ message: reviewWait(0), type: "info" }]);
			expect(client.statuses.get(KEY.review)).toBe(reviewWait(0));
			expect(client.widgets.has(KEY.countdown)).toBe(false);
			expect(env.readLog()).toHaveLength(4);

			await client.promptAndSettle("/todos approve 0");
			await client.waitFor(() => client.statuses.get(KEY.status) === doneStatus(2), 10_000, "Done");
			await client.waitFor(() => reported(client).length === 1, 5000, "the completion");
			expect(client.notifications.map((n) => n.message)).toEqual([
				reviewWait(0),
				listLines("✓ [0] Draft the migration (review)", "– [1] Run it"),
			]);
			expect(reported(client)).toEqual([allDone(2)]);
			expect(continuationCalls(env.readLog())).toHaveLength(3);
		});
	});

	describe("a check the model wrote runs only where the model could run it itself", () => {
		it("when pi's bash tool is not active (pi's --exclude-tools), an item with a check is refused and nothing changes; /todos status says so", async () => {
			const env = setup([writeChecked([{ text: "Write the code", check: "true" }]), sayStep("Could not plan.")]);
			const args = ["--exclude-tools", "bash"];
			const result = await print(host, env, "Plan it", args);
			expect(result.code).toBe(0);
			expect(result.writes().map((write) => [write.text, write.details.error, write.details.todos])).toEqual([
				[checksCannotRun(0, BASH_INACTIVE), "checks not allowed", []],
			]);
			const status = await print(host, env, "/todos status", args);
			expect(status.stderr.split("\n").filter((line) => line.startsWith("[til-done] Item checks:"))).toEqual([
				stderrLine(itemChecksLine("off while pi's bash tool is not active")).trimEnd(),
			]);
		});
	});

	describe("walking away from work is shown to the user and is no progress", () => {
		it("abandoning open items during the auto-continue is shown with the model's reason", async () => {
			const env = setup([
				writeChecked([{ text: "a" }, { text: "b" }, { text: "c" }]),
				startStep(0),
				completeStep(0),
				sayStep("Did a."),
				abandonStep([1, 2], "not needed"),
				sayStep("The rest is not needed."),
			]);
			const result = await print(host, env, "Do the list");
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(abandoned("[1] b, [2] c", "not needed")) + stderrLine(allFinished(3)));
		});

		it("a model that abandons an item per continuation and completes none is stopped for no progress", async () => {
			const env = setupLiar(ABANDONER);
			const result = await print(host, env, ABANDONER.prompt);
			expect(result.stderr).toBe(
				[abandoned("[0] a"), abandoned("[1] b"), abandoned("[2] c"), noProgress(3)].map(stderrLine).join(""),
			);
			expect(env.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD))).toHaveLength(6);
		});
	});
});
