/**
 * The user's commands in print and JSON modes, where the process ends when the invocation does: `/loop` runs its
 * iterations inside the invocation and says on stderr why it ended; `/todos` answers on stderr (stdout is pi's: the
 * model's answer, or the JSON events). No extension error may reach stderr.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
	cleanupAll,
	EXTENSION_ENTRY,
	type FakeStep,
	type IsolatedEnv,
	isolatedEnv,
	PI_HOSTS,
	runJson,
	runPrint,
} from "../helpers/cli.ts";
import {
	KEY,
	LOOP_BAD_MAX,
	listLines,
	loopFinished,
	loopLimit,
	loopPrompt,
	statusReport,
	stderrLine,
	TODOS_ERRORS,
} from "../helpers/expected.ts";
import { sayStep, writeStep } from "../helpers/scripts.ts";

let iso: IsolatedEnv | undefined;
afterEach(() => {
	iso?.cleanup();
	iso = undefined;
});
afterAll(() => cleanupAll());

function setup(steps: FakeStep[]): IsolatedEnv {
	iso = isolatedEnv();
	iso.writeScript(steps);
	return iso;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("/loop in print mode runs every iteration inside the one invocation", () => {
		it("stops at --max with a clear line on stderr, prints the last answer and exits 0", async () => {
			const env = setup([sayStep("Tried once."), sayStep("Tried twice."), sayStep("Tried three times.")]);
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
			const env = setup([sayStep("Not yet."), sayStep("All green: SHIPPED"), sayStep("never asked")]);
			const result = await runPrint(["-p", "/loop --until SHIPPED --max 5 keep going"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(loopFinished("SHIPPED", 2)));
			expect(result.stdout).toBe("All green: SHIPPED\n");
			expect(env.readLog()).toHaveLength(2);
		});

		it("refuses bad arguments with one line and runs nothing", async () => {
			const env = setup([sayStep("never asked")]);
			const result = await runPrint(["-p", "/loop --max 0 keep going"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
			});
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(LOOP_BAD_MAX));
			expect(result.stdout).toBe("");
			expect(env.readLog()).toEqual([]);
		});
	});

	describe("/loop in JSON mode shows each iteration as a run of the same invocation", () => {
		it("emits every iteration's loop message and answer, then the end line on stderr", async () => {
			const env = setup([sayStep("One."), sayStep("Two. LOOP_DONE")]);
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

	describe("/todos in print mode answers on stderr", () => {
		it("names a word given as an index and changes nothing", async () => {
			// The model plans, then asks a question: nothing is continued.
			const env = setup([writeStep(["a", "b"]), sayStep("Shall I start with a?")]);
			const sessionDir = `${env.root}/sessions`;
			const first = await runPrint(["-p", "plan"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});
			// The list is left with items open.
			expect(first.code).toBe(4);
			const result = await runPrint(["-c", "-p", "/todos start abc"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});
			// (stdout is pi's: with -c it prints the resumed session's last answer.)
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(TODOS_ERRORS.notAnIndex("start", "abc", 2)));
			const listed = await runPrint(["-c", "-p", "/todos"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});
			expect(listed.stderr).toBe(stderrLine(listLines("– [0] a", "– [1] b")));
		});

		it("/todos status names no countdown, which print mode never runs", async () => {
			const env = setup([sayStep("never asked")]);
			const result = await runPrint(["-p", "/todos status"], env.env, { host, extensions: [EXTENSION_ENTRY] });
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(statusReport("in-run")));
			expect(env.readLog()).toEqual([]);
		});
	});
});
