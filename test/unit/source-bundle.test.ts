/**
 * A clone with nothing built runs its source from one table of modules kept in its cache folder, named for the
 * source's content (boot/source-bundle.ts): the table is built on the first start, used while the source is the same,
 * never used once a module changed, and not kept (the caller falls back to pi's loader) where it cannot be written.
 */

import { execFileSync } from "node:child_process";
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { createJiti } from "jiti";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
	type CompileCached,
	type HostRequire,
	linkTable,
	loadSourceTable,
	rememberedKey,
	SOURCE_CACHE,
	sourceKey,
	sourceModules,
	tableFile,
} from "../../boot/source-bundle.ts";
import { fileStamp, stampHolds } from "../../boot/table.cjs";

/**
 * What happens meanwhile, once: another start's clean-up on the next rename of a file of the cache (it removes every
 * `source-` file there), and a change of the source on the next read of a file.
 */
const raced = vi.hoisted(() => ({
	cleanUp: undefined as (() => void) | undefined,
	beforeRead: undefined as (() => void) | undefined,
}));
vi.mock("node:fs", async (actual) => {
	const fs = await actual<typeof import("node:fs")>();
	const renameSync: typeof fs.renameSync = (from, to) => {
		const cleanUp = raced.cleanUp;
		raced.cleanUp = undefined;
		cleanUp?.();
		fs.renameSync(from, to);
	};
	const readFileSync = ((...args: Parameters<typeof fs.readFileSync>) => {
		const beforeRead = raced.beforeRead;
		raced.beforeRead = undefined;
		beforeRead?.();
		return fs.readFileSync(...args);
	}) as typeof fs.readFileSync;
	return { ...fs, renameSync, readFileSync, default: { ...fs, renameSync, readFileSync } };
});

/** A small source: an entry, a module it imports, one it imports on first use, and a type-only import. */
const SOURCE: Readonly<Record<string, string>> = {
	"src/index.ts": [
		'import { basename } from "node:path";',
		'import type { Word } from "./words/word.ts";',
		'import { word } from "./words/word.ts";',
		"export const here: string = basename(import.meta.url);",
		"export const greeting = (): Word => word;",
		'export const later = async (): Promise<string> => (await import("./later.ts")).late;',
		"export default greeting;",
	].join("\n"),
	"src/words/word.ts": 'export type Word = string;\nexport const word: Word = "hello";\n',
	"src/later.ts": 'export const late: string = "on first use";\n',
	"src/types.d.ts": "declare const never: number;\n",
};

let root = "";
/** What the host transformed, by file: the table is built once per source. */
let transformed: string[] = [];

/** pi's loader as the root index.ts sees it: jiti, which transforms TypeScript and hands out Node's modules. */
function host(): HostRequire {
	const jiti = createJiti(join(root, "index.ts"), { fsCache: false, moduleCache: false });
	const require = ((id: string) => jiti(id)) as HostRequire;
	require.transform = (options) => {
		transformed.push(options.filename.slice(root.length + 1));
		return jiti.transform(options);
	};
	return require;
}

const compile: CompileCached = (file, code, use) => use(new Script(code, { filename: file }).runInThisContext());

function write(files: Readonly<Record<string, string>>): void {
	for (const [name, content] of Object.entries(files)) {
		mkdirSync(dirname(join(root, name)), { recursive: true });
		writeFileSync(join(root, name), content);
	}
}

interface Loaded {
	here: string;
	greeting(): string;
	later(): Promise<string>;
	default(): string;
}

const load = () => loadSourceTable(root, host(), compile) as Loaded | undefined;
const tables = () => readdirSync(join(root, SOURCE_CACHE)).sort();

beforeEach(() => {
	root = join(mkdtempSync(join(tmpdir(), "til-done-source-table-")), "clone");
	transformed = [];
	write(SOURCE);
});
afterEach(() => rmSync(dirname(root), { recursive: true, force: true }));

