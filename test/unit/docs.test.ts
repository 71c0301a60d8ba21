import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import * as names from "../../src/core/rules/keys.ts";
import { BOOLEAN_SETTINGS, DEFAULT_CONFIG, NUMERIC_SETTINGS, TEXT_SETTINGS } from "../../src/core/rules/settings.ts";
import { exportedNames } from "../helpers/imports.ts";
import { FACES, STORE } from "../helpers/layers.ts";

const api = readFileSync(new URL("../../docs/API.md", import.meta.url), "utf8");
/** The rows of the API doc's settings table, by flag. */
const settingRows = new Map(
	api
		.split("\n")
		.filter((line) => line.startsWith("| `--til-done-"))
		.map((line) => [line.split("`")[1]?.split(" ")[0] ?? "", line.split("|").map((cell) => cell.trim())]),
);

describe("the public surface doc names every setting and every name the extension gives pi", () => {
	it("one settings row per flag, with its variable and default", () => {
		const settings = [...NUMERIC_SETTINGS, ...TEXT_SETTINGS, ...BOOLEAN_SETTINGS];
		expect([...settingRows.keys()].sort()).toEqual(settings.map((setting) => `--${setting.flag}`).sort());
		for (const setting of NUMERIC_SETTINGS) {
			const row = settingRows.get(`--${setting.flag}`);
			expect(row?.[2], setting.flag).toBe(`\`${setting.env}\``);
			expect(row?.[3], setting.flag).toBe(`\`${DEFAULT_CONFIG[setting.key]}\``);
		}
	});

	it("every export of the entry, by its name, its types included", () => {
		const exportsTable = api.split("## Exports of `src/index.ts`")[1]?.split("\n## ")[0] ?? "";
		const unnamed = exportedNames("index.ts").filter(
			(name) => !(name in names) && !exportsTable.includes(`\`${name}\``),
		);
		expect(unnamed).toEqual([]);
	});

	it("the exports table's first column is exactly the entry's exports beside the names, each once", () => {
		const exportsTable = api.split("## Exports of `src/index.ts`")[1]?.split("\n## ")[0] ?? "";
		const firstCells = exportsTable
			.split("\n")
			.filter((line) => line.startsWith("| ") && !line.startsWith("| Export |") && !line.startsWith("| The names"))
			.map((line) => line.split("|")[1] ?? "");
		// A name's value stands after it in brackets (`DEFAULT_LOOP_MARKER` (`LOOP_DONE`)): not a name.
		const tabled = firstCells.flatMap((cell) =>
			[...cell.replace(/\([^)]*\)/g, "").matchAll(/`(\w+)`/g)].map(([, name]) => name),
		);
		const exported = exportedNames("index.ts").filter((name) => !(name in names));
		expect(tabled.sort()).toEqual(exported.sort());
	});

	it("every exported name, with its value", () => {
		for (const [constant, value] of Object.entries(names)) {
			expect(api, constant).toContain(`\`${value}\` (\`${constant}\`)`);
		}
	});
});

describe("the docs name every setting a child agent does not take from what it inherits", () => {
	const owned = [...NUMERIC_SETTINGS, ...TEXT_SETTINGS, ...BOOLEAN_SETTINGS].filter((setting) => setting.owned);
	const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

	it("the README's child agent, by each one's variable", () => {
		const bullet = readme.split("- **A child knows it is one.**")[1]?.split("\n- ")[0] ?? "";
		const variables = [...bullet.matchAll(/`(TIL_DONE_\w+)`/g)].map(([, name]) => name);
		expect(variables.filter((name) => name !== "TIL_DONE_PARENT_PID").sort()).toEqual(
			owned.map((setting) => setting.env).sort(),
		);
	});

	it("API.md's settings of the user's own session, by each one's flag", () => {
		const paragraph = api.split("\n\n").find((text) => text.includes("belong to the user's own session")) ?? "";
		const flags = [...paragraph.matchAll(/`--(til-done-[\w-]+)`/g)].map(([, flag]) => flag);
		expect(flags.sort()).toEqual(owned.map((setting) => setting.flag).sort());
	});
});

describe("the skill tells the model what the tools expect", () => {
	const skill = readFileSync(new URL("../../skills/til-done/SKILL.md", import.meta.url), "utf8");

	it("abandoning goes through edit_todos with its reason, which the user is shown", () => {
		const bullet = skill.split("\n- ").find((line) => line.includes("`abandon`"));
		expect(bullet?.replace(/\s+/g, " ")).toContain(
			"`abandon` items that turn out unnecessary with `edit_todos`, giving the why in its `reason`",
		);
	});
});

describe("the architecture's map is the tree: every module of src/ once, under its layer", () => {
	const architecture = readFileSync(new URL("../../docs/ARCHITECTURE.md", import.meta.url), "utf8");
	const block = architecture.split("## The map")[1]?.split("```")[1] ?? "";
	/** Each line of the map: its layer (carried down from the last line that named one), its module. */
	const rows: [layer: string, module: string][] = [];
	let layer = "";
	for (const line of block.split("\n").filter((text) => text.trim() !== "")) {
		const [first = "", second = ""] = line.trim().split(/\s+/);
		if (!line.startsWith(" ")) layer = first;
		rows.push([layer, line.startsWith(" ") ? first : second]);
	}
	const src = new URL("../../src/", import.meta.url).pathname;
	const walk = (dir: string): string[] =>
		readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
			entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
		);
	const modules = walk(src).map((file) => relative(src, file));
	const layerOf = (module: string): string => {
		if ((FACES as readonly string[]).includes(module)) return "faces";
		if (module === "state.ts" || module.startsWith(`${STORE[1]}/`)) return "store";
		if (module.startsWith("edges/")) return "edges";
		return module.startsWith("core/") ? "core" : "?";
	};

	it("names every module exactly once", () => {
		expect(rows.map(([, module]) => module).sort()).toEqual(modules.sort());
	});

	it("puts each under its layer", () => {
		expect(rows.filter(([under, module]) => under !== layerOf(module))).toEqual([]);
	});

	it("every path it names anywhere is in the tree", () => {
		const root = new URL("../../", import.meta.url).pathname;
		const paths = [...architecture.matchAll(/`((?:core|edges|store|test|bench|docs|demo|scripts|skills)\/[\w./-]+)`/g)];
		const missing = paths
			.map(([, path = ""]) => path)
			.filter((path) => !existsSync(join(src, path)) && !existsSync(join(root, path)));
		expect([...new Set(missing)]).toEqual([]);
	});
});

