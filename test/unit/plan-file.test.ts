import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { planToMarkdown } from "../../src/core/rules/plan-file.ts";
import { decideSave, decideStart, withCompletionsOf } from "../../src/core/rules/plan-file-sync.ts";
import type { TilDoneConfig } from "../../src/core/rules/settings.ts";
import { completeTodosArgs } from "../../src/edges/commands/todos.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import { followPlanFile, readPlanAgain } from "../../src/edges/files/follow.ts";
import { hashOf, hashOfRead, readPlanFile, underPlanLock, writePlanFile } from "../../src/edges/files/plan-file-io.ts";
import { LOCK_STALE_MS } from "../../src/edges/host/file-lock.ts";
import { getTodos, inSession, planFileHash, sessionOf, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { startEngine } from "../helpers/engine.ts";
import { PLAN_NOTICES, PLAN_PROBLEMS, planFileError, todosRefused } from "../helpers/expected.ts";
import type { FakeCtxOptions } from "../helpers/fake-ctx.ts";
import { item } from "../helpers/linked-lists.ts";

const lines = (...text: string[]): string => `${text.join("\n")}\n`;
const TWO: TodoItem[] = [item("Build", "completed"), item("Ship")];
const TWO_TEXT = lines("# Plan", "", "- [x] Build", "- [ ] Ship");

let dir = "";
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "til-done-plan-"));
	vi.spyOn(process.stderr, "write").mockImplementation(() => true);
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
	vi.restoreAllMocks();
});

describe("a change of the list goes to the file only when the file is what we last wrote or read", () => {
	it.each([
		["never known, missing", undefined, undefined, "write"],
		["known, unchanged on disk", "a", "a", "write"],
		["already holds the list", "a", "n", "unchanged"],
		["changed on disk since", "a", "b", "changed-on-disk"],
		["never known, but there", undefined, "b", "changed-on-disk"],
		["known, then deleted", "a", undefined, "changed-on-disk"],
		["known, now unreadable", "a", null, "changed-on-disk"],
	] as const)("%s", (_, known, onDisk, decision) => {
		expect(decideSave(known, onDisk, "n")).toBe(decision);
	});
});

describe("a file another session on the plan only checked items of is taken into the list; any other change is the user's", () => {
	const list: TodoItem[] = [
		{ text: "Add line 0", status: "not_started" },
		{ text: "Add line 1", status: "in_progress" },
		{ text: "Add line 2", status: "completed" },
	];
	const written = planToMarkdown(list);
	const checked = (indices: readonly number[], todos = list) =>
		planToMarkdown(todos.map((todo, index) => (indices.includes(index) ? { ...todo, status: "completed" } : todo)));

	it("items checked there are completed here, the others as they were", () => {
		expect(withCompletionsOf(list, checked([0]))?.map((todo) => todo.status)).toEqual([
			"completed",
			"in_progress",
			"completed",
		]);
	});

	it("a file that completes nothing open here gives the very list back", () => {
		expect(withCompletionsOf(list, written)).toBe(list);
	});

	it("an item unchecked there, a text edited, an annotation added or an item added: not a completion, left to the user", () => {
		expect(withCompletionsOf(list, written.replace("- [x] Add line 2", "- [ ] Add line 2"))).toBeUndefined();
		expect(withCompletionsOf(list, checked([0]).replace("Add line 1", "Add line one"))).toBeUndefined();
		expect(withCompletionsOf(list, `${checked([0])}  - check: \`true\`\n`)).toBeUndefined();
		expect(withCompletionsOf(list, `${checked([0])}- [ ] Add line 3\n`)).toBeUndefined();
	});

	it("an item this session completed since it last wrote the file, open there still: the other's completions taken, its own kept", () => {
		const ours = list.map((todo, index): TodoItem => (index === 0 ? { ...todo, status: "completed" } : todo));
		const theirs = checked([1]);
		expect(withCompletionsOf(ours, theirs, written)?.map((todo) => todo.status)).toEqual([
			"completed",
			"completed",
			"completed",
		]);
		// Without what it last wrote, an item open there that is completed here cannot be told from one unchecked.
		expect(withCompletionsOf(ours, theirs)).toBeUndefined();
	});

	it("an item another session works (marked in progress there) or this one works: no change of the plan, the completions taken", () => {
		const theirs = planToMarkdown(
			list.map(
				(todo, index): TodoItem =>
					index === 0 ? { ...todo, status: "in_progress" } : index === 1 ? { ...todo, status: "completed" } : todo,
			),
		);
		expect(withCompletionsOf(list, theirs, written)?.map((todo) => todo.status)).toEqual([
			"not_started",
			"completed",
			"completed",
		]);
	});

	it("an item completed here before the last write and open in the file: unchecked by the user, left to them", () => {
		const unchecked = checked([1]).replace("- [x] Add line 2", "- [ ] Add line 2");
		expect(withCompletionsOf(list, unchecked, written)).toBeUndefined();
	});

	it("a heading edited there is kept: the completions are taken", () => {
		const headed = checked([1]).replace("# Plan", "# Plan for the release");
		expect(withCompletionsOf(list, headed)?.[1]?.status).toBe("completed");
	});
});

