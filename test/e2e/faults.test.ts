/**
 * Faults and concurrency: several todo calls in one assistant message (SDK), a provider that fails on every call and
 * a session file cut off in the middle of a line (the real CLI), and a new session or a fork in the middle of a run or
 * of a countdown (RPC). No exception may escape, no continuation may reach the wrong session, and the list stored on
 * disk is always the last one written.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall, type JsonObject } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, parseJsonLines, runPrint } from "../helpers/cli.ts";
import { failures, KEY, listLines, MESSAGE_TYPE, progressStatus, stderrLine } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { perTest } from "../helpers/per-test.ts";
import type { PiRpc } from "../helpers/rpc.ts";
import { continuationCalls } from "../helpers/scripts.ts";
import { continuations, disposeAll, startTilDone } from "../helpers/til-done-pi.ts";
import { say } from "../helpers/todo-model.ts";
import { type Item, listOnBranch, modelEdit, modelWrite, schemaValidCall } from "../helpers/todo-oracle.ts";

const pi = perTest({}, disposeAll);

// ── Several todo calls in one assistant message ─────────────────────────────

describe("several todo tool calls in one assistant message", () => {
	it("give the same results, in the same order, as running them one after another", async () => {
		const batches = fc.sample(fc.array(schemaValidCall, { minLength: 2, maxLength: 6 }), { numRuns: 12, seed: 4242 });
		const harness = await startTilDone({});
		let list: Item[] = [];
		let n = 0;
		for (const batch of batches) {
			const calls = batch.map((call) => fauxToolCall(call.name, call.args as JsonObject, { id: `batch_${++n}` }));
			// A closing question keeps auto-continue out of the way: each prompt is exactly one batch.
			harness.respond(fauxAssistantMessage(calls, { stopReason: "toolUse" }), say("Shall I go on?"));
			const before = harness.branch().length;
			await harness.prompt(`batch ${n}`);

			const results = harness
				.branch()
				.slice(before)
				.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
			expect(results.map((result) => result.toolCallId)).toEqual(calls.map((call) => call.id));
			batch.forEach((call, i) => {
				const details = must(results[i], `the result of call ${i}`).details as unknown as {
					action: string;
					todos: Item[];
					error?: string;
					view?: Item[];
				};
				if (call.name === "list_todos") {
					expect(details.view).toEqual(list);
					return;
				}
				const outcome = call.name === "write_todos" ? modelWrite(list, call.args) : modelEdit(list, call.args);
				if (outcome.ok) {
					expect(details.todos).toEqual(outcome.list);
					list = outcome.list;
				} else expect(details.error).toBeTypeOf("string");
			});
			expect(listOnBranch(harness.branch())).toEqual(list);
		}
		expect(harness.extensionErrors).toEqual([]);
		expect(continuations(harness)).toEqual([]);
	});

	it("write, start and complete of the same item in one message apply in order", async () => {
		const harness = await startTilDone({
			responses: [
				fauxAssistantMessage(
					[
						fauxToolCall("write_todos", { mode: "replace", todos: [{ text: "a" }, { text: "b" }] }),
						fauxToolCall("edit_todos", { action: "start", indices: [0] }),
						fauxToolCall("edit_todos", { action: "complete", indices: [0] }),
						fauxToolCall("write_todos", { mode: "insert", index: 1, todos: [{ text: "between" }] }),
						fauxToolCall("edit_todos", { action: "abandon", indices: [2] }),
					],
					{ stopReason: "toolUse" },
				),
				say("Done for now?"),
			],
		});
		await harness.prompt("go");
		expect(listOnBranch(harness.branch())).toEqual([
			{ text: "a", status: "completed" },
			{ text: "between", status: "not_started" },
			{ text: "b", status: "abandoned" },
		]);
		expect(harness.ui.status.get(KEY.status)).toBe(progressStatus(2, 3));
	});
});

describe("a provider that fails on every call", () => {
	describe.each(PI_HOSTS)("pi $version", (host) => {
		it("in print mode (real CLI): exits on its own without a stack trace", async () => {
			const iso = pi.env(
				[
					{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }] } }] },
					...Array.from({ length: 6 }, () => ({ stopReason: "error" as const, errorMessage: "503 overloaded" })),
				],
				{ TIL_DONE_BACKOFF_MS: "0" },
			);
			writeFileSync(`${iso.agentDir}/settings.json`, JSON.stringify({ retry: { enabled: false } }));
			const result = await runPrint(["-p", "go"], iso.env, { host, extensions: [EXTENSION_ENTRY], timeoutMs: 20_000 });
			expect(result.timedOut).toBe(false);
			expect(result.stderr).not.toMatch(/at .*\.ts:\d+|TypeError|ReferenceError|Unhandled/);
			expect(result.stderr).toContain(stderrLine(failures(3)));
			// One write call, then the failing run and at most two continued attempts.
			expect(iso.readLog().length).toBeLessThanOrEqual(4);
		});
	});
});

describe("a session file truncated in the middle of a line", () => {
	describe.each(PI_HOSTS)("pi $version", (host) => {
		it("the real CLI resumes a truncated file in print mode without crashing", async () => {
			const iso = pi.env(
				[
					{
						toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "x" }, { text: "y" }] } }],
					},
					{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
					{ text: "Shall I stop?" },
				],
				{ TIL_DONE_COUNTDOWN: "0" },
			);
			const sessionDir = `${iso.root}/sessions`;
			const first = await runPrint(["-p", "go"], iso.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});
			// The model's question leaves an item open.
			expect(first.code).toBe(4);
			const file = `${sessionDir}/${readdirSync(sessionDir).find((name) => name.endsWith(".jsonl"))}`;
			const text = readFileSync(file, "utf8");
			const last = text.lastIndexOf('"toolName":"edit_todos"');
			writeFileSync(file, text.slice(0, last + 10));
			iso.writeScript([{ toolCalls: [{ name: "list_todos", arguments: {} }] }, { text: "Listed?" }]);
			const second = await runPrint(["-p", "list"], iso.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { file },
			});
			expect(second.stderr).not.toMatch(/TypeError|ReferenceError|Unhandled/);
			expect(second.code).toBe(4);
			// The list seen after the damaged edit is the one written before it.
			const entries = parseJsonLines(
				readFileSync(file, "utf8")
					.split("\n")
					.filter((line) => line.startsWith("{") && line.endsWith("}"))
					.join("\n"),
			);
			const listed = entries.findLast(
				(e) => (e as { message?: { toolName?: string } }).message?.toolName === "list_todos",
			) as { message: { content: { text: string }[] } } | undefined;
			expect(listed?.message.content[0]?.text).toBe(listLines("– [0] x", "– [1] y"));
		});
	});
});

// ── New session and fork over RPC (real CLI) ────────────────────────────────

interface RpcEntry {
	type: string;
	id: string;
	customType?: string;
	message?: { role: string; content?: unknown };
}

async function entries(client: PiRpc): Promise<RpcEntry[]> {
	const response = (await client.send({ type: "get_entries" })) as { data?: { entries?: RpcEntry[] } };
	return response.data?.entries ?? [];
}

const continuationsIn = (list: readonly { type?: unknown; customType?: unknown }[]) =>
	list.filter((e) => e.type === "custom_message" && e.customType === MESSAGE_TYPE.continuation);

/** Starts pi in RPC mode with a session folder, the extension and this script. */
async function startWithSessions(
	host: (typeof PI_HOSTS)[number],
	countdown: string,
	steps: Parameters<IsolatedEnv["writeScript"]>[0],
): Promise<{ env: IsolatedEnv; client: PiRpc }> {
	const env = pi.env(steps, { TIL_DONE_COUNTDOWN: countdown });
	const client = await pi.rpc({
		host,
		env: env.env,
		extensions: [EXTENSION_ENTRY],
		session: { dir: `${env.root}/sessions` },
	});
	return { env, client };
}

