/**
 * Installing from a clone, as a contributor or a user who does not use npm does: the repository's files with no
 * `dist/` and no `node_modules`, installed with `pi install <folder>`, on every tested pi version. pi names the
 * extension after the package, and a development copy loaded with `-e` beside the installed one is used alone, with
 * one warning instead of pi's conflict lines. The source runs from one table of its modules the first start keeps in
 * the clone's cache folder (boot/source-bundle.ts), rebuilt once the source changed; a clone that cannot keep it runs
 * the source through pi's loader.
 */

import { spawnSync } from "node:child_process";
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TABLE_END } from "../../boot/table.cjs";
import {
	EXTENSION_ENTRY,
	FAKE_MODEL_ARGS,
	FAKE_MODEL_EXTENSION,
	type IsolatedEnv,
	isolatedEnv,
	PI_HOSTS,
	REPO_ROOT,
	readFakeLog,
	runJson,
	runPrint,
} from "../helpers/cli.ts";
import { allFinished, sameCopyTwice, secondCopy, stderrLine } from "../helpers/expected.ts";
import { CHURNED, LONG_SESSION_EXTENSION } from "../helpers/long-session-extension.ts";
import { must } from "../helpers/must.ts";
import { startRpc } from "../helpers/rpc.ts";
import { continuationPrompts, lazyScript } from "../helpers/scripts.ts";

const ITEMS = ["Parse the flag", "Print JSON"];
/** The clone's cache folder, where the first start keeps the source's table. */
const CACHE = "node_modules/.cache/pi-til-done";
/** The end of the line a finished list prints, and what the test edits it to in the clone's source. */
const NOTHING_TO_CONTINUE = "nothing to continue.";
const EDITED = "nothing to continue (edited in the clone).";

/** The source's table in the clone's cache folder. */
const sourceTable = () =>
	must(
		readdirSync(join(clone, CACHE)).find((name) => /^source-[0-9a-f]{16}\.cjs$/.test(name)),
		"the table",
	);
/** The code caches of the source's table in the clone's cache folder. */
const codeCaches = () => readdirSync(join(clone, CACHE)).filter((name) => /^source-[0-9a-f]{16}\.cjs\.v8-/.test(name));

let cloneRoot = "";
/** The repository's files as a fresh clone has them: what git tracks (and what is new and not ignored). */
let clone = "";
let iso: IsolatedEnv | undefined;

beforeAll(() => {
	cloneRoot = mkdtempSync(join(tmpdir(), "til-done-clone-"));
	// A path with a space and letters past ASCII, as a user's folders have: the table and its key name it.
	clone = join(cloneRoot, "my clone", "pi-til-d\u00e9j\u00e0");
	const files = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
		cwd: REPO_ROOT,
		encoding: "utf8",
	});
	expect(files.status, files.stderr).toBe(0);
	for (const file of files.stdout.split("\0").filter(Boolean)) {
		if (!existsSync(join(REPO_ROOT, file))) continue;
		mkdirSync(dirname(join(clone, file)), { recursive: true });
		cpSync(join(REPO_ROOT, file), join(clone, file));
	}
});

afterEach(() => {
	iso?.cleanup();
	iso = undefined;
});
afterAll(() => rmSync(cloneRoot, { recursive: true, force: true }));

describe("a fresh clone", () => {
	it("has no built file and no node_modules", () => {
		expect(existsSync(join(clone, "dist"))).toBe(false);
		expect(existsSync(join(clone, "node_modules"))).toBe(false);
		expect(existsSync(join(clone, "index.ts"))).toBe(true);
	});
});