describe("at a session's start a session without a list takes the file's", () => {
	it("loads a file's items into an empty session", () => {
		expect(decideStart([], TWO_TEXT)).toEqual({ kind: "load", todos: TWO });
	});
	it("keeps a session's list, and counts the file as known only when it holds that list", () => {
		expect(decideStart(TWO, TWO_TEXT)).toEqual({ kind: "known" });
		expect(decideStart(TWO, lines("- [ ] Other"))).toEqual({ kind: "nothing" });
	});
	it("says why a file that is not understood is not loaded; a missing or empty one loads nothing", () => {
		expect(decideStart([], lines("- [ ] a", "  - soon"))).toEqual({
			kind: "refused",
			line: 2,
			problem: PLAN_PROBLEMS.unknownAnnotation("soon"),
		});
		expect(decideStart([], undefined)).toEqual({ kind: "nothing" });
		expect(decideStart([], lines("# Plan"))).toEqual({ kind: "known" });
	});
});

describe("a read, a decision and a write of a plan file run under its lock, one session of the machine at a time", () => {
	it("the lock stands while the section runs and is gone after; a section inside it (the list changed again) runs at once", () => {
		const path = join(dir, "PLAN.md");
		const seen = underPlanLock(path, () => [existsSync(`${path}.lock`), underPlanLock(path, () => "inner")]);
		expect(seen).toEqual([true, "inner"]);
		expect(existsSync(`${path}.lock`)).toBe(false);
	});

	it("a lock a killed pi left (older than its stale time) is taken over, and the write goes on", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(`${path}.lock`, "");
		const old = new Date(Date.now() - LOCK_STALE_MS - 1_000);
		utimesSync(`${path}.lock`, old, old);
		expect(underPlanLock(path, () => writePlanFile(path, TWO_TEXT))).toBeUndefined();
		expect(readFileSync(path, "utf8")).toBe(TWO_TEXT);
		expect(existsSync(`${path}.lock`)).toBe(false);
	});

	it("a lock another session holds on and on is waited for a while, then gone without: the write goes on, its lock left to it", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(`${path}.lock`, "");
		expect(underPlanLock(path, () => writePlanFile(path, TWO_TEXT))).toBeUndefined();
		expect(readFileSync(path, "utf8")).toBe(TWO_TEXT);
		expect(existsSync(`${path}.lock`)).toBe(true);
	});
});

