import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseWorkersAsk } from "../../src/core/rules/todo-args.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos.ts";
import { setWorkers, showWorkers } from "../../src/edges/commands/workers.ts";
import { addWorker, placeWorker, setTodos, workersAllowed } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { ownTmpdir } from "../helpers/own-tmpdir.ts";
import { freshStore } from "../helpers/store.ts";

ownTmpdir();
let dir = "";
beforeEach(() => {
	freshStore();
	dir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-workers-command-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("/todos workers reads its word strictly", () => {
	it.each([
		["", undefined],
		["off", { count: 0 }],
		["OFF", { count: 0 }],
		["0", { count: 0 }],
		["4", { count: 4 }],
		["16", { count: 16 }],
		["clean", "clean"],
		["Clean", "clean"],
	])("%j: %s", (rest, value) => {
		expect(parseWorkersAsk(rest, 16)).toEqual({ value });
	});

	it.each(["17", "-1", "two", "4 more", "1.5", "clean up"])("%j is refused with what it takes", (rest) => {
		expect(parseWorkersAsk(rest, 16)).toEqual({
			error: `"${rest}" is not a number of workers: 0 to 16, off, or clean`,
		});
	});
});

describe("/todos workers shows the workers at work, and sets how many may work", () => {
	it("alone: the setting, then each worker with its item, time, tokens and tree", async () => {
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		await showWorkers(fake.ctx, 0);
		setTodos([{ text: "Write the parser", status: "in_progress" }]);
		addWorker({ index: 0, key: "0-x", startedAt: 1_000, tokens: 1234, dir: "" });
		await showWorkers(fake.ctx, 2, 31_000);
		placeWorker("0-x", "/tmp/til-done-worker-abc");
		await showWorkers(fake.ctx, 2, 31_000);
		expect(fake.ui.notifications.map((notice) => notice.message)).toEqual([
			"Workers: off",
			"Workers: up to 2 at once; 1 at work\n  [0] Write the parser: 30 s, 1,234 tokens, in (its tree is being made)\nEsc (in the TUI) or /todos pause stops them all.",
			"Workers: up to 2 at once; 1 at work\n  [0] Write the parser: 30 s, 1,234 tokens, in /tmp/til-done-worker-abc\nEsc (in the TUI) or /todos pause stops them all.",
		]);
	});

	it("<n> or off in a git work tree: taken for this session; outside one, more than 0 is refused and nothing changes", async () => {
		const refused: string[] = [];
		const outside = createFakeCtx({ mode: "rpc", cwd: dir });
		expect(await setWorkers(outside.ctx, 3, (why) => refused.push(why))).toBe(false);
		expect(refused).toEqual(["workers need a git work tree, and this session's folder is not in one"]);
		expect(workersAllowed(0)).toBe(0);
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const inside = createFakeCtx({ mode: "rpc", cwd: dir });
		expect(await setWorkers(inside.ctx, 3, (why) => refused.push(why))).toBe(true);
		expect(workersAllowed(0)).toBe(3);
		expect(await setWorkers(inside.ctx, 0, (why) => refused.push(why))).toBe(true);
		expect(workersAllowed(4)).toBe(0);
		expect(inside.ui.notifications.map((notice) => notice.message)).toEqual([
			"Workers: up to 3 at once in this session.",
			"Workers: off for this session.",
		]);
	});
});

describe("/todos workers through /todos", () => {
	function todos(cwd: string) {
		const base = startEngine({ mode: "rpc", cwd });
		registerTodosCommand(base.pi.api, base.engine, () => base.config);
		const run = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
		return { run, told: () => base.ui.notifications.map((notice) => notice.message) };
	}

	it("lists, sets, and refuses what it does not understand with its usage", async () => {
		execFileSync("git", ["init", "-q"], { cwd: dir });
		const { run, told } = todos(dir);
		await run("workers");
		await run("workers 2");
		await run("workers lots");
		expect(told()).toEqual([
			"Workers: off",
			"Workers: up to 2 at once in this session.",
			'/todos workers: "lots" is not a number of workers: 0 to 16, off, or clean\nusage: /todos workers [<n> | off | clean]',
		]);
	});

	it("outside a git work tree, a count is refused with the usage", async () => {
		const { run, told } = todos(dir);
		await run("workers 2");
		expect(told()).toEqual([
			"/todos workers: workers need a git work tree, and this session's folder is not in one\nusage: /todos workers [<n> | off | clean]",
		]);
	});
});
