/**
 * An item's work landed on the plan's branch, against real git: a `git daemon` on the loopback address that the test
 * starts and stops, and a `file://` remote. One commit on the tip as it is then, the plan file's line checked in it,
 * the claim deleted in the same atomic push; merged again when the tip moved; nothing pushed on a conflict, a lost
 * claim or a remote not reached; the person's work tree, index, HEAD, refs and stash untouched.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
	branchPlanProblem,
	isItemDone,
	MAX_LANDING_TRIES,
	markItemDone,
	readMergeTree,
	refusalOf,
	staleRefs,
} from "../../src/core/rules/branch-landing.ts";
import { claimMessage, planName } from "../../src/core/rules/leases.ts";
import { findRepo } from "../../src/edges/git/git.ts";
import { type HeldClaim, newNonce, takeClaim } from "../../src/edges/git/leases.ts";
import {
	type BranchLanding,
	type BranchWork,
	landOnBranch,
	type SharedTeam,
	tipNow,
	treeLessFile,
} from "../../src/edges/team/branch-landing.ts";
import { type GitServer, startGitServer } from "../helpers/git-server.ts";
import { must } from "../helpers/must.ts";
import {
	commitOn,
	daemonRemote,
	type FileChange,
	type FileRemote,
	fileRemote,
	gitAt,
	personClone,
	type RemotePlace,
	refsOf,
	type Seed,
	seedRepo,
} from "../helpers/team-remote.ts";

const PLAN = "# Plan\n\nThe team's plan.\n\n- [ ] add a line to notes\n- [ ] make run.sh executable\n";
const PLAN_FIRST_DONE = "# Plan\n\nThe team's plan.\n\n- [x] add a line to notes\n- [ ] make run.sh executable\n";
const FIRST_ITEM = { path: "PLAN.md", index: 0, text: "add a line to notes" };
const SEED_FILES: Record<string, FileChange> = {
	"PLAN.md": PLAN,
	"notes.txt": "one\ntwo\nthree\n",
	"shared.txt": "a\nb\nc\n",
	"run.sh": "#!/bin/sh\necho run\n",
};

let root = "";
let server: GitServer;
let seed: Seed;
let machines = 0;

beforeAll(async () => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "til-done-branch-landing-")));
	server = await startGitServer();
	seed = seedRepo(join(root, "seed"), SEED_FILES);
});
afterEach(() => server.serveAll());
afterAll(async () => {
	await server.close();
	rmSync(root, { recursive: true, force: true });
});

/** One landing's world: the remote, the person's clone holding the item's claim, another session's clone. */
interface Machine {
	team: SharedTeam;
	place: RemotePlace;
	person: string;
	personState: (exceptRefs?: readonly string[]) => string;
	other: string;
	claim: HeldClaim;
	branchRef: string;
}

type PlaceMaker = (name: string) => RemotePlace & { configure?(clone: string): void };

const onDaemon: PlaceMaker = (name) => daemonRemote(server, `${name}.git`, seed);
const PLACES: [string, PlaceMaker][] = [
	["a git daemon", onDaemon],
	["a file:// remote", (name) => fileRemote(root, name, seed)],
];

const KEY = "0-add-a-line";

async function machine(makePlace: PlaceMaker): Promise<Machine> {
	const name = `m${++machines}`;
	const place = makePlace(name);
	const person = join(root, `${name}-person`);
	const personState = personClone(place.bare, person);
	place.configure?.(person);
	const other = join(root, `${name}-other`);
	gitAt(root, ["clone", "-q", place.bare, other]);
	const repo = must(await findRepo(person), "the person's repository");
	const team: SharedTeam = { repo, remote: place.remote, plan: planName("main", "PLAN.md"), branch: "main" };
	const taken = await takeClaim(team, KEY, { session: "s1", host: "laptop", nonce: newNonce() }, 3_600_000);
	const claim = must(taken.kind === "won" ? taken.claim : undefined, "the item's claim");
	return { team, place, person, personState, other, claim, branchRef: "refs/heads/main" };
}

/** The item's work: a commit on the seed's start in the person's repository (written through an index of its own). */
function work(m: Machine, files: Record<string, FileChange>, planFile = FIRST_ITEM): BranchWork {
	const result = commitOn(m.person, seed.start, files, "worker's result");
	return { base: seed.start, result, message: "add a line to notes", claim: m.claim, planFile };
}