describe("a plan file is written whole, through a temporary file in its folder, and remembered", () => {
	it("writes the text, leaves no temporary file and remembers its hash", () => {
		const path = join(dir, "PLAN.md");
		expect(writePlanFile(path, TWO_TEXT)).toBeUndefined();
		expect(readFileSync(path, "utf8")).toBe(TWO_TEXT);
		expect(readdirSync(dir)).toEqual(["PLAN.md"]);
		expect(planFileHash(path)).toBe(hashOf(TWO_TEXT));
	});
	it("is remembered by the session that wrote it alone: to another session in the process it is someone else's write", () => {
		const path = join(dir, "PLAN.md");
		const other = sessionOf({});
		inSession(other, () => expect(writePlanFile(path, TWO_TEXT)).toBeUndefined());
		expect(planFileHash(path)).toBeUndefined();
		expect(inSession(other, () => planFileHash(path))).toBe(hashOf(TWO_TEXT));
	});
	it("keeps the file's permissions", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, "old\n");
		chmodSync(path, 0o640);
		expect(writePlanFile(path, TWO_TEXT)).toBeUndefined();
		expect(statSync(path).mode & 0o777).toBe(0o640);
	});
	it("writes through a symlink to its target, and the link stays a link", () => {
		const target = join(dir, "real.md");
		const link = join(dir, "PLAN.md");
		writeFileSync(target, "old\n");
		symlinkSync(target, link);
		expect(writePlanFile(link, TWO_TEXT)).toBeUndefined();
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readFileSync(target, "utf8")).toBe(TWO_TEXT);
		expect(readdirSync(dir).sort()).toEqual(["PLAN.md", "real.md"]);
	});
	it("a folder where the file should be is unreadable: its hash on disk is null, not missing", () => {
		const path = join(dir, "PLAN.md");
		mkdirSync(path);
		expect(readPlanFile(path)).toEqual({ error: expect.stringMatching(/EISDIR/) });
		expect(hashOfRead(readPlanFile(path))).toBeNull();
		expect(hashOfRead(readPlanFile(join(dir, "none.md")))).toBeUndefined();
	});
	it("says why it cannot write, and leaves nothing behind", () => {
		const path = join(dir, "missing", "PLAN.md");
		expect(writePlanFile(path, TWO_TEXT)).toMatch(/ENOENT/);
		expect(existsSync(path)).toBe(false);
		expect(readdirSync(dir)).toEqual([]);
	});
});

function setup(options: FakeCtxOptions = {}, overrides: Partial<TilDoneConfig> = {}) {
	const base = startEngine(options, overrides);
	registerTodosCommand(base.pi.api, base.engine, () => base.config);
	const todos = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
	const told = () => base.ui.notifications.map((n) => n.message);
	const snapshots = () => base.pi.entries.filter((entry) => entry.customType === "til-done-snapshot");
	/** The TUI's confirmation dialog, answering `answer`. */
	const answerConfirm = (answer: boolean) => {
		const confirm = vi.fn(async () => answer);
		Object.assign(base.commandCtx.ui, { confirm });
		return confirm;
	};
	return { ...base, todos, told, snapshots, answerConfirm };
}

describe("/todos export and import are offered by argument completion", () => {
	it("completes `ex` and `im` with their usage and help", () => {
		expect(completeTodosArgs("ex")).toEqual([
			{
				value: "export",
				label: "export",
				description: "export [<file>]: write the list to a plan file (default: the followed one, else PLAN.md)",
			},
		]);
		expect(completeTodosArgs("im")).toEqual([
			{ value: "import", label: "import", description: "import <file>: replace the list with a plan file's" },
		]);
	});
});

describe("/todos export writes the list to a plan file", () => {
	it("writes the named file and says so", async () => {
		const { todos, told } = setup();
		setTodos(TWO);
		await todos(`export ${join(dir, "out.md")}`);
		expect(readFileSync(join(dir, "out.md"), "utf8")).toBe(TWO_TEXT);
		expect(told()).toEqual([PLAN_NOTICES.exported(join(dir, "out.md"), 2)]);
	});
	it("writes the followed plan file when given none", async () => {
		const planFile = join(dir, "followed.md");
		const { todos } = setup({}, { planFile });
		setTodos(TWO);
		await todos("export");
		expect(readFileSync(planFile, "utf8")).toBe(TWO_TEXT);
	});
	it("refuses two words with its usage, and writes nothing", async () => {
		const { todos, told } = setup();
		await todos(`export ${join(dir, "a.md")} b.md`);
		expect(told()).toEqual([todosRefused("export", "give one file (a name without spaces), not 2 words")]);
		expect(readdirSync(dir)).toEqual([]);
	});
});

