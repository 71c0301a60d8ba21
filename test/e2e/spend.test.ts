import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import {
	CONTINUATION_HEAD,
	costBudgetStop,
	endData,
	KEY,
	MESSAGE_TYPE,
	progressBreakerLine,
	STOPPED_SPENDING,
	spendStop,
	spentLine,
	stderrLine,
	stopStatus,
	tokenBudgetStop,
	whyLine,
} from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { perTest } from "../helpers/per-test.ts";
import { commandAnswer, customMessages, type PiRpc } from "../helpers/rpc.ts";
import { completeStep, lazyScript, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { sessionEntries } from "../helpers/session-file.ts";
import { usageOf } from "../helpers/usage.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0.05" });
const setup = (steps: FakeStep[], env: Record<string, string> = {}): IsolatedEnv => pi.env(steps, env);

const stopMessages = (client: PiRpc) => customMessages(client, MESSAGE_TYPE.complete);

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/**
 * Run 1 writes three items and finishes two (calls 0 to 4), then says so (call 5). The continuation's run only
 * looks at the list, six times (calls 6 to 11), and says it is still working (call 12): it finishes nothing.
 */
const BUSY_WITHOUT_PROGRESS: FakeStep[] = [
	writeStep(["a", "b", "c"]),
	startStep(0),
	completeStep(0),
	startStep(1),
	completeStep(1),
	sayStep("Two done."),
	...Array.from({ length: 6 }, () => toolStep("list_todos", {})),
	sayStep("Still working on c."),
];
/** A factor low enough for six calls of looking to cross it, and no other breaker in the way. */
const SPEND_ENV = { TIL_DONE_SPEND_FACTOR: "2" };

/** The progress breaker's figures, from the tokens of each call (see BUSY_WITHOUT_PROGRESS). */
function spendFigures(perCall: readonly number[]) {
	const first = sum(perCall.slice(0, 3));
	const second = sum(perCall.slice(3, 5));
	return { since: sum(perCall.slice(5)), median: (first + second) / 2 };
}

async function print(host: PiHost, env: IsolatedEnv, prompt: string) {
	const sessionDir = join(env.root, "sessions");
	const result = await runPrint(["-p", prompt], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: sessionDir },
	});
	return { ...result, entries: sessionEntries(sessionDir) };
}

