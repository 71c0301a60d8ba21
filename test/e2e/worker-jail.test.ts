/**
 * A worker's bounds, in the real pi on both lines against a real repository: a worker has the tools its session has;
 * where bubblewrap works, its bash and its check write only its tree and a TMPDIR of its own that the session made
 * beside the tree (never found through the tree), and nothing they start outlives them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapWorks } from "../helpers/bwrap.ts";
import {
	EXTENSION_ENTRY,
	FAKE_MODEL_ARGS,
	FAKE_MODEL_EXTENSION,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	runPrint,
	SHARED_JITI_CACHE,
} from "../helpers/cli.ts";
import { allFinished, stderrLine, WORKERS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll, landedLine, runningExactly, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
const CONFINED =
	"in bubblewrap (skipped where bwrap is missing or cannot make a namespace: apt-get install bubblewrap)";
const leftover: number[] = [];
afterEach(() => killAll(leftover.splice(0)));

function print(host: PiHost, env: IsolatedEnv, args: string[] = []) {
	return runPrint([...args, "-p", "Work the list."], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
		timeoutMs: 90_000,
	});
}

/** A list of the items `texts` (or of `todos`, checks and all) worked by one worker at a time. */
function listOf(texts: string[] | { text: string; check: string }[]): IsolatedEnv {
	const plan =
		typeof texts[0] === "string"
			? writeStep(texts as string[])
			: toolStep("write_todos", { mode: "replace", todos: texts });
	return pi.env([plan, sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
}

/** As a person runs pi: extensions discovered (no `-ne`), the project trusted. */
function printDiscovering(host: PiHost, env: IsolatedEnv) {
	const args = ["-e", FAKE_MODEL_EXTENSION, "-e", EXTENSION_ENTRY, "--approve", ...FAKE_MODEL_ARGS];
	return runPrint([...args, "--session-dir", join(env.root, "sessions"), "-p", "Work the list."], env.env, {
		host,
		raw: true,
		timeoutMs: 90_000,
	});
}

/** An extension that writes `escaped.txt` into the person's repository (a worker is told where it is) as pi loads it. */
const WRITES_AT_LOAD = [
	'import { writeFileSync } from "node:fs";',
	"export default () => {",
	"\ttry {",
	'\t\twriteFileSync(process.env.TIL_DONE_WORKER_REPO + "/escaped.txt", "written by a landed extension\\n");',
	"\t} catch {}",
	"};",
	"",
].join("\n");

/** A project extension whose tool `note_outside` writes `escaped.txt` into the person's repository, and says how it went. */
const WRITES_IN_TOOL = [
	'import { writeFileSync } from "node:fs";',
	'import { Type } from "typebox";',
	"export default (pi) => {",
	"\tpi.registerTool({",
	'\t\tname: "note_outside",',
	'\t\tlabel: "note_outside",',
	'\t\tdescription: "Writes a note beside the repository.",',
	"\t\tparameters: Type.Object({}),",
	"\t\tasync execute() {",
	"\t\t\tconst repo = process.env.TIL_DONE_WORKER_REPO;",
	'\t\t\tif (!repo) return { content: [{ type: "text", text: "not a worker" }], details: {} };',
	'\t\t\twriteFileSync(repo + "/escaped.txt", "written by a tool\\n");',
	'\t\t\treturn { content: [{ type: "text", text: "written" }], details: {} };',
	"\t\t},",
	"\t});",
	"};",
	"",
].join("\n");

const readme = (env: IsolatedEnv) => readFileSync(join(env.cwd, "README.md"), "utf8");
const THEIRS = "readme, changed by the user\n";

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a worker has the tools its session has", () => {
		// The session keeps its todo tools: without them it could not hand out an item.
		it.each([
			["--exclude-tools", "bash,edit,write"],
			["--tools", "read,grep,find,ls,write_todos,edit_todos"],
			["-nbt"],
		])("pi %s: the worker's write of a.txt finds no write tool; nothing lands", async (...flags: string[]) => {
			const args = flags.filter((flag) => typeof flag === "string");
			const env = listOf(["Review the code"]);
			const state = userRepo(env);
			env.writeWorkerScripts({ "0": [toolStep("write", { path: "a.txt", content: "a\n" }), sayStep("Done.")] });
			const before = state();
			await print(host, env, args);
			expect(existsSync(join(env.cwd, "a.txt"))).toBe(false);
			expect(readme(env)).toBe(THEIRS);
			expect(state()).toBe(before);
		});
	});

	describe.skipIf(!bwrapWorks)(CONFINED, () => {
		it("an extension worker 0 lands in .pi/extensions, loaded by worker 1's pi, cannot write the person's repository", async () => {
			const env = listOf(["Add the project helper", "Write b.txt"]);
			const state = userRepo(env);
			env.writeWorkerScripts({
				"0": [toolStep("write", { path: ".pi/extensions/helper.ts", content: WRITES_AT_LOAD }), sayStep("Done.")],
				"1": [toolStep("write", { path: "b.txt", content: "b\n" }), sayStep("Done.")],
			});
			const before = state();
			const run = await printDiscovering(host, env);
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Add the project helper"),
				landedLine(env, 0, [".pi/extensions/helper.ts"], "Done."),
				startedLine(1, "Write b.txt"),
				landedLine(env, 1, ["b.txt"], "Done."),
				stderrLine(allFinished(2)).trimEnd(),
			]);
			expect(run.code).toBe(0);
			expect(existsSync(join(env.cwd, "escaped.txt"))).toBe(false);
			expect(readFileSync(join(env.cwd, ".pi/extensions/helper.ts"), "utf8")).toBe(WRITES_AT_LOAD);
			expect(readFileSync(join(env.cwd, "b.txt"), "utf8")).toBe("b\n");
			expect(readme(env)).toBe(THEIRS);
			expect(state()).toBe(before);
		});

		it("a project extension's tool a worker calls cannot write the person's repository: the call fails, nothing lands", async () => {
			const env = listOf(["Note it beside the repository"]);
			const state = userRepo(env);
			mkdirSync(join(env.cwd, ".pi/extensions"), { recursive: true });
			writeFileSync(join(env.cwd, ".pi/extensions/note.ts"), WRITES_IN_TOOL);
			execFileSync("git", ["add", ".pi"], { cwd: env.cwd });
			execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "note"], { cwd: env.cwd });
			env.writeWorkerScripts({ "0": [toolStep("note_outside", {}), sayStep("Done.")] });
			const before = state();
			const run = await printDiscovering(host, env);
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Note it beside the repository"),
				landedLine(env, 0, [], "Done."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(existsSync(join(env.cwd, "escaped.txt"))).toBe(false);
			expect(env.readLog().at(-1)?.lastToolResult).toMatch(/EROFS/);
			expect(readme(env)).toBe(THEIRS);
			expect(state()).toBe(before);
		});

		it("a worker starts from the workers' copy of the compiled extensions: what it writes there is never the session's, and the copy ends with pi", async () => {
			const env = listOf(["Count the compiled extensions"]);
			const state = userRepo(env);
			const poison = 'ls "$TMPDIR/jiti" | grep -c "\\.mjs$" > compiled.txt; echo changed > "$TMPDIR/jiti/poison.mjs"';
			env.writeWorkerScripts({ "0": [toolStep("bash", { command: poison }), sayStep("Counted.")] });
			const before = state();
			const run = await print(host, env);
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Count the compiled extensions"),
				landedLine(env, 0, ["compiled.txt"], "Counted."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			// The worker's pi found this extension compiled: the copy holds at least its own modules.
			expect(Number(readFileSync(join(env.cwd, "compiled.txt"), "utf8"))).toBeGreaterThan(10);
			expect(existsSync(join(SHARED_JITI_CACHE, "poison.mjs"))).toBe(false);
			expect(readdirSync(env.tmpDir).filter((name) => name.startsWith("til-done-jiti-"))).toEqual([]);
			expect(state()).toBe(before);
		});

		it("a confined worker that works for seconds (its bash waits 3 s) lands: it watches no parent it cannot see", async () => {
			const env = listOf(["Write slow.txt"]);
			const state = userRepo(env);
			env.writeWorkerScripts({
				"0": [toolStep("bash", { command: "sleep 3 && echo slow > slow.txt" }), sayStep("Wrote slow.txt.")],
			});
			const before = state();
			const run = await print(host, env);
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Write slow.txt"),
				landedLine(env, 0, ["slow.txt"], "Wrote slow.txt."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(run.code).toBe(0);
			expect(readFileSync(join(env.cwd, "slow.txt"), "utf8")).toBe("slow\n");
			expect(state()).toBe(before);
		});

		it("TIL_DONE_WORKER_WRITABLE naming the person's repository, or a folder holding it, is left out and said once: the worker's bash cannot write there", async () => {
			const env = listOf(["Try the repository"]);
			const state = userRepo(env);
			env.writeWorkerScripts({
				"0": [toolStep("bash", { command: 'echo out > "$TIL_DONE_WORKER_REPO/escaped.txt"' }), sayStep("Tried.")],
			});
			// Besides the fake model's logs, which the helper names.
			env.env.TIL_DONE_WORKER_WRITABLE = `${env.env.TIL_DONE_WORKER_WRITABLE}:${env.cwd}:${join(env.cwd, "..")}`;
			const before = state();
			const run = await print(host, env);
			expect(stderrOf(run.stderr).slice(0, 2)).toEqual([
				stderrLine(WORKERS.writableLeftOut(env.cwd, "repository")).trimEnd(),
				stderrLine(WORKERS.writableLeftOut(join(env.cwd, ".."), "repository")).trimEnd(),
			]);
			expect(existsSync(join(env.cwd, "escaped.txt"))).toBe(false);
			expect(env.readLog().at(-1)?.lastToolResult).toMatch(/Read-only file system/);
			expect(state()).toBe(before);
		});

		it("a worker that links its tree's .git/til-done-tmp to the person's repository: its check's TMPDIR is still its own", async () => {
			const swap = 'mv .git .git-old && mkdir .git && ln -s "$TIL_DONE_WORKER_REPO" .git/til-done-tmp && echo swapped';
			const env = listOf([{ text: "Add the test script", check: "bash test.sh" }]);
			userRepo(env);
			env.writeWorkerScripts({
				"0": [
					toolStep("write", { path: "test.sh", content: 'echo "written by the check" > "$TMPDIR/escaped.txt"\n' }),
					toolStep("bash", { command: swap }),
					sayStep("Done."),
				],
			});
			await print(host, env);
			expect(existsSync(join(env.cwd, "escaped.txt"))).toBe(false);
		});

		it("what a worker's bash starts with its environment cleared, in a session of its own, in `/`, ends with the worker", async () => {
			const env = listOf(["Tidy the repository"]);
			userRepo(env);
			const away = "env -i setsid bash -c 'cd /; exec sleep 341' </dev/null >/dev/null 2>&1 & echo started";
			env.writeWorkerScripts({ "0": [toolStep("bash", { command: away }), sayStep("Done.")] });
			const run = await print(host, env);
			const alive = runningExactly(["sleep", "341"]);
			leftover.push(...alive);
			expect(run.code).toBe(0);
			expect(alive).toEqual([]);
		});

		it("what a worker's item check starts the same way ends with the check", async () => {
			const away = "env -i setsid bash -c 'cd /; exec sleep 342' </dev/null >/dev/null 2>&1 &";
			const env = listOf([{ text: "Write a.txt", check: `${away} test -f a.txt` }]);
			userRepo(env);
			env.writeWorkerScripts({ "0": [toolStep("write", { path: "a.txt", content: "a\n" }), sayStep("Done.")] });
			const run = await print(host, env);
			const alive = runningExactly(["sleep", "342"]);
			leftover.push(...alive);
			expect(run.code).toBe(0);
			expect(alive).toEqual([]);
		});
	});
});
