/**
 * A shared plan's workers through the engine, with a fake pi and a Node script standing in for each worker's pi,
 * against a real repository and its remote (a bare repository beside it): items land on the branch once and in the
 * work tree; an item another session landed is completed and taken in, never worked; a remote that goes silent stops
 * the run after a lease.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { claimRef as claimRefOf, planName } from "../../src/core/rules/leases.ts";
import { listMessage, listRef } from "../../src/core/rules/shared-list.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { newNonce, takeClaim } from "../../src/edges/git/leases.ts";
import { sessionNonce } from "../../src/edges/workers/session-workers.ts";
import { beginSession, getClaimedElsewhere, getDecisions, getTodos, getWorkers, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startEngine } from "../helpers/engine.ts";
import {
	claimsMalformedStop,
	listTaken,
	maskSeconds,
	REMOTE_DOWN_STOP,
	WORKERLESS_SHARED_STOP,
	WORKERS,
} from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { planWith, repoWithRemote } from "../helpers/plan-remote.ts";
import { WORKER } from "../helpers/worker-stand-in.ts";

const stand = vi.hoisted(() => ({ script: "" }));
vi.mock("../../src/edges/workers/worker-process.ts", async (load) => ({
	...(await load<typeof import("../../src/edges/workers/worker-process.ts")>()),
	piCommand: () => ({ command: process.execPath, args: [stand.script] }),
}));

const TEXTS = ["Write item-0.txt", "Write item-1.txt", "Write item-2.txt"];
const planOf = (done: readonly number[]) => planWith(TEXTS, done);
const PERSON = ["-c", "user.name=u", "-c", "user.email=u@u"];

let dir = "";
let bare = "";
const git = (cwd: string, ...args: string[]) => execFileSync("git", [...PERSON, ...args], { cwd, encoding: "utf8" });

beforeEach(() => {
	({ dir, bare } = repoWithRemote("til-done-team-workers-", { "PLAN.md": planOf([]) }));
	stand.script = `${dir}-worker.js`;
	writeFileSync(stand.script, WORKER);
});
afterEach(() => {
	delete process.env.WORKER_GO;
	delete process.env.WORKER_MODE;
	for (const path of [dir, bare, `${bare}.away`, stand.script, `${dir}-go`])
		rmSync(path, { recursive: true, force: true });
});

const items = (): TodoItem[] => TEXTS.map((text) => ({ text, status: "not_started" }));

/** The engine on the plan, shared through origin (`planFile` null: the plan has no file). */
function setup(leaseSeconds = 120, workers = 2, planFile: string | null = "PLAN.md") {
	const config = { workers, countdownSeconds: 0, remote: "origin", planFile: planFile ?? undefined, leaseSeconds };
	const s = startEngine({ mode: "rpc", cwd: dir }, config);
	beginSession("own", s.config);
	/** The lines that stay in the transcript, the workers' seconds masked. */
	const stayed = () => s.pi.reports().map((line) => maskSeconds(line.text));
	return { ...s, stayed };
}

const until = (done: () => boolean, what: string) => waitForValue(() => (done() ? true : undefined), 20_000, what);

/** Another session's landing of item `index` on the remote's branch: its file, its plan line, its trailer. */
function landedByAnother(index: number) {
	const other = `${dir}-other`;
	git(dir, "clone", "-q", bare, other);
	writeFileSync(join(other, `item-${index}.txt`), "by another session\n");
	writeFileSync(join(other, "PLAN.md"), planOf([index]));
	git(other, "add", "-A");
	const key = itemKey(index, TEXTS[index] ?? "");
	git(other, "commit", "-qm", TEXTS[index] ?? "", "-m", `Til-done-item: ${key}`);
	git(other, "push", "-q", "origin", "main");
	rmSync(other, { recursive: true, force: true });
}

/** Another machine's claim on item `key` of the plan on origin, as its session took it; the claim's ref. */
async function heldByAnother(key: string): Promise<string> {
	const repo = must(await findRepo(dir), "the repository");
	const place = { repo, remote: "origin", plan: planName("main", "PLAN.md") };
	const held = await takeClaim(place, key, { session: "another", host: "elsewhere", nonce: newNonce() }, 120_000);
	return must(held.kind === "won" ? held.claim.ref : undefined, "another session's claim");
}

