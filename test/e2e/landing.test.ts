/**
 * A landing keeps every byte, mode and permission of the person's, in the real pi on both lines against a real git
 * repository in a temporary folder: a worker's mode change lands, the person's permission bits are never widened, a
 * file is never written through a symbolic link, and a change inside a submodule is refused, not lost. Each test also
 * proves the person's other files (bytes and modes), index, HEAD, branches and stash untouched.
 */
import { execFileSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	existsSync,
	linkSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	EXTENSION_ENTRY,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	piArgs,
	runPrint,
	spawnPi,
	waitForExit,
	waitForValue,
} from "../helpers/cli.ts";
import { allFinished, stderrLine, WORKERS, workerFailures } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { commitAll, gitIn, modeOf, personRepo, workTreeFiles } from "../helpers/person-repo.ts";
import { sayStep, toolStep, writeFileScript, writeStep } from "../helpers/scripts.ts";
import { landedLine, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });

/** `pi -p` with the workers, started under `umask` (pi and its workers inherit it), run to its end. */
function print(host: PiHost, env: IsolatedEnv, umask = 0o022) {
	const before = process.umask(umask);
	try {
		return runPrint(["-p", "Work the list."], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: join(env.root, "sessions") },
		});
	} finally {
		process.umask(before);
	}
}

const bash = (command: string) => toolStep("bash", { command });
const ROOT = process.getuid?.() === 0;

