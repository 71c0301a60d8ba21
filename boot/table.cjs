/**
 * What every start of a clone with nothing built runs of its source's table (boot/source-bundle.ts builds it): the
 * key remembered for the source, still true of every module's file, the table it names, and the linking of its
 * modules. Plain CommonJS, so Node's own loader loads it from the compile cache pi turns on; pi's TypeScript loader
 * would compile it again at every start (about 1 ms). Its types are in table.d.cts.
 */

"use strict";

const { readFileSync, statSync } = require("node:fs");
const { join, posix } = require("node:path");

/**
 * Bumped when the table's shape, its linking or the remembered key's changes, so an older table is never linked the
 * new way (2: ASCII, no comments; 3: each module with its file and links; 4: the key's stamps by file, in numbers;
 * 5: the table ends with TABLE_END).
 * The remembered key names its format too.
 */
const TABLE_FORMAT = "5";
/**
 * How every table ends: one cut short or left empty (a crash while it was written, before the disk had it all) lacks
 * it, and is built again rather than fail to load at every start.
 */
const TABLE_END = "\n})\n// end of the table\n";
/** Where a clone keeps its table, inside the folder git ignores. */
const SOURCE_CACHE = join("node_modules", ".cache", "pi-til-done");
/** The entry of the source, relative to the clone, as the table names its modules. */
const SOURCE_ENTRY = "src/index.ts";
const TABLE_PREFIX = "source-";
/** The key last taken from the content, and what each module's file was then. */
const KEY_FILE = "source-key.json";

/**
 * What changes when a file is written: its size, its modification and change times (milliseconds, to a fraction of a
 * microsecond), and its inode, which an editor saving through a new file renamed into place changes even where the
 * kernel's clock is too coarse to tell two writes apart. In numbers: a stamp of nanosecond BigInts written as text
 * cost a start 2-3 ms over the source's files.
 */
function fileStamp(file) {
	return stampOf(statSync(file));
}

/** A file's stamp from its `stat`: the one place its fields are named. */
function stampOf(stat) {
	return [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino];
}

/** Whether the file is as the stamp says it was. */
function stampHolds(file, stamp) {
	const stat = statSync(file, { throwIfNoEntry: false });
	return stat !== undefined && stampOf(stat).every((value, index) => value === stamp[index]);
}

/**
 * The key remembered for the source, if it names a table of this format for the clone where it is now, and every
 * module it names is still as it was then (and no more is needed). The stamps are by absolute file: no join per module at start.
 */
function rememberedKey(root) {
	try {
		const remembered = JSON.parse(readFileSync(join(root, SOURCE_CACHE, KEY_FILE), "utf8"));
		if (remembered.format !== TABLE_FORMAT || remembered.root !== root) return undefined;
		// Stamps that name no entry were not written by a start (none, or broken by hand): they would vouch for nothing.
		if (!(join(root, SOURCE_ENTRY) in remembered.stamps)) return undefined;
		for (const file in remembered.stamps) {
			if (!stampHolds(file, remembered.stamps[file])) return undefined;
		}
		return remembered.key;
	} catch {
		return undefined;
	}
}

/** The table's file in the clone's cache folder. */
function tableFile(root, key) {
	return join(root, SOURCE_CACHE, `${TABLE_PREFIX}${key}.cjs`);
}

/** The table, ASCII as built: read as one-byte text; undefined when it is not there or not whole. */
function readTable(file) {
	try {
		const code = readFileSync(file, "latin1");
		return code.endsWith(TABLE_END) ? code : undefined;
	} catch {
		return undefined;
	}
}

/** The table the remembered key names, when the source is as it was and the table is there. */
function rememberedTable(root) {
	const key = rememberedKey(root);
	if (key === undefined) return undefined;
	const file = tableFile(root, key);
	const code = readTable(file);
	return code === undefined ? undefined : { file, code };
}

/** The module a relative name imported by the module `name` is: `./b.ts` in `src/a.ts` is `src/b.ts`. */
function resolveFrom(name, id) {
	return posix.normalize(posix.join(posix.dirname(name), id));
}

/**
 * Links the table's modules as CommonJS links files: relative names resolve within the table, every other name is
 * `host`'s (pi's libraries, Node's), asked once per name; a module runs once, on its first `require` or dynamic
 * import. Returns the entry's exports.
 */
function linkTable(table, host) {
	const loaded = new Map();
	const external = new Map();
	const fromHost = (id) => {
		if (!external.has(id)) external.set(id, host(id));
		return external.get(id);
	};
	const load = (name) => {
		const done = loaded.get(name);
		if (done !== undefined) return done.exports;
		const entry = table[name];
		if (entry === undefined) throw new Error(`pi-til-done: ${name} is not in the source's table`);
		const [run, filename, folder, links] = entry;
		const module = { exports: {} };
		loaded.set(name, module);
		const requireFrom = (id) => (id.startsWith(".") ? load(links[id] ?? resolveFrom(name, id)) : fromHost(id));
		run(module.exports, requireFrom, module, filename, folder, async (id) => requireFrom(id));
		return module.exports;
	};
	return load(SOURCE_ENTRY);
}

module.exports = {
	TABLE_FORMAT,
	TABLE_END,
	SOURCE_CACHE,
	TABLE_PREFIX,
	KEY_FILE,
	fileStamp,
	stampHolds,
	rememberedKey,
	tableFile,
	readTable,
	rememberedTable,
	resolveFrom,
	linkTable,
};
