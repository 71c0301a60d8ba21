import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import type { TodoItem } from "../../src/core/model/types.ts";
import { planName } from "../../src/core/rules/leases.ts";
import {
	LIST_HEADER,
	listMessage,
	listRef,
	listStep,
	readListMessage,
	type SharedList,
	sameItems,
	shareSince,
} from "../../src/core/rules/shared-list.ts";
import { REMOTE_TEXTS } from "../../src/core/texts/user/remote.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { joinSharedList, listSince, settleList } from "../../src/edges/team/shared-list.ts";
import { beginSession, getTodos, setTodos } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import { must } from "../helpers/must.ts";
import { gitAs as git, repoWithRemote } from "../helpers/plan-remote.ts";

const PLAN = planName("main", undefined);
const SHA = "a".repeat(40);
const pending = (...texts: string[]): TodoItem[] => texts.map((text) => ({ text, status: "not_started" }));
const record = (items: TodoItem[], since = SHA): SharedList => ({
	plan: PLAN,
	since,
	items,
	session: "s1",
	host: "laptop",
});

describe("a shared list's record is read strictly: data from another machine", () => {
	it("what it writes reads back the same", () => {
		const list = record([{ text: "Write a", status: "not_started", check: "test -f a" }, ...pending("Write b")]);
		expect(readListMessage(listMessage(list), PLAN)).toEqual(list);
	});

	it.each([
		["another plan's", (m: string) => m.replace(`"plan":"${PLAN}"`, '"plan":"other--list"')],
		["no header", (m: string) => m.replace(LIST_HEADER, "pi-til-done claim v1")],
		["two lines of JSON", (m: string) => `${m}{}\n`],
		["not JSON", (m: string) => m.replace("{", "{{")],
		["a field more", (m: string) => m.replace('"host"', '"extra":1,"host"')],
		["a started item", (m: string) => m.replace('"not_started"', '"in_progress"')],
		["a since that is no commit", (m: string) => m.replace(SHA, "HEAD")],
		["a host with a control character", (m: string) => m.replace("laptop", "lap\\u001btop")],
		["an item waiting for one that is not there", (m: string) => m.replace('"Write b"', '"Write b","blockedBy":[7]')],
	])("%s: no list", (_, spoil) => {
		const message = listMessage(record(pending("Write a", "Write b")));
		expect(readListMessage(spoil(message), PLAN)).toBeUndefined();
	});

	it("no items, or more than a list may hold: no list", () => {
		expect(readListMessage(listMessage(record([])), PLAN)).toBeUndefined();
		const many = pending(...Array.from({ length: 101 }, (_, index) => `Item ${index}`));
		expect(readListMessage(listMessage(record(many)), PLAN)).toBeUndefined();
	});

	it("whatever the message, reading it never throws and gives a list only of not-started valid items", () => {
		fc.assert(
			fc.property(fc.string(), (tail) => {
				const read = readListMessage(`${LIST_HEADER}\n\n${tail}`, PLAN);
				return read === undefined || read.items.every((item) => item.status === "not_started");
			}),
		);
	});
});

describe("which list a session works: the one shared first", () => {
	const landedNone = new Set<string>();

	it("none shared: its own is shared; an empty list shares nothing", () => {
		expect(listStep(pending("Write a"), undefined, landedNone)).toEqual({ kind: "share" });
		expect(listStep([], undefined, landedNone)).toEqual({ kind: "keep" });
	});

	it("the same items shared (statuses aside): kept as it is", () => {
		const ours: TodoItem[] = [{ text: "Write a", status: "completed" }, ...pending("Write b")];
		expect(listStep(ours, record(pending("Write a", "Write b")), landedNone)).toEqual({ kind: "keep" });
	});

	it("other items shared: taken in its place, the items landed since it was shared completed", () => {
		const landed = new Set([itemKey(1, "Write y")]);
		const shared = record(pending("Write x", "Write y"));
		expect(listStep(pending("Write a"), shared, landed)).toEqual({
			kind: "adopt",
			todos: [
				{ text: "Write x", status: "not_started" },
				{ text: "Write y", status: "completed" },
			],
			from: shared,
		});
	});

	it("a shared list whose every item landed is finished: a session's own list is shared in its place; one without a list stays empty", () => {
		const landed = new Set([itemKey(0, "Write x")]);
		expect(listStep(pending("Write a"), record(pending("Write x")), landed)).toEqual({ kind: "share" });
		expect(listStep([], record(pending("Write x")), landed)).toEqual({ kind: "keep" });
	});

	it("shared again where the ref lost it: since the tip it was shared at, unless it landed whole since", () => {
		const ours = pending("Write a", "Write b");
		expect(shareSince("tip", ours, undefined)).toBe("tip");
		expect(shareSince("tip", ours, { since: SHA, landed: new Set([itemKey(0, "Write a")]) })).toBe(SHA);
		const all = new Set([itemKey(0, "Write a"), itemKey(1, "Write b")]);
		expect(shareSince("tip", ours, { since: SHA, landed: all })).toBe("tip");
	});

	it("a check, a review mark or a link that differs makes another list", () => {
		const base = pending("Write a", "Write b");
		expect(sameItems(base, [{ ...pending("Write a")[0], check: "true" } as TodoItem, ...pending("Write b")])).toBe(
			false,
		);
		expect(sameItems(base, [...pending("Write a"), { text: "Write b", status: "completed", blockedBy: [0] }])).toBe(
			false,
		);
		expect(sameItems(base, [...pending("Write a"), { text: "Write b", status: "completed" }])).toBe(true);
	});
});