/** Another session's commit on the remote's tip, made in its own clone; the command that pushes it there. */
function othersLanding(m: Machine, files: Record<string, FileChange>, onto = seed.start) {
	const commit = commitOn(m.other, onto, files, "another session's item");
	return { commit, push: [...othersPush(m), m.place.bare, `${commit}:refs/heads/main`] };
}

/** Another session's push from its own clone, run by the test's hooks (outside the person's git). */
const othersPush = (m: Machine) => ["-c", "protocol.file.allow=always", "-C", m.other, "push", "-q"];

/** The person's remote-tracking ref a landing's push moves: a named remote's, none for a URL. */
const tracked = (m: Machine): string[] => (m.place.tracking === undefined ? [] : [m.place.tracking]);

const atRemote = (m: Machine, what: string) => gitAt(m.place.bare, ["show", what]);
const tipOf = (m: Machine) => gitAt(m.place.bare, ["rev-parse", "refs/heads/main"]).trim();
const claimsOf = (m: Machine) =>
	gitAt(m.place.bare, ["for-each-ref", "--format=%(refname) %(objectname)", "refs/til-done/"]);

/** Our item landed in a second push on `theirs` (another session's landing): both changes there, the claim gone. */
function expectMergedOnto(m: Machine, landed: BranchLanding, theirs: string): void {
	expect(landed).toEqual({ kind: "landed", commit: tipOf(m), tip: theirs, pushes: 2 });
	expect(gitAt(m.place.bare, ["rev-parse", "main^"]).trim()).toBe(theirs);
	expect(atRemote(m, "main:notes.txt")).toBe("one\ntwo\nthree\nfour\n");
	expect(atRemote(m, "main:shared.txt")).toBe("a\nb\nc\nd\n");
	expect(atRemote(m, "main:PLAN.md")).toBe(PLAN_FIRST_DONE);
	expect(claimsOf(m)).toBe("");
}

