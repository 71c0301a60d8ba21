/**
 * The TypeScript source of a clone with nothing built, loaded as one script with a V8 code cache instead of module by
 * module through pi's loader (which compiles every module again at each start: about 50 ms). On the first start pi's
 * loader transforms each module of `src/` once (TypeScript and ES modules to CommonJS, what it does at every start
 * otherwise); the modules are written as one table into a cache folder of the clone, named for the source's content,
 * so a source edited since is never run: its content names another table, built then. Reading and hashing the whole
 * source costs a start about as much as the table saves, so the key is remembered with each module's size and times;
 * it is taken again from the content whenever one of them differs (an edit changes at least the change time).
 * What a start runs when the table is there is in table.cjs; this module is loaded only to build one.
 */

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import {
	type FileStamp,
	fileStamp,
	KEY_FILE,
	linkTable,
	readTable,
	rememberedTable,
	resolveFrom,
	SOURCE_CACHE,
	TABLE_END,
	TABLE_FORMAT,
	TABLE_PREFIX,
	type TableModule,
	tableFile,
} from "./table.cjs";

export { linkTable, rememberedKey, SOURCE_CACHE, tableFile } from "./table.cjs";

/** pi's loader as a module it loads sees its `require`: it hands out pi's own libraries and transforms TypeScript. */
export interface HostRequire {
	(id: string): unknown;
	transform(options: { source: string; filename: string; ts: boolean; babel?: { comments: boolean } }): string;
}

/**
 * Compiles `code` as the script `file` with a V8 code cache beside it and hands what it evaluates to to `use`; the
 * cache is written after `use`, so it holds the modules that ran.
 */
export type CompileCached = <T>(file: string, code: string, use: (value: unknown) => T) => T;

interface RememberedKey {
	/** The format of the table the key names. */
	format: string;
	/** The clone the key was taken in: a clone copied elsewhere takes its own (the table names its files). */
	root: string;
	key: string;
	/** By module's absolute file: size, modification and change time, as `fileStamp` gives them. */
	stamps: Record<string, FileStamp>;
}

/**
 * Each module's stamp, taken before its content is read: an edit saved while the table is built then leaves a stamp
 * that no longer holds, and the next start takes the key from the content again.
 */
function stampsOf(root: string, names: readonly string[]): Record<string, FileStamp> {
	const files = names.map((name) => join(root, name));
	return Object.fromEntries(files.map((file) => [file, fileStamp(file)]));
}

/** Remembers `key` as the content's with the modules' stamps; a clone whose cache cannot be written only hashes again. */
function rememberKey(root: string, key: string, stamps: Record<string, FileStamp>): void {
	try {
		writeWhole(
			join(root, SOURCE_CACHE, KEY_FILE),
			JSON.stringify({ format: TABLE_FORMAT, root, key, stamps } satisfies RememberedKey),
		);
	} catch {
		// Without it the next start takes the key from the content again.
	}
}

/** The source's modules' names relative to `root` (`src/` and below, `/`-separated, sorted). */
function moduleNames(root: string): string[] {
	return readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
		.map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
		.sort();
}

/** The source's modules relative to `root` (`src/` and below, `/`-separated, sorted), with their content. */
export function sourceModules(root: string, names: readonly string[] = moduleNames(root)): Map<string, string> {
	return new Map(names.map((name) => [name, readFileSync(join(root, name), "utf8")]));
}

/**
 * The table's name: the modules' names and content, the clone's place (the transform writes each module's path into
 * it, for `import.meta.url`) and the table's format.
 */
export function sourceKey(root: string, modules: ReadonlyMap<string, string>): string {
	const hash = createHash("sha256").update(`${TABLE_FORMAT}\0${root}\0`);
	for (const [name, source] of modules) hash.update(`${name}\0${source.length}\0${source}\0`);
	return hash.digest("hex").slice(0, 16);
}

/**
 * `code` in ASCII: each character past it as its `\u` escape, which means the same in a string, a template, a pattern, an
 * identifier and a comment. A start then reads the table as one-byte text, about 2 ms sooner than UTF-8 decoded.
 */
