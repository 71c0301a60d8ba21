/**
 * Per-item git checkpoints in the real pi, print mode, on every tested pi version, with a real repository in a
 * temporary folder: the fake model starts and completes items and changes files with pi's bash tool; `/todos diff`
 * and `/todos revert` run as commands of the resumed session (`-c -p`). The user's index, HEAD, branches and stash
 * stay byte-identical through the whole chain; a revert that would lose a later change of line endings alone is
 * refused; outside a git work tree one warning says so (a `[til-done]` line in print mode, a warning notice over RPC).
 * That a refused revert keeps every byte of the later change is tested in process (test/unit/checkpoints.test.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { allFinished, CHECKPOINT_ENTRY, CHECKPOINTS, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { sessionEntries } from "../helpers/session-file.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600", TIL_DONE_CHECKPOINTS: "1" });

const git = (cwd: string, ...args: string[]): string =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

/** A repository with a commit, a branch, a stash entry and a staged change: all the user's own state. */
function userRepo(cwd: string): void {
	git(cwd, "init", "-q", "-b", "main");
	writeFileSync(join(cwd, "a.txt"), "one\n");
	writeFileSync(join(cwd, "keep.txt"), "keep\n");
	git(cwd, "add", "-A");
	git(cwd, "commit", "-q", "-m", "first");
	git(cwd, "branch", "feature");
	writeFileSync(join(cwd, "a.txt"), "stashed\n");
	git(cwd, "stash", "-q");
	writeFileSync(join(cwd, "c.txt"), "staged\n");
	git(cwd, "add", "c.txt");
}

/** What of the user's git state must never change: the index's bytes, HEAD, the branches, the stash. */
function userState(cwd: string) {
	return {
		index: readFileSync(join(cwd, ".git/index")).toString("base64"),
		headFile: readFileSync(join(cwd, ".git/HEAD"), "utf8"),
		head: git(cwd, "rev-parse", "HEAD"),
		branches: git(cwd, "branch", "-a"),
		stash: git(cwd, "stash", "list"),
	};
}

const bash = (command: string): FakeStep => toolStep("bash", { command });

async function session(host: PiHost, env: IsolatedEnv, prompt: string, resume = false) {
	const args = resume ? ["-c", "-p", prompt] : ["-p", prompt];
	return runPrint(args, env.env, { host, extensions: [EXTENSION_ENTRY], session: { dir: join(env.root, "sessions") } });
}

/** The checkpoint entries of the session, as `[index, phase, commit]`. */
function checkpoints(env: IsolatedEnv): [number, string, string][] {
	return sessionEntries(join(env.root, "sessions")).flatMap((entry) => {
		if (entry.type !== "custom" || entry.customType !== CHECKPOINT_ENTRY) return [];
		const data = entry.data as { index: number; phase: string; commit: string };
		return [[data.index, data.phase, data.commit]];
	});
}

