/** Whether the real bubblewrap can make its namespaces on this machine: the tests of a confined worker need it. */
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { confinedArgs } from "../../src/core/rules/worker-bounds.ts";

export const bwrapWorks = (() => {
	try {
		execFileSync("bwrap", [...confinedArgs({ tree: tmpdir(), tmp: tmpdir() }), "true"], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
})();
