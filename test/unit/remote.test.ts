/**
 * Joining a plan shared through a remote, against real git (a `git daemon` the test starts and stops): every bad
 * remote refused with one line and nothing pushed; `/todos remote` lists the sessions at work, joins, leaves, and
 * frees a claim by hand with a warning.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import { claimMessage, claimRef } from "../../src/core/rules/leases.ts";
import { releaseByHand } from "../../src/edges/commands/remote.ts";
import { registerTodosCommand } from "../../src/edges/commands/todos-command.ts";
import { joinTeam } from "../../src/edges/team/join.ts";
import { setTodos } from "../../src/state.ts";
import { startEngine } from "../helpers/engine.ts";
import {
	cannotJoin,
	heldLine,
	itemsHeld,
	JOIN_WHY,
	joinedRemote,
	malformedClaimLine,
	NO_ITEM_HELD,
	notClaimed,
	notOneRemote,
	releasedClaim,
	releaseLost,
	TODOS_ERRORS,
	teamHeader,
	todosRefused,
	unreachableNow,
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
	writeFileSync(join(root, "seed", "PLAN.md"), "# Plan\n\n- [ ] an item\n");
	git(join(root, "seed"), "add", "PLAN.md");
	git(join(root, "seed"), "commit", "-q", "-m", "start");
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

	it("without a remote, outside git: the refusal names the repository itself (.)", async () => {
		expect(await joinTeam(root, undefined, undefined)).toEqual({ problem: cannotJoin(".", JOIN_WHY.noRepo) });
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

	it("a plan file the remote's branch lacks is refused: each landing checks its line there", async () => {
		const before = refsOf(bare);
		expect(await joinTeam(clone, "origin", "docs/PLAN.md")).toEqual({
			problem: cannotJoin("origin", JOIN_WHY.planNotOnBranch("docs/PLAN.md", "main")),
		});
		expect(refsOf(bare)).toBe(before);
	});

	it("a plan file outside the repository is refused as such, nothing pushed", async () => {
		const before = refsOf(bare);
		expect(await joinTeam(clone, "origin", "../PLAN.md")).toEqual({
			problem: cannotJoin("origin", JOIN_WHY.planOutside("../PLAN.md")),
		});
		expect(refsOf(bare)).toBe(before);
	});

	it("a plan file the branch holds but this clone's work tree lacks: nothing to compare, joined", async () => {
		renameSync(join(clone, "PLAN.md"), join(clone, "PLAN.md.away"));
		try {
			expect(await joinTeam(clone, "origin", "PLAN.md")).toMatchObject({ team: { plan: "main--PLAN_md" } });
		} finally {
			renameSync(join(clone, "PLAN.md.away"), join(clone, "PLAN.md"));
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

const setup = () => {
	const base = startEngine({ cwd: clone });
	registerTodosCommand(base.pi.api, base.engine, () => base.config);
	const todos = (args: string) => base.pi.commands.get("todos")?.handler(args, base.commandCtx);
	const told = () => base.ui.notifications.map((n) => [n.message, n.type]);
	return { todos, told, ctx: base.commandCtx };
};

/** A claim commit another machine made for item `key`, written in the clone (`renewals`: how often it renewed); its sha. */
function otherMachinesClaim(key: string, since: number, renewals = 0): string {
	const record = { plan: "main--list", key, session: "s9", host: "desktop", nonce: "n9", fence: 2, renewals, since };
	const tree = git(clone, "mktree").trim();
	return execFileSync("git", ["commit-tree", tree], {
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
}

/** A claim another machine holds on item `index`, pushed to the remote as that machine would. */
function claimedElsewhere(index: number, text: string, since: number): string {
	const key = itemKey(index, text);
	git(clone, "push", "-q", "origin", `${otherMachinesClaim(key, since)}:${claimRef("main--list", key)}`);
	return key;
}

describe("/todos remote: the team, joining, leaving, a claim freed by hand", () => {
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
					'"--upload-pack=x" is not one remote: give its name or URL (one word of at most 500 characters, not starting with -)',
				),
				"error",
			],
			[todosRefused("remote", "3 is not an item: the list has 1 item(s), 0 to 0"), "error"],
			[todosRefused("remote", 'one index only: "1" is not understood'), "error"],
			[
				todosRefused(
					"remote",
					'"a b" is not one remote: give its name or URL (one word of at most 500 characters, not starting with -)',
				),
				"error",
			],
			[`${teamHeader(undefined, "main")}\n${NO_ITEM_HELD}`, "info"],
		]);
	});
});