describe.each(PLACES)("landing an item on the plan's branch on %s", (_name, makePlace) => {
	it("lands once: one commit whose parent is the old tip, the item's plan line checked, the claim gone; every other ref of the remote and the person's tree, index, HEAD, refs and stash untouched (a named remote's tracking ref follows the push, as git's own push moves it)", async () => {
		const m = await machine(makePlace);
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const person = m.personState(tracked(m));
		const others = refsOf(m.place.bare, [m.branchRef, m.claim.ref]);
		const landed = await landOnBranch(m.team, item);
		expect(landed).toEqual({ kind: "landed", commit: tipOf(m), tip: seed.start, pushes: 1 });
		expect(gitAt(m.place.bare, ["rev-list", "--parents", `${seed.start}..main`]).trim()).toBe(
			`${tipOf(m)} ${seed.start}`,
		);
		expect(atRemote(m, "main:notes.txt")).toBe("one\ntwo\nthree\nfour\n");
		expect(atRemote(m, "main:PLAN.md")).toBe(PLAN_FIRST_DONE);
		expect(gitAt(m.place.bare, ["log", "-1", "--format=%s", "main"]).trim()).toBe("add a line to notes");
		expect(claimsOf(m)).toBe("");
		expect(refsOf(m.place.bare, [m.branchRef])).toEqual(others);
		expect(m.personState(tracked(m))).toBe(person);
		const movedTracking = tracked(m).map((ref) => `${ref} ${tipOf(m)}`);
		expect(refsOf(m.person).filter((line) => line.startsWith("refs/remotes/shared/"))).toEqual(movedTracking);
	});

	it("another session lands between our read and our push: merged again onto its new tip, both changes present, in two pushes", async () => {
		const m = await machine(makePlace);
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const theirs = othersLanding(m, { "shared.txt": "a\nb\nc\nd\n" });
		m.place.beforePush(1, theirs.push);
		const landed = await landOnBranch(m.team, item);
		expectMergedOnto(m, landed, theirs.commit);
	});

	it("another session's push taken in the same instant (both passed git's check of the leases, the remote refused ours whole): merged again onto its tip, both changes present, in two pushes", async () => {
		const m = await machine(makePlace);
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const theirs = othersLanding(m, { "shared.txt": "a\nb\nc\nd\n" });
		gitAt(root, [...othersPush(m), m.place.bare, `${theirs.commit}:refs/heads/staged`]);
		// Once, inside our push: the branch moves to theirs after git's own check, as a push landing that instant does.
		const hook = join(m.place.bare, "hooks", "pre-receive");
		const move = `env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main ${theirs.commit}`;
		writeFileSync(
			hook,
			`#!/bin/sh\n[ -f raced ] && exit 0\ntouch raced\n${move}\nenv -u GIT_QUARANTINE_PATH git update-ref -d refs/heads/staged\n`,
		);
		chmodSync(hook, 0o755);
		const landed = await landOnBranch(m.team, item);
		rmSync(hook);
		expectMergedOnto(m, landed, theirs.commit);
	});

	it("two items that change the same lines: a conflict naming the file, nothing pushed (the branch and the claim as they were)", async () => {
		const m = await machine(makePlace);
		const theirs = othersLanding(m, { "notes.txt": "one\nTWO\nthree\n" });
		gitAt(root, theirs.push);
		const before = refsOf(m.place.bare);
		const person = m.personState();
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\n2\nthree\n" }));
		expect(landed).toEqual({ kind: "conflict", files: ["notes.txt"] });
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(m.personState()).toBe(person);
	});

	it("a file the item changes and another session deleted: a conflict naming it, nothing pushed", async () => {
		const m = await machine(makePlace);
		gitAt(root, othersLanding(m, { "notes.txt": null }).push);
		const before = refsOf(m.place.bare);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "conflict", files: ["notes.txt"] });
		expect(refsOf(m.place.bare)).toEqual(before);
	});

	it("the claim taken over by another session (fence 2) just before the push: claim-lost, the branch unchanged, the new holder's claim kept", async () => {
		const m = await machine(makePlace);
		const takeOver = takenOver(m);
		m.place.beforePush(1, [...othersPush(m), m.place.bare, `+${takeOver}:${m.claim.ref}`]);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "claim-lost" });
		expect(tipOf(m)).toBe(seed.start);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${takeOver}\n`);
	});

	it("the claim another session took over before the landing began: claim-lost at the first read, nothing made or pushed", async () => {
		const m = await machine(makePlace);
		const takeOver = takenOver(m);
		gitAt(m.other, [...othersPush(m).slice(2), m.place.bare, `+${takeOver}:${m.claim.ref}`]);
		const before = refsOf(m.place.bare);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "claim-lost" });
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${takeOver}\n`);
	});

	it("the claim taken over while the tip also moved: claim-lost once the refs are read again, nothing of ours landed", async () => {
		const m = await machine(makePlace);
		const takeOver = takenOver(m);
		const theirs = othersLanding(m, { "shared.txt": "a\nb\nc\nd\n" });
		const both = [...othersPush(m), m.place.bare, `+${takeOver}:${m.claim.ref}`, `${theirs.commit}:main`];
		m.place.beforePush(1, both);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "claim-lost" });
		expect(tipOf(m)).toBe(theirs.commit);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${takeOver}\n`);
	});

	it(`the tip moving before every push: tip-kept-moving after exactly ${MAX_LANDING_TRIES} pushes, nothing of ours landed, the claim still ours`, async () => {
		const m = await machine(makePlace);
		let onto = seed.start;
		for (let push = 1; push <= MAX_LANDING_TRIES; push++) {
			const theirs = othersLanding(m, { [`other-${push}.txt`]: `${push}\n` }, onto);
			m.place.beforePush(push, theirs.push);
			onto = theirs.commit;
		}
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "tip-kept-moving", tries: MAX_LANDING_TRIES });
		expect(tipOf(m)).toBe(onto);
		expect(atRemote(m, "main:notes.txt")).toBe("one\ntwo\nthree\n");
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${m.claim.sha}\n`);
	});

	it("a mode change (chmod +x) and a new executable file land with their modes, merged with another session's edit of the same file", async () => {
		const m = await machine(makePlace);
		gitAt(root, othersLanding(m, { "run.sh": "#!/bin/sh\necho run fast\n" }).push);
		const item = work(
			m,
			{
				"run.sh": { text: "#!/bin/sh\necho run\n", mode: "100755" },
				"tool.sh": { text: "#!/bin/sh\n", mode: "100755" },
			},
			{ path: "PLAN.md", index: 1, text: "make run.sh executable" },
		);
		expect(await landOnBranch(m.team, item)).toMatchObject({ kind: "landed", pushes: 1 });
		expect(gitAt(m.place.bare, ["ls-tree", "main", "run.sh", "tool.sh"]).replace(/ [0-9a-f]{40}\t/g, "\t")).toBe(
			"100755 blob\trun.sh\n100755 blob\ttool.sh\n",
		);
		expect(atRemote(m, "main:run.sh")).toBe("#!/bin/sh\necho run fast\n");
		expect(atRemote(m, "main:PLAN.md")).toBe(
			"# Plan\n\nThe team's plan.\n\n- [ ] add a line to notes\n- [x] make run.sh executable\n",
		);
	});

	it("an item another session landed first (the tip has its line checked): refused as landed elsewhere, nothing pushed", async () => {
		const m = await machine(makePlace);
		gitAt(root, othersLanding(m, { "PLAN.md": PLAN_FIRST_DONE, "shared.txt": "a\nb\nc\nd\n" }).push);
		const before = refsOf(m.place.bare);
		const person = m.personState();
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "landed-elsewhere" });
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(m.personState()).toBe(person);
	});

	it("without a plan file, a commit since the list was shared names the item: refused as landed elsewhere, nothing pushed; one before it does not count", async () => {
		const m = await machine(makePlace);
		const named = (key: string) => `another session's item\n\nTil-done-item: ${key}\n`;
		const theirs = commitOn(m.other, seed.start, { "shared.txt": "a\nb\nc\nd\n" }, named("0-abc"));
		gitAt(root, [...othersPush(m), m.place.bare, `${theirs}:refs/heads/main`]);
		const before = refsOf(m.place.bare);
		const person = m.personState();
		const item = { ...work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }), planFile: undefined };
		const since = seed.start;
		expect(await landOnBranch(m.team, { ...item, landedAfter: { key: "0-abc", since } })).toEqual({
			kind: "landed-elsewhere",
		});
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(m.personState()).toBe(person);
		// Landed before the list was shared (another plan's item of the same key): this landing goes on.
		const landed = await landOnBranch(m.team, { ...item, landedAfter: { key: "0-abc", since: theirs } });
		expect(landed).toMatchObject({ kind: "landed", tip: theirs });
	});

	it("a stop before the push: nothing pushed, the claim still held", async () => {
		const m = await machine(makePlace);
		const before = refsOf(m.place.bare);
		const stop = new AbortController();
		stop.abort();
		expect(await landOnBranch(m.team, work(m, { "notes.txt": "x\n" }), stop.signal)).toEqual({ kind: "stopped" });
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${m.claim.sha}\n`);
	});

	it("the branch's tip as the remote holds it now, fetched into the clone; unreachable when the remote is not", async () => {
		const m = await machine(makePlace);
		const theirs = othersLanding(m, { "PLAN.md": PLAN_FIRST_DONE });
		gitAt(root, theirs.push);
		expect(await tipNow(m.team)).toBe(theirs.commit);
		expect(gitAt(m.person, ["cat-file", "-t", theirs.commit])).toBe("commit\n");
		expect(await tipNow({ ...m.team, remote: join(root, "nowhere.git") })).toBe("unreachable");
	});

	it("a commit's change less one file: that file as its parent holds it (or gone where the parent had none)", async () => {
		const m = await machine(makePlace);
		const commit = commitOn(m.person, seed.start, {
			"PLAN.md": PLAN_FIRST_DONE,
			"notes.txt": "new\n",
			"added.txt": "a\n",
		});
		const lessPlan = must(await treeLessFile(m.team.repo, commit, "PLAN.md"), "the tree");
		expect(gitAt(m.person, ["show", `${lessPlan}:PLAN.md`])).toBe(PLAN);
		expect(gitAt(m.person, ["show", `${lessPlan}:notes.txt`])).toBe("new\n");
		const lessAdded = must(await treeLessFile(m.team.repo, commit, "added.txt"), "the tree");
		expect(gitAt(m.person, ["ls-tree", "--name-only", lessAdded]).split("\n")).not.toContain("added.txt");
		expect(await treeLessFile(m.team.repo, "0".repeat(40), "PLAN.md")).toBeUndefined();
	});

	it("a plan file whose item is not the item landed, that is missing, or that is no plan: a conflict naming the plan file, nothing pushed", async () => {
		const m = await machine(makePlace);
		const before = refsOf(m.place.bare);
		const change = { "notes.txt": "one\ntwo\nthree\nfour\n" };
		const renamed = { ...FIRST_ITEM, text: "add two lines to notes" };
		expect(await landOnBranch(m.team, work(m, change, renamed))).toEqual({ kind: "conflict", files: ["PLAN.md"] });
		const missing = { ...FIRST_ITEM, path: "docs/PLAN.md" };
		expect(await landOnBranch(m.team, work(m, change, missing))).toEqual({ kind: "conflict", files: ["docs/PLAN.md"] });
		const broken = { ...change, "PLAN.md": "# Plan\n\n- [?] not an item\n" };
		expect(await landOnBranch(m.team, work(m, broken))).toEqual({ kind: "conflict", files: ["PLAN.md"] });
		expect(refsOf(m.place.bare)).toEqual(before);
	});

	it("a push the remote's hook refuses, a branch another session deleted, a base that is no commit: nothing pushed, each said", async () => {
		const m = await machine(makePlace);
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const hook = join(m.place.bare, "hooks", "pre-receive");
		writeFileSync(hook, "#!/bin/sh\nexit 1\n");
		chmodSync(hook, 0o755);
		const before = refsOf(m.place.bare);
		expect(await landOnBranch(m.team, item)).toEqual({ kind: "rejected" });
		expect(refsOf(m.place.bare)).toEqual(before);
		rmSync(hook);
		expect(await landOnBranch(m.team, { ...item, base: "0".repeat(40) })).toEqual({ kind: "git-failed" });
		expect(refsOf(m.place.bare)).toEqual(before);
		gitAt(m.place.bare, ["update-ref", "-d", m.branchRef]);
		expect(await landOnBranch(m.team, item)).toEqual({ kind: "no-branch" });
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${m.claim.sha}\n`);
	});
});

