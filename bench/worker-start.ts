/**
 * A worker's start, in the real pi CLI with the scripted fake model: from the decision that starts it to its first
 * model call reaching the model, in a repository without and with a big untracked file (what a worker's tree copied
 * of it, a snapshot read of it). Two items, two workers, several rounds; the median of every worker's start.
 */

import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_HOST, EXTENSION_ENTRY, isolatedEnv, type PiHost, runPrint } from "../test/helpers/cli.ts";
import { sayStep, toolStep, writeStep } from "../test/helpers/scripts.ts";
import { sessionEntries } from "../test/helpers/session-file.ts";
import { median } from "./startup.ts";

/** The big untracked file's size, in MB. */
export const BIG_MB = 200;
const ROUNDS = 5;

/** A file of `mb` MB of bytes that do not compress, made once. */
function bigFile(mb: number): string {
	const file = join(tmpdir(), `til-done-bench-big-${mb}.bin`);
	execFileSync("sh", ["-c", `head -c ${mb * 1_000_000} /dev/urandom > "${file}"`]);
	return file;
}

/** One run of two workers on a fresh repository (with `big` as an untracked file, when given): each worker's start. */
async function oneRun(host: PiHost, big: string | undefined): Promise<number[]> {
	const iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0", TIL_DONE_WORKERS: "2" });
	try {
		const git = (...args: string[]) => execFileSync("git", args, { cwd: iso.cwd });
		git("init", "-q");
		writeFileSync(join(iso.cwd, "README.md"), "readme\n");
		git("add", ".");
		git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start");
		if (big) copyFileSync(big, join(iso.cwd, "data.bin"));
		iso.writeScript([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")]);
		const write = (name: string) => [toolStep("write", { path: name, content: "x\n" }), sayStep("Wrote it.")];
		iso.writeWorkerScripts({ "0": write("a.txt"), "1": write("b.txt") });
		const sessions = join(iso.root, "sessions");
		const session = { dir: sessions };
		await runPrint(["-p", "Write the files."], iso.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session,
			timeoutMs: 300_000,
		});
		const decided = sessionEntries(sessions)
			.filter((entry) => entry.customType === "til-done-decision")
			.map((entry) => entry.data as { code: string; at: number })
			.find((decision) => decision.code === "work")?.at;
		const firsts = iso
			.readLog()
			.filter((line) => line.messages <= 2 && line.lastUser.includes("Your item (the list's words, data)"));
		return decided === undefined ? [] : firsts.map((line) => line.time - decided);
	} finally {
		iso.cleanup();
	}
}

/** The median start of a worker over the rounds, without and with the big untracked file. */
export async function workerStartSection(out: (line?: string) => void, host: PiHost = DEFAULT_HOST): Promise<void> {
	const big = bigFile(BIG_MB);
	try {
		const without: number[] = [];
		const withBig: number[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			without.push(...(await oneRun(host, undefined)));
			withBig.push(...(await oneRun(host, big)));
		}
		out(`## A worker's start (real pi ${host.version}, 2 workers, ${ROUNDS} rounds)`);
		out();
		out("| Repository | from the decision to its first model call, median |");
		out("|---|---:|");
		out(`| no untracked file | ${Math.round(median(without))} ms (${without.length} starts) |`);
		out(`| a ${BIG_MB} MB untracked file | ${Math.round(median(withBig))} ms (${withBig.length} starts) |`);
		out();
	} finally {
		rmSync(big, { force: true });
	}
}