const blob = (cwd: string, text: string): string =>
	execFileSync("git", ["hash-object", "--stdin"], { cwd, input: text, encoding: "utf8" }).trim().slice(0, 7);

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("an item's start and completion are snapshots: diff shows its change, revert undoes it", () => {
		it("diff and revert two items; the user's index, HEAD, branches and stash are byte-identical after", async () => {
			const env = pi.env([
				writeStep(["Edit a", "Add b"]),
				startStep(0),
				bash("printf 'changed\\n' > a.txt"),
				completeStep(0),
				startStep(1),
				bash("printf 'new\\n' > b.txt"),
				completeStep(1),
				sayStep("Done."),
			]);
			userRepo(env.cwd);
			const before = userState(env.cwd);
			const run = await session(host, env, "Do it");
			expect(run.stderr).toBe(stderrLine(allFinished(2)));
			const taken = checkpoints(env);
			expect(taken.map(([index, phase]) => [index, phase])).toEqual([
				[0, "start"],
				[0, "done"],
				[1, "start"],
				[1, "done"],
			]);
			const [start, done] = taken.map(([, , commit]) => commit);
			const diff = await session(host, env, "/todos diff 0", true);
			const patch = [
				" a.txt | 2 +-",
				" 1 file changed, 1 insertion(+), 1 deletion(-)",
				"",
				"diff --git a/a.txt b/a.txt",
				`index ${blob(env.cwd, "one\n")}..${blob(env.cwd, "changed\n")} 100644`,
				"--- a/a.txt",
				"+++ b/a.txt",
				"@@ -1 +1 @@",
				"-one",
				"+changed",
			];
			expect(diff.stderr).toBe(
				stderrLine([CHECKPOINTS.diffHead(0, "Edit a", start ?? "", done ?? ""), ...patch].join("\n")),
			);
			const revertB = await session(host, env, "/todos revert 1", true);
			expect(revertB.stderr).toBe(stderrLine(CHECKPOINTS.reverted(1, 1, undefined, "b.txt")));
			expect(existsSync(join(env.cwd, "b.txt"))).toBe(false);
			const revertA = await session(host, env, "/todos revert 0", true);
			expect(revertA.stderr).toBe(stderrLine(CHECKPOINTS.reverted(0, 1, "a.txt")));
			expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("one\n");
			expect(userState(env.cwd)).toEqual(before);
			const cleaned = await session(host, env, "/todos checkpoints clean", true);
			expect(cleaned.stderr).toBe(stderrLine(CHECKPOINTS.cleaned(4)));
			expect(git(env.cwd, "for-each-ref", "refs/til-done/")).toBe("");
		});
	});

	describe.each([
		["core.autocrlf true", ["core.autocrlf", "true"]],
		["core.autocrlf input", ["core.autocrlf", "input"]],
		["a .gitattributes eol rule", ["core.autocrlf", "false"]],
	])("checkpoints hold the user's bytes under %s", (_, setting) => {
		it("LF, CRLF, mixed and new files come back byte for byte; a later change of line endings alone is refused", async () => {
			const env = pi.env([
				writeStep(["Rewrite the files"]),
				startStep(0),
				bash(
					"printf 'item\\n' > lf.txt; printf 'item\\n' > crlf.txt; printf 'item\\n' > mixed.txt; printf 'new\\r\\nfile\\n' > new.txt",
				),
				completeStep(0),
				sayStep("Done."),
			]);
			const mine: Record<string, string> = {
				"lf.txt": "one\ntwo\n",
				"crlf.txt": "one\r\ntwo\r\n",
				"mixed.txt": "one\r\ntwo\n",
			};
			git(env.cwd, "init", "-q", "-b", "main");
			git(env.cwd, "config", ...(setting as [string, string]));
			writeFileSync(join(env.cwd, ".gitattributes"), "*.txt text eol=crlf\n");
			for (const [path, text] of Object.entries(mine)) writeFileSync(join(env.cwd, path), text);
			git(env.cwd, "add", "-A");
			git(env.cwd, "commit", "-q", "-m", "the user's");
			for (const [path, text] of Object.entries(mine)) writeFileSync(join(env.cwd, path), text);
			const before = userState(env.cwd);
			await session(host, env, "Do it");
			const bytes = (path: string) => readFileSync(join(env.cwd, path), "latin1");

			writeFileSync(join(env.cwd, "new.txt"), "new\nfile\n");
			const refused = await session(host, env, "/todos revert 0", true);
			expect(refused.stderr).toBe(stderrLine(CHECKPOINTS.revertRefused(0, "new.txt")));
			expect(bytes("new.txt")).toBe("new\nfile\n");

			writeFileSync(join(env.cwd, "new.txt"), "new\r\nfile\n");
			const reverted = await session(host, env, "/todos revert 0", true);
			expect(reverted.stderr).toBe(stderrLine(CHECKPOINTS.reverted(0, 4, "crlf.txt, lf.txt, mixed.txt", "new.txt")));
			for (const [path, text] of Object.entries(mine)) expect(bytes(path)).toBe(text);
			expect(existsSync(join(env.cwd, "new.txt"))).toBe(false);
			expect(userState(env.cwd)).toEqual(before);
		});
	});

	describe("over RPC, outside a git work tree, the flag's one warning is a notice", () => {
		it("--til-done-checkpoints: one warning notice for a chain that starts and completes two items", async () => {
			const env = pi.env(
				[writeStep(["a", "b"]), startStep(0), completeStep(0), startStep(1), completeStep(1), sayStep("Done.")],
				{ TIL_DONE_CHECKPOINTS: "0" },
			);
			const client = await pi.rpc({
				host,
				env: env.env,
				extensions: [EXTENSION_ENTRY],
				args: ["--til-done-checkpoints"],
			});
			await client.promptAndSettle("Do it");
			const warnings = client.notifications.filter((notice) => notice.type === "warning");
			expect(warnings.map((notice) => notice.message)).toEqual([CHECKPOINTS.notGitTree(env.cwd)]);
		});
	});

	describe("outside a git work tree, checkpoints say so once and take nothing", () => {
		it("one warning for a chain that starts and completes two items", async () => {
			const env = pi.env([
				writeStep(["a", "b"]),
				startStep(0),
				completeStep(0),
				startStep(1),
				completeStep(1),
				sayStep("Done."),
			]);
			const run = await session(host, env, "Do it");
			expect(run.stderr).toBe(stderrLine(CHECKPOINTS.notGitTree(env.cwd)) + stderrLine(allFinished(2)));
			expect(checkpoints(env)).toEqual([]);
		});
	});

	describe("a file left out of an item's start snapshot is never reverted as the item's own", () => {
		it("a file over the bound that the item trims: the revert is refused naming it, and the file stays as the item left it", async () => {
			const steps = [
				writeStep(["Keep only the header of data.csv"]),
				startStep(0),
				bash("head -n 1 data.csv > data.tmp && mv data.tmp data.csv"),
				completeStep(0),
				sayStep("Trimmed."),
			];
			const env = pi.env(steps, { TIL_DONE_MAX_UNTRACKED_MB: "1" });
			userRepo(env.cwd);
			const rows = Array.from({ length: 100_000 }, (_, i) => `${i},value ${i}`).join("\n");
			writeFileSync(join(env.cwd, "data.csv"), `id,value\n${rows}\n`);
			const before = userState(env.cwd);
			await session(host, env, "Trim it.");
			const revert = await session(host, env, "/todos revert 0", true);
			expect(revert.stderr).toBe(stderrLine(CHECKPOINTS.revertLeftOut(0, '"data.csv" was', "it was")));
			expect(revert.code).toBe(2);
			expect(readFileSync(join(env.cwd, "data.csv"), "utf8")).toBe("id,value\n");
			expect(userState(env.cwd)).toEqual(before);
		});
	});
});
