/**
 * A shared plan's repository for in-process tests: a folder of its own whose first commit holds the plan file (and
 * any other files), with a bare repository beside it as `origin`, fetched; and the plan file of a list of texts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PERSON = ["-c", "user.name=u", "-c", "user.email=u@u"];

/** `git` in `cwd` as the person, its output trimmed. */
export const gitAs = (cwd: string, ...args: string[]): string =>
	execFileSync("git", [...PERSON, ...args], { cwd, encoding: "utf8" }).trim();

/** The plan file of `texts`, the items at `done` checked. */
export const planWith = (texts: readonly string[], done: readonly number[] = []): string =>
	`# Plan\n\n${texts.map((text, index) => `- [${done.includes(index) ? "x" : " "}] ${text}`).join("\n")}\n`;

/** A repository (named from `prefix`) whose one commit holds `files`, and its remote beside it: both folders. */
export function repoWithRemote(prefix: string, files: Record<string, string>): { dir: string; bare: string } {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	const bare = `${dir}-remote.git`;
	gitAs(dir, "init", "-q", "-b", "main");
	for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
	gitAs(dir, "add", ...Object.keys(files));
	gitAs(dir, "commit", "-qm", "the plan");
	gitAs(dir, "clone", "-q", "--bare", dir, bare);
	gitAs(dir, "remote", "add", "origin", bare);
	gitAs(dir, "fetch", "-q", "origin");
	return { dir, bare };
}