const WRITE_TWO = {
	toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }, { text: "b" }] } }],
};
const WORK_ONE = [
	WRITE_TWO,
	{ toolCalls: [{ name: "edit_todos", arguments: { action: "start", indices: [0] } }] },
	{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
	{ text: "Finished item 0." },
];

// pi answers new_session and fork only after the old session's run has been aborted and settled, its
// session_shutdown handled and the new session started, so each test checks right after the response. A countdown of
// 600 s cannot run out first; that the cancelled one never fires is proven in test/unit/quiet.test.ts.
describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("new session and fork over RPC", () => {
		it("new_session during a countdown removes it; neither session gets a continuation", async () => {
			const { env, client } = await startWithSessions(host, "600", WORK_ONE);
			await client.promptAndSettle("go");
			expect(client.widgets.has(KEY.countdown)).toBe(true);
			const oldFile = (await client.getState()).sessionFile as string;
			const response = await client.send({ type: "new_session" });
			expect(response.success).toBe(true);
			expect(client.widgets.has(KEY.countdown)).toBe(false);
			expect(client.statuses.get(KEY.status)).toBeUndefined();
			expect(continuationsIn(await entries(client))).toEqual([]);
			expect(continuationCalls(env.readLog())).toEqual([]);
			const old = parseJsonLines(readFileSync(oldFile, "utf8"));
			expect(continuationsIn(old)).toEqual([]);
			expect(listOnBranch(old)).toEqual([
				{ text: "a", status: "completed" },
				{ text: "b", status: "not_started" },
			]);
			expect(client.exit).toBeUndefined();
			expect(client.stderr).not.toMatch(/TypeError|ReferenceError|stale/i);
		});

		it("new_session in the middle of a run: the run's list stays in the old file, the new session starts empty", async () => {
			// The second model call answers only when aborted: new_session always lands in the middle of it.
			const { env, client } = await startWithSessions(host, "600", [
				WRITE_TWO,
				{ delayMs: 600_000, toolCalls: [{ name: "edit_todos", arguments: { action: "start", indices: [0] } }] },
			]);
			await client.prompt("go");
			await client.waitFor(() => env.readLog().length >= 2, 5000, "the second model call");
			const oldFile = (await client.getState()).sessionFile as string;
			const response = await client.send({ type: "new_session" });
			expect(response.success).toBe(true);
			expect(client.statuses.get(KEY.status)).toBeUndefined();
			expect(continuationsIn(await entries(client))).toEqual([]);
			// The aborted call's edit never ran: the old file ends with the list the first call wrote.
			expect(listOnBranch(parseJsonLines(readFileSync(oldFile, "utf8")))).toEqual([
				{ text: "a", status: "not_started" },
				{ text: "b", status: "not_started" },
			]);
			// Nothing of the old run landed in the new session.
			const fresh = await entries(client);
			expect(fresh.filter((e) => e.type === "message" && e.message?.role === "toolResult")).toEqual([]);
			expect(env.readLog()).toHaveLength(2);
			expect(client.exit).toBeUndefined();
		});

		it("after new_session, the new session's list runs through its own countdown to the end; the old file keeps its list", async () => {
			const { client } = await startWithSessions(host, "0.05", [
				{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }] } }] },
				{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
				{ text: "Finished a." },
				WRITE_TWO,
				{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
				{ text: "Finished item 0." },
				{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [1] } }] },
				{ text: "Finished item 1." },
			]);
			await client.promptAndSettle("go");
			const oldFile = (await client.getState()).sessionFile as string;
			expect((await client.send({ type: "new_session" })).success).toBe(true);
			await client.prompt("go again");
			await client.waitFor(() => client.statuses.get(KEY.status) === "✓ Done (2 items)", 15_000, "the new list done");
			// One continuation, the new session's own (the model's last call may still see it as its last user message).
			expect(continuationsIn(await entries(client))).toHaveLength(1);
			expect(listOnBranch(parseJsonLines(readFileSync(oldFile, "utf8")))).toEqual([{ text: "a", status: "completed" }]);
			expect(continuationsIn(parseJsonLines(readFileSync(oldFile, "utf8")))).toEqual([]);
			expect(client.exit).toBeUndefined();
			expect(client.stderr).toBe("");
		});

		it("new_session while the old session's done-check runs: its failure reaches neither session's model", async () => {
			const env = pi.env(
				[
					{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }] } }] },
					{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
					{ text: "Finished a." },
					{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "x" }] } }] },
					{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
					{ text: "Finished x." },
				],
				// The old session's check waits for "go" and then fails; the new session's passes at once.
				{
					TIL_DONE_CHECK:
						"[ -f second ] && exit 0; touch started; until [ -f go ]; do sleep 0.05; done; touch ended; false",
				},
			);
			const session = { dir: `${env.root}/sessions` };
			const client = await pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY], session });
			await client.prompt("go");
			await client.waitFor(() => existsSync(join(env.cwd, "started")), 10_000, "the old session's done-check");
			expect((await client.send({ type: "new_session" }, 5000)).success).toBe(true);
			writeFileSync(join(env.cwd, "go"), "");
			writeFileSync(join(env.cwd, "second"), "");
			await client.prompt("go again");
			await client.waitFor(
				() => client.statuses.get(KEY.status) === "✓ Done (1 items)" && env.readLog().length === 6,
				10_000,
				"the new list done",
			);
			// The old check was stopped with its session: it never went on once "go" was there.
			expect(existsSync(join(env.cwd, "ended"))).toBe(false);
			expect(continuationsIn(await entries(client))).toEqual([]);
			expect(continuationCalls(env.readLog())).toEqual([]);
			expect(env.readLog()).toHaveLength(6);
			expect(client.exit).toBeUndefined();
		});

		it("fork during a countdown removes it; the fork holds the list as of its branch point", async () => {
			const { env, client } = await startWithSessions(host, "600", WORK_ONE);
			await client.promptAndSettle("go");
			expect(client.widgets.has(KEY.countdown)).toBe(true);
			const forkable = (await client.send({ type: "get_fork_messages" })) as {
				data?: { messages?: { entryId: string; text: string }[] };
			};
			const target = forkable.data?.messages?.find((m) => m.text === "go");
			expect(target).toBeDefined();
			const forked = await client.send({ type: "fork", entryId: target!.entryId });
			expect(forked.success).toBe(true);
			expect(client.widgets.has(KEY.countdown)).toBe(false);
			// Forking at the first prompt gives a branch without any snapshot: an empty list.
			expect(client.statuses.get(KEY.status)).toBeUndefined();
			expect(continuationsIn(await entries(client))).toEqual([]);
			expect(continuationCalls(env.readLog())).toEqual([]);
			expect(client.exit).toBeUndefined();
		});
	});
});