describe("/todos import replaces the list with a plan file's, stored on the branch", () => {
	it("imports a file, checks included, and stores the list as a user's change", async () => {
		const path = join(dir, "in.md");
		writeFileSync(path, lines("- [ ] Test", "  - check: `npm test`"));
		const { todos, told, snapshots } = setup({ mode: "print" });
		await todos(`import ${path}`);
		expect(getTodos()).toEqual([{ text: "Test", status: "not_started", check: "npm test" }]);
		expect(snapshots().map((entry) => entry.data)).toEqual([{ action: "write", todos: getTodos() }]);
		expect(told()).toEqual([]);
		expect(process.stderr.write).toHaveBeenCalledWith(`[til-done] ${PLAN_NOTICES.imported(path, 1)}\n`);
	});
	it("refuses a malformed file with its line and problem, and changes nothing", async () => {
		const path = join(dir, "bad.md");
		writeFileSync(path, lines("# Plan", "- [ ] a", "- [?] b"));
		const { todos, told, snapshots } = setup();
		setTodos(TWO);
		await todos(`import ${path}`);
		expect(told()).toEqual([PLAN_NOTICES.importRefused(planFileError(path, 3, PLAN_PROBLEMS.notAnItem))]);
		expect(getTodos()).toEqual(TWO);
		expect(snapshots()).toEqual([]);
	});
	it("refuses a note it does not know, naming the file as typed (relative to the session's folder) and its line; the list stays", async () => {
		writeFileSync(join(dir, "bad.md"), lines("- [ ] Build", "  - due friday"));
		const { todos, told, snapshots } = setup({ mode: "rpc", cwd: dir });
		const followed = [item("Build"), item("Document", "not_started", { blockedBy: [0] })];
		setTodos(followed);
		await todos("import bad.md");
		expect(told()).toEqual([
			PLAN_NOTICES.importRefused(planFileError("bad.md", 2, PLAN_PROBLEMS.unknownAnnotation("due friday"))),
		]);
		expect(getTodos()).toEqual(followed);
		expect(snapshots()).toEqual([]);
	});
	it("refuses a missing file, and one not named", async () => {
		const { todos, told } = setup();
		await todos(`import ${join(dir, "none.md")}`);
		await todos("import");
		expect(told()).toEqual([
			PLAN_NOTICES.importRefused(`${join(dir, "none.md")} does not exist`),
			todosRefused("import", "which file?"),
		]);
	});
	it("in the TUI asks before replacing a list with open items, and keeps it on a no", async () => {
		const path = join(dir, "in.md");
		writeFileSync(path, TWO_TEXT);
		const { todos, told, answerConfirm } = setup({ mode: "tui" });
		setTodos([item("Open")]);
		const confirm = answerConfirm(false);
		await todos(`import ${path}`);
		expect(confirm).toHaveBeenCalledWith(
			"Replace the todo list?",
			`The list has 1 open item(s); importing ${path} replaces it.`,
		);
		expect(told()).toEqual([PLAN_NOTICES.importKept]);
		expect(getTodos()).toEqual([item("Open")]);
	});
	it("in the TUI replaces it on a yes", async () => {
		const path = join(dir, "in.md");
		writeFileSync(path, TWO_TEXT);
		const { todos, answerConfirm } = setup({ mode: "tui" });
		setTodos([item("Open")]);
		answerConfirm(true);
		await todos(`import ${path}`);
		expect(getTodos()).toEqual(TWO);
	});
});