describe("a shared plan's workers land on its branch, once per item", () => {
	it("two items land on the branch and in the work tree; the one another session landed is completed and taken in", async () => {
		landedByAnother(2);
		const s = setup();
		setTodos(items());
		s.endRun();
		// Completed first, then its landed work taken in: the file is the last thing to come.
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		await until(() => existsSync(join(dir, "item-2.txt")), "the other session's work taken in");
		const trailers = git(bare, "log", "--format=%(trailers:key=Til-done-item,valueonly,separator=)", "main")
			.split("\n")
			.filter((line) => line !== "");
		expect(trailers.toSorted()).toEqual(TEXTS.map((text, index) => itemKey(index, text)).toSorted());
		expect(git(bare, "show", "main:PLAN.md")).toBe(planOf([0, 1, 2]));
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
		const onBranch = s.stayed().filter((line) => / landed on main of origin as [0-9a-f]{12}\.$/.test(line));
		expect(onBranch.map((line) => line.slice(0, "Worker on [0]".length)).toSorted()).toEqual([
			"Worker on [0]",
			"Worker on [1]",
		]);
		expect(s.stayed()).not.toContain(WORKERS.started(2, TEXTS[2] ?? ""));
		expect(git(bare, "for-each-ref", "--format=%(refname)").trim()).toBe("refs/heads/main");
	});

	it("an item another session held and landed while ours worked: completed and taken in as our landing lands, with no wait to look again", async () => {
		const key = itemKey(2, TEXTS[2] ?? "");
		const claimRef = await heldByAnother(key);
		process.env.WORKER_GO = `${dir}-go`;
		const s = setup(120, 3);
		setTodos(items());
		s.endRun();
		await until(() => getWorkers().length === 2 && getClaimedElsewhere().includes(key), "item 2 held elsewhere");
		landedByAnother(2);
		git(bare, "update-ref", "-d", claimRef);
		writeFileSync(process.env.WORKER_GO, "");
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		await until(() => existsSync(join(dir, "item-2.txt")), "the other session's work taken in");
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
		expect(getDecisions().map((decision) => decision.code)).not.toContain("held-elsewhere");
		expect(getClaimedElsewhere()).toEqual([]);
		expect(s.stayed()).not.toContain(WORKERS.started(2, TEXTS[2] ?? ""));
	});

	it.each([
		["with a plan file", "PLAN.md"],
		["without a plan file (before its list is settled)", null],
	])(
		"the remote gone silent once joined, %s: nothing claimed, and after the lease the run stops, saying why",
		async (_, planFile) => {
			const s = setup(0.3, 2, planFile);
			setTodos(items());
			// Joined first (the session's start), then the remote goes away.
			const { joinTeam } = await import("../../src/edges/team/join.ts");
			expect("team" in (await joinTeam(dir, "origin", planFile ?? undefined))).toBe(true);
			renameSync(bare, `${bare}.away`);
			s.endRun();
			const stopped = () =>
				s.pi.sent.some((sent) => (sent as { message?: { content?: unknown } }).message?.content === REMOTE_DOWN_STOP);
			await until(stopped, "the stop");
			expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started", "not_started"]);
			expect(s.ui.notifications.map((notice) => notice.message)).toEqual([WORKERS.claimsUnreachable("origin")]);
		},
	);

	it("workers that cannot start on a shared plan: the session's model is never sent on to an item; the run stops, saying why", async () => {
		process.env.WORKER_MODE = "no-start";
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => s.pi.sent.length > 0, "a message sent");
		const contents = s.pi.sent.map((sent) => (sent as { message?: { content?: unknown } }).message?.content);
		expect(contents).toEqual([WORKERLESS_SHARED_STOP]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started", "not_started"]);
		expect(git(bare, "for-each-ref", "--format=%(refname)").trim()).toBe("refs/heads/main");
	});
});