function asAscii(code: string): string {
	return code.replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The relative names the transformed module `name` imports, now or on first use, each with the module it is. */
function linksOf(name: string, transformed: string): Record<string, string> {
	const links: Record<string, string> = {};
	for (const [, id = ""] of transformed.matchAll(/\b(?:require|jitiImport)\("(\.\.?\/[^"]+)"\)/g))
		links[id] = resolveFrom(name, id);
	return links;
}

/**
 * The script of the table: an object of the modules by name ({@link TableModule}), each transformed to CommonJS
 * without its comments (a third of the source: less to read and compile at every start; the lines stay where they
 * were, for stack traces), in ASCII.
 */
export function buildTable(root: string, modules: ReadonlyMap<string, string>, host: HostRequire): string {
	const entries = [...modules].map(([name, source]) => {
		const filename = join(root, name);
		const transformed = host.transform({ source, filename, ts: true, babel: { comments: false } });
		const code = asAscii(transformed);
		const about = [filename, dirname(filename), linksOf(name, transformed)].map((value) =>
			asAscii(JSON.stringify(value)),
		);
		return `${JSON.stringify(name)}: [function (exports, require, module, __filename, __dirname, jitiImport) {${code}\n}, ${about.join(", ")}]`;
	});
	return `({\n${entries.join(",\n")}${TABLE_END}`;
}

/**
 * Writes the table whole and removes older ones; false when it could not be written: pi processes that start together
 * build it at once, and one's removal of older tables may take the other's half-written one.
 */
function writeTable(file: string, code: string): boolean {
	try {
		const folder = dirname(file);
		for (const name of readdirSync(folder)) {
			if (name.startsWith(TABLE_PREFIX)) rmSync(join(folder, name), { force: true });
		}
		writeWhole(file, code);
		return true;
	} catch {
		return false;
	}
}

/** Writes `file` whole, through a file of this process's renamed into place: a reader never sees half of it. */
function writeWhole(file: string, data: string): void {
	const temporary = `${file}.${process.pid}.tmp`;
	writeFileSync(temporary, data);
	renameSync(temporary, file);
}

/** Whether the clone's cache folder can be made and written: else every start would build the table again. */
function cacheWritable(root: string): boolean {
	try {
		const folder = join(root, SOURCE_CACHE);
		mkdirSync(folder, { recursive: true });
		const probe = join(folder, `.probe-${process.pid}`);
		writeFileSync(probe, "");
		rmSync(probe);
		return true;
	} catch {
		return false;
	}
}

/**
 * The modules' stamps, then their content; undefined when one went away between the listing and its reading (a
 * checkout or a save under way), so the caller loads the source through pi's loader rather than fail to load.
 */
function readSource(root: string): { stamps: Record<string, FileStamp>; modules: Map<string, string> } | undefined {
	try {
		const names = moduleNames(root);
		const stamps = stampsOf(root, names);
		return { stamps, modules: sourceModules(root, names) };
	} catch {
		return undefined;
	}
}

/** The table of the source as it is now, built and kept when there is none; undefined when it cannot be kept. */
function currentTable(root: string, host: HostRequire): { file: string; code: string } | undefined {
	const remembered = rememberedTable(root);
	if (remembered !== undefined) return remembered;
	const source = readSource(root);
	if (source === undefined) return undefined;
	const { stamps, modules } = source;
	const key = sourceKey(root, modules);
	const file = tableFile(root, key);
	let code = readTable(file);
	if (code === undefined) {
		if (!cacheWritable(root)) return undefined;
		code = buildTable(root, modules, host);
		// Run from memory, the key not remembered: the next start finds the other start's table, or writes its own.
		if (!writeTable(file, code)) return { file, code };
	}
	rememberKey(root, key, stamps);
	return { file, code };
}

/**
 * The exports of the clone's `src/index.ts` run from its table, built first when the source has none; undefined when
 * the table cannot be kept (a read-only clone), so the caller loads the source through pi's loader as before.
 */
export function loadSourceTable(root: string, host: HostRequire, compile: CompileCached): unknown {
	const table = currentTable(root, host);
	if (table === undefined) return undefined;
	return compile(table.file, table.code, (modules) => linkTable(modules as Record<string, TableModule>, host));
}
