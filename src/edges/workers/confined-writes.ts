/**
 * A worker's `write` and `edit`, writing inside bubblewrap. The refusal in `tool_call` (edges/workers/confine.ts) judges
 * a path as the call is made, but the tool resolves its links again as it writes, and the worker's bash may turn a
 * folder of its tree into a link out meanwhile. Written in bubblewrap, where only the tree and its TMPDIR are writable,
 * a write that a link leads out of the tree fails (a read-only file system), whenever the link was made. pi's `ssh`
 * example delegates these tools' operations the same way.
 */

import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import {
	createEditToolDefinition,
	createWriteToolDefinition,
	type EditOperations,
	type ExtensionAPI,
	type WriteOperations,
} from "@earendil-works/pi-coding-agent";
import { type Confinement, confinedArgs } from "../../core/rules/worker-bounds.ts";
import { WORKER_BOUNDS_TEXTS } from "../../core/texts/model.ts";

/** How long one confined write may take before it is killed and fails. */
export const CONFINED_WRITE_TIMEOUT_MS = 60_000;

/** Runs `script` (its `$1`: `path`) in bubblewrap, `input` on its stdin; rejects with what the model reads. */
function runConfined(bounds: Confinement, script: string, path: string, input = ""): Promise<void> {
	const args = [...confinedArgs(bounds), "sh", "-c", script, "sh", path];
	const options = { timeout: CONFINED_WRITE_TIMEOUT_MS, killSignal: "SIGKILL" as const, encoding: "utf8" as const };
	return new Promise((resolve, reject) => {
		const child = execFile(bounds.bwrap, args, options, (error, _stdout, stderr) => {
			if (!error) return resolve();
			const detail = String(stderr).trim().split("\n").at(-1) || (error.killed ? "timed out" : "failed");
			reject(new Error(WORKER_BOUNDS_TEXTS.notWritten(path, detail)));
		});
		child.stdin?.on("error", () => {});
		child.stdin?.end(input);
	});
}

/** The operations of the worker's `write`: its folders made, and its file written, in bubblewrap. */
export function confinedWriteOperations(bounds: Confinement): WriteOperations {
	return {
		writeFile: (path, content) => runConfined(bounds, 'cat > "$1"', path, content),
		mkdir: (dir) => runConfined(bounds, 'mkdir -p -- "$1"', dir),
	};
}

/** The operations of the worker's `edit`: read as pi reads, written (and found writable) in bubblewrap. */
export function confinedEditOperations(bounds: Confinement): EditOperations {
	const { writeFile } = confinedWriteOperations(bounds);
	return {
		readFile: (path) => readFile(path),
		writeFile,
		access: (path) => runConfined(bounds, 'test -r "$1" && test -w "$1"', path),
	};
}

/** In a worker's pi whose bash bubblewrap confines: its `write` and `edit` write in bubblewrap too. */
export function confineWrites(pi: ExtensionAPI, cwd: string, bounds: Confinement): void {
	pi.registerTool(createWriteToolDefinition(cwd, { operations: confinedWriteOperations(bounds) }));
	pi.registerTool(createEditToolDefinition(cwd, { operations: confinedEditOperations(bounds) }));
}
