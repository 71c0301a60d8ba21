/**
 * Checks that start processes, through pi's own exec as the extension runs them: how long after a check's shell exits
 * its verdict comes when it left a job in the background holding its output open, and how many of the processes a
 * check started are still running after it passed, failed, timed out or was aborted (the goal: none).
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execCommand } from "../node_modules/@earendil-works/pi-coding-agent/dist/core/exec.js";
import { type Exec, runCheck } from "../src/edges/checks/run-check.ts";
import { median } from "./startup.ts";

type Out = (line?: string) => void;

const exec: Exec = (command, args, options) => execCommand(command, args, options?.cwd ?? process.cwd(), options);
/** Each child sleeps a duration no other process here uses, so it can be found by its command line. */
const STARTS_THREE = "setsid sleep 301.1 & nohup sleep 301.2 >/dev/null 2>&1 & sleep 301.3 &";
const CHILDREN = new Set(["sleep 301.1", "sleep 301.2", "sleep 301.3"]);

/** Processes still running whose command line is one of the children's. */
function childrenLeft(): number {
	return readdirSync("/proc").filter((entry) => {
		if (!/^\d+$/.test(entry)) return false;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
			const command = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").join(" ").trim();
			return CHILDREN.has(command) && stat.split(") ")[1]?.[0] !== "Z";
		} catch {
			return false;
		}
	}).length;
}

/** Milliseconds from the shell's exit (the time it wrote last) to the verdict, for a check that leaves a job behind. */
async function exitToVerdictMs(dir: string): Promise<number> {
	const command = "sleep 300 & echo started; date +%s%3N > exit-ms";
	await runCheck(exec, command, { cwd: dir, timeoutSeconds: 120 });
	const verdictAt = Date.now();
	return verdictAt - Number(readFileSync(join(dir, "exit-ms"), "utf8"));
}

/** How each end of a check leaves the children it started. */
async function leftAfter(dir: string, end: "passes" | "fails" | "times out" | "is aborted"): Promise<number> {
	const controller = new AbortController();
	const tail = { passes: "echo started", fails: "exit 1", "times out": "wait", "is aborted": "wait" }[end];
	const running = runCheck(exec, `${STARTS_THREE} ${tail}`, {
		cwd: dir,
		timeoutSeconds: end === "times out" ? 1 : 120,
		signal: controller.signal,
	});
	if (end === "is aborted") setTimeout(() => controller.abort(), 300);
	await running;
	return childrenLeft();
}

export async function checksSection(out: Out, quick: boolean): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "til-done-bench-checks-"));
	try {
		const samples: number[] = [];
		for (let i = 0; i < (quick ? 3 : 21); i++) samples.push(await exitToVerdictMs(dir));
		out("## Checks that start processes (pi's exec, coreutils timeout)");
		out();
		out(
			`A check that leaves a job in the background holding its output open (\`sleep 300 & echo started\`): its verdict comes ${median(samples).toFixed(0)} ms (median of ${samples.length}) after its shell exits. Before, it waited for the job to close the output and ran into the check timeout: 120 s by default.`,
		);
		out();
		out("| The check … | processes it started (setsid, nohup, plain) still running after its verdict |");
		out("|---|---:|");
		for (const end of ["passes", "fails", "times out", "is aborted"] as const) {
			out(`| ${end} | ${await leftAfter(dir, end)} |`);
		}
		out();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