let dir = "";
let bare = "";

beforeEach(() => {
	({ dir, bare } = repoWithRemote("til-done-shared-list-", { "notes.txt": "start\n" }));
});
afterEach(() => {
	for (const path of [dir, bare, `${dir}-other`]) rmSync(path, { recursive: true, force: true });
});

/** This clone's session with `texts` as its list, joined to origin without a plan file. */
async function session(texts: readonly string[], name = "s-own", host = "desk") {
	const s = startEngine({ mode: "rpc", cwd: dir }, { workers: 2, countdownSeconds: 0, remote: "origin" });
	beginSession("own", s.config);
	setTodos(pending(...texts));
	const repo = must(await findRepo(dir), "the repository");
	const team = { repo, remote: "origin", plan: PLAN, branch: "main" };
	const me = { session: name, host };
	return { ...s, team, listSession: { pi: s.pi.api, ctx: s.ctx, team, me }, stayed: () => s.pi.reports() };
}

/** The list the remote holds for the plan, read as a session reads it; undefined when none. */
function remoteList(): SharedList | undefined {
	const sha = git(bare, "for-each-ref", "--format=%(objectname)", listRef(PLAN));
	return sha === "" ? undefined : readListMessage(`${git(bare, "log", "-1", "--format=%B", sha)}\n`, PLAN);
}

/** Another session lands the item at `index` of `texts` on the remote's branch, as a landing names it. */
function landedByAnother(index: number, text: string): void {
	const other = `${dir}-other`;
	rmSync(other, { recursive: true, force: true });
	git(dir, "clone", "-q", bare, other);
	writeFileSync(join(other, `item-${index}.txt`), "landed\n");
	git(other, "add", "-A");
	git(other, "commit", "-qm", text, "-m", `Til-done-item: ${itemKey(index, text)}`);
	git(other, "push", "-q", "origin", "main");
}

