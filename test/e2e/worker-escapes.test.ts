/**
 * The ways out of a worker's tree that were tried, each closed, on both pi lines against a real repository: a filter
 * the worker writes into its own `.git`, git's variables in pi's environment, bubblewrap as root, a write from a
 * subfolder through a link, and what a worker starts with its environment cleared.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapWorks } from "../helpers/bwrap.ts";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { allFinished, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeFileScript, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll, landedLine, runningExactly, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
const ROOT = process.getuid?.() === 0;
const CONFINED =
	"in bubblewrap (skipped where bwrap is missing or cannot make a namespace: apt-get install bubblewrap)";

function print(host: PiHost, env: IsolatedEnv, options: { cwd?: string; vars?: NodeJS.ProcessEnv } = {}) {
	return runPrint(
		["-p", "Work the list."],
		{ ...env.env, ...options.vars },
		{
			host,
			cwd: options.cwd,
			extensions: [EXTENSION_ENTRY],
			session: { dir: join(env.root, "sessions") },
			timeoutMs: 60_000,
		},
	);
}

/** The stderr of a one-item run whose worker landed `files` and answered `answer`: its start, its landing, the end. */
const landedAlone = (env: IsolatedEnv, files: string[], answer: string): string[] => [
	startedLine(0, "Tidy the repository"),
	landedLine(env, 0, files, answer),
	stderrLine(allFinished(1)).trimEnd(),
];

/** A one-item list whose worker plays `steps`. */
function oneWorker(steps: ReturnType<typeof sayStep>[]): IsolatedEnv {
	const env = pi.env([writeStep(["Tidy the repository"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
	env.writeWorkerScripts({ "0": steps });
	return env;
}

/** The project folder's `pkg/`, committed: pi runs there. */
function subfolder(env: IsolatedEnv): string {
	const pkg = join(env.cwd, "pkg");
	mkdirSync(pkg);
	writeFileSync(join(pkg, "index.js"), "// pkg\n");
	execFileSync("git", ["add", "pkg"], { cwd: env.cwd });
	execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "pkg"], { cwd: env.cwd });
	return pkg;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("a clean filter the worker writes into its own .git never runs as the session: its work lands, and nothing else", async () => {
		const env = oneWorker([]);
		const state = userRepo(env);
		const escaped = join(env.cwd, "filter-escape.txt");
		const config = `[core]\n\trepositoryformatversion = 0\n[filter "x"]\n\tclean = "echo escaped > ${escaped}; cat"\n`;
		env.writeWorkerScripts({
			"0": [
				toolStep("write", { path: ".git/config", content: config }),
				toolStep("write", { path: ".git/info/attributes", content: "* filter=x\n" }),
				toolStep("write", { path: "notes.txt", content: "notes\n" }),
				sayStep("Done."),
			],
		});
		const before = state();
		const result = await print(host, env);
		expect(stderrOf(result.stderr)).toEqual(landedAlone(env, ["notes.txt"], "Done."));
		expect(existsSync(escaped)).toBe(false);
		expect(readFileSync(join(env.cwd, "notes.txt"), "utf8")).toBe("notes\n");
		expect(state()).toBe(before);
	});

	it.each([
		["GIT_DIR and GIT_WORK_TREE", (env: IsolatedEnv) => ({ GIT_DIR: join(env.cwd, ".git"), GIT_WORK_TREE: env.cwd })],
		["GIT_INDEX_FILE (pi run from a hook)", (env: IsolatedEnv) => ({ GIT_INDEX_FILE: join(env.cwd, ".git", "index") })],
	])("with %s in pi's environment, the person's HEAD, branches and index are untouched", async (_name, vars) => {
		const env = oneWorker(writeFileScript("a.txt"));
		const state = userRepo(env);
		const before = state();
		const result = await print(host, env, { vars: vars(env) });
		expect(stderrOf(result.stderr)).toEqual(landedAlone(env, ["a.txt"], "Wrote a.txt."));
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a.txt\n");
		expect(state()).toBe(before);
	});

	describe.skipIf(!bwrapWorks)(CONFINED, () => {
		it.skipIf(!ROOT)("as root, the confined bash has no capability: it cannot remount / writable", async () => {
			const command = 'mount -o remount,bind,rw / && echo overwritten > "$TIL_DONE_WORKER_REPO/README.md"; echo tried';
			const env = oneWorker([toolStep("bash", { command }), sayStep("Done.")]);
			const state = userRepo(env);
			const before = state();
			await print(host, env);
			expect(readFileSync(join(env.cwd, "README.md"), "utf8")).toBe("readme, changed by the user\n");
			expect(state()).toBe(before);
		});

		it.skipIf(!ROOT)("as root, the confined bash cannot write the person's tree through /proc/<pid>/cwd", async () => {
			const command = [
				'for p in /proc/[0-9]*; do [ "$(readlink $p/cwd)" = "$TIL_DONE_WORKER_REPO" ] || continue',
				'echo "via $p" > $p/cwd/proc-escape.txt && break; done; echo tried',
			].join("\n");
			const env = oneWorker([toolStep("bash", { command }), sayStep("Done.")]);
			const state = userRepo(env);
			const before = state();
			await print(host, env);
			expect(existsSync(join(env.cwd, "proc-escape.txt"))).toBe(false);
			expect(state()).toBe(before);
		});
	});

	it("pi in a subfolder: a write through a link the worker made in its folder is judged where it writes, and refused", async () => {
		const env = oneWorker([
			toolStep("bash", { command: 'ln -s "$TIL_DONE_WORKER_REPO" l && echo linked' }),
			toolStep("write", { path: "l/README.md", content: "written through the link\n" }),
			sayStep("Done."),
		]);
		const state = userRepo(env);
		const pkg = subfolder(env);
		const before = state();
		await print(host, env, { cwd: pkg });
		expect(readFileSync(join(env.cwd, "README.md"), "utf8")).toBe("readme, changed by the user\n");
		expect(state()).toBe(before);
	});

	it("pi in a subfolder: the worker's `write ../README.md` is its tree's own README, written and landed", async () => {
		const env = oneWorker([toolStep("write", { path: "../notes.md", content: "notes\n" }), sayStep("Done.")]);
		const state = userRepo(env);
		const pkg = subfolder(env);
		const before = state();
		const result = await print(host, env, { cwd: pkg });
		expect(stderrOf(result.stderr)).toEqual(landedAlone(env, ["notes.md"], "Done."));
		expect(readFileSync(join(env.cwd, "notes.md"), "utf8")).toBe("notes\n");
		expect(state()).toBe(before);
	});

	it("what a worker starts with its environment cleared and in a session of its own ends with the worker", async () => {
		const env = oneWorker([
			toolStep("bash", { command: "env -i setsid sleep 317 </dev/null >/dev/null 2>&1 & echo started" }),
			sayStep("Done."),
		]);
		userRepo(env);
		const result = await print(host, env);
		const alive = runningExactly(["sleep", "317"]);
		killAll(alive);
		expect(stderrOf(result.stderr)).toEqual(landedAlone(env, [], "Done."));
		expect(alive).toEqual([]);
	});
});
