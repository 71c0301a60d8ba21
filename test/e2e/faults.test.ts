/**
 * Faults and concurrency in the real runtime: several todo calls in one assistant message, a new session or a fork
 * in the middle of a run and of a countdown, a provider that fails on every call, and a session file cut off in the
 * middle of a line. No exception may escape, no continuation may reach the wrong session, and the list stored
 * on disk is always the last one written.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { fauxAssistantMessage, fauxToolCall, type JsonObject } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { reconstructState } from "../../src/state.ts";
import {
	cleanupAll,
	EXTENSION_ENTRY,
	type IsolatedEnv,
	isolatedEnv,
	PI_HOSTS,
	parseJsonLines,
	runPrint,
} from "../helpers/cli.ts";
import { type PiRpc, startRpc } from "../helpers/rpc.ts";
import { type PiHarness, type StartPiOptions, startPi } from "../helpers/sdk.ts";
import { continuationsOn, EXTENSION_PATH, say, withEnv } from "../helpers/todo-model.ts";
import { type Item, modelEdit, modelWrite, schemaValidCall } from "../helpers/todo-oracle.ts";

let pi: PiHarness | undefined;
let rpc: PiRpc | undefined;
let iso: IsolatedEnv | undefined;
let restoreEnv: () => void = () => undefined;

async function start(options: StartPiOptions, env: Record<string, string> = {}): Promise<PiHarness> {
	restoreEnv = withEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_BACKOFF_MS: "0", ...env });
	pi = await startPi({ extensionPaths: [EXTENSION_PATH], ...options });
	return pi;
}

afterEach(async () => {
	await pi?.dispose();
	await rpc?.close();
	iso?.cleanup();
	pi = undefined;
	rpc = undefined;
	iso = undefined;
	restoreEnv();
});
afterAll(() => cleanupAll());

/** The list the last trustworthy snapshot among `entries` holds (the extension's own reconstruction rule). */
const listOf = (entries: readonly unknown[]): Item[] =>
	reconstructState({ sessionManager: { getBranch: () => entries }, hasUI: false } as unknown as ExtensionContext);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONTINUATION = "There are still incomplete todos";

// ── Several todo calls in one assistant message ─────────────────────────────

describe("several todo tool calls in one assistant message", () => {
	it("give the same results, in the same order, as running them one after another", async () => {
		const batches = fc.sample(fc.array(schemaValidCall, { minLength: 2, maxLength: 6 }), { numRuns: 12, seed: 4242 });
		const harness = await start({});
		let list: Item[] = [];
		let n = 0;
		for (const batch of batches) {
			const calls = batch.map((call) => fauxToolCall(call.name, call.args as JsonObject, { id: `batch_${++n}` }));
			// A closing question keeps auto-continue out of the way: each prompt is exactly one batch.
			harness.respond(fauxAssistantMessage(calls, { stopReason: "toolUse" }), say("Shall I go on?"));
			const before = harness.branch().length;
			await harness.prompt(`batch ${n}`);
			await harness.settle(10);

			const results = harness
				.branch()
				.slice(before)
				.flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
			expect(results.map((result) => result.toolCallId)).toEqual(calls.map((call) => call.id));
			batch.forEach((call, i) => {
				const details = results[i].details as unknown as {
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
			expect(listOf(harness.branch())).toEqual(list);
		}
		expect(harness.extensionErrors).toEqual([]);
		expect(continuationsOn(harness.branch() as never)).toEqual([]);
	});

	it("write, start and complete of the same item in one message apply in order", async () => {
		const harness = await start({
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
		await harness.settle(20);
		expect(listOf(harness.branch())).toEqual([
			{ text: "a", status: "completed" },
			{ text: "between", status: "not_started" },
			{ text: "b", status: "abandoned" },
		]);
		expect(harness.ui.status.get("til-done")).toBe("📋 2/3");
	});
});

describe("a provider that fails on every call", () => {
	describe.each(PI_HOSTS)("pi $version", (host) => {
		it("in print mode (real CLI): exits on its own without a stack trace", async () => {
			iso = isolatedEnv({ TIL_DONE_BACKOFF_MS: "0" });
			writeFileSync(`${iso.agentDir}/settings.json`, JSON.stringify({ retry: { enabled: false } }));
			iso.writeScript([
				{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }] } }] },
				...Array.from({ length: 6 }, () => ({ stopReason: "error" as const, errorMessage: "503 overloaded" })),
			]);
			const result = await runPrint(["-p", "go"], iso.env, { host, extensions: [EXTENSION_ENTRY], timeoutMs: 20_000 });
			expect(result.timedOut).toBe(false);
			expect(result.stderr).not.toMatch(/at .*\.ts:\d+|TypeError|ReferenceError|Unhandled/);
			expect(result.stderr).toContain("[til-done] Auto-continue stopped after 3 failed runs");
			// One write call, then the failing run and at most two continued attempts.
			expect(iso.readLog().length).toBeLessThanOrEqual(4);
		});
	});
});

