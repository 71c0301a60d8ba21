/**
 * The entry the package's pi manifest names, run by pi's loader, which compiles TypeScript and gives the modules it
 * loads a `require` that hands out pi's own libraries. It runs the built bundle when there is one (a published
 * package, or a clone after `npm run build`), else the TypeScript source (a fresh clone: nothing to build first), from
 * the table of its modules the first start keeps in the clone (boot/source-bundle.ts). At the package's root, so pi
 * lists the extension under the package's name.
 *
 * The bundle is compiled by V8 with a code cache kept beside it, one per bundle, Node and CPU, so a start after the
 * first one does not parse the bundle again; a cache that cannot be read, written or used is only slower.
 */

import { isAscii } from "node:buffer";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { CompileCached, HostRequire } from "./boot/source-bundle.ts";
import type { TableModule } from "./boot/table.cjs";

const built = join(__dirname, "dist", "index.cjs");

/**
 * Where the code cache of the bundle lives, named for the bundle file as it is (V8 checks only the source's length):
 * its size, inode, and modification and change times, which any write of it moves (a change time cannot be set back),
 * with Node's version and the CPU. Hashing the bundle instead cost about 1 ms of every start.
 */
function cacheFileOf(): string {
	const file = statSync(built, { bigint: true });
	const stamp = `${file.size}-${file.ino}-${file.mtimeNs}-${file.ctimeNs}`;
	return join(dirname(built), `.v8-cache-${stamp}-${process.version}-${process.arch}`);
}

function readCache(file: string): Buffer | undefined {
	try {
		return readFileSync(file);
	} catch {
		return undefined;
	}
}

/**
 * Keeps this cache alone (a rebuilt bundle or another Node leaves its old one behind otherwise), written whole: pi
 * processes that start together may write it at once.
 */
function writeCache(file: string, data: Buffer): void {
	try {
		for (const name of readdirSync(dirname(file))) {
			if (name.startsWith(".v8-cache-")) rmSync(join(dirname(file), name), { force: true });
		}
		const temporary = `${file}.${process.pid}.tmp`;
		writeFileSync(temporary, data);
		renameSync(temporary, file);
	} catch {
		// A read-only install runs without a cache.
	}
}

/** Whether the bundle is still the one whose code cache is `cacheFile`: a rebuild since leaves that cache unused. */
function bundleStill(cacheFile: string): boolean {
	try {
		return cacheFileOf() === cacheFile;
	} catch {
		return false;
	}
}

/** The code cache this process made, to write again as its first session goes on; undefined: none made. */
let cacheToComplete: (() => void) | undefined;

/**
 * Compiles `code` as the script `file` from the V8 code cache `cacheFile`, hands what it evaluates to to `use`, then
 * writes the cache when there was none or V8 refused it: after `use`, so it holds the functions that ran at load too,
 * and again as the session has started and as it ends, so it holds those every start runs (the factory, the
 * session's handlers), which are otherwise compiled anew at each start. Only a larger cache replaces the one written:
 * V8 drops the compiled code of functions that have not run through several full garbage collections, so late in a
 * long session the cache would have lost what every start runs (a cache made after seven collections: 2 kB of 230).
 * Nor is it written once `current` says its file was written again meanwhile (a rebuild): writing it would remove the
 * code cache of the file as it is now, which a later start made.
 */
function compileCached<T>(
	file: string,
	code: string,
	cacheFile: string,
	use: (value: unknown) => T,
	current: () => boolean = () => true,
): T {
	const cachedData = readCache(cacheFile);
	const script = new Script(code, { filename: file, cachedData });
	const used = use(script.runInThisContext());
	if (cachedData === undefined || script.cachedDataRejected) {
		const first = script.createCachedData();
		writeCache(cacheFile, first);
		// Its size only: the session need not hold the cache itself in memory.
		let writtenSize = first.length;
		cacheToComplete = () => {
			const data = script.createCachedData();
			if (data.length <= writtenSize || !current()) return;
			writtenSize = data.length;
			writeCache(cacheFile, data);
		};
	}
	return used;
}

/** The bundle's text: as one-byte text when it is ASCII (as built), about 1 ms sooner than UTF-8 decoded. */
function readBundle(): string {
	const bytes = readFileSync(built);
	return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
}

/** Runs the CommonJS bundle with pi's `require`, so it gets pi's own libraries; returns its factory. */
function loadBuilt(): ExtensionFactory {
	const code = readBundle();
	const wrapper = `(function (exports, require, module, __filename, __dirname) {${code}\n})`;
	const cacheFile = cacheFileOf();
	return compileCached(
		built,
		wrapper,
		cacheFile,
		(run) => {
			const bundle = { exports: {} as { default?: ExtensionFactory } };
			(run as (...args: unknown[]) => void)(bundle.exports, require, bundle, built, dirname(built));
			return bundle.exports.default as ExtensionFactory;
		},
		() => bundleStill(cacheFile),
	);
}

/** The exports of a clone's source from a table of its modules built now (boot/source-bundle.ts), if it can be kept. */
function buildSourceTable(compile: CompileCached): unknown {
	const { loadSourceTable } = require(
		join(__dirname, "boot", "source-bundle.ts"),
	) as typeof import("./boot/source-bundle.ts");
	return loadSourceTable(__dirname, require as unknown as HostRequire, compile);
}

/**
 * The TypeScript source of a clone with nothing built: from the table of its modules kept in the clone (run by
 * boot/table.cjs, which Node's own loader loads), else from one built now, else module by module through pi's loader.
 */
function loadSource(): ExtensionFactory {
	const compile: CompileCached = (file, code, use) =>
		compileCached(file, code, `${file}.v8-${process.version}-${process.arch}`, use);
	const table = createRequire(__filename)("./boot/table.cjs") as typeof import("./boot/table.cjs");
	const kept = table.rememberedTable(__dirname);
	const source = (
		kept === undefined
			? buildSourceTable(compile)
			: compile(kept.file, kept.code, (modules) => table.linkTable(modules as Record<string, TableModule>, require))
	) as { default: ExtensionFactory } | undefined;
	return (source ?? require(join(__dirname, "src", "index.ts"))).default;
}

const loaded: ExtensionFactory = existsSync(built) ? loadBuilt() : loadSource();

const tilDone: ExtensionFactory = (pi) => {
	const loading = loaded(pi);
	const complete = cacheToComplete;
	cacheToComplete = undefined;
	// After the extension's own handlers of each event (pi runs them in the order they were registered).
	if (complete) {
		pi.on("session_start", complete);
		pi.on("session_shutdown", complete);
	}
	return loading;
};

export default tilDone;
