/**
 * Work a try of this clone kept when the remote was not reached, landed by a later session of the clone without a
 * worker, through the engine with a fake pi and a Node script standing in for a worker's pi, against a real repository
 * and its remote (a bare repository beside it). Work kept for any other reason, or that no longer lands as is, is
 * worked again.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { newNonce, takeClaim } from "../../src/edges/git/leases.ts";
import { joinTeam } from "../../src/edges/team/join.ts";
import { landKeptWork } from "../../src/edges/team/kept-landing.ts";
import { beginSession, getTodos, setTodos } from "../../src/state.ts";
import type { TodoItem } from "../../src/types.ts";
import { waitForValue } from "../helpers/cli.ts";
import { startEngine } from "../helpers/engine.ts";
import { maskSeconds, WORKERS } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { gitAs as git, planWith, repoWithRemote } from "../helpers/plan-remote.ts";
import { WORKER } from "../helpers/worker-stand-in.ts";

const stand = vi.hoisted(() => ({ script: "" }));
vi.mock("../../src/edges/workers/worker-process.ts", async (load) => ({
	...(await load<typeof import("../../src/edges/workers/worker-process.ts")>()),
	piCommand: () => ({ command: process.execPath, args: [stand.script] }),
}));

const TEXTS = ["Write item-0.txt", "Write item-1.txt"];
const KEY = itemKey(0, TEXTS[0] ?? "");
const planOf = (done: readonly number[]) => planWith(TEXTS, done);
const NOTES = "start\nmiddle\nend\n";

let dir = "";
let bare = "";

beforeEach(() => {
	({ dir, bare } = repoWithRemote("til-done-kept-landing-", { "PLAN.md": planOf([]), "notes.txt": NOTES }));
	stand.script = `${dir}-worker.js`;
	writeFileSync(stand.script, WORKER);
});
afterEach(() => {
	for (const path of [dir, bare, `${bare}.away`, stand.script]) rmSync(path, { recursive: true, force: true });
});

const items = (): TodoItem[] => TEXTS.map((text) => ({ text, status: "not_started" }));

function setup() {
	const config = { workers: 2, countdownSeconds: 0, remote: "origin", planFile: "PLAN.md", leaseSeconds: 120 };
	const s = startEngine({ mode: "rpc", cwd: dir }, config);
	beginSession("own", s.config);
	const stayed = () => s.pi.reports().map((line) => maskSeconds(line.text));
	const notices = () => s.ui.notifications.map((notice) => notice.message);
	return { ...s, stayed, notices };
}

const until = (done: () => boolean, what: string) => waitForValue(() => (done() ? true : undefined), 20_000, what);

/**
 * A try's work kept in the clone under a ref of an earlier session (`toLand`: marked as kept only because the remote
 * was not reached): `notes.txt` with its middle line rewritten, on a snapshot of `head` (HEAD unless said); the ref.
 */
function keptWork(toLand: boolean, head = git(dir, "rev-parse", "HEAD")): string {
	// A worker's base is a snapshot of the work tree standing on HEAD.
	const base = git(dir, "commit-tree", `${head}^{tree}`, "-p", head, "-m", "pi-til-done worker base");
	const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
		cwd: dir,
		input: "start\nkept work\nend\n",
		encoding: "utf8",
	}).trim();
	const index = join(dir, ".git", "kept-index");
	const env = { ...process.env, GIT_INDEX_FILE: index };
	execFileSync("git", ["read-tree", base], { cwd: dir, env });
	execFileSync("git", ["update-index", "--cacheinfo", `100644,${blob},notes.txt`], { cwd: dir, env });
	const tree = execFileSync("git", ["write-tree"], { cwd: dir, env, encoding: "utf8" }).trim();
	rmSync(index);
	const result = git(dir, "commit-tree", tree, "-p", base, "-m", "pi-til-done worker result");
	const ref = `refs/til-done/an-earlier-session/${KEY}/worker-kept-${result.slice(0, 12)}${toLand ? "-to-land" : ""}`;
	git(dir, "update-ref", ref, result);
	return ref;
}

