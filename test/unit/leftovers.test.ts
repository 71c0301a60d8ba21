/**
 * What killed runs of workers leave behind is found by its owner and removed, and nothing a live pi uses: a real
 * repository and a TMPDIR of the test's own.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workerBaseMessage } from "../../src/core/rules/checkpoint-rules.ts";
import { cleanWorkers, showWorkers } from "../../src/edges/commands/workers.ts";
import { findRepo, type Repo } from "../../src/edges/git/git.ts";
import { ownedPrefix, ownerIsLive, ownerOf, ownerTag } from "../../src/edges/host/owner.ts";
import { findLeftovers, removeLeftovers } from "../../src/edges/workers/leftovers.ts";
import { WORKERS } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { must } from "../helpers/must.ts";
import { ownTmpdir } from "../helpers/own-tmpdir.ts";

const ownTemp = ownTmpdir();
let root = "";
let dir = "";
let temp = "";
const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" });

beforeEach(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-leftovers-test-")));
	dir = join(root, "repo");
	temp = ownTemp();
	mkdirSync(dir);
	git("init", "-q", "-b", "main");
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
});
afterEach(() => {
	rmSync(root, { recursive: true, force: true });
});

/** A pid no process has: far past the kernel's usual maximum. */
const GONE_PID = 4_194_000;

/** A worker base commit of item `index` whose pi is `owner`, as a session's worker writes it. */
function baseOf(index: number, owner: string): string {
	const tree = execFileSync("git", ["mktree"], { cwd: dir, input: "", encoding: "utf8" }).trim();
	return execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree], {
		cwd: dir,
		input: workerBaseMessage(index, owner),
		encoding: "utf8",
	}).trim();
}

/** The start time field of a live process's tag that is not its own: the pid lives, but started at another time. */
function reusedTag(): string {
	const [pid, start] = ownerTag().split(".");
	return `${pid}.${Number(start) + 1}`;
}