describe("a session file truncated in the middle of a line", () => {
	describe.each(PI_HOSTS)("pi $version", (host) => {
		it("the real CLI resumes a truncated file in print mode without crashing", async () => {
			iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0" });
			const sessionDir = `${iso.root}/sessions`;
			iso.writeScript([
				{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "x" }, { text: "y" }] } }] },
				{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
				{ text: "Shall I stop?" },
			]);
			const first = await runPrint(["-p", "go"], iso.env, {
				host,
				extensions: [EXTENSION_ENTRY],
				session: { dir: sessionDir },
			});
			expect(first.code).toBe(0);
			const { readdirSync } = await import("node:fs");
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
			expect(second.code).toBe(0);
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
			expect(listed?.message.content[0].text).toBe("– [0] x\n– [1] y");
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

const continuationsIn = (list: readonly RpcEntry[]) =>
	list.filter((e) => e.type === "custom_message" && e.customType === "til-done-countdown");

function rpcSetup(countdown: string, steps: Parameters<IsolatedEnv["writeScript"]>[0]): IsolatedEnv {
	iso = isolatedEnv({ TIL_DONE_COUNTDOWN: countdown });
	iso.writeScript(steps);
	return iso;
}

const WORK_ONE = [
	{ toolCalls: [{ name: "write_todos", arguments: { mode: "replace", todos: [{ text: "a" }, { text: "b" }] } }] },
	{ toolCalls: [{ name: "edit_todos", arguments: { action: "start", indices: [0] } }] },
	{ toolCalls: [{ name: "edit_todos", arguments: { action: "complete", indices: [0] } }] },
	{ text: "Finished item 0." },
];

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("new session and fork over RPC", () => {
		it("new_session during a countdown: no continuation in either session, status cleared", async () => {
			const env = rpcSetup("0.5", WORK_ONE);
			rpc = await startRpc({
				host,
				env: env.env,
				extensions: [EXTENSION_ENTRY],
				session: { dir: `${env.root}/sessions` },
			});
			const client = rpc;
			await client.promptAndSettle("go");
			await client.waitFor(() => client.widgets.get("til-done-countdown"), 5000, "countdown widget");
			const oldFile = (await client.getState()).sessionFile as string;
			await client.send({ type: "new_session" });
			await sleep(900);
			expect(continuationsIn(await entries(client))).toEqual([]);
			expect(client.statuses.get("til-done")).toBeUndefined();
			expect(client.widgets.has("til-done-countdown")).toBe(false);
			expect(env.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION))).toEqual([]);
			const old = parseJsonLines(readFileSync(oldFile, "utf8"));
			expect(old.filter((e) => e.customType === "til-done-countdown")).toEqual([]);
			expect(listOf(old)).toEqual([
				{ text: "a", status: "completed" },
				{ text: "b", status: "not_started" },
			]);
			expect(client.exit).toBeUndefined();
			expect(client.stderr).not.toMatch(/TypeError|ReferenceError|stale/i);
		});

		it("new_session in the middle of a run: the run's list stays in the old file, the new session starts empty", async () => {
			const env = rpcSetup("0", [
				WORK_ONE[0],
				{ delayMs: 800, toolCalls: [{ name: "edit_todos", arguments: { action: "start", indices: [0] } }] },
				{ text: "late" },
			]);
			rpc = await startRpc({
				host,
				env: env.env,
				extensions: [EXTENSION_ENTRY],
				session: { dir: `${env.root}/sessions` },
			});
			const client = rpc;
			await client.prompt("go");
			await client.waitFor(() => env.readLog().length >= 2, 5000, "slow second call");
			const oldFile = (await client.getState()).sessionFile as string;
			await client.send({ type: "new_session" });
			await sleep(1200);
			expect(continuationsIn(await entries(client))).toEqual([]);
			expect(client.statuses.get("til-done")).toBeUndefined();
			const old = parseJsonLines(readFileSync(oldFile, "utf8"));
			// Whether pi let the slow call finish or aborted it, the old file ends with the last list a tool wrote there.
			const written = old.flatMap((e) => {
				const m = (
					e as { message?: { role?: string; toolName?: string; details?: { todos?: Item[]; error?: string } } }
				).message;
				return m?.role === "toolResult" && m.toolName !== "list_todos" && !m.details?.error ? [m.details?.todos] : [];
			});
			expect(listOf(old)).toEqual(written.at(-1));
			expect([0, 1]).toContain(written.length - 1);
			// Nothing of the old run landed in the new session.
			const fresh = await entries(client);
			expect(fresh.filter((e) => e.type === "message" && e.message?.role === "toolResult")).toEqual([]);
			expect(client.exit).toBeUndefined();
		});

		it("fork during a countdown: the fork holds the list as of its branch point and gets no continuation", async () => {
			const env = rpcSetup("0.5", [...WORK_ONE]);
			rpc = await startRpc({
				host,
				env: env.env,
				extensions: [EXTENSION_ENTRY],
				session: { dir: `${env.root}/sessions` },
			});
			const client = rpc;
			await client.promptAndSettle("go");
			await client.waitFor(() => client.widgets.get("til-done-countdown"), 5000, "countdown widget");
			const forkable = (await client.send({ type: "get_fork_messages" })) as {
				data?: { messages?: { entryId: string; text: string }[] };
			};
			const target = forkable.data?.messages?.find((m) => m.text === "go");
			expect(target).toBeDefined();
			const forked = await client.send({ type: "fork", entryId: target!.entryId });
			expect(forked.success).toBe(true);
			await sleep(900);
			expect(continuationsIn(await entries(client))).toEqual([]);
			// Forking at the first prompt gives a branch without any snapshot: an empty list.
			expect(client.statuses.get("til-done")).toBeUndefined();
			expect(env.readLog().filter((line) => line.lastUser.startsWith(CONTINUATION))).toEqual([]);
			expect(client.exit).toBeUndefined();
		});
	});
});
