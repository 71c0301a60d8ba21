import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { planName } from "../../src/core/rules/leases.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { type TeamSession, takeInLanded, takeInLandedBefore } from "../../src/edges/team/landed-items.ts";
import { beginSession, getClaimedElsewhere, getTodos, markClaimedElsewhere, setTodos } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import { WORKERS } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { gitAs as git, planWith, repoWithRemote } from "../helpers/plan-remote.ts";

const TEXTS = ["Write item-0.txt", "Write item-1.txt", "Write item-2.txt"];
const keyOf = (index: number) => itemKey(index, TEXTS[index] ?? "");
const planOf = (done: readonly number[]) => planWith(TEXTS, done);

let dir = "";
let bare = "";

beforeEach(() => {
	({ dir, bare } = repoWithRemote("til-done-landed-items-", { "PLAN.md": planOf([]) }));
});
afterEach(() => {
	for (const path of [dir, bare, `${dir}-other`]) rmSync(path, { recursive: true, force: true });
});

/** Another session lands item `index` on the remote's branch (its file, its plan line, its trailer); the new tip. */
function landedByAnother(index: number, done: readonly number[]): string {
	const other = `${dir}-other`;
	rmSync(other, { recursive: true, force: true });
	git(dir, "clone", "-q", bare, other);
	writeFileSync(join(other, `item-${index}.txt`), "by another session\n");
	writeFileSync(join(other, "PLAN.md"), planOf(done));
	git(other, "add", "-A");
	git(other, "commit", "-qm", TEXTS[index] ?? "", "-m", `Til-done-item: ${keyOf(index)}`);
	git(other, "push", "-q", "origin", "main");
	return git(other, "rev-parse", "HEAD");
}

async function session(planPath: string | undefined) {
	const s = startEngine({ mode: "rpc", cwd: dir }, { workers: 2, countdownSeconds: 0, remote: "origin" });
	beginSession("own", s.config);
	setTodos(TEXTS.map((text) => ({ text, status: "not_started" })));
	const repo = must(await findRepo(dir), "the repository");
	const team = { repo, remote: "origin", plan: planName("main", "PLAN.md"), branch: "main" };
	const shared: TeamSession = { pi: s.pi.api, ctx: s.ctx, team, planPath };
	return { ...s, shared, stayed: () => s.pi.reports().map((line) => line.text) };
}

const statuses = () => getTodos().map((todo) => todo.status);
const at = (index: number) => ({ index, text: TEXTS[index] ?? "", key: keyOf(index) });

describe("an item another session landed is taken from the branch", () => {
	it("checked on the branch: completed here, its landed file in the work tree; an item not checked there stays open", async () => {
		landedByAnother(2, [2]);
		const s = await session("PLAN.md");
		expect(await takeInLanded(s.shared, at(0))).toBe(false);
		expect(await takeInLanded(s.shared, at(2))).toBe(true);
		expect(statuses()).toEqual(["not_started", "not_started", "completed"]);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
		// The plan file's line is the list's to write: the work tree's PLAN.md is not the other session's.
		expect(readFileSync(join(dir, "PLAN.md"), "utf8")).not.toBe(planOf([2]));
		expect(s.stayed()).toEqual([]);
	});

	it("without a plan file, before its shared list is read, nothing says which items landed: nothing completed, nothing taken in", async () => {
		const tip = landedByAnother(2, [2]);
		const s = await session(undefined);
		markClaimedElsewhere(keyOf(2), 1_000);
		expect(await takeInLanded(s.shared, at(2))).toBe(false);
		await takeInLandedBefore(s.shared, tip, getClaimedElsewhere());
		expect(statuses()).toEqual(["not_started", "not_started", "not_started"]);
		expect(existsSync(join(dir, "item-2.txt"))).toBe(false);
	});

	it("without a plan file, a landing that names the item since the list was shared: completed here and taken in", async () => {
		const since = git(dir, "rev-parse", "HEAD");
		landedByAnother(2, [2]);
		const s = await session(undefined);
		const shared = { ...s.shared, listSince: since };
		expect(await takeInLanded(shared, at(0))).toBe(false);
		expect(await takeInLanded(shared, at(2))).toBe(true);
		expect(statuses()).toEqual(["not_started", "not_started", "completed"]);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
	});

	it("without a plan file, a landing of the item before the list was shared (an earlier plan's) does not count", async () => {
		const before = landedByAnother(2, [2]);
		const s = await session(undefined);
		const shared = { ...s.shared, listSince: before };
		markClaimedElsewhere(keyOf(2), 1_000);
		expect(await takeInLanded(shared, at(2))).toBe(false);
		await takeInLandedBefore(shared, before, getClaimedElsewhere());
		expect(statuses()).toEqual(["not_started", "not_started", "not_started"]);
		expect(getClaimedElsewhere()).toEqual([keyOf(2)]);
	});

	it("the person's own file where the landed work writes: completed, the work tree not taking it said, their bytes kept", async () => {
		landedByAnother(2, [2]);
		writeFileSync(join(dir, "item-2.txt"), "the person's own\n");
		const s = await session("PLAN.md");
		expect(await takeInLanded(s.shared, at(2))).toBe(true);
		expect(statuses()).toEqual(["not_started", "not_started", "completed"]);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("the person's own\n");
		expect(s.stayed()).toEqual([WORKERS.notInWorkTree(2, "main", WORKERS.conflicts("item-2.txt"))]);
	});
});

describe("after a landing of its own, what others held and landed before it is taken in at once", () => {
	it("of the items held elsewhere, those the landed commit's plan checks are completed and taken in, the others still held", async () => {
		landedByAnother(1, [1]);
		const tip = landedByAnother(2, [1, 2]);
		// Our landing's commit stands on that tip, which the landing fetched.
		git(dir, "fetch", "-q", "origin");
		const s = await session("PLAN.md");
		markClaimedElsewhere(keyOf(0), 1_000);
		markClaimedElsewhere(keyOf(2), 1_000);
		await takeInLandedBefore(s.shared, tip, getClaimedElsewhere());
		// Item 1 was not held elsewhere here (no claim of another was seen on it): its own claim will find it landed.
		expect(statuses()).toEqual(["not_started", "not_started", "completed"]);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
		expect(getClaimedElsewhere()).toEqual([keyOf(0)]);
	});

	it("without a plan file: the items held elsewhere that a landing since the list was shared names are taken in", async () => {
		const since = git(dir, "rev-parse", "HEAD");
		landedByAnother(1, [1]);
		const tip = landedByAnother(2, [1, 2]);
		git(dir, "fetch", "-q", "origin");
		const s = await session(undefined);
		markClaimedElsewhere(keyOf(0), 1_000);
		markClaimedElsewhere(keyOf(2), 1_000);
		await takeInLandedBefore({ ...s.shared, listSince: since }, tip, getClaimedElsewhere());
		expect(statuses()).toEqual(["not_started", "not_started", "completed"]);
		expect(getClaimedElsewhere()).toEqual([keyOf(0)]);
	});

	it("a commit whose plan file cannot be read, or no item held elsewhere: nothing changes", async () => {
		const tip = landedByAnother(2, [2]);
		const s = await session("PLAN.md");
		await takeInLandedBefore(s.shared, tip, []);
		markClaimedElsewhere(keyOf(2), 1_000);
		await takeInLandedBefore(s.shared, "0".repeat(40), getClaimedElsewhere());
		expect(statuses()).toEqual(["not_started", "not_started", "not_started"]);
		expect(getClaimedElsewhere()).toEqual([keyOf(2)]);
	});
});
