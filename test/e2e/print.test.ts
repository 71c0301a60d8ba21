import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
	cleanupAll,
	EXTENSION_ENTRY,
	type IsolatedEnv,
	isolatedEnv,
	PI_HOSTS,
	runJson,
	runPrint,
} from "../helpers/cli.ts";
import {
	allFinished,
	CONTINUATION_HEAD,
	continuationPrompt,
	endData,
	listLines,
	MESSAGE_TYPE,
	nextAction,
	noProgress,
	stderrLine,
} from "../helpers/expected.ts";
import { continuationCalls, continuationPrompts, lazyScript, stallScript } from "../helpers/scripts.ts";
import { sessionEntries } from "../helpers/session-file.ts";
import { usageOf } from "../helpers/usage.ts";

const FOUR = ["Read the spec", "Write the parser", "Write the printer", "Add tests"];
const NO_COUNTDOWN = { TIL_DONE_COUNTDOWN: "600" };

let iso: IsolatedEnv | undefined;

afterEach(() => {
	iso?.cleanup();
	iso = undefined;
});
afterAll(() => cleanupAll());

function setup(steps: Parameters<IsolatedEnv["writeScript"]>[0]): IsolatedEnv {
	iso = isolatedEnv(NO_COUNTDOWN);
	iso.writeScript(steps);
	return iso;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("rule 9: print mode continues inside one invocation", () => {
		it("finishes a 4-item list with a lazy model without a countdown: 3 continuations, the session holds the list", async () => {
			const env = setup(lazyScript(FOUR));
			const sessionDir = join(env.root, "sessions");
			const result = await runPrint(["-p", "Build the thing"], env.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});

			expect(result.timedOut).toBe(false);
			expect(result.code).toBe(0);
			expect(result.stderr).toBe(stderrLine(allFinished(4)));
			expect(result.stdout).toBe("Finished item 3.\n");

			const log = env.readLog();
			expect(log).toHaveLength(13); // write + 4 × (start, complete, stop)
			expect(continuationCalls(log)).toHaveLength(9);
			const prompts = continuationPrompts(log);
			expect(prompts).toHaveLength(3);
			expect(prompts[0]).toBe(
				continuationPrompt(
					["– [1] Write the parser", "– [2] Write the printer", "– [3] Add tests"],
					nextAction("start", 1),
				),
			);

			const entries = sessionEntries(sessionDir);
			const continuations = entries.filter(
				(e) => e.type === "custom_message" && e.customType === MESSAGE_TYPE.continuation,
			);
			expect(continuations.map((e) => e.content)).toEqual(prompts);
			const lastEdit = entries
				.map((e) => e.message as { role?: string; toolName?: string; details?: unknown; content?: unknown } | undefined)
				.filter((m) => m?.role === "toolResult" && m.toolName === "edit_todos")
				.at(-1);
			expect(lastEdit?.details).toEqual({
				action: "edit",
				todos: FOUR.map((text) => ({ text, status: "completed" })),
			});
			expect(lastEdit?.content).toEqual([
				{ type: "text", text: `Completed [3]\n\n${listLines(...FOUR.map((text, i) => `✓ [${i}] ${text}`))}` },
			]);
			// Why the invocation ended is in the session too, with the counters it was decided on.
			const spent = usageOf(entries.map((e) => e.message));
			expect(entries.filter((e) => e.customType === MESSAGE_TYPE.complete).map((e) => e.data)).toEqual([
				endData("info", "all-done", allFinished(4), {
					continuations: 3,
					finished: 4,
					total: 4,
					tokens: spent.tokens,
					calls: spent.calls,
				}),
			]);
			expect(spent.calls).toBe(13);
		});

		it("trips the no-progress breaker after exactly 3 continuations: the reason on stderr, the answer on stdout", async () => {
			const env = setup(stallScript(["a", "b"], 10));
			const result = await runPrint(["-p", "Do the list"], env.env, { host, extensions: [EXTENSION_ENTRY] });

			expect(result.timedOut).toBe(false);
			expect(result.code).toBe(4);
			expect(result.stderr).toBe(stderrLine(noProgress(3)));
			// pi's print mode prints the last message; the breaker's record is a custom entry so the answer stays last.
			expect(result.stdout).toBe("Still looking at it (run 4).\n");
			const log = env.readLog();
			// Run 1 makes two calls (write, talk); each continuation run makes one.
			expect(log).toHaveLength(5);
			expect(continuationCalls(log)).toHaveLength(3);
			expect(continuationCalls(log).map((line) => line.step)).toEqual([2, 3, 4]);
		});
	});

	describe("rule 9: json mode shows the same runs", () => {
		it("emits one agent run per continuation and the breaker entry, and the same stderr line", async () => {
			const env = setup(stallScript(["a", "b"], 10));
			const result = await runJson(["Do the list"], env.env, { host, extensions: [EXTENSION_ENTRY] });

			expect(result.timedOut).toBe(false);
			expect(result.code).toBe(4);
			expect(result.stderr).toBe(stderrLine(noProgress(3)));
			const types = result.events.map((e) => e.type);
			expect(types.filter((t) => t === "agent_start")).toHaveLength(4);
			expect(types.filter((t) => t === "agent_end")).toHaveLength(4);
			expect(types.filter((t) => t === "agent_settled")).toHaveLength(1);
			expect(types.at(-1)).toBe("agent_settled");
			expect(types).not.toContain("extension_ui_request");

			const appended = result.events
				.filter((e) => e.type === "entry_appended")
				.map((e) => e.entry as { type: string; customType?: string; content?: unknown; data?: unknown });
			const continuations = appended.filter(
				(e) => e.type === "custom_message" && e.customType === MESSAGE_TYPE.continuation,
			);
			expect(continuations).toHaveLength(3);
			for (const entry of continuations) expect(String(entry.content).startsWith(CONTINUATION_HEAD)).toBe(true);
			const spent = usageOf(result.events.filter((e) => e.type === "message_end").map((e) => e.message));
			expect(spent.calls).toBe(5);
			expect(appended.filter((e) => e.customType === MESSAGE_TYPE.complete).map((e) => [e.type, e.data])).toEqual([
				[
					"custom",
					endData("warning", "no-progress", noProgress(3), {
						continuations: 3,
						noProgress: 3,
						total: 2,
						tokens: spent.tokens,
						calls: spent.calls,
					}),
				],
			]);
			expect(continuationCalls(env.readLog())).toHaveLength(3);
		});
	});
});