/** The remote's claim refs of the plan `main--list`, with their commits. */
const claimsOnRemote = () => git(bare, "for-each-ref", "--format=%(objectname) %(refname)", "refs/til-done/claims/");

describe("/todos remote on a remote that stops answering: each form says so, and nothing changes", () => {
	it("joining a remote that refuses every connection is refused with git's reason; the session stays alone", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		server.refuseAfter(0);
		try {
			await todos("remote origin");
		} finally {
			server.serveAll();
		}
		await todos("remote");
		expect(told()).toEqual([
			[
				todosRefused(
					"remote",
					cannotJoin(
						"origin",
						`${JOIN_WHY.unreachable}fatal: remote error: access denied or repository not exported: /team.git)`,
					),
				),
				"error",
			],
			[`${teamHeader(undefined, "main")}\n${NO_ITEM_HELD}`, "info"],
		]);
	});

	it("joining a remote whose server is down is refused with git's reason; joined, its silence later lists no claim, with a warning", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await server.stop();
		try {
			await todos("remote origin");
		} finally {
			await server.start();
		}
		// git's own words stand where GIT_SAYS is.
		const refusal = todosRefused("remote", `${cannotJoin("origin", JOIN_WHY.unreachable)}GIT_SAYS)`);
		expect(told()[0]).toEqual([
			expect.stringMatching(new RegExp(`^${literally(refusal).replace("GIT_SAYS", "[^\n]+")}$`)),
			"error",
		]);
		await todos("remote origin");
		await server.stop();
		try {
			await todos("remote");
		} finally {
			await server.start();
		}
		expect(told().slice(1)).toEqual([
			[joinedRemote("origin", "main"), "info"],
			[unreachableNow("origin"), "warning"],
		]);
	});

	it("the team asked of a remote that stops answering after the join: no claim listed, with a warning", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await todos("remote origin");
		// Joined once, the session asks the remote nothing more to join it: the claims' listing is not served.
		server.refuseAfter(0);
		try {
			await todos("remote");
		} finally {
			server.serveAll();
		}
		expect(told()[1]).toEqual([unreachableNow("origin"), "warning"]);
	});

	it("release on a remote that stops answering before the claims are read, or before the claim is freed: a warning, the claim stays", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the printer", status: "not_started" }]);
		await todos("remote origin");
		const key = claimedElsewhere(0, "Write the printer", Date.now());
		const held = claimsOnRemote();
		server.refuseAfter(0);
		try {
			await todos("remote release 0");
		} finally {
			server.serveAll();
		}
		// The claims are read this time (the claim commit is the clone's own: nothing fetched); the push is not served.
		server.refuseAfter(1);
		try {
			await todos("remote release 0");
		} finally {
			server.serveAll();
		}
		expect(claimsOnRemote()).toBe(held);
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", key)}`);
		expect(told().slice(1)).toEqual([
			[unreachableNow("origin"), "warning"],
			[unreachableNow("origin"), "warning"],
		]);
	});
});

describe("/todos remote release frees only the claim it read", () => {
	it("a claim renewed by its holder between the read and the free stays, with a warning to look again", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the printer", status: "not_started" }]);
		await todos("remote origin");
		const key = itemKey(0, "Write the printer");
		const ref = claimRef("main--list", key);
		const first = otherMachinesClaim(key, Date.now());
		const renewal = otherMachinesClaim(key, Date.now(), 1);
		git(clone, "push", "-q", bare, `${first}:${ref}`, `${renewal}:refs/scratch/renewal`);
		// Served: the claims' listing; just before the push, the holder renews.
		server.beforeConnection(2, ["--git-dir=team.git", "update-ref", ref, renewal, first]);
		try {
			await todos("remote release 0");
		} finally {
			server.serveAll();
		}
		expect(git(bare, "rev-parse", ref).trim()).toBe(renewal);
		git(bare, "update-ref", "-d", ref);
		git(bare, "update-ref", "-d", "refs/scratch/renewal");
		expect(told().slice(1)).toEqual([[releaseLost(0), "warning"]]);
	});
});

