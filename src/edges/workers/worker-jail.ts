/**
 * A worker's whole pi runs in bubblewrap, where bubblewrap confines: its tools, the extensions and MCP servers it
 * loads (a project's own, a `.pi/extensions` file an earlier worker landed) and whatever they start can write only its
 * tree, its TMPDIR and what the person lets workers write besides, and end with it. What pi itself must write gets a
 * place in the worker's TMPDIR: an agent folder of its own (the person's entries read-only through links, copies of the
 * files pi locks), and the session's compiled extensions as the workers' copy of them
 * (edges/workers/compiled-extensions.ts); Node's compile cache is the session's, read-only.
 */

import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { getCompileCacheDir } from "node:module";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { confinedArgs, PI_WRITTEN_FILES, workerCredentials } from "../../core/rules/worker-bounds.ts";
import { findRepo } from "../git/git.ts";
import { WORKER_CONFINED_VAR } from "../host/role.ts";
import { compiledCopy, compiledCopyBegun, linkCompiledCopy } from "./compiled-extensions.ts";
import { bwrapProbe, placeOf, type WorkerBounds } from "./confine.ts";

/** pi's variable for its agent folder (settings, credentials, extensions, packages). */
const AGENT_DIR_VAR = "PI_CODING_AGENT_DIR";

/** The person's agent folder, as pi finds it in `env`. */
function agentDir(env: NodeJS.ProcessEnv): string {
	const named = env[AGENT_DIR_VAR];
	if (!named) return join(homedir(), ".pi", "agent");
	// A relative one is the session's: read from its folder, never from the worker's tree.
	return named === "~" || named.startsWith("~/") ? join(homedir(), named.slice(1)) : resolve(named);
}

/** The names in `dir`, none when it cannot be read. */
function namesIn(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

/**
 * The worker pi's own agent folder, in its TMPDIR `tmp`: each entry of the person's a link to it (read-only in
 * bubblewrap: a worker never adds an extension, a setting or a package the person's next pi would load), and copies
 * of the files pi locks and writes, the credentials without their refresh tokens ({@link workerCredentials}).
 */
function workerAgentDir(tmp: string, env: NodeJS.ProcessEnv): string {
	const source = agentDir(env);
	const own = join(tmp, "pi-agent");
	mkdirSync(own, { recursive: true, mode: 0o700 });
	for (const name of namesIn(source)) {
		const from = join(source, name);
		if (!PI_WRITTEN_FILES.includes(name)) symlinkSync(from, join(own, name));
		else if (name !== "auth.json") copyFileSync(from, join(own, name));
		else {
			const credentials = workerCredentials(readFileSync(from, "utf8"));
			if (credentials !== undefined) writeFileSync(join(own, name), credentials, { mode: 0o600 });
		}
	}
	return own;
}

/** Node's compile cache of the session (pi turns it on), for the worker's pi to read: undefined when there is none. */
function compileCache(): Record<string, string> {
	const dir = getCompileCacheDir();
	return dir ? { NODE_COMPILE_CACHE: dirname(dir) } : {};
}

/**
 * Where the worker's tools keep their caches, in its TMPDIR: its home is read-only, and `npm install`, pip or go in its
 * tree would fail writing theirs there.
 */
function toolCaches(tmp: string): Record<string, string> {
	return { npm_config_cache: join(tmp, "npm-cache"), XDG_CACHE_HOME: join(tmp, "cache") };
}

/**
 * The worker's pi, `start`, for the worker of `tree`: in bubblewrap where it confines (the bounds the session gave it
 * name a bwrap), as it is where bubblewrap cannot (its bash is then given the worker's TMPDIR, and the session said
 * once that workers are not confined).
 */
export async function confinedPi(
	start: { command: string; args: string[] },
	tree: string,
	bounds: WorkerBounds,
	env: NodeJS.ProcessEnv = process.env,
): Promise<{ command: string; args: string[] }> {
	const { bwrap } = bounds;
	if (!bwrap) return start;
	const place = placeOf(tree, bounds);
	const vars = {
		[WORKER_CONFINED_VAR]: "1",
		[AGENT_DIR_VAR]: workerAgentDir(place.tmp, env),
		...compileCache(),
		...toolCaches(place.tmp),
	};
	const compiled = await linkCompiledCopy(place.tmp);
	const writable = compiled === undefined ? place.writable : [...(place.writable ?? []), compiled];
	return { command: bwrap, args: [...confinedArgs({ ...place, writable }, vars), start.command, ...start.args] };
}

/**
 * Makes what a confined worker starts from: bubblewrap's answer and, where it confines and `cwd` is in a git work tree
 * (outside one no worker starts), the workers' copy of the compiled extensions. Begun at each run of a session with
 * workers on, in the background, so the copy is ready by the first worker's start.
 */
export async function prepareWorkerJail(cwd: string): Promise<void> {
	// Begun once, a run asks nothing more: no git process at every continuation.
	if (compiledCopyBegun()) return;
	if ((await bwrapProbe()).kind !== "works" || (await findRepo(cwd)) === undefined) return;
	await compiledCopy();
}