describe("a session without a plan file shares its list on the remote, or takes the one shared first", () => {
	it("none shared: its list is shared with the branch's tip, its own list kept, nothing said", async () => {
		const s = await session(["Write a", "Write b"]);
		const tip = git(dir, "rev-parse", "HEAD");
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()).toEqual({
			plan: PLAN,
			since: tip,
			items: pending("Write a", "Write b"),
			session: "s-own",
			host: "desk",
		});
		expect(listSince(s.team)).toBe(tip);
		expect(getTodos()).toEqual(pending("Write a", "Write b"));
		expect(s.stayed()).toEqual([]);
	});

	it("another list shared first: taken in its place, the items landed since completed, said once", async () => {
		const first = await session(["Write x", "Write y"], "s-first", "laptop");
		expect(await settleList(first.listSession)).toBe("shared");
		landedByAnother(1, "Write y");
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("adopted");
		expect(getTodos()).toEqual([
			{ text: "Write x", status: "not_started" },
			{ text: "Write y", status: "completed" },
		]);
		expect(s.stayed().map((line) => line.text)).toEqual([REMOTE_TEXTS.listTaken("origin", "main", 2, "laptop")]);
		expect(remoteList()?.items).toEqual(pending("Write x", "Write y"));
		// Settled again, the list is the one shared: kept.
		expect(await settleList(s.listSession)).toBe("kept");
	});

	it("a ref where the list should be that holds none: shared over it, with a lease on what it held", async () => {
		const junk = git(dir, "commit-tree", "-m", "not a list", git(dir, "rev-parse", "HEAD^{tree}"));
		git(dir, "push", "-q", "origin", `${junk}:${listRef(PLAN)}`);
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()?.items).toEqual(pending("Write a"));
	});

	it("a list shared since a commit the branch does not hold (rewritten, or pushed by hand): shared over it, with a lease on what it held", async () => {
		const gone = git(dir, "commit-tree", "-m", "rewritten away", git(dir, "rev-parse", "HEAD^{tree}"));
		const message = listMessage({ ...record(pending("Write x")), since: gone });
		const stale = git(dir, "commit-tree", "-m", message, git(dir, "rev-parse", "HEAD^{tree}"));
		git(dir, "push", "-q", "origin", `${stale}:${listRef(PLAN)}`);
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()?.items).toEqual(pending("Write a"));
		expect(listSince(s.team)).toBe(git(bare, "rev-parse", "main"));
	});

	it("a list shared since a commit nobody has: shared over it, never read as the remote not answering", async () => {
		const message = listMessage(record(pending("Write x"), "b".repeat(40)));
		const forged = git(dir, "commit-tree", "-m", message, git(dir, "rev-parse", "HEAD^{tree}"));
		git(dir, "push", "-q", "origin", `${forged}:${listRef(PLAN)}`);
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()?.items).toEqual(pending("Write a"));
	});

	it("a shared list whose every item landed: the next session's own list takes its place", async () => {
		const first = await session(["Write x"], "s-first");
		expect(await settleList(first.listSession)).toBe("shared");
		landedByAnother(0, "Write x");
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()?.items).toEqual(pending("Write a"));
		expect(listSince(s.team)).toBe(git(bare, "rev-parse", "main"));
	});

	it("a remote that refuses the list's ref each time (a hook of its own): given up after a few tries, nothing shared", async () => {
		writeFileSync(join(bare, "hooks", "pre-receive"), "#!/bin/sh\necho 'lists are not taken here' >&2\nexit 1\n", {
			mode: 0o755,
		});
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("unreachable");
		expect(remoteList()).toBeUndefined();
		expect(getTodos()).toEqual(pending("Write a"));
	});

	it("the list ref deleted on the remote mid-run: shared again since the tip it was shared at, so the items landed meanwhile still count", async () => {
		const s = await session(["Write a", "Write b"]);
		const since = git(dir, "rev-parse", "HEAD");
		expect(await settleList(s.listSession)).toBe("shared");
		landedByAnother(0, "Write a");
		git(bare, "update-ref", "-d", listRef(PLAN));
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()).toEqual({ ...record(pending("Write a", "Write b"), since), session: "s-own", host: "desk" });
		expect(listSince(s.team)).toBe(since);
		// A session joining now takes the list with the item landed completed: it is not worked again.
		const late = await session([]);
		await joinSharedList(late.pi.api, late.ctx, late.team);
		expect(getTodos()).toEqual([{ text: "Write a", status: "completed" }, ...pending("Write b")]);
	});

	it("the list ref deleted once the session's list landed whole: a new list is shared since the tip", async () => {
		const s = await session(["Write a"]);
		expect(await settleList(s.listSession)).toBe("shared");
		landedByAnother(0, "Write a");
		git(bare, "update-ref", "-d", listRef(PLAN));
		setTodos(pending("Write a"));
		expect(await settleList(s.listSession)).toBe("shared");
		expect(remoteList()?.since).toBe(git(bare, "rev-parse", "main"));
		expect(listSince(s.team)).toBe(git(bare, "rev-parse", "main"));
	});

	it("the remote not reached: unreachable, the list as it was, nothing shared", async () => {
		const s = await session(["Write a"]);
		git(dir, "remote", "set-url", "origin", join(dir, "nowhere.git"));
		expect(await settleList(s.listSession)).toBe("unreachable");
		expect(getTodos()).toEqual(pending("Write a"));
		expect(remoteList()).toBeUndefined();
	});
});

describe("a session that joins with no list of its own takes the list being worked", () => {
	it("a list shared and not finished: taken, said as joined", async () => {
		const first = await session(["Write x", "Write y"], "s-first", "laptop");
		expect(await settleList(first.listSession)).toBe("shared");
		const s = await session([]);
		await joinSharedList(s.pi.api, s.ctx, s.team);
		expect(getTodos()).toEqual(pending("Write x", "Write y"));
		expect(s.stayed().map((line) => line.text)).toEqual([REMOTE_TEXTS.listJoined("origin", "main", 2, "laptop")]);
	});

	it("a session with a list of its own, or none shared: nothing shared, taken or said", async () => {
		const s = await session([]);
		await joinSharedList(s.pi.api, s.ctx, s.team);
		expect(remoteList()).toBeUndefined();
		expect(getTodos()).toEqual([]);
		setTodos(pending("Write a"));
		await joinSharedList(s.pi.api, s.ctx, s.team);
		expect(remoteList()).toBeUndefined();
		expect(s.stayed()).toEqual([]);
	});
});