describe("items are handed to workers from one read of the branch and the claims", () => {
	it("the items other sessions hold are known held as soon as workers are handed items, those not handed out too", async () => {
		const held = [1, 2].map((index) => itemKey(index, TEXTS[index] ?? ""));
		for (const key of held) await heldByAnother(key);
		process.env.WORKER_GO = `${dir}-go`;
		const s = setup(120, 1);
		setTodos(items());
		s.endRun();
		await until(() => getWorkers().length === 1, "a worker at work");
		expect(getWorkers().map((worker) => worker.index)).toEqual([0]);
		expect(getClaimedElsewhere().toSorted()).toEqual(held.toSorted());
		writeFileSync(process.env.WORKER_GO, "");
		await until(() => getTodos()[0]?.status === "completed", "item 0 landed");
	});

	it("an item another session landed is completed and taken in as workers are handed items, though none was handed it", async () => {
		landedByAnother(2);
		process.env.WORKER_GO = `${dir}-go`;
		const s = setup(120, 1);
		setTodos(items());
		s.endRun();
		await until(() => getWorkers().length === 1, "a worker at work");
		await until(() => getTodos()[2]?.status === "completed", "item 2 completed");
		expect(getWorkers().map((worker) => worker.index)).not.toContain(2);
		expect(readFileSync(join(dir, "item-2.txt"), "utf8")).toBe("by another session\n");
		writeFileSync(process.env.WORKER_GO, "");
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
	});
	it("an item this session's own earlier claim holds, read once: taken as ours, never held elsewhere, worked and landed once", async () => {
		const key = itemKey(1, TEXTS[1] ?? "");
		process.env.WORKER_GO = `${dir}-go`;
		const s = setup(120, 1);
		const repo = must(await findRepo(dir), "the repository");
		const place = { repo, remote: "origin", plan: planName("main", "PLAN.md") };
		const mine = { session: "own", host: "here", nonce: sessionNonce(s.pi.api) };
		expect((await takeClaim(place, key, mine, 120_000)).kind).toBe("won");
		setTodos(items());
		s.endRun();
		await until(() => getWorkers().length === 1, "a worker at work");
		expect(getWorkers().map((worker) => worker.index)).toEqual([0]);
		expect(getClaimedElsewhere()).toEqual([]);
		writeFileSync(process.env.WORKER_GO, "");
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		expect(readFileSync(join(dir, "item-1.txt"), "utf8")).toBe("item-1.txt by its worker\n");
		expect(getDecisions().map((decision) => decision.code)).not.toContain("held-elsewhere");
		expect(git(bare, "for-each-ref", "--format=%(refname)").trim()).toBe("refs/heads/main");
	});

	it("refs that hold no claim, read once for every item: each said once, none claimed, and the run stops naming them all", async () => {
		const tree = git(bare, "mktree").trim();
		const junk = git(bare, "commit-tree", tree, "-m", "not a claim").trim();
		const plan = planName("main", "PLAN.md");
		for (const [index, text] of TEXTS.entries()) git(bare, "update-ref", claimRefOf(plan, itemKey(index, text)), junk);
		const before = git(bare, "for-each-ref", "--format=%(objectname) %(refname)");
		const s = setup(120, 1);
		setTodos(items());
		s.endRun();
		const stop = claimsMalformedStop(0, 1, 2);
		const sent = () => s.pi.sent.map((one) => (one as { message?: { content?: unknown } }).message?.content);
		await until(() => s.stayed().some((line) => line.includes(stop)) || sent().includes(stop), "the stop");
		const said = s.ui.notifications
			.map((notice) => notice.message)
			.filter((line) => line.includes("holds no claim of ours"));
		expect(said.toSorted()).toEqual([0, 1, 2].map((index) => WORKERS.malformedClaim(index)).toSorted());
		expect(getWorkers()).toEqual([]);
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started", "not_started"]);
		expect(git(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(before);
	});
});

describe("a shared plan without a plan file: every session works the list shared first", () => {
	const SHARED = ["Write item-0.txt", "Write item-1.txt"];

	/** Another session's list shared on the remote, with the branch's tip as it is now. */
	function sharedByAnother(texts: readonly string[]): void {
		const since = git(dir, "rev-parse", "HEAD").trim();
		const items = texts.map((text) => ({ text, status: "not_started" as const }));
		const list = { plan: planName("main", undefined), since, items, session: "s-other", host: "laptop" };
		const tree = git(dir, "mktree").trim();
		const commit = execFileSync("git", [...PERSON, "commit-tree", tree], { cwd: dir, input: listMessage(list) });
		git(dir, "push", "-q", "origin", `${commit.toString().trim()}:${listRef(list.plan)}`);
	}

	it("another list shared first: taken in place of the session's own, the item it landed completed and taken in, the other landed once", async () => {
		sharedByAnother(SHARED);
		landedByAnother(1);
		const s = setup(120, 2, null);
		setTodos([{ text: "Write the files", status: "not_started" }]);
		s.endRun();
		await until(() => getTodos().length === 2 && getTodos().every((todo) => todo.status === "completed"), "done");
		expect(getTodos().map((todo) => todo.text)).toEqual(SHARED);
		expect(s.stayed()[0]).toBe(listTaken("origin", "main", 2, "laptop"));
		await until(() => existsSync(join(dir, "item-1.txt")), "the other session's work taken in");
		const trailers = git(bare, "log", "--format=%(trailers:key=Til-done-item,valueonly,separator=)", "main")
			.split("\n")
			.filter((line) => line !== "");
		expect(trailers.toSorted()).toEqual(SHARED.map((text, index) => itemKey(index, text)).toSorted());
		expect(s.stayed()).not.toContain(WORKERS.started(1, SHARED[1] ?? ""));
	});
});

describe("/todos remote changes what a waiting session waits on at once", () => {
	it("a session waiting on an item another machine holds on the remote: `/todos remote off` ends the wait and works it with this machine's sessions", async () => {
		await heldByAnother(itemKey(0, TEXTS[0] ?? ""));
		const s = setup(120, 1);
		registerTodosCommand(s.pi.api, s.engine, () => s.config);
		setTodos(items().slice(0, 1));
		s.endRun();
		await until(() => getDecisions().some((decision) => decision.code === "held-elsewhere"), "the wait on item 0");
		await must(s.pi.commands.get("todos"), "/todos").handler("remote off", s.commandCtx);
		await until(() => getTodos()[0]?.status === "completed", "item 0 worked with this machine's sessions");
		expect(readFileSync(join(dir, "item-0.txt"), "utf8")).toBe("item-0.txt by its worker\n");
		// Nothing of it landed on the remote's branch: this session no longer shares the plan there.
		expect(git(bare, "log", "--format=%s", "main").trim()).toBe("the plan");
	});
});
