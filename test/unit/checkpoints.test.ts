/**
 * Checkpoints through the real extension (its factory) with a fake pi and context over a real repository: a start
 * and a completion become entries, a rebuild of the store takes none, the user's own git operation is left alone and
 * said once, and the commands read their arguments strictly.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { checkpointsSettled } from "../../src/edges/git/queue.ts";
import tilDone from "../../src/index.ts";
import { addWorker, inSession, markLanding, removeWorker, sessionOf, updateTodoStatus } from "../../src/state.ts";
import { CHECKPOINT_ENTRY, CHECKPOINTS, TODOS_ERRORS, todosRefused } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { freshStore } from "../helpers/store.ts";

let dir: string;
const git = (...args: string[]): string =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-cp-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The extension in a session at `dir` with checkpoints on (and `flags`); the branch is what it appended. */
async function start(gitRepo = true, flags: Record<string, string> = {}) {
	if (gitRepo) {
		git("init", "-q", "-b", "main");
		writeFileSync(join(dir, "a.txt"), "one\n");
		git("add", "-A");
		git("commit", "-q", "-m", "first");
	}
	freshStore();
	const pi = createFakePi();
	pi.flagValues.set("til-done-checkpoints", true);
	for (const [flag, value] of Object.entries(flags)) pi.flagValues.set(flag, value);
	tilDone(pi.api);
	const branch = () => pi.entries.map(({ customType, data }) => ({ type: "custom", customType, data }));
	const fake = createFakeCtx({ cwd: dir, branch });
	await pi.fire("session_start", { reason: "startup" }, fake.ctx);
	const tool = async (name: string, params: unknown) => {
		await pi.fire("tool_call", { toolName: name, input: params }, fake.ctx);
		const found = pi.tools.get(name) as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
		await found.execute("id", params, undefined, undefined, fake.ctx);
	};
	const todos = async (args: string) => {
		await pi.commands.get("todos")?.handler(args, fake.commandCtx);
		return fake.ui.notifications.at(-1)?.message;
	};
	const taken = () =>
		pi.entries
			.filter((entry) => entry.customType === CHECKPOINT_ENTRY)
			.map((entry) => {
				const { index, phase } = entry.data as { index: number; phase: string };
				return [index, phase];
			});
	/** Item 0, "Edit a", worked to the end: started, a.txt written as `content` from pi's bash, completed, settled. */
	const editA = async (content: string) => {
		await tool("write_todos", { mode: "replace", todos: [{ text: "Edit a" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		// pi's bash tool: its call waits for the start's snapshot, then it writes.
		await pi.fire("tool_call", { toolName: "bash", input: {} }, fake.ctx);
		writeFileSync(join(dir, "a.txt"), content);
		await tool("edit_todos", { action: "complete", indices: [0] });
		await checkpointsSettled();
	};
	return { pi, fake, tool, todos, taken, editA };
}

describe("a start and a completion are snapshots on the branch; diff and revert use them", () => {
	it("takes both, diffs them, reverts the change", async () => {
		const { todos, taken, editA } = await start();
		await editA("two\n");
		expect(taken()).toEqual([
			[0, "start"],
			[0, "done"],
		]);
		expect((await todos("diff 0"))?.split("\n").slice(1)).toContain("+two");
		expect(await todos("checkpoints")).toMatch(new RegExp(`^${CHECKPOINTS.listHead(2).replace(/[()]/g, "\\$&")}\n`));
		expect(await todos("revert 0")).toBe(CHECKPOINTS.reverted(0, 1, "a.txt"));
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
		expect(await todos("checkpoints clean")).toBe(CHECKPOINTS.cleaned(2));
		expect(git("for-each-ref", "refs/til-done/")).toBe("");
	});

	it("checkpoints whose commits the repository does not hold (another clone, a gc) are said to be gone", async () => {
		const { pi, tool, todos } = await start();
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		const key = itemKey(0, "a");
		for (const [phase, digit] of [
			["start", "1"],
			["done", "2"],
		] as const) {
			const ref = `refs/til-done/s/${key}/${phase}`;
			const data = { key, index: 0, text: "a", phase, commit: digit.repeat(40), ref, at: 1 };
			pi.entries.push({ customType: CHECKPOINT_ENTRY, data });
		}
		expect(await todos("diff 0")).toBe(CHECKPOINTS.gone(0));
		expect(await todos("revert 0")).toBe(CHECKPOINTS.gone(0));
	});

	it("an item a worker holds: no start when it is set in progress, its start when it lands, then its done", async () => {
		const { pi, tool, taken } = await start();
		// The workers work in the session's part of the store.
		const inIt = (work: () => void) => inSession(sessionOf(pi.api), work);
		await tool("write_todos", { mode: "replace", todos: [{ text: "Write b" }, { text: "Write c" }] });
		const key = itemKey(0, "Write b");
		inIt(() => addWorker({ index: 0, key, startedAt: 0, tokens: 0, dir: "" }));
		inIt(() => updateTodoStatus([0], "in_progress"));
		await checkpointsSettled();
		expect(taken()).toEqual([]);
		inIt(() => markLanding(key));
		inIt(() => markLanding(key));
		await checkpointsSettled();
		expect(taken()).toEqual([[0, "start"]]);
		writeFileSync(join(dir, "b.txt"), "b\n");
		inIt(() => updateTodoStatus([0], "completed"));
		inIt(() => removeWorker(key));
		await checkpointsSettled();
		expect(taken()).toEqual([
			[0, "start"],
			[0, "done"],
		]);
	});

	it("while the user's own git operation is under way a revert is refused; refs git holds locked are not cleaned", async () => {
		const { todos, editA } = await start();
		await editA("two\n");
		writeFileSync(join(dir, ".git/MERGE_HEAD"), "");
		expect(await todos("revert 0")).toBe(CHECKPOINTS.busy("a merge is in progress"));
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("two\n");
		rmSync(join(dir, ".git/MERGE_HEAD"));
		const [ref] = git("for-each-ref", "--format=%(refname)", "refs/til-done/").split("\n");
		writeFileSync(join(dir, ".git", `${ref}.lock`), "");
		expect(await todos("checkpoints clean")).toBe(CHECKPOINTS.cleanFailed);
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/").split("\n").filter(Boolean)).toHaveLength(2);
	});

	it("a checkpoint names the untracked files its snapshot left out over the bound; the user hears it once", async () => {
		const { pi, fake, tool } = await start(true, { "til-done-max-untracked-mb": "1" });
		writeFileSync(join(dir, "big.bin"), "x".repeat(2_000_000));
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }, { text: "b" }] });
		await tool("edit_todos", { action: "start", indices: [0, 1] });
		await checkpointsSettled();
		const leftOut = pi.entries
			.filter((entry) => entry.customType === CHECKPOINT_ENTRY)
			.map((entry) => (entry.data as { leftOut?: string[] }).leftOut);
		expect(leftOut).toEqual([["big.bin"], ["big.bin"]]);
		const warnings = fake.ui.notifications.filter((n) => n.type === "warning").map((n) => n.message);
		expect(warnings).toEqual([CHECKPOINTS.leftOut(1, 1, '"big.bin" (2 MB)')]);
	});

	it("an item that changed nothing says so, for diff and revert alike", async () => {
		const { tool, todos } = await start();
		await tool("write_todos", { mode: "replace", todos: [{ text: "Think" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		await tool("edit_todos", { action: "complete", indices: [0] });
		expect(await todos("diff 0")).toBe(CHECKPOINTS.noChanges(0, "Think"));
		expect(await todos("revert 0")).toBe(CHECKPOINTS.noChanges(0, "Think"));
	});
});

describe("a rebuild of the store (a move in the session tree) takes no checkpoint", () => {
	it("a branch whose list has an item in progress and one completed", async () => {
		const { pi, fake, taken } = await start();
		const list = [
			{ text: "a", status: "in_progress" },
			{ text: "b", status: "completed" },
		];
		pi.entries.push({ customType: "til-done-snapshot", data: { action: "write", todos: list } });
		await pi.fire("session_tree", {}, fake.ctx);
		await checkpointsSettled();
		expect(taken()).toEqual([]);
	});
});

describe("while the user's own git operation is under way, nothing is taken, and that is said once", () => {
	it("a merge in progress", async () => {
		const { tool, taken, fake } = await start();
		writeFileSync(join(dir, ".git/MERGE_HEAD"), "");
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }, { text: "b" }] });
		await tool("edit_todos", { action: "start", indices: [0, 1] });
		await checkpointsSettled();
		expect(taken()).toEqual([]);
		const warnings = fake.ui.notifications.filter((n) => n.type === "warning").map((n) => n.message);
		expect(warnings).toEqual([CHECKPOINTS.busy("a merge is in progress")]);
	});
});