describe("the source's key is its content", () => {
	it("names every TypeScript module under src/, declarations left out, in order", () => {
		expect([...sourceModules(root).keys()]).toEqual(["src/index.ts", "src/later.ts", "src/words/word.ts"]);
	});

	it("is the same for the same content, whenever it is read", () => {
		const key = sourceKey(root, sourceModules(root));
		write({ "src/later.ts": SOURCE["src/later.ts"] ?? "" });
		expect(sourceKey(root, sourceModules(root))).toBe(key);
	});

	it("changes with one module's content, a module added, or the clone's place", () => {
		const key = sourceKey(root, sourceModules(root));
		const modules = sourceModules(root);
		const edited = new Map(modules).set("src/later.ts", 'export const late: string = "edited";\n');
		const added = new Map(modules).set("src/new.ts", "");
		expect(new Set([key, sourceKey(root, edited), sourceKey(root, added), sourceKey(`${root}2`, modules)]).size).toBe(
			4,
		);
	});

	it("does not take two modules' contents run together for one", () => {
		const apart = new Map([
			["src/a.ts", "ab"],
			["src/b.ts", ""],
		]);
		const together = new Map([
			["src/a.ts", "a"],
			["src/b.ts", "b"],
		]);
		expect(sourceKey(root, apart)).not.toBe(sourceKey(root, together));
	});
});

describe("the first start builds the table; later starts run it", () => {
	it("runs the source: imports, import.meta.url, a module loaded on first use", async () => {
		const source = load();
		expect(source?.default()).toBe("hello");
		expect(source?.greeting()).toBe("hello");
		expect(source?.here).toBe("index.ts");
		await expect(source?.later()).resolves.toBe("on first use");
	});

	it("writes one table named for the content, then runs it without transforming again", () => {
		load();
		expect(transformed).toEqual(["src/index.ts", "src/later.ts", "src/words/word.ts"]);
		const key = sourceKey(root, sourceModules(root));
		expect(tables()).toEqual([`source-${key}.cjs`, "source-key.json"]);
		expect(existsSync(tableFile(root, key))).toBe(true);
		transformed = [];
		expect(load()?.greeting()).toBe("hello");
		expect(transformed).toEqual([]);
	});

	it("runs each module once however often it is imported", () => {
		write({
			"src/words/word.ts":
				'export const word = "hello";\n(globalThis as { runs?: number }).runs = ((globalThis as { runs?: number }).runs ?? 0) + 1;\n',
			"src/index.ts":
				'import { word } from "./words/word.ts";\nimport { word as again } from "./words/../words/word.ts";\nexport default () => word + again;\n',
		});
		const global = globalThis as { runs?: number };
		delete global.runs;
		expect(load()?.default()).toBe("hellohello");
		expect(global.runs).toBe(1);
		delete global.runs;
	});
});

describe("the table joins each module's relative imports when it is built: a start joins no path", () => {
	it("names the module each relative import is, now or on first use, beside the module's file", () => {
		load();
		const table = readFileSync(tableFile(root, sourceKey(root, sourceModules(root))), "latin1");
		const index = `${JSON.stringify(join(root, "src/index.ts"))}, ${JSON.stringify(join(root, "src"))}, {"./words/word.ts":"src/words/word.ts","./later.ts":"src/later.ts"}]`;
		expect(table).toContain(index);
	});

	it("resolves a relative name the table does not list from the importing module's folder", () => {
		const run = (exports: { word?: unknown }, require: (id: string) => unknown) => {
			exports.word = (require("./words/../words/word.ts") as { word: string }).word;
		};
		const word = (exports: { word?: string }) => {
			exports.word = "joined late";
		};
		const table = {
			"src/index.ts": [run, join(root, "src/index.ts"), join(root, "src"), {}],
			"src/words/word.ts": [word, join(root, "src/words/word.ts"), join(root, "src/words"), {}],
		} as unknown as Parameters<typeof linkTable>[0];
		expect(linkTable(table, host())).toEqual({ word: "joined late" });
	});
});

describe("the table is ASCII: a start reads and compiles it as one-byte text, every character kept", () => {
	it("escapes what is not ASCII in strings, templates, patterns and comments, which run as written", () => {
		write({
			"src/index.ts": [
				'export const texts = ["✓ done", `📋 ↑↓`];',
				"export const pattern = /^[↑↓]+📋$/u;",
				"// ⚠ a comment of the source",
				'export default () => texts.join(" ");',
			].join("\n"),
		});
		const source = load() as unknown as { default(): string; pattern: RegExp } | undefined;
		expect(source?.default()).toBe("✓ done 📋 ↑↓");
		expect(source?.pattern.test("↑↓↑📋")).toBe(true);
		const table = readFileSync(tableFile(root, sourceKey(root, sourceModules(root))), "latin1");
		expect([...table].filter((character) => character.charCodeAt(0) > 0x7f)).toEqual([]);
	});
});