describe("an owner tag tells a live process from a gone one, a pid alone does not", () => {
	it("this process's own tag is live; a gone pid, or a live pid that started at another time, is not", () => {
		expect(ownerIsLive(ownerTag())).toBe(true);
		expect(ownerIsLive(`${GONE_PID}.1`)).toBe(false);
		expect(ownerIsLive(reusedTag())).toBe(false);
	});

	it("a name that is not a tag is taken for live: nothing of an unknown owner is ever removed", () => {
		expect(ownerIsLive("abc")).toBe(true);
		expect(ownerOf("til-done-worker-abc123", "worker")).toBeUndefined();
		expect(ownerOf(`${ownedPrefix("worker")}xyz`, "worker")).toBe(ownerTag());
		expect(ownerOf(`${ownedPrefix("worker")}xyz`, "git")).toBeUndefined();
	});

	it("a child process that ended is gone, though its pid may be read", async () => {
		const child = spawn("sleep", ["30"]);
		const pid = must(child.pid, "the child's pid");
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const tag = `${pid}.${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
		expect(ownerIsLive(tag)).toBe(true);
		child.kill("SIGKILL");
		await new Promise((ended) => child.once("exit", ended));
		expect(ownerIsLive(tag)).toBe(false);
	});
});

describe("leftovers of gone runs are found and removed; what live ones use, and the work kept on purpose, stay", () => {
	async function setUp(): Promise<Repo> {
		const repo = must(await findRepo(dir), "the repository");
		mkdirSync(join(temp, `til-done-worker-${GONE_PID}.1-aaaa`));
		mkdirSync(join(temp, `til-done-git-${reusedTag()}-bbbb`));
		mkdirSync(join(temp, `til-done-jiti-${GONE_PID}.1-dddd`));
		mkdirSync(join(temp, `${ownedPrefix("worker")}cccc`));
		mkdirSync(join(temp, "til-done-worker-unknown"));
		mkdirSync(join(dir, ".git/objects", `til-done-incoming-${GONE_PID}.1-1`));
		const head = git("rev-parse", "HEAD").trim();
		const own = [
			"s/0-a/worker-base",
			"s/1-b/worker-base",
			"s/1-b/worker-kept-0123456789ab",
			"s/1-b/worker-result",
			"s/2-c/worker-result",
			"s/3-d/start",
		];
		for (const ref of own) git("update-ref", `refs/til-done/${ref}`, head);
		// [0]'s worker is gone with its pi; [1]'s pi is this one (its result kept while it lands): their bases say so.
		git("update-ref", "refs/til-done/s/0-a/worker-base", baseOf(0, `${GONE_PID}.1`));
		git("update-ref", "refs/til-done/s/1-b/worker-base", baseOf(1, ownerTag()));
		return repo;
	}

	const refs = () => git("for-each-ref", "--format=%(refname)").trim().split("\n");

	it("found: the gone owners' folders and objects aside, the snapshot ref of a gone worker, the kept work (not a live worker's result)", async () => {
		const repo = await setUp();
		const found = await findLeftovers(repo);
		expect(found.folders.map((path) => path.slice(temp.length + 1)).sort()).toEqual([
			`til-done-git-${reusedTag()}-bbbb`,
			`til-done-jiti-${GONE_PID}.1-dddd`,
			`til-done-worker-${GONE_PID}.1-aaaa`,
		]);
		expect(found.aside).toEqual([join(dir, ".git/objects", `til-done-incoming-${GONE_PID}.1-1`)]);
		expect(found.bases).toEqual(["refs/til-done/s/0-a/worker-base"]);
		// An earlier try of [1] kept its work for good: kept, though [1]'s worker is at work again.
		expect(found.kept).toEqual(["refs/til-done/s/1-b/worker-kept-0123456789ab", "refs/til-done/s/2-c/worker-result"]);
	});

	it("removed: all of it but the work kept on purpose, which only the user's clean removes", async () => {
		const repo = await setUp();
		await removeLeftovers(repo);
		expect(existsSync(join(temp, `til-done-worker-${GONE_PID}.1-aaaa`))).toBe(false);
		expect(existsSync(join(temp, `til-done-jiti-${GONE_PID}.1-dddd`))).toBe(false);
		expect(existsSync(join(temp, `${ownedPrefix("worker")}cccc`))).toBe(true);
		expect(existsSync(join(temp, "til-done-worker-unknown"))).toBe(true);
		expect(existsSync(join(dir, ".git/objects", `til-done-incoming-${GONE_PID}.1-1`))).toBe(false);
		expect(refs()).toEqual([
			"refs/heads/main",
			"refs/til-done/s/1-b/worker-base",
			"refs/til-done/s/1-b/worker-kept-0123456789ab",
			"refs/til-done/s/1-b/worker-result",
			"refs/til-done/s/2-c/worker-result",
			"refs/til-done/s/3-d/start",
		]);
		// The user's clean removes the work kept on purpose, never a live worker's result.
		const cleaned = await removeLeftovers(repo, { kept: true });
		expect(cleaned.kept).toEqual(["refs/til-done/s/1-b/worker-kept-0123456789ab", "refs/til-done/s/2-c/worker-result"]);
		expect(refs()).not.toContain("refs/til-done/s/2-c/worker-result");
		expect(refs()).toContain("refs/til-done/s/1-b/worker-result");
	});
});

describe("what git refuses to remove is never said removed", () => {
	it("snapshot refs and kept work git holds locked stay, and are not counted as removed; the rest goes", async () => {
		const repo = must(await findRepo(dir), "the repository");
		const head = git("rev-parse", "HEAD").trim();
		git("update-ref", "refs/til-done/s/0-a/worker-base", head);
		git("update-ref", "refs/til-done/s/2-c/worker-result", head);
		// Another git at work on the refs: each is locked, and git refuses to delete it.
		writeFileSync(join(dir, ".git/refs/til-done/s/0-a/worker-base.lock"), "");
		writeFileSync(join(dir, ".git/refs/til-done/s/2-c/worker-result.lock"), "");
		const removed = await removeLeftovers(repo, { kept: true });
		expect([removed.bases, removed.kept]).toEqual([[], []]);
		expect(git("for-each-ref", "--format=%(refname)", "refs/til-done/").trim().split("\n")).toEqual([
			"refs/til-done/s/0-a/worker-base",
			"refs/til-done/s/2-c/worker-result",
		]);
	});

	it("a repository gone since it was found: nothing of it is found, and nothing fails", async () => {
		const repo = must(await findRepo(dir), "the repository");
		rmSync(dir, { recursive: true, force: true });
		const found = await findLeftovers(repo);
		expect([found.aside, found.bases, found.kept]).toEqual([[], [], []]);
	});
});

describe("/todos workers says what earlier runs left, and /todos workers clean removes it", () => {
	it("alone: one line with the counts after the workers; clean: what it removed, then nothing is left", async () => {
		mkdirSync(join(temp, `til-done-worker-${GONE_PID}.1-aaaa`));
		mkdirSync(join(temp, `til-done-worker-${GONE_PID}.1-aaaa-tmp`));
		const head = git("rev-parse", "HEAD").trim();
		git("update-ref", "refs/til-done/s/2-c/worker-result", head);
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		await showWorkers(fake.ctx, 2);
		await cleanWorkers(fake.ctx, () => {});
		await cleanWorkers(fake.ctx, () => {});
		await showWorkers(fake.ctx, 2);
		expect(fake.ui.notifications.map((notice) => notice.message)).toEqual([
			`Workers: up to 2 at once; 0 at work\n${WORKERS.leftovers(`${WORKERS.leftFolders(2)}, ${WORKERS.keptWork(["refs/til-done/s/2-c/worker-result"])}`)}`,
			WORKERS.cleaned(`${WORKERS.leftFolders(2)}, 1 item(s)' work not landed, kept under refs/til-done/…`),
			WORKERS.nothingLeft,
			"Workers: up to 2 at once; 0 at work",
		]);
	});

	it("a landing cut short: named with its stage, clean puts back the file as the landing left it and keeps the backup of one changed since", async () => {
		const fake = createFakeCtx({ mode: "rpc", cwd: dir });
		const stage = join(dir, ".git", `til-done-landing-${GONE_PID}.1-aaaa`);
		mkdirSync(stage);
		const step = (name: string) => {
			writeFileSync(join(dir, name), "the person's\n");
			writeFileSync(join(stage, `${name}.backup`), "the person's\n");
			writeFileSync(join(stage, `${name}.staged`), "the worker's\n");
			return {
				kind: "write",
				file: join(dir, name),
				backup: join(stage, `${name}.backup`),
				staged: join(stage, `${name}.staged`),
				mode: 0o644,
			};
		};
		const journal = [step("cut.txt"), step("changed.txt")];
		writeFileSync(join(stage, "journal"), journal.map((line) => `${JSON.stringify(line)}\n`).join(""));
		writeFileSync(join(dir, "cut.txt"), "the wor");
		writeFileSync(join(dir, "changed.txt"), "changed by the person since\n");
		await showWorkers(fake.ctx, 2);
		await cleanWorkers(fake.ctx, () => {});
		expect(fake.ui.notifications.map((notice) => notice.message)).toEqual([
			`Workers: up to 2 at once; 0 at work\n${WORKERS.cutLandings([stage])}`,
			`${WORKERS.putBack([join(dir, "cut.txt")])}\n${WORKERS.backupsKept([stage])}`,
		]);
		expect(readFileSync(join(dir, "cut.txt"), "utf8")).toBe("the person's\n");
		expect(readFileSync(join(dir, "changed.txt"), "utf8")).toBe("changed by the person since\n");
		expect(readFileSync(join(stage, "changed.txt.backup"), "utf8")).toBe("the person's\n");
	});
});
