/**
 * A worker stays in its tree, in the real pi on both lines against a real git repository in a temporary folder: a
 * write or edit outside its tree is refused with the path to use instead, its bash can write only its tree and its own
 * TMPDIR, and a change of the person's made during its run is merged with its work, never overwritten.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import type { FakeLogLine } from "../../demo/fake-model-extension.ts";
import {
	EXTENSION_ENTRY,
	type FakeStep,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	runPrint,
	waitForValue,
} from "../helpers/cli.ts";
import { allFinished, CHECKPOINT_ENTRY, CHECKPOINTS, stderrLine, WORKER_BOUNDS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { sessionEntries } from "../helpers/session-file.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { landedLine, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });

/** Whether bubblewrap can make its namespaces here: the confined path runs (`.ci/run` installs it). */
function bwrapWorks(): boolean {
	try {
		execFileSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"], {
			stdio: "ignore",
		});
		return true;
	} catch {
		return false;
	}
}
const CONFINED = bwrapWorks();
const NO_BWRAP = "bubblewrap (bwrap) is missing or cannot make a namespace here: apt-get install bubblewrap";

async function print(host: PiHost, env: IsolatedEnv, prompt = "Work the list.") {
	return runPrint(["-p", prompt], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
	});
}

/** A command of the user's in the same session, resumed. */
function again(host: PiHost, env: IsolatedEnv, command: string) {
	return runPrint(["-c", "-p", command], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir: join(env.root, "sessions") },
	});
}

/** The model calls of item `index`'s workers, in order (a worker's prompt names its item). */
const workerCalls = (env: IsolatedEnv, index: number): FakeLogLine[] =>
	env.readLog().filter((line) => line.lastUser.includes(`data): [${index}]`));

/** The call of item 0's first worker that played step `step`, once it was made. */
const workerStep = (env: IsolatedEnv, step: number): FakeLogLine | undefined =>
	workerCalls(env, 0).find((line) => line.step === step);

/** The commits of the session's checkpoints, in the order they were taken. */
const checkpointsOf = (env: IsolatedEnv): string[] =>
	sessionEntries(join(env.root, "sessions")).flatMap((entry) =>
		entry.type === "custom" && entry.customType === CHECKPOINT_ENTRY ? [(entry.data as { commit: string }).commit] : [],
	);

const blob = (cwd: string, text: string): string =>
	execFileSync("git", ["hash-object", "--stdin"], { cwd, input: text, encoding: "utf8" }).trim().slice(0, 7);

/**
 * A worker that asks for its tree (`pwd`), makes `refused` (a call outside its tree), then, once the test writes
 * `go`, makes `inTree` (the same change in its tree), and says it is done.
 */
function outThenIn(env: IsolatedEnv, refused: FakeStep, inTree: FakeStep): string {
	const go = join(env.root, "go");
	env.writeWorkerScripts({
		"0": [toolStep("bash", { command: "pwd" }), refused, { ...inTree, waitForFile: go }, sayStep("Done.")],
	});
	return go;
}