describe("the table keeps no comment of the source: a start reads and compiles less", () => {
	it("leaves out line and block comments, and runs the code around them as written", () => {
		write({
			"src/index.ts": [
				"// a line comment of the source",
				"/** a block comment of the source */",
				'export default (): string => "code" /* an inline comment of the source */ + "runs";',
			].join("\n"),
		});
		expect(load()?.default()).toBe("coderuns");
		const table = readFileSync(tableFile(root, sourceKey(root, sourceModules(root))), "latin1");
		expect(table.match(/comment of the source/g) ?? []).toEqual([]);
	});
});

describe("a source edited since the table was built is never run from it", () => {
	it("builds the edited source's table, runs the edit and removes the old table", () => {
		load();
		write({ "src/words/word.ts": 'export const word = "edited";\n' });
		transformed = [];
		expect(load()?.greeting()).toBe("edited");
		expect(transformed).toEqual(["src/index.ts", "src/later.ts", "src/words/word.ts"]);
		expect(tables()).toEqual([`source-${sourceKey(root, sourceModules(root))}.cjs`, "source-key.json"]);
	});

	it("an edit saved while the first start builds the table runs at the next start", () => {
		const building = host();
		const transform = building.transform;
		building.transform = (options) => {
			// The editor saves once the start has read the source, before it remembers the key.
			if (options.filename.endsWith("word.ts")) write({ "src/words/word.ts": 'export const word = "saved";\n' });
			return transform(options);
		};
		expect((loadSourceTable(root, building, compile) as Loaded | undefined)?.greeting()).toBe("hello");
		expect(rememberedKey(root)).toBeUndefined();
		expect(load()?.greeting()).toBe("saved");
	});

	it("two starts building the table at once both run the source: one's clean-up may remove the other's table half-written", () => {
		raced.cleanUp = () => {
			for (const name of tables()) rmSync(join(root, SOURCE_CACHE, name));
		};
		expect(load()?.greeting()).toBe("hello");
		expect(rememberedKey(root)).toBeUndefined();
		expect(load()?.greeting()).toBe("hello");
		expect(rememberedKey(root)).toBe(sourceKey(root, sourceModules(root)));
	});

	it("a module removed while a start reads the source (a checkout under way): nothing is built, pi's loader takes the source", () => {
		raced.beforeRead = () => rmSync(join(root, "src/later.ts"));
		expect(load()).toBeUndefined();
		expect(transformed).toEqual([]);
		expect(rememberedKey(root)).toBeUndefined();
	});

	it.each([
		["cut short", (code: string) => code.slice(0, code.length / 2)],
		["empty", () => ""],
	])(
		"a table %s (a crash while it was written) is built again, not run: it would fail to load at every start",
		(_, cut) => {
			load();
			const file = tableFile(root, sourceKey(root, sourceModules(root)));
			const whole = readFileSync(file, "utf8");
			writeFileSync(file, cut(whole));
			transformed = [];
			expect(load()?.greeting()).toBe("hello");
			expect(transformed).toEqual(["src/index.ts", "src/later.ts", "src/words/word.ts"]);
			expect(readFileSync(file, "utf8")).toBe(whole);
		},
	);

	it("the source put back as it was runs as it was", () => {
		load();
		write({ "src/words/word.ts": 'export const word = "edited";\n' });
		load();
		write(SOURCE);
		expect(load()?.greeting()).toBe("hello");
	});
});

