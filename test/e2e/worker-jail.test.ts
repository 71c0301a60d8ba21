/**
 * A worker's whole pi runs confined, in the real pi on both lines against a real repository: where bubblewrap works,
 * the worker's pi (its tools, its extensions, what they start) can write only its tree and a TMPDIR of its own that
 * the session made outside the tree, and nothing it starts outlives it. A worker has the tools its session has.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { perTest } from "../helpers/per-test.ts";
import { sayStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { killAll } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });
const _CONFINED =
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
});