describe("outside a git work tree the commands say there are no checkpoints, and nothing is taken", () => {
	it("one warning at the start", async () => {
		const { fake, tool, taken } = await start(false);
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		await checkpointsSettled();
		expect(taken()).toEqual([]);
		expect(fake.ui.notifications.map((n) => n.message)).toEqual([CHECKPOINTS.notGitTree(dir)]);
	});
});

describe("the checkpoint commands read their arguments strictly: anything not understood is refused with the usage", () => {
	it("diff and revert take one index; checkpoints takes nothing or clean", async () => {
		const { tool, todos, taken } = await start();
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		expect(await todos("diff")).toBe(TODOS_ERRORS.which("diff", 1));
		expect(await todos("diff 0 1")).toBe(todosRefused("diff", 'one index only: "1" is not understood'));
		expect(await todos('diff "go on')).toBe(TODOS_ERRORS.notAnIndex("diff", '\\"go', 1));
		expect(await todos("revert 3")).toBe(TODOS_ERRORS.notAnItem("revert", "3", 1));
		expect(await todos("revert x")).toBe(TODOS_ERRORS.notAnIndex("revert", "x", 1));
		expect(await todos("checkpoints all")).toBe(
			todosRefused("checkpoints", '"all" is not understood: it takes nothing or clean'),
		);
		expect(await todos("checkpoints")).toBe(CHECKPOINTS.none);
		expect(await todos("diff 0")).toBe(CHECKPOINTS.noWork(0));
		expect(taken()).toEqual([]);
	});
});