describe("a followed plan file is loaded into an empty session and written after every change", () => {
	it("loads the file, stores it on the branch, and writes each change back", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, TWO_TEXT);
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		expect(getTodos()).toEqual(TWO);
		expect(pi.entries.filter((entry) => entry.customType === "til-done-snapshot")).toHaveLength(1);
		setTodos([...TWO, item("Announce")]);
		expect(readFileSync(path, "utf8")).toBe(planToMarkdown(getTodos()));
		expect(ui.notifications.map((n) => n.message)).toEqual([PLAN_NOTICES.loaded(path, 2)]);
	});
	it("keeps the file's own heading and notes above the list through every write, and through an export", async () => {
		const path = join(dir, "PLAN.md");
		const head = ["# Release 1.2", "", "Work top to bottom.", ""];
		writeFileSync(path, lines(...head, "- [x] Build", "- [ ] Ship"));
		const { pi, ctx, todos } = setup();
		followPlanFile(pi.api, ctx, path);
		setTodos([...TWO, item("Announce")]);
		expect(readFileSync(path, "utf8")).toBe(lines(...head, "- [x] Build", "- [ ] Ship", "- [ ] Announce"));
		setTodos([item("Ship", "in_progress")]);
		await todos(`export ${path}`);
		expect(readFileSync(path, "utf8")).toBe(lines(...head, "- [ ] Ship", "  - ● in progress"));
	});
	it("leaves a file changed on disk alone and says so once, until an export", async () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, TWO_TEXT);
		const { pi, ctx, ui, todos } = setup();
		followPlanFile(pi.api, ctx, path);
		writeFileSync(path, lines("- [ ] Edited by hand"));
		setTodos([item("One")]);
		setTodos([item("Two")]);
		expect(readFileSync(path, "utf8")).toBe(lines("- [ ] Edited by hand"));
		expect(ui.notifications.filter((n) => n.type === "warning").map((n) => n.message)).toEqual([
			PLAN_NOTICES.changedOnDisk(path),
		]);
		await todos(`export ${path}`);
		setTodos([item("Three")]);
		expect(readFileSync(path, "utf8")).toBe(lines("# Plan", "", "- [ ] Three"));
	});
	it("after a change on disk, /todos import of the file takes its list and the file is followed again", async () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, TWO_TEXT);
		const { pi, ctx, ui, todos } = setup({ mode: "rpc" });
		followPlanFile(pi.api, ctx, path);
		writeFileSync(path, lines("* [ ] Edited by hand"));
		setTodos([item("One")]);
		await todos(`import ${path}`);
		expect(getTodos()).toEqual([item("Edited by hand")]);
		expect(readFileSync(path, "utf8")).toBe(lines("# Plan", "", "- [ ] Edited by hand"));
		setTodos([item("Edited by hand", "in_progress")]);
		expect(readFileSync(path, "utf8")).toBe(lines("# Plan", "", "- [ ] Edited by hand", "  - ● in progress"));
		expect(ui.notifications.filter((n) => n.type === "warning")).toHaveLength(1);
	});

	it("a file that cannot be read is not loaded, and the warning says why", () => {
		const path = join(dir, "PLAN.md");
		mkdirSync(path);
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		expect(getTodos()).toEqual([]);
		expect(ui.notifications).toEqual([
			{
				message: PLAN_NOTICES.loadRefused(
					PLAN_NOTICES.unreadable(path, `EISDIR: illegal operation on a directory, read`),
				),
				type: "warning",
			},
		]);
	});

	it("keeps a session's list and does not load a file that is not understood, saying where", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, lines("- [ ] a", "  - soon"));
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		expect(getTodos()).toEqual([]);
		expect(ui.notifications.map((n) => n.message)).toEqual([
			PLAN_NOTICES.loadRefused(planFileError(path, 2, PLAN_PROBLEMS.unknownAnnotation("soon"))),
		]);
	});
	it("a file that cannot be written is said once, with why; once a write went through, the next problem is said again", () => {
		const folder = join(dir, "plans");
		const path = join(folder, "PLAN.md");
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		setTodos([item("One")]);
		setTodos([item("Two")]);
		mkdirSync(folder);
		setTodos([item("Three")]);
		expect(readFileSync(path, "utf8")).toBe(lines("# Plan", "", "- [ ] Three"));
		rmSync(folder, { recursive: true });
		setTodos([item("Four")]);
		const temp = `ENOENT: no such file or directory, open '${join(folder, `.PLAN.md.${process.pid}.`)}`;
		const unwritable = PLAN_NOTICES.unwritable(path, temp).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
		expect(ui.notifications).toEqual([
			{ message: expect.stringMatching(new RegExp(`^${unwritable}\\d+\\.tmp'$`)), type: "warning" },
			{ message: PLAN_NOTICES.changedOnDisk(path), type: "warning" },
		]);
	});
	it("creates a missing file at the first change, and stops writing once stopped", () => {
		const path = join(dir, "PLAN.md");
		const { pi, ctx } = setup();
		const { stop } = followPlanFile(pi.api, ctx, path);
		setTodos(TWO);
		expect(readFileSync(path, "utf8")).toBe(TWO_TEXT);
		stop();
		setTodos([item("After")]);
		expect(readFileSync(path, "utf8")).toBe(TWO_TEXT);
	});
});

