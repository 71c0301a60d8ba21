/**
 * The entry the package's pi manifest names, run by pi's loader, which compiles TypeScript and gives the modules it
 * loads a `require` that hands out pi's own libraries. It runs the built bundle when there is one (a published
 * package, or a clone after `npm run build`), else the TypeScript source (a fresh clone: nothing to build first). At
 * the package's root, so pi lists the extension under the package's name.
 *
 * The bundle is compiled by V8 with a code cache kept beside it, one per bundle, Node and CPU, so a start after the
 * first one does not parse the bundle again; a cache that cannot be read, written or used is only slower.
 */

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";

const built = join(__dirname, "dist", "index.cjs");

/** Where the code cache of `code` lives: named for the bundle's bytes, Node's version and the CPU, as V8 checks only the length. */
function cacheFileOf(code: string): string {
	const digest = createHash("sha256").update(code).digest("hex").slice(0, 16);
	return join(dirname(built), `.v8-cache-${digest}-${process.version}-${process.arch}`);
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

/** Runs the CommonJS bundle with pi's `require`, so it gets pi's own libraries; returns its factory. */
function loadBuilt(): ExtensionFactory {
	const code = readFileSync(built, "utf8");
	const cacheFile = cacheFileOf(code);
	const cachedData = readCache(cacheFile);
	const wrapper = `(function (exports, require, module, __filename, __dirname) {${code}\n})`;
	const script = new Script(wrapper, { filename: built, cachedData });
	const bundle = { exports: {} as { default?: ExtensionFactory } };
	script.runInThisContext()(bundle.exports, require, bundle, built, dirname(built));
	if (cachedData === undefined || script.cachedDataRejected) writeCache(cacheFile, script.createCachedData());
	return bundle.exports.default as ExtensionFactory;
}

const tilDone: ExtensionFactory = existsSync(built) ? loadBuilt() : require(join(__dirname, "src", "index.ts")).default;

export default tilDone;
