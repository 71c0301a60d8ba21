/**
 * What `pi.exec` gives the one check runner (src/edges/checks/run-check.ts) back, for the fakes of the unit tests: the
 * runner's last line is its status, the token it was given as its last argument and the check's exit code. A runner
 * killed by a signal never says it, so a fake that leaves it out plays a killed runner.
 */

import type { ExecResult } from "@earendil-works/pi-coding-agent";

/** The runner's answer when the check it ran printed `output` and exited with `code`, as the real runner prints it. */
export function runnerEnded(args: readonly string[], code: number, output = "", stderr = ""): ExecResult {
	return { stdout: `${output}\n${args.at(-1)} ${code}\n`, stderr, code, killed: false };
}