describe("/todos remote and refs under the plan's claims that hold no claim", () => {
	it("a claim commit with no message, a ref to a blob and a claim of no item of this list: listed as what they are; a name no claim carries is left out", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		const tree = git(clone, "mktree").trim();
		const bareCommit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--literally", "--stdin"], {
			cwd: clone,
			input: `tree ${tree}\nauthor x <x@x> 0 +0000\ncommitter x <x@x> 0 +0000\n`,
			encoding: "utf8",
		}).trim();
		const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
			cwd: clone,
			input: "a blob",
			encoding: "utf8",
		}).trim();
		const since = new Date(2026, 0, 2, 9, 5, 7).getTime();
		const refs = {
			"1-nomessage": bareCommit,
			"2-blob": blob,
			"7-gone": otherMachinesClaim("7-gone", since),
			"a+b": otherMachinesClaim("a+b", since),
		};
		git(
			clone,
			"push",
			"-q",
			"origin",
			...Object.entries(refs).map(([key, sha]) => `${sha}:${claimRef("main--list", key)}`),
		);
		await todos("remote origin");
		await todos("remote");
		git(clone, "push", "-q", "origin", ...Object.keys(refs).map((key) => `:${claimRef("main--list", key)}`));
		expect(told()[1]).toEqual([
			[
				teamHeader("origin", "main"),
				itemsHeld(1),
				heldLine("7-gone", "desktop", "s9", "09:05:07", 2),
				malformedClaimLine("1-nomessage"),
				malformedClaimLine("2-blob"),
			].join("\n"),
			"info",
		]);
	});

	it("release frees a ref that holds no claim, with a warning that names no machine", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		const ref = claimRef("main--list", itemKey(0, "Write the parser"));
		const junk = git(clone, "commit-tree", git(clone, "mktree").trim(), "-m", "not a claim").trim();
		git(clone, "push", "-q", "origin", `${junk}:${ref}`);
		await todos("remote origin");
		await todos("remote release 0");
		expect(claimsOnRemote()).toBe("");
		expect(told().slice(1)).toEqual([[releasedClaim(0), "warning"]]);
	});
});

describe("/todos remote release where nothing can be freed", () => {
	it("on a detached HEAD it is refused as the join is, with the usage, and nothing is freed", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await todos("remote origin");
		const key = claimedElsewhere(0, "Write the parser", Date.now());
		const held = claimsOnRemote();
		git(clone, "checkout", "-q", "--detach");
		try {
			await todos("remote release 0");
		} finally {
			git(clone, "checkout", "-q", "main");
		}
		expect(claimsOnRemote()).toBe(held);
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", key)}`);
		expect(told().slice(1)).toEqual([[todosRefused("remote", cannotJoin("origin", JOIN_WHY.detached)), "error"]]);
	});

	it("an index past the list (it shrank after the command was read) frees nothing and says nothing", async () => {
		const { ctx, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		const key = claimedElsewhere(0, "Write the parser", Date.now());
		const held = claimsOnRemote();
		const refused: string[] = [];
		await releaseByHand(ctx, { remote: "origin", planFile: undefined }, 1, (why) => refused.push(why));
		expect(claimsOnRemote()).toBe(held);
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", key)}`);
		expect([refused, told()]).toEqual([[], []]);
	});
});

describe("/todos remote's words are parsed strictly: anything else is refused with the usage, and nothing changes", () => {
	it("off or release with a word more, release without an index or with a word for one: each refused; the remote and its claims stay", async () => {
		const { todos, told } = setup();
		setTodos([{ text: "Write the parser", status: "not_started" }]);
		await todos("remote origin");
		const key = claimedElsewhere(0, "Write the parser", Date.now());
		const held = claimsOnRemote();
		await todos("remote off now");
		await todos("remote release");
		await todos("remote release first");
		await todos("remote release -1");
		await todos("remote -q");
		await todos(`remote ${"o".repeat(501)}`);
		await todos("remote");
		expect(claimsOnRemote()).toBe(held);
		git(clone, "push", "-q", "origin", `:${claimRef("main--list", key)}`);
		expect(told().slice(1, -1)).toEqual([
			[todosRefused("remote", notOneRemote("off now")), "error"],
			[TODOS_ERRORS.which("remote", 1), "error"],
			[TODOS_ERRORS.notAnIndex("remote", "first", 1), "error"],
			[TODOS_ERRORS.notAnIndex("remote", "-1", 1), "error"],
			[todosRefused("remote", notOneRemote("-q")), "error"],
			[todosRefused("remote", notOneRemote(`${"o".repeat(19)}…`)), "error"],
		]);
		expect(told().at(-1)?.[0]).toMatch(
			new RegExp(`^${literally(teamHeader("origin", "main"))}\n${literally(itemsHeld(1))}`),
		);
	});
});