describe.each(PI_HOSTS)("pi $version", (host) => {
	const piRun = (args: string[], env: IsolatedEnv) => runPrint(args, env.env, { host, raw: true });
	const fake = [...FAKE_MODEL_ARGS, "--no-session", "-e", FAKE_MODEL_EXTENSION];

	/** The clone installed and started once: its table and code cache kept. */
	const startedOnce = async (env: IsolatedEnv): Promise<void> => {
		expect((await piRun(["install", clone], env)).code).toBe(0);
		env.writeScript(lazyScript(ITEMS));
		await piRun([...fake, "-p", "Do the two things"], env);
	};

	/** A start that works the two items to the end, saying so. */
	const worksItsList = async (env: IsolatedEnv): Promise<void> => {
		env.writeScript(lazyScript(ITEMS));
		const run = await piRun([...fake, "-p", "Do the two things"], env);
		expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length)));
	};

	/** A clone installed and started once (its table kept), its code cache then removed: the next start makes it. */
	const withoutCodeCache = async (env: IsolatedEnv): Promise<string> => {
		await startedOnce(env);
		const cacheFile = join(clone, CACHE, must(codeCaches()[0], "the code cache"));
		rmSync(cacheFile);
		return cacheFile;
	};

	it("`pi install <clone>` with nothing built loads the TypeScript source and works a list to the end", async () => {
		iso = isolatedEnv();
		expect((await piRun(["install", clone], iso)).code).toBe(0);
		const script = iso.writeScript(lazyScript(ITEMS));
		const run = await piRun([...fake, "-p", "Do the two things"], iso);
		expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length)));
		expect(run.code).toBe(0);
		expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(1);
	});

	it("the first start keeps the source's table and its code cache in the clone; the next one runs them", async () => {
		iso = isolatedEnv();
		await startedOnce(iso);
		const kept = readdirSync(join(clone, CACHE));
		expect(kept.filter((name) => /^source-[0-9a-f]{16}\.cjs$/.test(name))).toHaveLength(1);
		expect(kept.filter((name) => /^source-[0-9a-f]{16}\.cjs\.v8-/.test(name))).toHaveLength(1);
		await worksItsList(iso);
		expect(readdirSync(join(clone, CACHE)).sort()).toEqual(kept.sort());
	});

	it("a start that makes the code cache writes it again as its session starts and ends, holding what the start ran; the next start keeps it", async () => {
		iso = isolatedEnv();
		const cacheFile = await withoutCodeCache(iso);
		const rpc = await startRpc({ env: iso.env, host, raw: true, args: fake });
		const atLoad = await rpc.waitFor(
			() => existsSync(cacheFile) && statSync(cacheFile).size,
			15_000,
			"the cache at load",
		);
		await rpc.close();
		const atEnd = statSync(cacheFile).size;
		expect(atEnd).toBeGreaterThan(atLoad);
		iso.writeScript(lazyScript(ITEMS));
		const before = readFileSync(cacheFile);
		const run = await piRun([...fake, "-p", "Do the two things"], iso);
		expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length)));
		expect(readFileSync(cacheFile).equals(before)).toBe(true);
		expect(codeCaches()).toHaveLength(1);
	});

	it("a long session keeps the code cache its start wrote: one V8 has emptied of what the start ran is not written", async () => {
		iso = isolatedEnv();
		const cacheFile = await withoutCodeCache(iso);
		const rpc = await startRpc({ env: iso.env, host, raw: true, args: [...fake, "-e", LONG_SESSION_EXTENSION] });
		await rpc.prompt("/churn");
		await rpc.waitFor(() => rpc.notifications.some((notice) => notice.message === CHURNED), 60_000, CHURNED);
		const started = readFileSync(cacheFile);
		await rpc.close();
		expect(readFileSync(cacheFile).equals(started)).toBe(true);
		await worksItsList(iso);
		expect(readFileSync(cacheFile).equals(started)).toBe(true);
	});

	it("a table cut short and a code cache of garbage (a crash as they were written): pi --help and the next start load the clone, which works its list", async () => {
		iso = isolatedEnv();
		await startedOnce(iso);
		const table = join(clone, CACHE, sourceTable());
		const whole = readFileSync(table);
		writeFileSync(table, whole.subarray(0, whole.length / 2));
		for (const name of codeCaches()) writeFileSync(join(clone, CACHE, name), "garbage");
		const help = await piRun(["--help"], iso);
		expect(help.code).toBe(0);
		expect(help.stderr).not.toContain("Failed to load extension");
		await worksItsList(iso);
		// Built again whole (pi 0.87.1's transform marks what it took from its own cache: not byte for byte the same).
		expect(readFileSync(table, "latin1").endsWith(TABLE_END)).toBe(true);
	});

	it("a session made anew over RPC (session_start again) in the start that made the code cache leaves it usable: the next start keeps it", async () => {
		iso = isolatedEnv();
		const cacheFile = await withoutCodeCache(iso);
		const rpc = await startRpc({
			env: iso.env,
			host,
			raw: true,
			args: [...FAKE_MODEL_ARGS, "-e", FAKE_MODEL_EXTENSION],
		});
		await rpc.waitFor(() => existsSync(cacheFile), 15_000, "the cache at load");
		expect((await rpc.send({ type: "new_session" })).success).toBe(true);
		expect((await rpc.send({ type: "new_session" })).success).toBe(true);
		await rpc.close();
		expect(rpc.stderr).toBe("");
		const written = readFileSync(cacheFile);
		await worksItsList(iso);
		expect(readFileSync(cacheFile).equals(written)).toBe(true);
	});

	it("a source edited after a start runs edited on the next start, never from the table of before", async () => {
		iso = isolatedEnv();
		await startedOnce(iso);
		const texts = join(clone, "src/core/texts/user.ts");
		const before = readFileSync(texts, "utf8");
		try {
			writeFileSync(texts, before.replace(`): ${NOTHING_TO_CONTINUE}`, `): ${EDITED}`));
			iso.writeScript(lazyScript(ITEMS));
			const run = await piRun([...fake, "-p", "Do the two things"], iso);
			expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length).replace(NOTHING_TO_CONTINUE, EDITED)));
		} finally {
			writeFileSync(texts, before);
		}
	});

	it("a clone that cannot keep the table runs its source through pi's loader", async () => {
		iso = isolatedEnv();
		const unkept = join(mkdtempSync(join(cloneRoot, "unkept-")), "pi-til-done");
		cpSync(clone, unkept, { recursive: true });
		rmSync(join(unkept, "node_modules"), { recursive: true, force: true });
		// A file where the cache folder would go: it cannot be made, as in a read-only clone.
		writeFileSync(join(unkept, "node_modules"), "");
		expect((await piRun(["install", unkept], iso)).code).toBe(0);
		const script = iso.writeScript(lazyScript(ITEMS));
		const run = await piRun([...fake, "-p", "Do the two things"], iso);
		expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length)));
		expect(run.code).toBe(0);
		expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(1);
	});

	it("a development copy given with -e beside the installed clone acts alone; the installed one warns", async () => {
		iso = isolatedEnv();
		expect((await piRun(["install", clone], iso)).code).toBe(0);
		const script = iso.writeScript(lazyScript(ITEMS));
		const development = EXTENSION_ENTRY;
		const run = await runJson([...fake, "-e", development, "Do the two things"], iso.env, { host, raw: true });
		// Nothing is built in the clone: its manifest's loader loaded the TypeScript source.
		const installed = join(clone, "src/index.ts");
		expect(run.stderr).toBe(stderrLine(secondCopy(development, installed)) + stderrLine(allFinished(ITEMS.length)));
		expect(run.code).toBe(0);
		// One copy acted: one continuation, and each tool ran once per call.
		expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(1);
	});

	it("the installed clone and its own source given with -e: the one file is named once", async () => {
		iso = isolatedEnv();
		expect((await piRun(["install", clone], iso)).code).toBe(0);
		iso.writeScript(lazyScript(ITEMS));
		const source = join(clone, "src/index.ts");
		const run = await runJson([...fake, "-e", source, "Do the two things"], iso.env, { host, raw: true });
		expect(run.stderr).toBe(stderrLine(sameCopyTwice(source)) + stderrLine(allFinished(ITEMS.length)));
		expect(run.code).toBe(0);
	});
});
