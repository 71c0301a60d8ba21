/**
 * A worker's bounds, in the real pi on both lines against a real repository: a worker has the tools its session has;
 * where bubblewrap works, its bash and its check write only its tree and a TMPDIR of its own that the session made
 * beside the tree (never found through the tree), and nothing they start outlives them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapWorks } from "../helpers/bwrap.ts";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll, runningExactly } from "../helpers/workers.ts";

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
