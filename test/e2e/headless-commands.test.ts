/**
 * The user's commands in print and JSON modes, where the process ends when the invocation does: `/loop` runs its
 * iterations inside the invocation and says on stderr why it ended, and its refusal is one stderr line that runs
 * nothing and exits 2, as every refused command does; `/todos` answers on stderr (stdout is pi's: the model's answer, or the JSON events), and a subcommand that
 * goes on runs the chain inside the same `pi -p`. No extension error may reach stderr. The commands' other refusals
 * and their parsing are tested in process (test/unit/commands.test.ts, loop.test.ts).
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runJson, runPrint } from "../helpers/cli.ts";
import {
	allFinished,
	goalTooLong,
	KEY,
	LOOP_BAD_MAX,
	listLines,
	loopFinished,
	loopLimit,
	loopPrompt,
	statusReport,
	stderrLine,
	TODOS_ERRORS,
	todosRefused,
	WORKERS_NEED_GIT,
} from "../helpers/expected.ts";
import { writeChecked } from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep } from "../helpers/scripts.ts";
import { sessionDir } from "../helpers/session-file.ts";

const pi = perTest();

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("/loop in print mode runs every iteration inside the one invocation", () => {
		it("stops at --max with a clear line on stderr, prints the last answer and exits 0", async () => {
			const env = pi.env([sayStep("Tried once."), sayStep("Tried twice."), sayStep("Tried three times.")]);
			const result = await runPrint(["-p", "/loop --max 3 keep going"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(loopLimit(3, "LOOP_DONE")));
			expect(result.stdout).toBe("Tried three times.\n");
			expect(env.readLog().map((line) => line.lastUser)).toEqual(
				[1, 2, 3].map((i) => loopPrompt("keep going", i, 3, "LOOP_DONE")),
			);
		});

		it("ends when the answer holds the --until marker", async () => {
			const env = pi.env([sayStep("Not yet."), sayStep("All green: SHIPPED"), sayStep("never asked")]);
			const result = await runPrint(["-p", "/loop --until SHIPPED --max 5 keep going"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(loopFinished("SHIPPED", 2)));
			expect(result.stdout).toBe("All green: SHIPPED\n");
			expect(env.readLog()).toHaveLength(2);
		});

		it("refuses bad arguments with one line, runs nothing and exits 2", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", "/loop --max 0 keep going"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.code).toBe(2);
			expect(result.stderr).toBe(stderrLine(LOOP_BAD_MAX));
			expect(result.stdout).toBe("");
			expect(env.readLog()).toEqual([]);
		});
	});

	describe("/loop in JSON mode shows each iteration as a run of the same invocation", () => {
		it("emits every iteration's loop message and answer, then the end line on stderr", async () => {
			const env = pi.env([sayStep("One."), sayStep("Two. LOOP_DONE")]);
			const result = await runJson(["/loop --max 4 keep going"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(loopFinished("LOOP_DONE", 2)));
			// The first iteration starts the run as a message; each later one is added inside the run as an entry.
			const records = result.events.flatMap((event) => {
				if (event.type === "message_end") return [event.message as { role?: string; customType?: string }];
				if (event.type === "entry_appended") return [event.entry as { type?: string; customType?: string }];
				return [];
			});
			const loopMessages = records
				.filter((record) => record.customType === KEY.loop)
				.map((record) => (record as { content?: unknown }).content);
			const iteration = (i: number) => loopPrompt("keep going", i, 4, "LOOP_DONE");
			expect(loopMessages).toEqual([iteration(1), iteration(2)]);
			expect(result.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		});
	});

	describe("a refused command exits 2 in print and JSON modes: a script never reads success from it", () => {
		it("/todos frobnicate: the refusal with the subcommands on stderr, exit 2", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", "/todos frobnicate"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.stderr).toBe(stderrLine(TODOS_ERRORS.unknown("frobnicate")));
			expect(result.stdout).toBe("");
			expect(result.code).toBe(2);
			expect(env.readLog()).toEqual([]);
		});

		it("/todos workers 3 outside a git work tree: refused, exit 2", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", "/todos workers 3"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.stderr).toBe(stderrLine(todosRefused("workers", WORKERS_NEED_GIT)));
			expect(result.code).toBe(2);
		});

		it("/goal with a condition over 2,000 characters: refused, exit 2", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", `/goal ${"x".repeat(2_001)}`], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.stderr).toBe(stderrLine(goalTooLong(2_001)));
			expect(result.code).toBe(2);
			expect(env.readLog()).toEqual([]);
		});

		it("JSON mode: /loop refused exits 2, its line on stderr", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runJson(["/loop --max 0 keep going"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.stderr).toBe(stderrLine(LOOP_BAD_MAX));
			expect(result.code).toBe(2);
			expect(env.readLog()).toEqual([]);
		});

		it("a command answered without refusal keeps exit 0", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", "/todos help status"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.code).toBe(0);
		});
	});

	describe("/todos in print mode answers on stderr", () => {
		it("/todos status names no countdown, which print mode never runs", async () => {
			const env = pi.env([sayStep("never asked")]);
			const result = await runPrint(["-p", "/todos status"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(statusReport("in-run")));
			expect(env.readLog()).toEqual([]);
		});
	});

	describe("a /todos command that goes on runs the chain inside the same pi -p", () => {
		const REVIEW = [
			writeChecked([{ text: "Release notes", review: true }, { text: "Tag it" }]),
			startStep(0),
			sayStep("Over to you."),
		];

		it("approve: the chain goes on to the end in the same invocation", async () => {
			const env = pi.env(REVIEW, { TIL_DONE_COUNTDOWN: "600" });
			const dir = sessionDir(env);
			const first = await runPrint(["-p", "Release"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir },
			});
			expect(first.code).toBe(4);
			env.writeScript([startStep(1), completeStep(1), sayStep("Tagged.")]);
			const result = await runPrint(["-c", "-p", "/todos approve 0"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir },
			});
			expect(result.stderr).toBe(
				stderrLine(listLines("✓ [0] Release notes (review)", "– [1] Tag it")) + stderrLine(allFinished(2)),
			);
			expect(result.code).toBe(0);
		});

		it("while paused nothing runs, and the line says why; the pause stays on the branch", async () => {
			const env = pi.env([sayStep("Hello.")], { TIL_DONE_COUNTDOWN: "600" });
			const options = { host, extensions: [EXTENSION_ENTRY], session: { dir: sessionDir(env) } };
			// pi keeps a session file once it holds an answer: a first exchange, then the pause.
			await runPrint(["-p", "Hello"], env.env, options);
			await runPrint(["-c", "-p", "/todos pause not now"], env.env, options);
			const result = await runPrint(["-c", "-p", "/todos add b"], env.env, options);
			expect(result.stderr).toBe(
				stderrLine("Added [0] b") + stderrLine("Auto-continue is paused (not now): it waits for you."),
			);
			expect(env.readLog()).toHaveLength(1);
			expect(result.code).toBe(4);
		});
	});
});
