import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layers of src/, lowest first: a module may import from its own layer and the ones below it, never from above.
 * docs/ARCHITECTURE.md draws the same map.
 */
const LAYERS: readonly { name: string; modules: readonly string[] }[] = [
	{ name: "names", modules: ["types.ts", "session/keys.ts", "settings/setting.ts"] },
	{
		name: "pure",
		modules: [
			"validation.ts",
			"texts/data.ts",
			"texts/model.ts",
			"texts/user.ts",
			"texts/status.ts",
			"texts/plan-file.ts",
			"list/queries.ts",
			"list/changes.ts",
			"plan/links.ts",
			"plan/ready.ts",
			"plan/reminder.ts",
			"planfile/markdown.ts",
			"planfile/decide.ts",
			"formatting.ts",
			"spend/usage.ts",
			"continue/breakers.ts",
			"continue/chain.ts",
			"continue/outcome.ts",
			"continue/loop.ts",
			"continue/planner.ts",
			"continue/reasons.ts",
			"settings/config.ts",
			"session/snapshot.ts",
			"ui/panel.ts",
			"ui/status-line.ts",
			"ui/list-view.ts",
			"verify/verdict.ts",
			"commands/todo-args.ts",
			"commands/status-rules.ts",
			"checkpoints/plan.ts",
			"texts/checkpoints.ts",
		],
	},
	{ name: "store", modules: ["state.ts"] },
	{
		name: "edges",
		modules: [
			"ui/guard.ts",
			"session/commit.ts",
			"planfile/file.ts",
			"planfile/follow.ts",
			"planfile/commands.ts",
			"ui/tell.ts",
			"ui/painter.ts",
			"ui/ring.ts",
			"load/one-copy.ts",
			"load/scoped-api.ts",
			"load/role.ts",
			"spend/report.ts",
			"verify/checks.ts",
			"verify/item-checks.ts",
			"verify/verification.ts",
			"verify/edits.ts",
			"checkpoints/raw-git.ts",
			"checkpoints/git.ts",
			"checkpoints/recorder.ts",
			"continue/countdown.ts",
			"continue/modes.ts",
			"continue/carry-out.ts",
			"continue/engine.ts",
			"tools.ts",
			"commands/checkpoints.ts",
			"commands/todos.ts",
			"commands/loop.ts",
			"events.ts",
		],
	},
	{ name: "entry", modules: ["index.ts"] },
];
/** Packages whose values the pure layers may use: pi-tui's `Text` is a value the renderers return, not a host call. */
const PURE_PACKAGES = new Set(["@earendil-works/pi-tui"]);

const SRC = resolve(import.meta.dirname, "../../src");

interface Import {
	/** A module of src/ (relative path), or a package name. */
	target: string;
	typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith(".ts")
				? [join(dir, entry.name)]
				: [],
	);
}

/** The imports and re-exports of one module, each with whether only types cross. */
function importsOf(file: string): Import[] {
	const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	return source.statements.flatMap((statement): Import[] => {
		if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) return [];
		const specifier = statement.moduleSpecifier;
		if (!specifier || !ts.isStringLiteral(specifier)) return [];
		const spec = specifier.text;
		const target = spec.startsWith(".") ? relative(SRC, resolve(dirname(file), spec)) : spec;
		return [{ target, typeOnly: isTypeOnly(statement) }];
	});
}

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
	if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
	const clause = statement.importClause;
	if (!clause) return false;
	if (clause.isTypeOnly) return true;
	const bindings = clause.namedBindings;
	return !clause.name && bindings !== undefined && ts.isNamedImports(bindings)
		? bindings.elements.every((element) => element.isTypeOnly)
		: false;
}

const modules = sourceFiles(SRC).map((file) => relative(SRC, file));
const graph = new Map(modules.map((module) => [module, importsOf(join(SRC, module))]));
const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.modules.includes(module));

describe("src/ is layered: no module imports from a layer above its own", () => {
	it("every module has exactly one layer", () => {
		expect(modules.filter((module) => layerOf(module) === -1)).toEqual([]);
		const listed = LAYERS.flatMap((layer) => layer.modules);
		expect(listed.filter((module) => !modules.includes(module))).toEqual([]);
		expect(new Set(listed).size).toBe(listed.length);
	});

	it("imports go to the same layer or below, types included", () => {
		const upward = [...graph].flatMap(([module, imports]) =>
			imports
				.filter(({ target }) => modules.includes(target) && layerOf(target) > layerOf(module))
				.map(({ target }) => `${module} → ${target}`),
		);
		expect(upward).toEqual([]);
	});

	it("names and pure decisions never touch the store, pi's runtime or the process", () => {
		const impure = [...graph].flatMap(([module, imports]) =>
			layerOf(module) > 1
				? []
				: imports
						.filter(({ target, typeOnly }) => !modules.includes(target) && !typeOnly && !PURE_PACKAGES.has(target))
						.map(({ target }) => `${module} → ${target}`),
		);
		expect(impure).toEqual([]);
	});

	it("has no import cycle", () => {
		const cycles: string[] = [];
		const visit = (module: string, path: string[]) => {
			if (path.includes(module)) {
				cycles.push([...path.slice(path.indexOf(module)), module].join(" → "));
				return;
			}
			for (const { target } of graph.get(module) ?? []) if (modules.includes(target)) visit(target, [...path, module]);
		};
		for (const module of modules) visit(module, []);
		expect(cycles).toEqual([]);
	});
});