describe("a followed plan file another session only checked items of gives its completions to the list", () => {
	const THREE: TodoItem[] = [item("Add line 0"), item("Add line 1"), item("Add line 2")];
	const warnings = (ui: { notifications: readonly { message: string; type?: string }[] }) =>
		ui.notifications.filter((n) => n.type === "warning").map((n) => n.message);

	it("the list takes the items checked there that it has open, when the file holds the list's own completion too", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, planToMarkdown(THREE));
		const { pi, ctx, ui, snapshots } = setup();
		followPlanFile(pi.api, ctx, path);
		const landedThere = [item("Add line 0", "completed"), THREE[1] as TodoItem, item("Add line 2", "completed")];
		writeFileSync(path, planToMarkdown(landedThere));
		setTodos([THREE[0] as TodoItem, THREE[1] as TodoItem, item("Add line 2", "completed")]);
		expect(getTodos()).toEqual(landedThere);
		expect(snapshots()).toHaveLength(2);
		expect(readFileSync(path, "utf8")).toBe(planToMarkdown(landedThere));
		setTodos([...landedThere.slice(0, 1), item("Add line 1", "in_progress"), ...landedThere.slice(2)]);
		expect(readFileSync(path, "utf8")).toBe(planToMarkdown(getTodos()));
		expect(warnings(ui)).toEqual([]);
	});

	it("a file of the very list saved with CRLF line ends is the list: written again as we write it, no warning", () => {
		const path = join(dir, "PLAN.md");
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		setTodos(THREE);
		const next = [item("Add line 0", "completed"), THREE[1] as TodoItem, THREE[2] as TodoItem];
		writeFileSync(path, planToMarkdown(next).replace(/\n/g, "\r\n"));
		setTodos(next);
		expect(getTodos()).toEqual(next);
		expect(readFileSync(path, "utf8")).toBe(planToMarkdown(next));
		expect(warnings(ui)).toEqual([]);
	});

	it("a file the user changed otherwise (an item unchecked) is left alone, with the warning once", () => {
		const path = join(dir, "PLAN.md");
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		setTodos([item("Add line 0", "completed"), THREE[1] as TodoItem]);
		const edited = planToMarkdown([item("Add line 0"), THREE[1] as TodoItem]);
		writeFileSync(path, edited);
		setTodos([item("Add line 0", "completed"), item("Add line 1", "completed")]);
		setTodos([item("Add line 0", "completed"), item("Add line 1", "completed"), item("Add line 2")]);
		expect(readFileSync(path, "utf8")).toBe(edited);
		expect(warnings(ui)).toEqual([PLAN_NOTICES.changedOnDisk(path)]);
	});

	it("a file deleted since it was written is a change of the user's: not made again, the warning once", () => {
		const path = join(dir, "PLAN.md");
		const { pi, ctx, ui } = setup();
		followPlanFile(pi.api, ctx, path);
		setTodos(THREE);
		rmSync(path);
		setTodos([item("Add line 0", "completed"), THREE[1] as TodoItem, THREE[2] as TodoItem]);
		expect(existsSync(path)).toBe(false);
		expect(warnings(ui)).toEqual([PLAN_NOTICES.changedOnDisk(path)]);
	});
});

describe("the plan file read again takes the completions another session made there, and nothing else", () => {
	const THREE: TodoItem[] = [item("Add line 0"), item("Add line 1"), item("Add line 2")];
	const checkedFirst = [item("Add line 0", "completed"), THREE[1] as TodoItem, THREE[2] as TodoItem];

	it("items checked there are completed in the list, stored on the branch, and the followed file is written on", () => {
		const path = join(dir, "PLAN.md");
		writeFileSync(path, planToMarkdown(THREE));
		const { pi, ctx, snapshots } = setup();
		followPlanFile(pi.api, ctx, path);
		writeFileSync(path, planToMarkdown(checkedFirst));
		readPlanAgain(pi.api, ctx, path);
		expect(getTodos()).toEqual(checkedFirst);
		expect(snapshots()).toHaveLength(2);
		const next = [...checkedFirst.slice(0, 2), item("Add line 2", "in_progress")];
		setTodos(next);
		expect(readFileSync(path, "utf8")).toBe(planToMarkdown(next));
	});

	it("a missing file, a file of other items and a file that completes nothing open leave the list as it was", () => {
		const path = join(dir, "PLAN.md");
		const { pi, ctx, snapshots } = setup();
		setTodos(THREE);
		const list = getTodos();
		readPlanAgain(pi.api, ctx, path);
		writeFileSync(path, planToMarkdown([item("Something else", "completed")]));
		readPlanAgain(pi.api, ctx, path);
		writeFileSync(path, planToMarkdown(THREE));
		readPlanAgain(pi.api, ctx, path);
		expect(getTodos()).toBe(list);
		expect(snapshots()).toHaveLength(0);
	});
});
