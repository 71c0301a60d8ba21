/**
 * A plan's remote for a landing test: a bare repository served by a `git daemon` on the loopback address or reached
 * as a `file://` URL, holding the plan's branch (`main`), another branch and a tag; the person's clone (a change not
 * staged, one staged, an untracked file and a stash entry: what a landing must leave alone), another session's clone,
 * and a way to run another session's git just before the n-th push of ours reaches the remote.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GitServer } from "./git-server.ts";
import { workTreeFiles } from "./person-repo.ts";

const PERSON = ["-c", "user.name=u", "-c", "user.email=u@u"];

export const gitAt = (cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string =>
	execFileSync("git", ["-c", "protocol.file.allow=always", ...args], {
		cwd,
		encoding: "utf8",
		env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...env },
	});

/** A file of a commit: its text and git's mode (`100644` unless given); null deletes it. */
export type FileChange = string | { text: string; mode: string } | null;

let indexes = 0;

/**
 * A commit on `parent` in the repository at `cwd` with `files` changed, written through an index of its own (the
 * repository's index and work tree untouched); its name.
 */
export function commitOn(cwd: string, parent: string, files: Record<string, FileChange>, message = "change"): string {
	const env = { GIT_INDEX_FILE: join(cwd, ".git", `test-index-${process.pid}-${++indexes}`) };
	gitAt(cwd, ["read-tree", parent], env);
	for (const [path, change] of Object.entries(files)) {
		if (change === null) {
			gitAt(cwd, ["update-index", "--force-remove", path], env);
			continue;
		}
		const { text, mode } = typeof change === "string" ? { text: change, mode: "100644" } : change;
		const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd, input: text, encoding: "utf8" }).trim();
		gitAt(cwd, ["update-index", "--add", "--cacheinfo", `${mode},${blob},${path}`], env);
	}
	const tree = gitAt(cwd, ["write-tree"], env).trim();
	rmSync(env.GIT_INDEX_FILE, { force: true });
	return gitAt(cwd, [...PERSON, "commit-tree", tree, "-p", parent, "-m", message]).trim();
}

/** The seed the remote starts from: the plan's branch, another branch and a tag. */
export interface Seed {
	dir: string;
	start: string;
}

/** Makes the seed repository at `dir` holding `files` on `main` (one commit), a branch `other` and a tag `v1`. */
export function seedRepo(dir: string, files: Record<string, FileChange>): Seed {
	mkdirSync(dir, { recursive: true });
	gitAt(dir, ["init", "-q", "-b", "main"]);
	for (const [path, change] of Object.entries(files)) {
		if (change === null) continue;
		const { text, mode } = typeof change === "string" ? { text: change, mode: "100644" } : change;
		writeFileSync(join(dir, path), text);
		chmodSync(join(dir, path), mode === "100755" ? 0o755 : 0o644);
	}
	gitAt(dir, ["add", "-A"]);
	gitAt(dir, [...PERSON, "commit", "-qm", "start"]);
	gitAt(dir, [...PERSON, "commit", "-q", "--allow-empty", "-m", "elsewhere"]);
	gitAt(dir, ["branch", "other"]);
	gitAt(dir, ["reset", "-q", "--hard", "HEAD~1"]);
	gitAt(dir, ["tag", "v1"]);
	return { dir, start: gitAt(dir, ["rev-parse", "HEAD"]).trim() };
}

/** Where the plan's remote is: how our code names it, its git directory, and another session's git before a push. */
export interface RemotePlace {
	/** As the team names it: a URL, or a remote's name in the person's clone. */
	remote: string;
	/** The person's remote-tracking ref of the branch a push to `remote` moves, as git moves it for a named remote. */
	tracking: string | undefined;
	bare: string;
	/** Runs `git <args>` just before the `nth` push from now reaches the remote (1: the next). */
	beforePush(nth: number, args: readonly string[]): void;
}

/** A bare repository served by `server`, holding the seed's refs. */
export function daemonRemote(server: GitServer, name: string, seed: Seed): RemotePlace {
	const bare = server.bare(name);
	gitAt(seed.dir, ["push", "-q", bare, "main", "other", "v1"]);
	return {
		remote: server.url(name),
		tracking: undefined,
		bare,
		beforePush: (nth, args) => server.beforePush(nth, args),
	};
}