describe("the key is remembered with each module's size and times, and taken from the content when one differs", () => {
	it("a start remembers the content's key", () => {
		load();
		expect(rememberedKey(root)).toBe(sourceKey(root, sourceModules(root)));
	});

	it("an edit that keeps the module's size is not taken for the source before", () => {
		load();
		write({ "src/words/word.ts": 'export type Word = string;\nexport const word: Word = "hallo";\n' });
		expect(rememberedKey(root)).toBeUndefined();
		expect(load()?.greeting()).toBe("hallo");
	});

	it("an edit of the same size whose modification time is set back (cp -p, touch -d) is seen by its change time", () => {
		load();
		const word = join(root, "src/words/word.ts");
		const before = statSync(word);
		const reference = join(dirname(root), "word.ts");
		execFileSync("cp", ["-p", word, reference]);
		write({ "src/words/word.ts": 'export type Word = string;\nexport const word: Word = "hallo";\n' });
		// cp -p and touch keep the nanoseconds that Node's utimes would round.
		execFileSync("touch", ["-m", "-r", reference, word]);
		expect(statSync(word).mtimeMs).toBe(before.mtimeMs);
		expect(rememberedKey(root)).toBeUndefined();
		expect(load()?.greeting()).toBe("hallo");
	});

	it("a module touched without a change is hashed again and runs from the same table, built once", () => {
		load();
		utimesSync(join(root, "src/later.ts"), new Date(2000, 0, 1), new Date(2000, 0, 1));
		expect(rememberedKey(root)).toBeUndefined();
		transformed = [];
		expect(load()?.greeting()).toBe("hello");
		expect(transformed).toEqual([]);
		expect(rememberedKey(root)).toBe(sourceKey(root, sourceModules(root)));
	});

	it("a key remembered by a clone whose tables had another format is not taken: its table would be linked wrongly", () => {
		load();
		const keyFile = join(root, SOURCE_CACHE, "source-key.json");
		const remembered = JSON.parse(readFileSync(keyFile, "utf8")) as { format?: string };
		delete remembered.format;
		writeFileSync(keyFile, JSON.stringify(remembered));
		expect(rememberedKey(root)).toBeUndefined();
		writeFileSync(keyFile, JSON.stringify({ ...remembered, format: "2" }));
		expect(rememberedKey(root)).toBeUndefined();
		expect(load()?.greeting()).toBe("hello");
	});

	it("a remembered key broken by hand is not taken once a module changed", () => {
		load();
		const keyFile = join(root, SOURCE_CACHE, "source-key.json");
		const remembered = JSON.parse(readFileSync(keyFile, "utf8")) as { stamps: Record<string, unknown[]> };
		write({ "src/words/word.ts": 'export type Word = string;\nexport const word: Word = "hallo";\n' });
		const broken = [
			null,
			{ ...remembered, stamps: Object.fromEntries(Object.keys(remembered.stamps).map((file) => [file, "1-2-3"])) },
			{ ...remembered, stamps: Object.fromEntries(Object.keys(remembered.stamps).map((file) => [file, []])) },
			{ ...remembered, stamps: null },
			{ ...remembered, stamps: [] },
		];
		const taken = broken.map((key) => {
			writeFileSync(keyFile, JSON.stringify(key));
			return rememberedKey(root);
		});
		expect(taken).toEqual(broken.map(() => undefined));
		expect(load()?.greeting()).toBe("hallo");
	});

	it("a clone copied elsewhere with its cache takes its own key: the copied table names the first clone's files", () => {
		load();
		const copy = join(dirname(root), "copy");
		cpSync(root, copy, { recursive: true, preserveTimestamps: true });
		const first = root;
		root = copy;
		transformed = [];
		expect(rememberedKey(copy)).toBeUndefined();
		expect(load()?.here).toBe("index.ts");
		expect(transformed).toEqual(["src/index.ts", "src/later.ts", "src/words/word.ts"]);
		expect(rememberedKey(copy)).toBe(sourceKey(copy, sourceModules(copy)));
		expect(rememberedKey(first)).toBe(sourceKey(first, sourceModules(first)));
	});

	it("a module saved through a new file renamed into place is seen by its inode, whatever its times", () => {
		load();
		const word = join(root, "src/words/word.ts");
		const stamp = fileStamp(word);
		expect(stampHolds(word, stamp)).toBe(true);
		expect(stampHolds(word, [stamp[0], stamp[1], stamp[2], stamp[3] + 1])).toBe(false);
	});

	it("a module removed since is not taken for the source before", () => {
		load();
		rmSync(join(root, "src/later.ts"));
		expect(rememberedKey(root)).toBeUndefined();
	});
});

describe("where the table cannot be kept", () => {
	it("gives nothing and builds nothing, so the caller loads the source through pi's loader", () => {
		// A file where the cache folder would go: the folder cannot be made, as in a read-only clone.
		writeFileSync(join(root, "node_modules"), "");
		expect(load()).toBeUndefined();
		expect(transformed).toEqual([]);
	});
});