describe("landing on a branch someone rewrote since this clone's last landing there", () => {
	it("a named remote whose branch was force-pushed back past our landing: rewritten, nothing pushed, the claim still ours; a URL, with no fetched ref to hold to, lands", async () => {
		const [named, url] = [await machine((name) => fileRemote(root, name, seed)), await machine(onDaemon)];
		for (const m of [named, url]) {
			expect(await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }))).toMatchObject({
				kind: "landed",
			});
			// Someone force-pushes the branch back to its start: our landing is gone from it.
			gitAt(m.place.bare, ["update-ref", "refs/heads/main", seed.start]);
		}
		const second = { path: "PLAN.md", index: 1, text: "make run.sh executable" };
		const claimOf = async (m: Machine) => {
			const taken = await takeClaim(
				m.team,
				"1-make-run",
				{ session: "s1", host: "laptop", nonce: newNonce() },
				3_600_000,
			);
			return must(taken.kind === "won" ? taken.claim : undefined, "the second item's claim");
		};
		const next = async (m: Machine) => ({
			...work(m, { "run.sh": { text: "#!/bin/sh\necho run\n", mode: "100755" } }, second),
			claim: await claimOf(m),
		});
		const item = await next(named);
		const before = refsOf(named.place.bare);
		expect(await landOnBranch(named.team, item)).toEqual({ kind: "rewritten" });
		expect(refsOf(named.place.bare)).toEqual(before);
		expect(claimsOf(named)).toBe(`${item.claim.ref} ${item.claim.sha}\n`);
		expect(await landOnBranch(url.team, await next(url))).toMatchObject({ kind: "landed", tip: seed.start });
	});
});