/** The worker's tree, as its `pwd` said, and the result its model read of the call it made next. */
async function refusal(env: IsolatedEnv): Promise<{ tree: string; result: string | undefined }> {
	const next = await waitForValue(() => workerStep(env, 2), 30_000, "the worker's call after its refused one");
	return { tree: (workerStep(env, 1)?.lastToolResult ?? "").trim(), result: next.lastToolResult };
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a write or edit outside the worker's tree is refused", () => {
		it("write of the person's file by its absolute path: refused with the tree's path; the person's edit kept; the tree's copy lands by a 3-way merge with the person's change meanwhile, and /todos diff has it", async () => {
			const env = pi.env([writeStep(["Add a line to the README"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "1",
				TIL_DONE_CHECKPOINTS: "1",
			});
			const state = userRepo(env);
			const readme = join(env.cwd, "README.md");
			const worked = "readme, changed by the user\na line by the worker\n";
			const go = outThenIn(
				env,
				toolStep("write", { path: readme, content: worked }),
				toolStep("write", { path: "README.md", content: worked }),
			);
			const before = state();
			const running = print(host, env);
			const { tree, result } = await refusal(env);
			expect(result).toBe(WORKER_BOUNDS.inRepo(readme, join(tree, "README.md")));
			expect(readFileSync(readme, "utf8")).toBe("readme, changed by the user\n");
			// The person changes the README while the worker works: a change not landed, which the landing merges.
			const mine = "the user's first line\nreadme, changed by the user\n";
			writeFileSync(readme, mine);
			writeFileSync(go, "");
			const run = await running;
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Add a line to the README"),
				landedLine(env, 0, ["README.md"], "Done."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(run.code).toBe(0);
			const landed = "the user's first line\nreadme, changed by the user\na line by the worker\n";
			expect(readFileSync(readme, "utf8")).toBe(landed);
			expect(state()).toBe(before);
			const diff = await again(host, env, "/todos diff 0");
			const patch = [
				" README.md | 1 +",
				" 1 file changed, 1 insertion(+)",
				"",
				"diff --git a/README.md b/README.md",
				`index ${blob(env.cwd, mine)}..${blob(env.cwd, landed)} 100644`,
				"--- a/README.md",
				"+++ b/README.md",
				"@@ -1,2 +1,3 @@",
				" the user's first line",
				" readme, changed by the user",
				"+a line by the worker",
			];
			const [start = "", done = ""] = checkpointsOf(env);
			expect(diff.stderr).toBe(
				stderrLine([CHECKPOINTS.diffHead(0, "Add a line to the README", start, done), ...patch].join("\n")),
			);
		});

		it("edit of the person's file by its absolute path: refused with the tree's path; the person's edit kept; the tree's edit lands", async () => {
			const env = pi.env([writeStep(["Reword the README"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
			const state = userRepo(env);
			const readme = join(env.cwd, "README.md");
			const edits = [{ oldText: "changed by the user", newText: "edited by the worker" }];
			const go = outThenIn(
				env,
				toolStep("edit", { path: readme, edits }),
				toolStep("edit", { path: "README.md", edits }),
			);
			const before = state();
			const running = print(host, env);
			const { tree, result } = await refusal(env);
			expect(result).toBe(WORKER_BOUNDS.inRepo(readme, join(tree, "README.md")));
			expect(readFileSync(readme, "utf8")).toBe("readme, changed by the user\n");
			writeFileSync(go, "");
			const run = await running;
			expect(stderrOf(run.stderr)).toEqual([
				startedLine(0, "Reword the README"),
				landedLine(env, 0, ["README.md"], "Done."),
				stderrLine(allFinished(1)).trimEnd(),
			]);
			expect(run.code).toBe(0);
			expect(readFileSync(readme, "utf8")).toBe("readme, edited by the worker\n");
			expect(state()).toBe(before);
		});

		it("a write through a symbolic link of the tree that leads outside it is refused: nothing is written there", async () => {
			const env = pi.env([writeStep(["Write the notes"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
			const state = userRepo(env);
			const elsewhere = join(env.root, "elsewhere");
			mkdirSync(elsewhere);
			// A link the person's tree holds (untracked): the worker's tree is a copy of it.
			symlinkSync(elsewhere, join(env.cwd, "out"));
			env.writeWorkerScripts({
				"0": [
					toolStep("bash", { command: "pwd" }),
					toolStep("write", { path: "out/notes.txt", content: "notes\n" }),
					sayStep("Done."),
				],
			});
			const before = state();
			const run = await print(host, env);
			expect(run.code).toBe(0);
			const { tree, result } = await refusal(env);
			expect(result).toBe(WORKER_BOUNDS.throughLink("out/notes.txt", join(elsewhere, "notes.txt"), tree));
			expect(existsSync(join(elsewhere, "notes.txt"))).toBe(false);
			expect(state()).toBe(before);
		});
	});

	describe.skipIf(!CONFINED)(
		`a worker's bash writes only its tree and its TMPDIR${CONFINED ? "" : ` (${NO_BWRAP})`}`,
		() => {
			it("an append to the person's file by its absolute path fails in the sandbox; a failing check's tries never touch the person's file", async () => {
				const todos = [{ text: "Append x to the README", check: "grep -qx x README.md" }] as JsonValue[];
				const env = pi.env([toolStep("write_todos", { mode: "replace", todos }), sayStep("Planned.")], {
					TIL_DONE_WORKERS: "1",
				});
				const readme = join(env.cwd, "README.md");
				const state = userRepo(env);
				// The tree and TMPDIR are the worker's to write: both work, and the person's file does not.
				const command = `{ echo x >> ${readme}; } 2>/dev/null; echo "repo $?"; echo t > "$TMPDIR/t" && echo t > t.txt && echo "own $?"`;
				env.writeWorkerScripts({ "0": [toolStep("bash", { command }), sayStep("Appended.")] });
				const before = state();
				const run = await print(host, env);
				expect(run.code).toBe(4);
				const results = workerCalls(env, 0).flatMap((line) => (line.step === 1 ? [line.lastToolResult] : []));
				expect(results).toEqual(["repo 1\nown 0\n", "repo 1\nown 0\n", "repo 1\nown 0\n"]);
				expect(readFileSync(readme, "utf8")).toBe("readme, changed by the user\n");
				expect(existsSync(join(env.cwd, "t.txt"))).toBe(false);
				expect(state()).toBe(before);
			});
		},
	);

	it("where bubblewrap cannot make its namespace, one line says the workers' bash is not confined, once for two workers, and they work", async () => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "2" });
		const state = userRepo(env);
		// A bwrap that fails as one does where user namespaces are not allowed.
		const bin = join(env.root, "bin");
		mkdirSync(bin);
		writeFileSync(
			join(bin, "bwrap"),
			"#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n",
		);
		chmodSync(join(bin, "bwrap"), 0o755);
		env.env.PATH = `${bin}:${env.env.PATH}`;
		const writes = (name: string): FakeStep[] => [
			toolStep("bash", { command: `printf ok > ${name}` }),
			sayStep(`Wrote ${name}.`),
		];
		env.writeWorkerScripts({ "0": writes("a.txt"), "1": writes("b.txt") });
		const before = state();
		const run = await print(host, env);
		const why = WORKER_BOUNDS.bwrapFailed("bwrap: No permissions to create a new namespace");
		const lines = stderrOf(run.stderr);
		expect(lines.slice(0, 3)).toEqual([
			stderrLine(why).trimEnd(),
			startedLine(0, "Write a.txt"),
			startedLine(1, "Write b.txt"),
		]);
		expect(lines.slice(3, 5).toSorted()).toEqual(
			[landedLine(env, 0, ["a.txt"], "Wrote a.txt."), landedLine(env, 1, ["b.txt"], "Wrote b.txt.")].toSorted(),
		);
		expect(lines.slice(5)).toEqual([stderrLine(allFinished(2)).trimEnd()]);
		expect(run.code).toBe(0);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("ok");
		expect(readFileSync(join(env.cwd, "b.txt"), "utf8")).toBe("ok");
		expect(state()).toBe(before);
	});
});