/** The counters when the progress breaker stops {@link BUSY_WITHOUT_PROGRESS}: after its 13 calls. */
const stoppedAt = (tokens: number) => ({ continuations: 1, noProgress: 1, finished: 2, total: 3, tokens, calls: 13 });

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("the progress breaker stops a model that keeps working without finishing anything", () => {
		it("print: the stop with its figures on stderr and in the session", async () => {
			const env = setup(BUSY_WITHOUT_PROGRESS, SPEND_ENV);
			const result = await print(host, env, "Do the list");
			const spent = usageOf(result.entries.map((entry) => entry.message));
			expect(spent.calls).toBe(13);
			const { since, median } = spendFigures(spent.perCall);
			expect(since).toBeGreaterThan(2 * median);
			const text = spendStop(since, 2, Math.round(median), 2);
			expect(result.stderr).toBe(stderrLine(text));
			expect(result.stdout).toBe("Still working on c.\n");
			const ends = result.entries.filter((entry) => entry.customType === MESSAGE_TYPE.complete);
			expect(ends.map((entry) => entry.data)).toEqual([endData("warning", "spend", text, stoppedAt(spent.tokens))]);
		});

		it("RPC: one warning message, the stop on the status bar, and /todos why gives every decision with its counters", async () => {
			const env = setup(BUSY_WITHOUT_PROGRESS, SPEND_ENV);
			const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
			await client.promptAndSettle("Do the list");
			await client.waitFor(() => stopMessages(client).length > 0, 10_000, "the stop message");
			const messages = client.events.filter((event) => event.type === "message_end").map((event) => event.message);
			const spent = usageOf(messages);
			expect(spent.calls).toBe(13);
			const { since, median } = spendFigures(spent.perCall);
			const text = spendStop(since, 2, Math.round(median), 2);
			expect(stopMessages(client)).toEqual([{ content: text, details: { level: "warning" } }]);
			expect(client.notifications).toEqual([]);
			expect(client.statuses.get(KEY.stop)).toBe(stopStatus("spending without progress"));

			const why = (await commandAnswer(client, "/todos why")).split("\n");
			expect(why[0]).toBe("The auto-continue's last 2 decision(s), the newest last:");
			expect(why.slice(1).map((line) => line.replace(/^\d\d:\d\d:\d\d /, ""))).toEqual([
				whyLine("continue", "1 of 3 todos remain: continuation 1 of 20 follows.", {
					finished: 2,
					total: 3,
					tokens: sum(spent.perCall.slice(0, 6)),
					calls: 6,
				}),
				whyLine("spend", text, stoppedAt(spent.tokens)),
			]);
			const status = (await commandAnswer(client, "/todos status")).split("\n");
			expect([status[0], status[1], status[5], status[7], status[8]]).toEqual([
				STOPPED_SPENDING,
				spentLine(spent.tokens, 13),
				progressBreakerLine(2, median, since),
				"Token budget: none",
				"Cost budget: none",
			]);
			// The user acting (a prompt) starts a new chain: the stop leaves the status bar.
			await client.promptAndSettle("Thanks, I will take it from here.");
			expect(client.statuses.has(KEY.stop)).toBe(false);
		});
	});

	describe("a budget stops the chain before the continuation that would cross it", () => {
		it("print: the last continuation fit the budget, the next would not; the figures on stderr", async () => {
			const items = ["a", "b", "c", "d", "e", "f"];
			const budget = 20_000;
			const env = setup(lazyScript(items), { TIL_DONE_BUDGET_TOKENS: String(budget) });
			const result = await print(host, env, "Do the list");
			const messages = result.entries.map((entry) => entry.message as { role?: string; content?: unknown });
			// The runs: each continuation starts one; the last run is the one after the last continuation.
			const lastContinuation = result.entries.findLastIndex((entry) => entry.customType === MESSAGE_TYPE.continuation);
			expect(lastContinuation).toBeGreaterThan(0);
			const spent = usageOf(messages);
			const before = usageOf(messages.slice(0, lastContinuation));
			// The continuation that was sent fit the budget by its forecast; the next one would not have.
			expect(before.tokens + must(before.contexts.at(-1), "a call")).toBeLessThanOrEqual(budget);
			const context = must(spent.contexts.at(-1), "a call");
			expect(spent.tokens + context).toBeGreaterThan(budget);
			const text = tokenBudgetStop(spent.tokens + context, budget, spent.tokens, context);
			expect(result.stderr).toBe(stderrLine(text));
			const sent = env.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD));
			expect(sent.length).toBeGreaterThan(0);
			expect(env.readLog()).toHaveLength(spent.calls);
			// Items remain: the budget, not the list, ended the chain.
			const ends = result.entries.filter((entry) => entry.customType === MESSAGE_TYPE.complete);
			expect(ends.map((entry) => (entry.data as { code: string }).code)).toEqual(["budget-tokens"]);
			expect(spent.calls).toBeLessThan(1 + 3 * items.length);
		});

		it("print: a cost budget, with the next call priced at the model's input price", async () => {
			const budget = 0.03;
			const env = setup(lazyScript(["a", "b", "c", "d", "e", "f"]), {
				TIL_DONE_FAKE_PRICES: "3,15,0.3,3.75",
				TIL_DONE_BUDGET_COST: String(budget),
			});
			const result = await print(host, env, "Do the list");
			const spent = usageOf(result.entries.map((entry) => entry.message));
			const context = must(spent.contexts.at(-1), "a call");
			const nextCost = (context * 3) / 1_000_000;
			expect(spent.cost + nextCost).toBeGreaterThan(budget);
			expect(result.stderr).toBe(
				stderrLine(costBudgetStop(spent.cost + nextCost, budget, spent.cost, context, nextCost)),
			);
			expect(env.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD)).length).toBeGreaterThan(0);
			expect(spent.calls).toBeLessThan(1 + 3 * 6);
		});
	});
});