/** Another machine's push of `notes.txt` with its middle line rewritten otherwise (with `PLAN.md` as `plan`). */
function anotherPush(notes: string, plan?: string, trailer?: string) {
	const other = `${dir}-other`;
	git(dir, "clone", "-q", bare, other);
	writeFileSync(join(other, "notes.txt"), notes);
	if (plan !== undefined) writeFileSync(join(other, "PLAN.md"), plan);
	git(other, "commit", "-qam", "another machine's", ...(trailer ? ["-m", trailer] : []));
	git(other, "push", "-q", "origin", "main");
	rmSync(other, { recursive: true, force: true });
}

const keptRefs = () =>
	git(dir, "for-each-ref", "--format=%(refname)", "refs/til-done/")
		.split("\n")
		.filter((ref) => ref.includes("/worker-kept-"));

const landedCommitOf = (key: string) => git(bare, "log", "--format=%H", `--grep=^Til-done-item: ${key}$`, "main");

describe("work kept only because the remote was not reached lands as is, by a later session, with no worker", () => {
	it("an earlier session's kept work: claimed, landed once on the branch and in the work tree, its ref gone, said", async () => {
		const ref = keptWork(true);
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		const landed = landedCommitOf(KEY);
		expect(landed).toMatch(/^[0-9a-f]{40}$/);
		expect(s.stayed()).toContain(WORKERS.keptLanded(0, "main", "origin", landed));
		expect(s.stayed()).not.toContain(WORKERS.started(0, TEXTS[0] ?? ""));
		expect(s.stayed()).toContain(WORKERS.started(1, TEXTS[1] ?? ""));
		expect(git(bare, "show", "main:notes.txt")).toBe("start\nkept work\nend");
		expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("start\nkept work\nend\n");
		expect(git(bare, "show", "main:PLAN.md")).toBe(planOf([0, 1]).trimEnd());
		expect(keptRefs()).not.toContain(ref);
		expect(keptRefs()).toEqual([]);
		expect(git(bare, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
	});

	it("the person's own edit of the line it changes: landed on the branch all the same, their bytes kept, said", async () => {
		keptWork(true);
		writeFileSync(join(dir, "notes.txt"), "start\nmy own line\nend\n");
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		expect(s.stayed()).toContain(WORKERS.keptLanded(0, "main", "origin", landedCommitOf(KEY)));
		expect(s.stayed()).toContain(WORKERS.notInWorkTree(0, "main", WORKERS.conflicts("notes.txt")));
		expect(git(bare, "show", "main:notes.txt")).toBe("start\nkept work\nend");
		expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("start\nmy own line\nend\n");
		expect(keptRefs()).toEqual([]);
	});

	it("work kept for another reason (a conflict, a failed check): never landed as is, the item worked again", async () => {
		const ref = keptWork(false);
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		expect(s.stayed()).toContain(WORKERS.started(0, TEXTS[0] ?? ""));
		expect(git(bare, "show", "main:notes.txt")).toBe(NOTES.trimEnd());
		expect(git(bare, "show", "main:item-0.txt")).toBe("item-0.txt by its worker");
		expect(keptRefs()).toEqual([ref]);
	});

	it("kept work that conflicts with the branch now: not landed, said, its mark dropped, and the item worked again", async () => {
		const ref = keptWork(true);
		anotherPush("start\nanother machine's line\nend\n");
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		const why = WORKERS.conflictsOnBranch("main", "origin", "notes.txt");
		expect(s.notices()).toContain(WORKERS.keptNotLanded(0, why));
		expect(s.stayed()).toContain(WORKERS.started(0, TEXTS[0] ?? ""));
		expect(git(bare, "show", "main:notes.txt")).toBe("start\nanother machine's line\nend");
		expect(git(bare, "show", "main:item-0.txt")).toBe("item-0.txt by its worker");
		expect(keptRefs()).toEqual([ref.replace(/-to-land$/, "")]);
	});
});

describe("kept work whose mark cannot be dropped (a lock git left on its ref)", () => {
	it("kept work that conflicts: tried once, said once, and the item worked by a worker, not tried again and again", async () => {
		const ref = keptWork(true);
		anotherPush("start\nanother machine's line\nend\n");
		writeFileSync(join(dir, ".git", `${ref}.lock`), "");
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		const why = WORKERS.conflictsOnBranch("main", "origin", "notes.txt");
		expect(s.notices().filter((notice) => notice === WORKERS.keptNotLanded(0, why))).toHaveLength(1);
		expect(s.stayed()).toContain(WORKERS.started(0, TEXTS[0] ?? ""));
		expect(git(bare, "show", "main:item-0.txt")).toBe("item-0.txt by its worker");
		expect(keptRefs()).toEqual([ref]);
	});
});

describe("kept work of another branch's plan never lands on this one", () => {
	it("work kept to land on a branch the person has left: not landed here, its mark dropped, the item worked again", async () => {
		git(dir, "checkout", "-q", "-b", "feature");
		writeFileSync(join(dir, "feature.txt"), "the feature\n");
		git(dir, "add", "feature.txt");
		git(dir, "commit", "-qm", "the feature");
		const ref = keptWork(true, git(dir, "rev-parse", "HEAD"));
		git(dir, "checkout", "-q", "main");
		const s = setup();
		setTodos(items());
		s.endRun();
		await until(() => getTodos().every((todo) => todo.status === "completed"), "every item completed");
		expect(s.stayed()).toContain(WORKERS.started(0, TEXTS[0] ?? ""));
		expect(git(bare, "show", "main:notes.txt")).toBe(NOTES.trimEnd());
		expect(git(bare, "show", "main:item-0.txt")).toBe("item-0.txt by its worker");
		expect(keptRefs()).toEqual([ref.replace(/-to-land$/, "")]);
	});
});

describe("kept work met by the branch as the claim is won: left kept", () => {
	/** The session's team and a claim it won on item 0, as a session holds them once it joined. */
	async function claimed() {
		const joined = await joinTeam(dir, "origin", "PLAN.md");
		const place = must("team" in joined ? joined.team : undefined, "the team");
		const claims = { place, me: { session: "s", host: "here", nonce: newNonce() }, leaseMs: 120_000 };
		const won = await takeClaim(place, KEY, claims.me, claims.leaseMs);
		const claim = must(won.kind === "won" ? won.claim : undefined, "the claim");
		return { team: { ...place, remote: "origin" }, claims, claim };
	}

	it("the item landed by another session meanwhile: completed here, the work kept (its mark dropped), said", async () => {
		const ref = keptWork(true);
		const s = setup();
		setTodos(items());
		const { team, claims, claim } = await claimed();
		anotherPush("start\nmiddle\nend\nanother machine's line\n", planOf([0]), `Til-done-item: ${KEY}`);
		const session = { pi: s.pi.api, ctx: s.ctx, team, planPath: "PLAN.md" };
		const landed = await landKeptWork(session, { index: 0, text: TEXTS[0] ?? "", key: KEY }, { claims, claim });
		expect(landed).toBe("landed");
		expect(getTodos().map((todo) => todo.status)).toEqual(["completed", "not_started"]);
		expect(s.notices()).toContain(WORKERS.keptLandedElsewhere(0));
		expect(keptRefs()).toEqual([ref.replace(/-to-land$/, "")]);
		// The other's landing taken into the work tree; the kept work is not.
		expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("start\nmiddle\nend\nanother machine's line\n");
	});

	it("the item's text edited as its kept work lands: the item now in its place is not completed by that work", async () => {
		keptWork(true);
		const s = setup();
		setTodos(items());
		const { team, claims, claim } = await claimed();
		// Edited after the claim was won for the text it had, before its landing ends.
		setTodos([{ text: "Write item-0.txt twice", status: "not_started" }, ...items().slice(1)]);
		const session = { pi: s.pi.api, ctx: s.ctx, team, planPath: "PLAN.md" };
		const landed = await landKeptWork(session, { index: 0, text: TEXTS[0] ?? "", key: KEY }, { claims, claim });
		expect(landed).toBe("landed");
		expect(getTodos().map((todo) => [todo.text, todo.status])).toEqual([
			["Write item-0.txt twice", "not_started"],
			[TEXTS[1], "not_started"],
		]);
	});

	it("the remote not reached again: nothing landed, the work still kept to land", async () => {
		const ref = keptWork(true);
		const s = setup();
		setTodos(items());
		const { team, claims, claim } = await claimed();
		renameSync(bare, `${bare}.away`);
		const session = { pi: s.pi.api, ctx: s.ctx, team, planPath: "PLAN.md" };
		const landed = await landKeptWork(session, { index: 0, text: TEXTS[0] ?? "", key: KEY }, { claims, claim });
		expect(landed).toBe("unreachable");
		expect(getTodos().map((todo) => todo.status)).toEqual(["not_started", "not_started"]);
		expect(keptRefs()).toEqual([ref]);
		expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe(NOTES);
	});
});