/** Passes receive-pack's output on until the chunk that reports the push taken, then stops: the answer is lost. */
const CUT_ANSWER =
	"binmode STDIN; binmode STDOUT; while (sysread(STDIN, $b, 65536)) { exit 0 if $b =~ /unpack ok/; syswrite(STDOUT, $b) }";

/** A `file://` remote: its name set up in a clone, and pushes whose answer is lost. */
export interface FileRemote extends RemotePlace {
	configure(clone: string): void;
	/** The `nth` push from now is taken but its answer lost; `then` (a shell script) runs before the pusher hears. */
	loseAnswer(nth: number, then?: string): void;
}

/**
 * A bare repository under `root` holding the seed's refs, reached as `file://`. The person's clone pushes to it through
 * a receive-pack of the test's (`remote.shared.receivepack`): it runs what `beforePush` was told, then git's own.
 */
export function fileRemote(root: string, name: string, seed: Seed): FileRemote {
	const bare = join(root, `${name}.git`);
	gitAt(root, ["init", "-q", "--bare", "-b", "main", bare]);
	gitAt(seed.dir, ["push", "-q", bare, "main", "other", "v1"]);
	const gate = join(root, `${name}-gate`);
	mkdirSync(gate);
	writeFileSync(join(gate, "pushes"), "0");
	const wrapper = join(gate, "receive-pack");
	writeFileSync(
		wrapper,
		[
			"#!/bin/sh",
			`p=$(( $(cat '${gate}/pushes') + 1 ))`,
			`echo "$p" > '${gate}/pushes'`,
			`[ -f '${gate}/push-'"$p" ] && xargs -0 git < '${gate}/push-'"$p" > /dev/null 2>&1`,
			`if [ -f '${gate}/lose-'"$p" ]; then`,
			// git's answer dropped from where it says the push was taken: the refs are updated, the pusher hears nothing.
			`  git receive-pack "$@" | perl -e '${CUT_ANSWER}'`,
			`  sh '${gate}/lose-'"$p" > /dev/null 2>&1`,
			"  exit 0",
			"fi",
			'exec git receive-pack "$@"',
			"",
		].join("\n"),
	);
	chmodSync(wrapper, 0o755);
	const pushes = () => Number(readFileSync(join(gate, "pushes"), "utf8").trim());
	return {
		remote: "shared",
		tracking: "refs/remotes/shared/main",
		bare,
		beforePush: (nth, args) => writeFileSync(join(gate, `push-${pushes() + nth}`), args.join("\0")),
		loseAnswer: (nth, then = "") => writeFileSync(join(gate, `lose-${pushes() + nth}`), then),
		configure(clone) {
			gitAt(clone, ["remote", "add", "shared", `file://${bare}`]);
			gitAt(clone, ["config", "remote.shared.receivepack", wrapper]);
		},
	};
}

/**
 * Clones `bare` as the person's repository at `dir`, then leaves in it a stash entry, a change not staged, a staged
 * new file and an untracked one; returns what reads the state a landing must leave alone: index, HEAD, every ref,
 * the stash, and every file's bytes and mode.
 */
export function personClone(bare: string, dir: string): (exceptRefs?: readonly string[]) => string {
	gitAt(bare, ["clone", "-q", bare, dir]);
	writeFileSync(join(dir, "notes.txt"), "stashed\n");
	gitAt(dir, [...PERSON, "stash", "push", "-q"]);
	writeFileSync(join(dir, "notes.txt"), "the person's edit\n");
	writeFileSync(join(dir, "staged.txt"), "staged by the person\n");
	gitAt(dir, ["add", "staged.txt"]);
	writeFileSync(join(dir, "mine.txt"), "the person's own\n");
	return (exceptRefs = []) =>
		JSON.stringify({
			index: readFileSync(join(dir, ".git", "index")).toString("base64"),
			head: gitAt(dir, ["rev-parse", "HEAD"]),
			symbolic: gitAt(dir, ["symbolic-ref", "HEAD"]),
			refs: refsOf(dir, exceptRefs),
			stash: gitAt(dir, ["stash", "list"]),
			files: workTreeFiles(dir),
		});
}

/** Every ref of a repository with its object, but those `except` names. */
export const refsOf = (dir: string, except: readonly string[] = []): string[] =>
	gitAt(dir, ["for-each-ref", "--format=%(refname) %(objectname)"])
		.split("\n")
		.filter((line) => line !== "" && !except.includes(line.split(" ")[0] ?? ""));
