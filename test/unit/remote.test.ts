/**
 * Joining a plan shared through a remote, against real git (a `git daemon` the test starts and stops): every bad
 * remote refused with one line and nothing pushed; `/todos remote` lists the sessions at work, joins, leaves, and
 * frees a claim by hand with a warning.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { claimMessage, claimRef } from "../../src/core/rules/leases.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos.ts";
import { joinTeam } from "../../src/edges/team/join.ts";
import { setTodos } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import {
	cannotJoin,
	heldLine,
	itemsHeld,
	JOIN_WHY,
	joinedRemote,
	NO_ITEM_HELD,
	notClaimed,
	releasedClaim,
	teamHeader,
	todosRefused,
	WORKING_ALONE,
} from "../helpers/expected.ts";
import { freePort, type GitServer, startGitServer } from "../helpers/git-server.ts";

let root = "";
let server: GitServer;
let readOnly: GitServer;
let clone = "";
let bare = "";
const git = (cwd: string, ...args: string[]) =>
	execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd, encoding: "utf8" });
const refsOf = (dir: string) => git(dir, "for-each-ref", "--format=%(objectname) %(refname)");

beforeAll(async () => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-remote-")));
	git(root, "init", "-q", "-b", "main", "seed");
	git(join(root, "seed"), "commit", "-q", "--allow-empty", "-m", "start");
	server = await startGitServer();
	readOnly = await startGitServer({ pushes: false });
	bare = server.bare("team.git", { repo: join(root, "seed"), branch: "main" });
	readOnly.bare("team.git", { repo: join(root, "seed"), branch: "main" });
	git(root, "clone", "-q", server.url("team.git"), "laptop");
	clone = join(root, "laptop");
	git(clone, "remote", "add", "readonly", readOnly.url("team.git"));
});
afterAll(async () => {
	await server.close();
	await readOnly.close();
	rmSync(root, { recursive: true, force: true });
});

describe("a remote that cannot be joined is refused with one line, and nothing is pushed", () => {
	it("outside git, an unknown remote, a detached HEAD, a branch the remote lacks: each its line", async () => {
		const before = refsOf(bare);
		expect(await joinTeam(root, "origin", undefined)).toEqual({ problem: cannotJoin("origin", JOIN_WHY.noRepo) });
		expect(await joinTeam(clone, "nosuch", undefined)).toEqual({
			problem: cannotJoin("nosuch", JOIN_WHY.unknownRemote),
		});
		git(clone, "checkout", "-q", "--detach");
		expect(await joinTeam(clone, "origin", undefined)).toEqual({ problem: cannotJoin("origin", JOIN_WHY.detached) });
		git(clone, "checkout", "-q", "-b", "topic");
		expect(await joinTeam(clone, "origin", undefined)).toEqual({
			problem: cannotJoin("origin", JOIN_WHY.noBranch("topic")),
		});
		git(clone, "checkout", "-q", "main");
		expect(refsOf(bare)).toBe(before);
	});

	it("a remote git cannot reach, and one that takes no push: git's reason after ours", async () => {
		const nowhere = `git://127.0.0.1:${await freePort()}/team.git`;
		const unreachable = await joinTeam(clone, nowhere, undefined);
		expect("problem" in unreachable && unreachable.problem).toMatch(
			new RegExp(`^${literally(cannotJoin(nowhere, JOIN_WHY.unreachable))}.+\\)$`),
		);
		const before = refsOf(join(readOnly.base, "team.git"));
		const noPush = await joinTeam(clone, "readonly", undefined);
		expect("problem" in noPush && noPush.problem).toMatch(
			new RegExp(`^${literally(cannotJoin("readonly", JOIN_WHY.noPush))}.+\\)$`),
		);
		expect(refsOf(join(readOnly.base, "team.git"))).toBe(before);
	});

	it("a plan branch others rewrote (it no longer holds what this clone fetched of it) is refused", async () => {
		git(root, "clone", "-q", server.url("team.git"), "rewriter");
		const rewriter = join(root, "rewriter");
		git(clone, "fetch", "-q", "origin");
		git(rewriter, "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten");
		git(rewriter, "push", "-q", "--force", "origin", "main");
		try {
			expect(await joinTeam(clone, "origin", undefined)).toEqual({
				problem: cannotJoin("origin", JOIN_WHY.rewritten("main")),
			});
		} finally {
			git(clone, "fetch", "-q", "origin");
			git(clone, "reset", "-q", "--hard", "origin/main");
		}
	});

	it("a remote that can be joined: the plan named by the branch and the plan file, nothing pushed", async () => {
		const before = refsOf(bare);
		const joined = await joinTeam(clone, "origin", "PLAN.md");
		expect(joined).toMatchObject({ team: { remote: "origin", branch: "main", plan: "main--PLAN_md" } });
		expect(await joinTeam(clone, server.url("team.git"), undefined)).toMatchObject({
			team: { remote: server.url("team.git"), plan: "main--list" },
		});
		expect(await joinTeam(clone, undefined, undefined)).toMatchObject({ team: { plan: "main--list", branch: "main" } });
		expect(refsOf(bare)).toBe(before);
	});
});

/** A regular expression's text matching `text` literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("/todos remote: the team, joining, leaving, a claim freed by hand", () => {
	const setup = () => {
		const base = startEngine({ cwd: clone });
		registerTodosCommand(base.pi.api, base.engine, () => base.config);
		const todos = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
		const told = () => base.ui.notifications.map((n) => [n.message, n.type]);
		return { todos, told };
	};

	/** A claim another machine holds on item `index`, pushed to the remote as that machine would. */
	function claimedElsewhere(index: number, text: string, since: number): string {
		const key = itemKey(index, text);
		const record = {
			plan: "main--list",
			key,
			session: "s9",
			host: "desktop",
			nonce: "n9",
			fence: 2,
			renewals: 0,
			since,
		};
		const tree = git(clone, "mktree").trim();
		const commit = execFileSync("git", ["commit-tree", tree], {
			cwd: clone,
			input: claimMessage(record),
			env: {
				...process.env,
				GIT_AUTHOR_NAME: "x",
				GIT_AUTHOR_EMAIL: "x@x",
				GIT_COMMITTER_NAME: "x",
				GIT_COMMITTER_EMAIL: "x@x",
			},
			encoding: "utf8",
		}).trim();
		git(clone, "push", "-q", "origin", `${commit}:${claimRef("main--list", key)}`);
		return key;
	}

	it("alone it lists this machine's claims; joined, the remote's: machine, session, since when, fence", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await todos("remote");
		await todos("remote origin");
		const since = new Date(2026, 0, 2, 9, 5, 7).getTime();
		const key = claimedElsewhere(0, "Write the parser", since);
		await todos("remote");
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", key)}`);
		expect(told()).toEqual([
			[`${teamHeader(undefined, "main")}\n${NO_ITEM_HELD}`, "info"],
			[joinedRemote("origin", "main"), "info"],
			[`${teamHeader("origin", "main")}\n${itemsHeld(1)}\n${heldLine("[0]", "desktop", "s9", "09:05:07", 2)}`, "info"],
		]);
	});

	it("release frees the claim with a warning (nothing left to free after it); off works alone again", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the printer", status: "not_started" }]);
		await todos("remote origin");
		const key = claimedElsewhere(0, "Write the printer", Date.now());
		await todos("remote release 0");
		expect(refsOf(bare)).not.toContain(claimRef("main--list", key));
		await todos("remote release 0");
		await todos("remote off");
		expect(told().slice(1)).toEqual([
			[releasedClaim(0, "desktop"), "warning"],
			[notClaimed(0), "info"],
			[WORKING_ALONE, "info"],
		]);
	});

	it("a ref where a claim should be that holds none is listed as such, to be freed by hand", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		const junk = git(clone, "commit-tree", git(clone, "mktree").trim(), "-m", "not a claim").trim();
		git(clone, "push", "-q", "origin", `${junk}:${claimRef("main--list", "9-junk")}`);
		await todos("remote origin");
		await todos("remote");
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", "9-junk")}`);
		expect(told()[1]).toEqual([
			`${teamHeader("origin", "main")}\n${NO_ITEM_HELD}\n  9-junk: a ref that holds no claim (/todos remote release frees it)`,
			"info",
		]);
	});

	it("a remote that cannot be joined, or words it does not take, are refused with the usage; the session stays as it was", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await todos("remote nosuch");
		await todos("remote --upload-pack=x");
		await todos("remote release 3");
		await todos("remote release 0 1");
		await todos("remote a b");
		await todos("remote");
		expect(told()).toEqual([
			[todosRefused("remote", cannotJoin("nosuch", JOIN_WHY.unknownRemote)), "error"],
			[
				todosRefused(
					"remote",
					'"--upload-pack=x" is not one remote: give its name or URL (one word, not starting with -)',
				),
				"error",
			],
			[todosRefused("remote", "3 is not an item: the list has 1 item(s), 0 to 0"), "error"],
			[todosRefused("remote", 'one index only: "1" is not understood'), "error"],
			[
				todosRefused("remote", '"a b" is not one remote: give its name or URL (one word, not starting with -)'),
				"error",
			],
			[`${teamHeader(undefined, "main")}\n${NO_ITEM_HELD}`, "info"],
		]);
	});
});
