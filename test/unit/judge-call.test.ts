import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { userRequests } from "../../src/core/rules/branch.ts";
import type { JudgeInput } from "../../src/core/rules/judge.ts";
import { CHECKPOINT_ENTRY_TYPE, GUEST_ENTRY_TYPE } from "../../src/core/rules/keys.ts";
import { DEFAULT_CONFIG, type TilDoneConfig } from "../../src/core/rules/settings.ts";
import { NO_SPEND } from "../../src/core/rules/usage.ts";
import type { JudgeResult } from "../../src/core/rules/verdict.ts";
import { gatherEvidence, toolEvidence } from "../../src/edges/checks/evidence.ts";
import { askJudge } from "../../src/edges/checks/judge.ts";
import { snapshotChainStart } from "../../src/edges/git/chain-start.ts";
import { ownEntries } from "../../src/edges/host/own-branch.ts";
import {
	beginSession,
	getChain,
	getChainStart,
	getState,
	recordChainStart,
	recordRun,
	resetState,
} from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import { createFakeCtx, type FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { itemChange, NO_FILE_CHANGED, NO_START, NOT_A_WORK_TREE, TREE_CHANGE, UNREADABLE } from "../helpers/judge.ts";

const INPUT: JudgeInput = {
	requests: ["Add the flag."],
	todos: [{ text: "Add the flag", status: "completed" }],
	checks: [],
	changes: [],
	calls: [],
};
const VERDICT = JSON.stringify({ items: [{ item: 0, verdict: "met", reason: "It is there." }] });
const answer = (text: string, extra: Record<string, unknown> = {}) => ({
	role: "assistant",
	stopReason: "stop",
	content: [{ type: "text", text }],
	usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
	...extra,
});

/** Asks the judge in a fake session; `options` shape the model registry, `config` the settings. */
function ask(options: FakeCtxOptions, config: Partial<TilDoneConfig> = {}, signal = new AbortController().signal) {
	const { ctx } = createFakeCtx(options);
	return askJudge(INPUT, { ctx, config: { ...DEFAULT_CONFIG, judge: "on", ...config }, signal });
}

/** Why the judge gave no verdict ("" when it gave one). */
const whyOf = (result: JudgeResult | undefined): string => (result && !result.judged ? result.why : "");

beforeEach(() => resetState());

describe("the judge's call gives a verdict, or says why it gave none, never a pass by default", () => {
	it("reads the verdict, and counts the call in the chain's spend and the judge's own", async () => {
		const seen: unknown[] = [];
		const result = await ask({
			complete: async (context) => {
				seen.push(context);
				return answer(VERDICT);
			},
		});
		expect(result).toEqual({ judged: true, items: [{ index: 0, verdict: "met", reason: "It is there." }] });
		expect(getChain().spend).toMatchObject({
			tokens: 120,
			cost: 0.5,
			calls: 1,
			judge: { tokens: 120, cost: 0.5, calls: 1 },
		});
		expect((seen[0] as { systemPrompt: string }).systemPrompt.startsWith("You are an independent judge")).toBe(true);
		expect(getState().checking).toEqual({ what: "the judge", command: "fake/session" });
	});

	it.each([
		["the session has no model", {}, {}],
		["pi knows no model acme/small", { complete: async () => answer(VERDICT) }, { judge: "acme/small" }],
		["pi has no credentials for fake/session", { complete: async () => answer(VERDICT), auth: false }, {}],
		["the call failed: boom", { complete: async () => Promise.reject(new Error("boom")) }, {}],
		[
			"the call failed: overloaded",
			{ complete: async () => answer("", { stopReason: "error", errorMessage: "overloaded" }) },
			{},
		],
		["its answer held no JSON object", { complete: async () => answer("All good.") }, {}],
		["its answer held no JSON object", { complete: async () => answer("{ all good }") }, {}],
		["the call failed: refused", { complete: async () => Promise.reject("refused") }, {}],
		["the call failed: aborted", { complete: async () => answer("", { stopReason: "aborted" }) }, {}],
	] as [string, FakeCtxOptions, Partial<TilDoneConfig>][])("not judged: %s", async (why, options, config) => {
		expect(await ask(options, config)).toEqual({ judged: false, why });
	});

	it("a provider whose credentials pi has not looked at yet is asked for them, not refused", async () => {
		const result = await ask({ complete: async () => answer(VERDICT), auth: true, quickAuth: false });
		expect(result).toEqual({ judged: true, items: [{ index: 0, verdict: "met", reason: "It is there." }] });
	});

	it("names the model the setting gives", async () => {
		const models = { "acme/small": { provider: "acme", id: "small", cost: { input: 0, output: 0 } } };
		await ask({ complete: async () => answer(VERDICT), models }, { judge: "acme/small" });
		expect(getState().checking).toEqual({ what: "the judge", command: "acme/small" });
	});

	it("is not called when its call would cross the token budget, or the cost budget", async () => {
		let calls = 0;
		const complete = async () => {
			calls++;
			return answer(VERDICT);
		};
		recordRun({ ...getChain(), spend: { ...NO_SPEND, tokens: 990, cost: 0.99 } });
		const overTokens = await ask({ complete }, { budgetTokens: 1_000 });
		expect(whyOf(overTokens)).toMatch(/^its call would bring the chain to [\d,]+ tokens, over the budget of 1,000$/);
		const models = { "acme/dear": { provider: "acme", id: "dear", cost: { input: 1_000, output: 0 } } };
		const overCost = await ask({ complete, models }, { judge: "acme/dear", budgetCost: 1 });
		expect(whyOf(overCost)).toMatch(/^its call would bring the chain's cost to [\d.]+, over the budget of 1\.0000$/);
		expect(calls).toBe(0);
	});

	it("a cancelled call concludes nothing", async () => {
		const stop = new AbortController();
		const complete = async () => {
			stop.abort();
			throw new Error("aborted");
		};
		expect(await ask({ complete }, {}, stop.signal)).toBeUndefined();
		const answered = new AbortController();
		const late = async () => {
			answered.abort();
			return answer(VERDICT);
		};
		expect(await ask({ complete: late }, {}, answered.signal)).toBeUndefined();
	});

	it("a call with no answer in the check timeout is not judged", async () => {
		const complete = (_context: unknown, options?: { signal?: AbortSignal }) =>
			new Promise((resolve) =>
				options?.signal?.addEventListener("abort", () => resolve(answer("", { stopReason: "aborted" }))),
			);
		expect(await ask({ complete }, { checkTimeoutSeconds: 0.1 })).toEqual({
			judged: false,
			why: "no answer within 0.1 s",
		});
	});
});

describe("what the judge reads off the session", () => {
	const user = (content: unknown) => ({ type: "message", message: { role: "user", content } });
	const call = (id: string, name: string, args: unknown) => ({
		type: "message",
		message: {
			role: "assistant",
			content: [
				{ type: "text", text: "…" },
				{ type: "toolCall", id, name, arguments: args },
			],
		},
	});
	const result = (id: string, toolName: string, text: string, isError = false) => ({
		type: "message",
		message: { role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError },
	});

	it("each tool result with the call it answers, oldest first", () => {
		const branch = [
			call("a", "bash", { command: "npm test" }),
			result("a", "bash", "2 failed", true),
			result("b", "read", "no call on the branch"),
			{ type: "message", message: { role: "toolResult", toolName: "ls", content: "no id" } },
			call("c", "write", { path: "README.md" }),
			result("c", "write", "written"),
			null,
		];
		expect(toolEvidence(branch)).toEqual([
			{ what: 'error of bash {"command":"npm test"}', text: "2 failed" },
			{ what: "result of read", text: "no call on the branch" },
			{ what: "result of ls", text: "no id" },
			{ what: 'result of write {"path":"README.md"}', text: "written" },
		]);
	});

	it("this session's own part of the branch; none when pi cannot give it", () => {
		const guest = { type: "custom", customType: GUEST_ENTRY_TYPE, data: { sessionId: "s" } };
		const { ctx } = createFakeCtx({ branch: [user("the parent's"), guest, user("mine")] });
		expect(userRequests(ownEntries(ctx))).toEqual(["mine"]);
		const broken = createFakeCtx({
			branch: () => {
				throw new Error("unreadable");
			},
		});
		expect(ownEntries(broken.ctx)).toEqual([]);
	});

	describe("the work tree's change: each item's diff with checkpoints, else the work tree's since the chain started", () => {
		let repo = "";
		const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
		const commit = (message: string) => git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message);
		beforeEach(() => {
			repo = mkdtempSync(join(tmpdir(), "til-done-evidence-"));
			git("init", "-q");
			git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
		});
		afterEach(() => rmSync(repo, { recursive: true, force: true }));

		const text = "Document the flag";
		const checkpoint = (phase: string, at: string) => ({
			type: "custom",
			customType: CHECKPOINT_ENTRY_TYPE,
			data: { key: itemKey(0, text), index: 0, text, phase, commit: at, ref: `refs/til-done/s/${phase}`, at: 1 },
		});
		const todos = [
			{ text, status: "completed" as const },
			{ text: "Not started", status: "not_started" as const },
		];
		const WRITE = { what: 'result of write {"path":"README.md"}', text: "ok" };

		it("with checkpoints, the item's diff from its start to its completion; the tool calls after it", async () => {
			const start = git("rev-parse", "HEAD");
			writeFileSync(join(repo, "README.md"), "--verbose prints every step.\n");
			git("add", "README.md");
			commit("docs");
			const done = git("rev-parse", "HEAD");
			const branch = [
				checkpoint("start", start),
				call("a", "write", { path: "README.md" }),
				result("a", "write", "ok"),
			];
			const { ctx } = createFakeCtx({ cwd: repo });
			const evidence = await gatherEvidence(ctx, [...branch, checkpoint("done", done)], todos, true);
			expect(evidence.changes.map((piece) => piece.what)).toEqual([itemChange(0)]);
			expect(evidence.changes[0]?.text).toContain("+--verbose prints every step.");
			expect(evidence.calls).toEqual([WRITE]);
			const unchanged = await gatherEvidence(ctx, [...branch, checkpoint("done", start)], todos, true);
			expect(unchanged.changes).toEqual([{ what: itemChange(0), text: NO_FILE_CHANGED }]);
		});

		it("an item the checkpoints did not take, or none at all: the work tree's change since the chain started", async () => {
			const { ctx } = createFakeCtx({ cwd: repo });
			const other = [{ text: "Another", status: "completed" as const }];
			expect((await gatherEvidence(ctx, [], other, true)).changes).toEqual([{ what: TREE_CHANGE, text: NO_START }]);
			recordChainStart(await snapshotChainStart(ctx));
			writeFileSync(join(repo, "notes.txt"), "hello\n");
			for (const checkpoints of [true, false]) {
				const { changes } = await gatherEvidence(ctx, [], other, checkpoints);
				expect(changes.map((piece) => piece.what)).toEqual([TREE_CHANGE]);
				expect(changes[0]?.text).toContain("+hello");
			}
			expect((await gatherEvidence(ctx, [], [], false)).changes.map((piece) => piece.what)).toEqual([TREE_CHANGE]);
		});

		it("the chain's snapshot touches nothing of the person's; a new chain's replaces it, and no change is said so", async () => {
			writeFileSync(join(repo, "staged.txt"), "staged\n");
			git("add", "staged.txt");
			const index = readFileSync(join(repo, ".git", "index"));
			const head = git("rev-parse", "HEAD");
			const { ctx } = createFakeCtx({ cwd: repo });
			recordChainStart(await snapshotChainStart(ctx));
			writeFileSync(join(repo, "notes.txt"), "hello\n");
			recordChainStart(await snapshotChainStart(ctx));
			expect((await gatherEvidence(ctx, [], todos, false)).changes).toEqual([
				{ what: TREE_CHANGE, text: NO_FILE_CHANGED },
			]);
			expect(readFileSync(join(repo, ".git", "index"))).toEqual(index);
			expect(git("rev-parse", "HEAD")).toBe(head);
			expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/")).toBe(
				"refs/til-done/test-session/chain/start",
			);
		});

		it("a chain's start is snapshotted while the judge or a goal is on: a prompt that starts a run, /goal, /loop", async () => {
			const judged = startEngine({ cwd: repo }, { judge: "on" });
			beginSession("own", judged.config);
			await judged.engine.onUserInput(judged.ctx, true);
			const first = getChainStart();
			expect(first).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
			writeFileSync(join(repo, "notes.txt"), "hello\n");
			// A prompt that steers the run under way is part of the work that began before it.
			await judged.engine.onUserInput(judged.ctx, false);
			expect(getChainStart()).toBe(first);
			await judged.engine.startLoop({ prompt: "go", max: 2, marker: "DONE" }, judged.commandCtx);
			expect(getChainStart()).not.toEqual(first);
			const off = startEngine({ cwd: repo });
			await off.engine.onUserInput(off.ctx, true);
			expect(getChainStart()).toBeUndefined();
			await off.engine.startGoal("The notes say hello.", off.commandCtx);
			expect(getChainStart()).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
			const outside = startEngine({ cwd: tmpdir() }, { judge: "on" });
			beginSession("own", outside.config);
			await outside.engine.onUserInput(outside.ctx, true);
			expect(getChainStart()).toEqual({ unread: "not-git" });
		});

		it("a snapshot git could not take, or one it cannot read; outside a git work tree: said so, and the tool calls remain", async () => {
			const { ctx } = createFakeCtx({ cwd: repo });
			recordChainStart({ commit: "0".repeat(40) });
			expect((await gatherEvidence(ctx, [], todos, false)).changes).toEqual([{ what: TREE_CHANGE, text: UNREADABLE }]);
			recordChainStart({ unread: "failed" });
			expect((await gatherEvidence(ctx, [], todos, false)).changes).toEqual([{ what: TREE_CHANGE, text: UNREADABLE }]);
			const outside = createFakeCtx({ cwd: tmpdir() });
			recordChainStart(await snapshotChainStart(outside.ctx));
			const branch = [call("a", "write", { path: "README.md" }), result("a", "write", "ok")];
			for (const checkpoints of [true, false]) {
				expect(await gatherEvidence(outside.ctx, branch, todos, checkpoints)).toEqual({
					changes: [{ what: TREE_CHANGE, text: NOT_A_WORK_TREE }],
					calls: [WRITE],
				});
			}
		});
	});
});