describe("a revert that would lose a later change is refused, naming the files, and changes nothing", () => {
	it("a file with a space in its name, changed again after the item", async () => {
		const { pi, fake, tool, todos } = await start();
		await tool("write_todos", { mode: "replace", todos: [{ text: "Write" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		await pi.fire("tool_call", { toolName: "bash", input: {} }, fake.ctx);
		writeFileSync(join(dir, "my notes.txt"), "item\n");
		writeFileSync(join(dir, "b.txt"), "item\n");
		await tool("edit_todos", { action: "complete", indices: [0] });
		await checkpointsSettled();
		writeFileSync(join(dir, "my notes.txt"), "mine\n");
		expect(await todos("revert 0")).toBe(CHECKPOINTS.revertRefused(0, '"my notes.txt"'));
		expect(readFileSync(join(dir, "my notes.txt"), "utf8")).toBe("mine\n");
		expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("item\n");
		writeFileSync(join(dir, "my notes.txt"), "item\n");
		expect(await todos("revert 0")).toBe(CHECKPOINTS.reverted(0, 2, undefined, 'b.txt, "my notes.txt"'));
	});
});

describe("a revert that would lose a later change keeps every byte of it", () => {
	it("a line ending of its own, a NUL and a non-ASCII letter, written after the item", async () => {
		const { todos, editA } = await start();
		await editA("changed\n");
		const mine = "changed\nmine \u00e9\r\n\u0000tail";
		writeFileSync(join(dir, "a.txt"), mine);
		expect(await todos("revert 0")).toBe(CHECKPOINTS.revertRefused(0, "a.txt"));
		expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe(mine);
	});
});

describe("git that cannot snapshot (it cannot write an object) is said once, and a revert is refused", () => {
	it("no entry, one warning; revert and a later session end quietly", async () => {
		const { pi, fake, tool, todos, taken } = await start();
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		await pi.fire("tool_call", { toolName: "bash", input: {} }, fake.ctx);
		writeFileSync(join(dir, "a.txt"), "two\n");
		await tool("edit_todos", { action: "complete", indices: [0] });
		await checkpointsSettled();
		// A file where the folder of a new file's object must go: git cannot store that file.
		writeFileSync(join(dir, "c.txt"), "cannot be stored\n");
		const blob = execFileSync("git", ["hash-object", "c.txt"], { cwd: dir, encoding: "utf8" }).trim();
		const blocker = join(dir, ".git/objects", blob.slice(0, 2));
		rmSync(blocker, { recursive: true, force: true });
		writeFileSync(blocker, "");
		await tool("write_todos", { mode: "replace", todos: [{ text: "b" }] });
		await tool("edit_todos", { action: "start", indices: [0] });
		await tool("edit_todos", { action: "complete", indices: [0] });
		await checkpointsSettled();
		expect(taken()).toEqual([
			[0, "start"],
			[0, "done"],
		]);
		const warnings = fake.ui.notifications.filter((n) => n.type === "warning").map((n) => n.message);
		expect(warnings).toEqual([CHECKPOINTS.failed]);
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		expect(await todos("revert 0")).toBe(CHECKPOINTS.revertFailed(0));
		rmSync(blocker);
		await pi.fire("session_shutdown", {}, fake.ctx);
		expect(await todos("diff 0")).toMatch(/^Changes of \[0\] a /);
	});
});

describe("commands outside a git work tree say there are no checkpoints here", () => {
	it("diff of an item with entries, and checkpoints clean", async () => {
		const { pi, tool, todos } = await start(false);
		await tool("write_todos", { mode: "replace", todos: [{ text: "a" }] });
		const key = itemKey(0, "a");
		for (const phase of ["start", "done"] as const) {
			const data = { key, index: 0, text: "a", phase, commit: "1".repeat(40), ref: `refs/til-done/s/${phase}`, at: 1 };
			pi.entries.push({ customType: CHECKPOINT_ENTRY, data });
		}
		expect(await todos("diff 0")).toBe(CHECKPOINTS.noRepo(dir));
		expect(await todos("checkpoints clean")).toBe(CHECKPOINTS.noRepo(dir));
	});
});