/**
 * Blocks every new object in the repository at `dir`: all its objects packed (the unreachable ones too), each loose
 * object's folder a file. Git reads it, and "writes" an object it already holds, but writes no new one.
 */
function blockNewObjects(dir: string): void {
	const all = gitAt(dir, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"]);
	execFileSync("git", ["pack-objects", "-q", join(dir, ".git", "objects", "pack", "pack")], { cwd: dir, input: all });
	gitAt(dir, ["prune-packed"]);
	const objects = join(dir, ".git", "objects");
	for (let prefix = 0; prefix < 256; prefix++) {
		const folder = join(objects, prefix.toString(16).padStart(2, "0"));
		rmSync(folder, { recursive: true, force: true });
		writeFileSync(folder, "");
	}
}

describe("landing from a repository git can write no new object in", () => {
	afterEach(() => {
		vi.unstubAllEnvs();
	});

	it("git-failed wherever a new object would be written: the merge, the checked line, its tree, the commit; nothing pushed", async () => {
		// One clock for every commit: a landing tried again makes the very commits it made before, already held.
		vi.stubEnv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z");
		vi.stubEnv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z");
		const m = await machine((name) => fileRemote(root, name, seed));
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const another = work(m, { "shared.txt": "a\nb\nc\nd\n" });
		const moved = othersLanding(m, { "other.txt": "another session's file\n" });
		gitAt(m.other, [...othersPush(m).slice(2), m.place.bare, `${moved.commit}:refs/heads/later`]);
		const hook = join(m.place.bare, "hooks", "pre-receive");
		writeFileSync(hook, "#!/bin/sh\nexit 1\n");
		chmodSync(hook, 0o755);
		const tipAt = (commit: string) => gitAt(m.place.bare, ["update-ref", m.branchRef, commit]);
		// Refused landings leave what they made: on the start, the item's merge without the plan file, and another
		// item's landing whole (the first line checked); on a later tip, that other item's merge.
		expect(await landOnBranch(m.team, { ...item, planFile: undefined })).toEqual({ kind: "rejected" });
		expect(await landOnBranch(m.team, another)).toEqual({ kind: "rejected" });
		tipAt(moved.commit);
		expect(await landOnBranch(m.team, another)).toEqual({ kind: "rejected" });
		tipAt(seed.start);
		rmSync(hook);
		blockNewObjects(m.person);
		const before = refsOf(m.place.bare);
		const packs = readdirSync(join(m.person, ".git", "objects", "pack")).sort();
		// The item's merge and its checked plan file are held; the tree holding both is new.
		expect(await landOnBranch(m.team, item)).toEqual({ kind: "git-failed" });
		// The second line checked is a new blob.
		const second = { ...FIRST_ITEM, index: 1, text: "make run.sh executable" };
		expect(await landOnBranch(m.team, { ...item, planFile: second })).toEqual({ kind: "git-failed" });
		// Another item's landing with a message of its own is a new commit.
		expect(await landOnBranch(m.team, { ...another, message: "said otherwise" })).toEqual({ kind: "git-failed" });
		// On the later tip, the item's merge is a new tree.
		tipAt(moved.commit);
		const later = refsOf(m.place.bare);
		expect(await landOnBranch(m.team, item)).toEqual({ kind: "git-failed" });
		expect(refsOf(m.place.bare)).toEqual(later);
		tipAt(seed.start);
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${m.claim.sha}\n`);
		expect(readdirSync(join(m.person, ".git", "objects", "pack")).sort()).toEqual(packs);
	});
});

/**
 * The same commit made in each repository of `dirs`: `parent`'s tree with `entries` (`mode type name`, by path) put
 * in, objects none of them holds (as a partial or corrupt clone has them). The clock must be fixed by the caller.
 */
function tipWithMissing(dirs: readonly string[], parent: string, entries: Record<string, string>): string {
	let commit = "";
	for (const dir of dirs) {
		const kept = gitAt(dir, ["ls-tree", parent])
			.split("\n")
			.filter((line) => line !== "" && !(line.slice(line.indexOf("\t") + 1) in entries));
		const listing = [...kept, ...Object.entries(entries).map(([path, entry]) => `${entry}\t${path}`)];
		const input = `${listing.join("\n")}\n`;
		const tree = execFileSync("git", ["mktree", "--missing"], { cwd: dir, input, encoding: "utf8" }).trim();
		const made = ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree, "-p", parent, "-m", "tip"];
		commit = gitAt(dir, made).trim();
	}
	return commit;
}

describe("landing onto a tip whose plan file the repository cannot read (a partial or corrupt clone)", () => {
	afterEach(() => {
		vi.unstubAllEnvs();
	});

	it("its plan file's blob, or the folder holding it, missing: git-failed, nothing pushed, the claim still ours", async () => {
		// One clock for every commit: the tip is made alike in the remote and in the person's repository.
		vi.stubEnv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z");
		vi.stubEnv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z");
		const m = await machine((name) => fileRemote(root, name, seed));
		// Named, never written.
		const missing = (text: string) =>
			execFileSync("git", ["hash-object", "--stdin"], { cwd: m.person, input: text, encoding: "utf8" }).trim();
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const dirs = [m.person, m.place.bare];
		const noPlan = tipWithMissing(dirs, seed.start, { "PLAN.md": `100644 blob ${missing("a lost plan\n")}` });
		gitAt(m.place.bare, ["update-ref", m.branchRef, noPlan]);
		const before = refsOf(m.place.bare);
		expect(await landOnBranch(m.team, item)).toEqual({ kind: "git-failed" });
		expect(refsOf(m.place.bare)).toEqual(before);
		const noDocs = tipWithMissing(dirs, seed.start, { docs: `040000 tree ${missing("a lost folder\n")}` });
		gitAt(m.place.bare, ["update-ref", m.branchRef, noDocs]);
		const inDocs = { ...FIRST_ITEM, path: "docs/PLAN.md" };
		expect(await landOnBranch(m.team, { ...item, planFile: inDocs })).toEqual({ kind: "git-failed" });
		expect(tipOf(m)).toBe(noDocs);
		expect(claimsOf(m)).toBe(`${m.claim.ref} ${m.claim.sha}\n`);
	});
});

describe("landing on a remote that cannot be reached", () => {
	it("the server stopped: unreachable, nothing changed there, the person's repository untouched; once it is back, the item lands", async () => {
		const m = await machine(onDaemon);
		const item = work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" });
		const before = refsOf(m.place.bare);
		const person = m.personState();
		await server.stop();
		try {
			expect(await landOnBranch(m.team, item)).toEqual({ kind: "unreachable" });
		} finally {
			await server.start();
		}
		expect(refsOf(m.place.bare)).toEqual(before);
		expect(m.personState()).toBe(person);
		expect(await landOnBranch(m.team, item)).toMatchObject({ kind: "landed", tip: seed.start, pushes: 1 });
	});

	it("the refs read, then the other session's tip cannot be fetched: unreachable, nothing pushed", async () => {
		const m = await machine(onDaemon);
		gitAt(root, othersLanding(m, { "shared.txt": "a\nb\nc\nd\n" }).push);
		const before = refsOf(m.place.bare);
		server.refuseAfter(1);
		expect(await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }))).toEqual({
			kind: "unreachable",
		});
		expect(refsOf(m.place.bare)).toEqual(before);
	});

	it("the refs read, then every connection refused (the push and the read after it): unreachable, nothing changed there", async () => {
		const m = await machine(onDaemon);
		const before = refsOf(m.place.bare);
		server.refuseAfter(1);
		expect(await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }))).toEqual({
			kind: "unreachable",
		});
		expect(refsOf(m.place.bare)).toEqual(before);
	});
});

describe("a push whose answer is lost after the remote took it (a file:// remote)", () => {
	let place: FileRemote | undefined;
	const losing: PlaceMaker = (name) => {
		place = fileRemote(root, name, seed);
		return place;
	};

	it("read again: landed once, the claim gone, never pushed twice", async () => {
		const m = await machine(losing);
		must(place, "the remote").loseAnswer(1);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "landed", commit: tipOf(m), tip: seed.start, pushes: 1 });
		expect(gitAt(m.place.bare, ["rev-list", "--count", `${seed.start}..main`]).trim()).toBe("1");
		expect(claimsOf(m)).toBe("");
	});

	it("another session landed on it before it was read again: still landed, under the other's commit", async () => {
		const m = await machine(losing);
		const later = [
			`cd '${m.other}'`,
			`git fetch -q '${m.place.bare}' main`,
			"git checkout -q FETCH_HEAD",
			"echo later > later.txt",
			"git add later.txt",
			"git -c user.name=u -c user.email=u@u commit -qm later",
			`git push -q '${m.place.bare}' HEAD:refs/heads/main`,
		].join(" && ");
		must(place, "the remote").loseAnswer(1, later);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		const ours = gitAt(m.place.bare, ["rev-parse", "main^"]).trim();
		expect(landed).toEqual({ kind: "landed", commit: ours, tip: seed.start, pushes: 1 });
		expect(atRemote(m, "main:later.txt")).toBe("later\n");
		expect(claimsOf(m)).toBe("");
	});

	it("another session's commit on it cannot be fetched when read again (the remote lacks its objects): unreachable, as far as can be told", async () => {
		const m = await machine(losing);
		const lost = execFileSync("git", ["hash-object", "--stdin"], { cwd: m.person, input: "lost\n", encoding: "utf8" });
		const broken = tipWithMissing([m.place.bare], seed.start, { "later.txt": `100644 blob ${lost.trim()}` });
		must(place, "the remote").loseAnswer(1, `git -C '${m.place.bare}' update-ref refs/heads/main ${broken}`);
		const landed = await landOnBranch(m.team, work(m, { "notes.txt": "one\ntwo\nthree\nfour\n" }));
		expect(landed).toEqual({ kind: "unreachable" });
		expect(tipOf(m)).toBe(broken);
		expect(claimsOf(m)).toBe("");
		// Never fetched: the person's repository does not hold it.
		expect(() => gitAt(m.person, ["cat-file", "-e", broken])).toThrow();
	});
});

/** Another session's claim on the item, taken over from ours with the next fence, made in its own clone. */
function takenOver(m: Machine): string {
	const record = { ...m.claim.record, session: "s2", host: "desktop", nonce: "taken-over", fence: 2 };
	const empty = gitAt(m.other, ["hash-object", "-t", "tree", "-w", "/dev/null"]).trim();
	return gitAt(m.other, [
		"-c",
		"user.name=u",
		"-c",
		"user.email=u@u",
		"commit-tree",
		empty,
		"-m",
		claimMessage(record),
	]).trim();
}

describe("the landing's rules", () => {
	const branch = "refs/heads/main";
	const claim = "refs/til-done/claims/main--PLAN.md/0-a";
	const line = (ref: string, why: string) => `!\t1234abcd:${ref}\t[rejected] (${why})`;

	it("a refused push is the claim lost when the claim's lease broke, the tip moved when only the branch's did, a race when the remote refused the whole transaction, else the remote's own refusal", () => {
		const porcelain = (...lines: string[]) => ["To git://127.0.0.1/team.git", ...lines, "Done"].join("\n");
		expect(refusalOf(porcelain(line(branch, "atomic push failed"), line(claim, "stale info")), branch, claim)).toBe(
			"claim-lost",
		);
		expect(refusalOf(porcelain(line(branch, "stale info"), line(claim, "atomic push failed")), branch, claim)).toBe(
			"tip-moved",
		);
		expect(
			refusalOf(porcelain(`!\t1234abcd:${branch}\t[remote rejected] (pre-receive hook declined)`), branch, claim),
		).toBe("rejected");
		const raced = (ref: string) => `!\t1234abcd:${ref}\t[remote rejected] (atomic transaction failed)`;
		expect(refusalOf(porcelain(raced(branch), raced(claim)), branch, claim)).toBe("raced");
		expect(staleRefs(porcelain(line(branch, "stale info"), `!\t(delete):${claim}\t[rejected] (stale info)`))).toEqual([
			branch,
			claim,
		]);
	});

	it("merge-tree's answer: the tree first, each conflicted file once; anything else is no answer", () => {
		const tree = "a".repeat(40);
		expect(readMergeTree(`${tree}\0`)).toEqual({ tree, conflicts: [] });
		expect(readMergeTree(`${tree}\0notes.txt\0notes.txt\0run.sh\0`)).toEqual({
			tree,
			conflicts: ["notes.txt", "run.sh"],
		});
		expect(readMergeTree("fatal: not a tree\n")).toBeUndefined();
	});

	it("checking an item keeps the plan's preamble and every other item; an index past the list or another text is refused", () => {
		expect(markItemDone(PLAN, 0, "add a line to notes")).toEqual({ ok: true, text: PLAN_FIRST_DONE });
		expect(markItemDone(PLAN, 2, "add a line to notes")).toEqual({ ok: false, why: "not-the-item" });
		expect(markItemDone(PLAN, 1, "add a line to notes")).toEqual({ ok: false, why: "not-the-item" });
		expect(markItemDone("- [?] no item\n", 0, "no item")).toEqual({ ok: false, why: "not-the-item" });
	});

	it("the branch's plan file that is no plan, or holds another item where this clone's has one, stands in the way of joining", () => {
		expect(branchPlanProblem("- [?] no item\n", PLAN)).toEqual({ kind: "not-a-plan" });
		expect(branchPlanProblem(PLAN.replace("add a line", "add two lines"), PLAN)).toEqual({ kind: "differs", index: 0 });
		// Items checked on one side only, items only one side has, or nothing of this clone's to compare: no problem.
		expect(branchPlanProblem(PLAN_FIRST_DONE, PLAN)).toBeUndefined();
		expect(branchPlanProblem(`${PLAN}- [ ] one more\n`, PLAN)).toBeUndefined();
		expect(branchPlanProblem(PLAN, `${PLAN}- [ ] one more\n`)).toBeUndefined();
		expect(branchPlanProblem(PLAN, undefined)).toBeUndefined();
		expect(branchPlanProblem(PLAN, "- [?] no item\n")).toBeUndefined();
	});

	it("an item checked already is refused as landed by another: the same item never lands twice", () => {
		expect(markItemDone(PLAN_FIRST_DONE, 0, "add a line to notes")).toEqual({ ok: false, why: "already-done" });
		expect(isItemDone(PLAN_FIRST_DONE, 0, "add a line to notes")).toBe(true);
		expect(isItemDone(PLAN, 0, "add a line to notes")).toBe(false);
		expect(isItemDone(PLAN_FIRST_DONE, 0, "another text")).toBe(false);
		expect(isItemDone("no plan at all", 0, "add a line to notes")).toBe(false);
	});
});