/** Whether `chattr +i` works here (root, on a file system that keeps the attribute): the immutable tests need it. */
const IMMUTABLE = (() => {
	const probe = mkdtempSync(join(tmpdir(), "til-done-chattr-"));
	try {
		execFileSync("chattr", ["+i", probe], { stdio: "ignore" });
		execFileSync("chattr", ["-i", probe], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	} finally {
		rmSync(probe, { recursive: true, force: true });
	}
})();

/** A folder on another file system than TMPDIR's (a tmpfs), where a linked work tree can be made; undefined where none is. */
const OTHER_FS = (() => {
	try {
		return statSync("/dev/shm").dev !== statSync(tmpdir()).dev ? "/dev/shm" : undefined;
	} catch {
		return undefined;
	}
})();

/** Makes a file or folder immutable (even root may not write it) until the test takes it off. */
const immutable = (path: string) => execFileSync("chattr", ["+i", path]);

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a worker's mode change lands", () => {
		it("chmod +x and chmod -x with the bytes unchanged land as the worker left them, and the items complete", async () => {
			const env = pi.env([writeStep(["Make build.sh executable", "Make old.sh plain"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "2",
			});
			const files = { "build.sh": "#!/bin/sh\necho build\n", "old.sh": "#!/bin/sh\necho old\n" };
			const state = personRepo(env.cwd, files);
			gitIn(env.cwd, "update-index", "--chmod=+x", "old.sh");
			gitIn(env.cwd, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "old.sh is executable");
			gitIn(env.cwd, "checkout", "--", "old.sh");
			expect([modeOf(join(env.cwd, "build.sh")), modeOf(join(env.cwd, "old.sh"))]).toEqual([0o644, 0o755]);
			env.writeWorkerScripts({
				"0": [bash("chmod +x build.sh"), sayStep("Made it executable.")],
				"1": [bash("chmod -x old.sh"), sayStep("Made it plain.")],
			});
			const before = state(["build.sh", "old.sh"]);
			const result = await print(host, env);
			const lines = stderrOf(result.stderr);
			expect(lines.slice(0, 2)).toEqual([
				startedLine(0, "Make build.sh executable"),
				startedLine(1, "Make old.sh plain"),
			]);
			expect(lines.slice(2, 4).toSorted()).toEqual(
				[
					landedLine(env, 0, ["build.sh"], "Made it executable."),
					landedLine(env, 1, ["old.sh"], "Made it plain."),
				].toSorted(),
			);
			expect(lines.slice(4)).toEqual([stderrLine(allFinished(2)).trimEnd()]);
			expect(result.code).toBe(0);
			expect(modeOf(join(env.cwd, "build.sh"))).toBe(0o755);
			expect(modeOf(join(env.cwd, "old.sh"))).toBe(0o644);
			expect(readFileSync(join(env.cwd, "build.sh"), "utf8")).toBe(files["build.sh"]);
			expect(readFileSync(join(env.cwd, "old.sh"), "utf8")).toBe(files["old.sh"]);
			expect(state(["build.sh", "old.sh"])).toBe(before);
		});
	});

	describe("the person's permission bits are never widened", () => {
		it("under umask 027: a 600 file appended to stays 600, a 600 file made executable is 700, new files are 640 and 750", async () => {
			const items = ["Append a token to secret.env", "Make tool.sh executable", "Add run.sh", "Add notes.txt"];
			const env = pi.env([writeStep(items), sayStep("Planned.")], { TIL_DONE_WORKERS: "4" });
			const files = { "secret.env": "TOKEN=1\n", "tool.sh": "#!/bin/sh\necho tool\n" };
			const state = personRepo(env.cwd, files);
			chmodSync(join(env.cwd, "secret.env"), 0o600);
			chmodSync(join(env.cwd, "tool.sh"), 0o600);
			env.writeWorkerScripts({
				"0": [bash("echo TOKEN=2 >> secret.env"), sayStep("Appended.")],
				"1": [bash("chmod +x tool.sh"), sayStep("Made it executable.")],
				"2": [
					toolStep("write", { path: "run.sh", content: "#!/bin/sh\necho run\n" }),
					bash("chmod +x run.sh"),
					sayStep("Added run.sh."),
				],
				"3": writeFileScript("notes.txt"),
			});
			const changed = ["secret.env", "tool.sh", "run.sh", "notes.txt"];
			const before = state(changed);
			const result = await print(host, env, 0o027);
			const lines = stderrOf(result.stderr);
			expect(lines.slice(0, 4)).toEqual(items.map((text, i) => startedLine(i, text)));
			const answers = ["Appended.", "Made it executable.", "Added run.sh.", "Wrote notes.txt."];
			expect(lines.slice(4, 8).toSorted()).toEqual(
				changed.map((name, i) => landedLine(env, i, [name], answers[i])).toSorted(),
			);
			expect(lines.slice(8)).toEqual([stderrLine(allFinished(4)).trimEnd()]);
			expect(result.code).toBe(0);
			expect(readFileSync(join(env.cwd, "secret.env"), "utf8")).toBe("TOKEN=1\nTOKEN=2\n");
			expect(changed.map((name) => modeOf(join(env.cwd, name)).toString(8))).toEqual(["600", "700", "750", "640"]);
			expect(state(changed)).toBe(before);
		});
	});

	describe("a landing never writes through a symbolic link", () => {
		it("a link to a folder outside lands; a later landing of a file under it is a conflict, nothing of it is written, nothing outside", async () => {
			const outside = "shared outside";
			const env = pi.env([writeStep(["Link out to the shared folder", "Write out/x.txt"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "2",
			});
			const target = join(env.root, outside);
			mkdirSync(target);
			const state = personRepo(env.cwd);
			// [1] started on a tree without the link: it writes once [0]'s link has landed in the person's tree.
			env.writeWorkerScripts({
				"0": [bash(`ln -s '${target}' out`), sayStep("Linked.")],
				"1": [
					{ ...toolStep("write", { path: "out/x.txt", content: "x\n" }), waitForFile: join(env.cwd, "out") },
					toolStep("write", { path: "y.txt", content: "y\n" }),
					sayStep("Wrote them."),
				],
				"1/again": writeFileScript("z.txt"),
			});
			const before = state(["out", "z.txt"]);
			const result = await print(host, env);
			const conflict = WORKERS.givenBack(1, WORKERS.conflicts("out/x.txt"));
			expect(stderrOf(result.stderr)).toEqual([
				startedLine(0, "Link out to the shared folder"),
				startedLine(1, "Write out/x.txt"),
				landedLine(env, 0, ["out"], "Linked."),
				stderrLine(conflict).trimEnd(),
				startedLine(1, "Write out/x.txt"),
				landedLine(env, 1, ["z.txt"], "Wrote z.txt."),
				stderrLine(allFinished(2)).trimEnd(),
			]);
			expect(result.code).toBe(0);
			expect(readlinkSync(join(env.cwd, "out"))).toBe(target);
			expect(readdirSync(target)).toEqual([]);
			expect(readFileSync(join(env.cwd, "z.txt"), "utf8")).toBe("z.txt\n");
			expect(state(["out", "z.txt"])).toBe(before);
		});
	});

	describe("a change inside a submodule is refused, not lost", () => {
		it("a worker's edit of a submodule's file: the submodule named, nothing lands, the item ready again; its next try lands", async () => {
			const env = pi.env([writeStep(["Fix the library's greeting"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
			const library = join(env.root, "library");
			mkdirSync(library);
			gitIn(library, "init", "-q", "-b", "main");
			writeFileSync(join(library, "greeting.txt"), "hello\n");
			commitAll(library, "library");
			const state = personRepo(env.cwd);
			gitIn(env.cwd, "submodule", "add", "-q", library, "lib");
			commitAll(env.cwd, "the library as a submodule");
			const submodule = () => gitIn(join(env.cwd, "lib"), "status", "--porcelain") + gitIn(env.cwd, "submodule");
			env.writeWorkerScripts({
				"0": [toolStep("write", { path: "lib/greeting.txt", content: "hello, world\n" }), sayStep("Fixed.")],
				"0/again": writeFileScript("greeting-notes.txt"),
			});
			const before = state(["greeting-notes.txt"]);
			const inside = submodule();
			const result = await print(host, env);
			const refused = WORKERS.givenBack(0, WORKERS.submodules("lib"));
			expect(stderrOf(result.stderr)).toEqual([
				startedLine(0, "Fix the library's greeting"),
				stderrLine(refused).trimEnd(),
				startedLine(0, "Fix the library's greeting"),
				landedLine(env, 0, ["greeting-notes.txt"], "Wrote greeting-notes.txt."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(result.code).toBe(0);
			expect(readFileSync(join(env.cwd, "lib", "greeting.txt"), "utf8")).toBe("hello\n");
			expect(readFileSync(join(env.cwd, "greeting-notes.txt"), "utf8")).toBe("greeting-notes.txt\n");
			expect(submodule()).toBe(inside);
			expect(state(["greeting-notes.txt"])).toBe(before);
		});
	});

	describe.skipIf(!IMMUTABLE)(
		"a file the process may not write is named, and nothing of the landing is written",
		() => {
			it("a file of the person's made immutable: the item is given back naming it, the worker's other new file not written", async () => {
				const env = pi.env([writeStep(["Write a.txt and edit ro/f.txt"]), sayStep("Planned.")], {
					TIL_DONE_WORKERS: "1",
				});
				const state = personRepo(env.cwd, { "f.txt": "f\n" });
				env.writeWorkerScripts({
					"0": [
						toolStep("write", { path: "a.txt", content: "a by the worker\n" }),
						toolStep("write", { path: "f.txt", content: "f by the worker\n" }),
						sayStep("Done."),
					],
					"0/again": writeFileScript("b.txt"),
				});
				const before = state(["b.txt"]);
				immutable(join(env.cwd, "f.txt"));
				try {
					const result = await print(host, env);
					expect(stderrOf(result.stderr)).toEqual([
						startedLine(0, "Write a.txt and edit ro/f.txt"),
						stderrLine(WORKERS.givenBack(0, WORKERS.unwritable("f.txt"))).trimEnd(),
						startedLine(0, "Write a.txt and edit ro/f.txt"),
						landedLine(env, 0, ["b.txt"], "Wrote b.txt."),
						stderrLine(allFinished(1)).trimEnd(),
					]);
					expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
					expect(readFileSync(join(env.cwd, "f.txt"), "utf8")).toBe("f\n");
				} finally {
					execFileSync("chattr", ["-i", join(env.cwd, "f.txt")]);
				}
				expect(state(["b.txt"])).toBe(before);
			});

			it("a file in a folder made immutable is written in place: the folder is never written, and both files land", async () => {
				const env = pi.env([writeStep(["Write a.txt and edit ro/f.txt"]), sayStep("Planned.")], {
					TIL_DONE_WORKERS: "1",
				});
				const state = personRepo(env.cwd);
				mkdirSync(join(env.cwd, "ro"));
				writeFileSync(join(env.cwd, "ro", "f.txt"), "f\n");
				commitAll(env.cwd, "ro");
				env.writeWorkerScripts({
					"0": [
						toolStep("write", { path: "a.txt", content: "a by the worker\n" }),
						toolStep("write", { path: "ro/f.txt", content: "f by the worker\n" }),
						sayStep("Done."),
					],
				});
				const before = state(["a.txt", "ro/f.txt"]);
				immutable(join(env.cwd, "ro"));
				try {
					const result = await print(host, env);
					expect(stderrOf(result.stderr)).toEqual([
						startedLine(0, "Write a.txt and edit ro/f.txt"),
						landedLine(env, 0, ["a.txt", "ro/f.txt"], "Done."),
						stderrLine(allFinished(1)).trimEnd(),
					]);
					expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a by the worker\n");
					expect(readFileSync(join(env.cwd, "ro", "f.txt"), "utf8")).toBe("f by the worker\n");
				} finally {
					execFileSync("chattr", ["-i", join(env.cwd, "ro")]);
				}
				expect(state(["a.txt", "ro/f.txt"])).toBe(before);
			});
		},
	);

	it.skipIf(!ROOT)("a landed file keeps its owner, its group and its hard links: it is written in place", async () => {
		const env = pi.env([writeStep(["Reword the notes"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = personRepo(env.cwd, { "notes.txt": "notes\n" });
		const notes = join(env.cwd, "notes.txt");
		chownSync(notes, 1000, 1000);
		linkSync(notes, join(env.root, "notes-link.txt"));
		env.writeWorkerScripts({
			"0": [toolStep("write", { path: "notes.txt", content: "reworded\n" }), sayStep("Done.")],
		});
		const before = state(["notes.txt"]);
		const result = await print(host, env);
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Reword the notes"),
			landedLine(env, 0, ["notes.txt"], "Done."),
			stderrLine(allFinished(1)).trimEnd(),
		]);
		const after = statSync(notes);
		expect([after.uid, after.gid, after.nlink]).toEqual([1000, 1000, 2]);
		expect(readFileSync(join(env.root, "notes-link.txt"), "utf8")).toBe("reworded\n");
		expect(state(["notes.txt"])).toBe(before);
	});

	it("pi killed by SIGKILL while a landing writes a big file of the person's in place: the next workers put the file back whole, and /todos workers names the backup until then", async () => {
		const env = pi.env([writeStep(["Mark the data"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const size = 100_000_000;
		const state = personRepo(env.cwd);
		const data = join(env.cwd, "data.txt");
		execFileSync("bash", ["-c", `yes 'a line of data' | head -c ${size} > data.txt`], { cwd: env.cwd });
		commitAll(env.cwd, "data");
		chmodSync(data, 0o640);
		writeFileSync(data, "the person's own last line\n", { flag: "a" });
		const full = statSync(data).size;
		const before = state();
		env.writeWorkerScripts({ "0": [bash("sed -i '1s/^/W/' data.txt"), sayStep("Marked.")] });
		const args = piArgs({ extensions: [EXTENSION_ENTRY], session: { dir: join(env.root, "sessions") } });
		const child = spawnPi([...args, "-p", "Work the list."], env.env, env.cwd, host);
		child.stdin?.end("");
		const stageOf = () => readdirSync(join(env.cwd, ".git")).find((name) => name.startsWith("til-done-landing-"));
		await waitForValue(stageOf, 120_000, "the landing's stage");
		// The in-place write starts by cutting the file: killed the moment it is shorter than it was (the write of
		// 100 MB takes a fraction of a second, so the wait holds the event loop).
		while (statSync(data).size >= full && stageOf() !== undefined) {}
		process.kill(child.pid as number, "SIGKILL");
		await waitForExit(child, 10_000);
		expect(statSync(data).size).toBeLessThan(full);
		const stage = join(env.cwd, ".git", stageOf() as string);
		const shown = await runPrint(["-p", "/todos workers"], env.env, { host, extensions: [EXTENSION_ENTRY] });
		expect(shown.stderr.split("\n")).toContain(`[til-done] ${WORKERS.cutLandings([stage])}`);

		env.writeScript([writeStep(["Write a.txt"]), sayStep("Planned.")]);
		env.writeWorkerScripts({ "0": [toolStep("write", { path: "a.txt", content: "a\n" }), sayStep("Done.")] });
		const next = await print(host, env);
		expect(stderrOf(next.stderr)).toEqual([
			stderrLine(WORKERS.putBack([data])).trimEnd(),
			startedLine(0, "Write a.txt"),
			landedLine(env, 0, ["a.txt"], "Done."),
			stderrLine(allFinished(1)).trimEnd(),
		]);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a\n");
		expect(state(["a.txt"])).toBe(before);
		expect(existsSync(stage)).toBe(false);
	}, 300_000);

	it.skipIf(!OTHER_FS)(
		"a linked work tree on another file system than its repository's .git: a new file, a deletion and an edit land",
		async () => {
			const env = pi.env([writeStep(["Add new.txt, remove old.txt, edit keep.txt"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "1",
			});
			const state = personRepo(env.cwd, { "old.txt": "old\n", "keep.txt": "keep\n" });
			const parent = mkdtempSync(join(OTHER_FS as string, "til-done-worktree-"));
			try {
				const tree = join(parent, "tree");
				gitIn(env.cwd, "worktree", "add", "-q", "-b", "side", tree);
				const changed = ["new.txt", "old.txt", "keep.txt"];
				const before = [state(), workTreeFiles(tree, changed)];
				env.writeWorkerScripts({
					"0": [
						toolStep("write", { path: "new.txt", content: "new by the worker\n" }),
						bash("rm old.txt && echo more >> keep.txt"),
						sayStep("Done."),
					],
				});
				const result = await runPrint(["-p", "Work the list."], env.env, {
					host,
					cwd: tree,
					extensions: [EXTENSION_ENTRY],
					session: { dir: join(env.root, "sessions") },
				});
				expect(stderrOf(result.stderr)).toEqual([
					startedLine(0, "Add new.txt, remove old.txt, edit keep.txt"),
					landedLine(env, 0, ["keep.txt", "new.txt", "old.txt"], "Done."),
					stderrLine(allFinished(1)).trimEnd(),
				]);
				expect(result.code).toBe(0);
				expect(readFileSync(join(tree, "new.txt"), "utf8")).toBe("new by the worker\n");
				expect(existsSync(join(tree, "old.txt"))).toBe(false);
				expect(readFileSync(join(tree, "keep.txt"), "utf8")).toBe("keep\nmore\n");
				expect(modeOf(join(tree, "new.txt"))).toBe(0o644);
				expect([state(), workTreeFiles(tree, changed)]).toEqual(before);
			} finally {
				rmSync(parent, { recursive: true, force: true });
			}
		},
	);

	describe("a file the person's .gitignore names lands like any other", () => {
		it("'Write .env.local' with .env* ignored: the worker's file lands, a folder it made that git ignores does not", async () => {
			const env = pi.env([writeStep(["Write .env.local"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
			const state = personRepo(env.cwd, { ".gitignore": ".env*\nbuild/\n" });
			env.writeWorkerScripts({
				"0": [
					toolStep("write", { path: ".env.local", content: "API_URL=http://localhost\n" }),
					bash("mkdir -p build && echo out > build/app.js"),
					sayStep("Done."),
				],
			});
			const before = state();
			const result = await print(host, env);
			expect(stderrOf(result.stderr)).toEqual([
				startedLine(0, "Write .env.local"),
				landedLine(env, 0, [".env.local"], "Done."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(result.code).toBe(0);
			expect(readFileSync(join(env.cwd, ".env.local"), "utf8")).toBe("API_URL=http://localhost\n");
			expect(existsSync(join(env.cwd, "build"))).toBe(false);
			expect(state([".env.local"])).toBe(before);
		});

		it("an ignored file of the person's own at that path is a conflict: theirs is kept, byte for byte", async () => {
			const env = pi.env([writeStep(["Write .env.local"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "1",
				TIL_DONE_MAX_FAILURES: "1",
			});
			const state = personRepo(env.cwd, { ".gitignore": ".env*\n" });
			writeFileSync(join(env.cwd, ".env.local"), "SECRET=the person's\n");
			env.writeWorkerScripts({
				"0": [toolStep("write", { path: ".env.local", content: "API_URL=http://localhost\n" }), sayStep("Done.")],
			});
			const before = state();
			const result = await print(host, env);
			const why = WORKERS.conflicts(".env.local");
			expect(stderrOf(result.stderr)).toEqual([
				startedLine(0, "Write .env.local"),
				stderrLine(WORKERS.givenBack(0, why)).trimEnd(),
				// The stop, which the session's model reads, names no file of the worker's.
				stderrLine(workerFailures(1, WORKERS.conflicts())).trimEnd(),
			]);
			expect(result.code).toBe(4);
			expect(state()).toBe(before);
		});
	});

	it("the person mid-merge: nothing of a worker's work lands, its item is given back saying why", async () => {
		const env = pi.env([writeStep(["Write a.txt"]), sayStep("Planned.")], {
			TIL_DONE_WORKERS: "1",
			TIL_DONE_MAX_FAILURES: "1",
		});
		const state = personRepo(env.cwd);
		writeFileSync(join(env.cwd, ".git", "MERGE_HEAD"), `${gitIn(env.cwd, "rev-parse", "HEAD").trim()}\n`);
		const before = state();
		env.writeWorkerScripts({ "0": [toolStep("write", { path: "a.txt", content: "a\n" }), sayStep("Done.")] });
		const result = await print(host, env);
		const why = WORKERS.gitBusy("a merge is in progress");
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Write a.txt"),
			stderrLine(WORKERS.givenBack(0, why)).trimEnd(),
			stderrLine(workerFailures(1, why)).trimEnd(),
		]);
		expect(result.code).toBe(4);
		expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
		expect(state()).toBe(before);
	});

	it("a file of 300 MB lands whole: files are streamed, never held in memory whole", async () => {
		const env = pi.env([writeStep(["Make the data file"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = personRepo(env.cwd);
		env.writeWorkerScripts({ "0": [bash("head -c 300000000 /dev/zero | tr '\\0' x > big.txt"), sayStep("Made it.")] });
		const before = state(["big.txt"]);
		const result = await runPrint(["-p", "Work the list."], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: join(env.root, "sessions") },
			timeoutMs: 120_000,
		});
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Make the data file"),
			landedLine(env, 0, ["big.txt"], "Made it."),
			stderrLine(allFinished(1)).trimEnd(),
		]);
		expect(statSync(join(env.cwd, "big.txt")).size).toBe(300_000_000);
		expect(state(["big.txt"])).toBe(before);
	}, 180_000);

	it("file names that are not UTF-8 land with their own bytes: an edit of one, and a new one", async () => {
		const env = pi.env([writeStep(["Edit the café file, add the new one"]), sayStep("Planned.")], {
			TIL_DONE_WORKERS: "1",
		});
		const cafe = Buffer.from("caf\xe9.txt", "latin1");
		const state = personRepo(env.cwd);
		writeFileSync(Buffer.concat([Buffer.from(`${env.cwd}/`), cafe]), "caf\n");
		commitAll(env.cwd, "a Latin-1 name");
		env.writeWorkerScripts({
			"0": [
				bash("printf 'edited\\n' > \"$(printf 'caf\\351.txt')\"; printf 'new\\n' > \"$(printf 'new\\351.txt')\""),
				sayStep("Done."),
			],
		});
		const names = ["caf\uFFFD.txt", "new\uFFFD.txt"];
		const before = state(names);
		const result = await print(host, env);
		expect(stderrOf(result.stderr)).toEqual([
			startedLine(0, "Edit the café file, add the new one"),
			landedLine(env, 0, names, "Done."),
			stderrLine(allFinished(1)).trimEnd(),
		]);
		const read = (name: string) =>
			readFileSync(Buffer.concat([Buffer.from(`${env.cwd}/`), Buffer.from(name, "latin1")]), "utf8");
		expect(read("caf\xe9.txt")).toBe("edited\n");
		expect(read("new\xe9.txt")).toBe("new\n");
		expect(state(names)).toBe(before);
	});
});