/** Words the glossary replaced: `crew` (workers), "step file" (plan file), the list's status key named for a plan. */
const RETIRED = [/\bcrews?\b/i, /\bstep files?\b/i, /\bPLAN_STATUS_KEY\b/];

/** Every module of src/, one text: where a name of the code must be found. */
const sources = (() => {
	const walk = (dir: string): string[] =>
		readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
			entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
		);
	return walk(new URL("../../src/", import.meta.url).pathname)
		.map((file) => readFileSync(file, "utf8"))
		.join("\n");
})();

describe("the architecture's glossary gives each idea one word", () => {
	const architecture = readFileSync(new URL("../../docs/ARCHITECTURE.md", import.meta.url), "utf8");
	const glossary = architecture.split("## Glossary")[1]?.split("\n## ")[0] ?? "";
	/** The words the code and the docs use, one per idea. */
	const TERMS = [
		"list",
		"item",
		"todo",
		"plan file",
		"landing",
		"worker",
		"claim",
		"session",
		"chain",
		"run",
		"verdict",
		"check",
		"done-check",
		"judge",
		"goal",
		"loop",
		"checkpoint",
		"host",
		"face",
		"guest",
		"decision",
		"breaker",
	];

	it.each(TERMS)("defines %s", (term) => {
		expect(glossary).toMatch(new RegExp(`^- \\*\\*${term}\\*\\*`, "m"));
	});

	it("every name of the code it gives (`SessionWorkers`, `write_todos`) is a name in src/", () => {
		const names = [...glossary.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)]
			.map(([, name = ""]) => name)
			.filter((name) => !RETIRED.some((word) => word.test(name)));
		expect(names.length).toBeGreaterThan(0);
		expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(sources))).toEqual([]);
	});

	it("the words it retired are gone from src/ and the docs", () => {
		const docs = ["README.md", "docs/API.md", "docs/TOOLS.md", "docs/TESTING.md"].map((doc) =>
			readFileSync(new URL(`../../${doc}`, import.meta.url), "utf8"),
		);
		const found = RETIRED.filter((word) =>
			[sources, ...docs, architecture.replace(glossary, "")].some((text) => word.test(text)),
		);
		expect(found).toEqual([]);
	});
});

describe("every demo has its npm script, named in the README's set-up", () => {
	const demos = readdirSync(new URL("../../demo/", import.meta.url)).filter((name) =>
		existsSync(new URL(`../../demo/${name}/demo.json`, import.meta.url)),
	);
	const scripts = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as PackageJson)
		.scripts;
	const setUp = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
		.split("## Set-up (development)")[1]
		?.split("\n## ")[0];

	it("npm run demo plays the loop, and npm run demo:<name> each other demo", () => {
		expect(demos.sort()).toEqual(["goal", "judge", "loop", "workers"]);
		expect(scripts.demo).toBe("node scripts/demo.ts");
		for (const name of demos.filter((demo) => demo !== "loop")) {
			expect(scripts[`demo:${name}`], name).toBe(`node scripts/demo.ts ${name}`);
			expect(setUp, name).toContain(`| \`npm run demo:${name}\` |`);
		}
	});
});

interface PackageJson {
	scripts: Record<string, string>;
}
describe("the README's set-up paragraph says what a fresh npm install warns of", () => {
	const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
	/** The set-up section, on one line. */
	const setUp = (readme.split("## Set-up (development)")[1]?.split("\n## ")[0] ?? "").replace(/\s+/g, " ");
	const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
		packages: Record<string, { engines?: { node?: string }; hasInstallScript?: boolean }>;
	};
	const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
		allowScripts: Record<string, boolean>;
	};
	const entries = Object.entries(lock.packages);
	const nameOf = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);

	it("one EBADENGINE warning per package of the tree (this one included) that asks for Node 22 or newer", () => {
		// Every alternative of its range starts at 22 or later (`>=22.19.0`, `^22.12.0 || ^24.0.0 || >=26.0.0`).
		const forNode22 = entries.filter(([, entry]) =>
			(entry.engines?.node?.split("||") ?? ["0"]).every((range) => Number(/\d+/.exec(range)?.[0]) >= 22),
		);
		expect(setUp).toContain(`prints ${forNode22.length} \`EBADENGINE\` warnings`);
	});

	it("an install-scripts notice for the packages whose install scripts allowScripts does not list", () => {
		const unlisted = entries.filter(
			([path, entry]) => entry.hasInstallScript && !(nameOf(path) in manifest.allowScripts),
		);
		expect(setUp).toContain(`an \`install-scripts\` notice for ${unlisted.length} packages`);
	});
});
