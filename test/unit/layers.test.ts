/**
 * src/ is a house whose folders are its layers. The rules, as docs/ARCHITECTURE.md states them:
 * - the pure core (core/, and the seed's types.ts, validation.ts, formatting.ts) imports nothing above it, no package
 *   of pi's runtime (only types, and pi-tui's pure helpers), and touches neither the process, timers nor the file
 *   system; inside it, each part imports only the parts below it, in the order of CORE;
 * - the store (state.ts) imports only the core;
 * - the edges (edges/, tools.ts, events.ts) import the core, the store and other edges; nothing imports the entry;
 * - between folders and top-level modules, imports form no cycle.
 */

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The pure core, lowest first: each part may import itself and the parts before it; the seed's faces of it on top. */
const CORE = [
	"core/model",
	"core/texts",
	"core/list",
	"core/rules",
	"core/views",
	"types.ts",
	"validation.ts",
	"formatting.ts",
];
const STORE = "state.ts";
const ENTRY = "index.ts";
/** Packages whose values the core may use: pi-tui's `Text`, widths and key matching are pure. */
const PURE_PACKAGES = new Set(["@earendil-works/pi-tui"]);
/** What a pure module may not touch: the process, timers, the file system and other hosts' modules. */
const IMPURE_NAMES = new Set(["process", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval"]);

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

function parse(module: string): ts.SourceFile {
	const file = join(SRC, module);
	return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

/** The imports and re-exports of one module (static and dynamic), each with whether only types cross. */
function importsOf(module: string): Import[] {
	const source = parse(module);
	const found: Import[] = [];
	const add = (spec: string, typeOnly: boolean) =>
		found.push({ target: spec.startsWith(".") ? relative(SRC, resolve(SRC, dirname(module), spec)) : spec, typeOnly });
	const visit = (node: ts.Node) => {
		if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
			if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnly(node));
		} else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
			const [spec] = node.arguments;
			if (spec && ts.isStringLiteral(spec)) add(spec.text, false);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
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

/** The names a module refers to that are the process's, a timer's or the file system's. */
function impureNames(module: string): string[] {
	const names = new Set<string>();
	const visit = (node: ts.Node) => {
		if (ts.isIdentifier(node) && IMPURE_NAMES.has(node.text)) names.add(node.text);
		ts.forEachChild(node, visit);
	};
	visit(parse(module));
	return [...names];
}

const modules = sourceFiles(SRC).map((file) => relative(SRC, file));
const unitOf = (module: string): string => (module.includes("/") ? dirname(module) : module);
const graph = new Map(modules.map((module) => [module, importsOf(module)]));
const ownImports = [...graph].flatMap(([module, imports]) =>
	imports.filter(({ target }) => modules.includes(target)).map(({ target }) => [module, target] as const),
);
const coreRank = (module: string) => CORE.indexOf(unitOf(module));
const isCore = (module: string) => coreRank(module) >= 0;
const isEdge = (module: string) => module.startsWith("edges/") || module === "tools.ts" || module === "events.ts";

describe("src/ is layered: the core, the store, the edges, the entry", () => {
	it("every module is in one of the layers", () => {
		const homeless = modules.filter(
			(module) => !isCore(module) && !isEdge(module) && module !== STORE && module !== ENTRY,
		);
		expect(homeless).toEqual([]);
	});

	it("the core imports only the core, each part only the parts below it", () => {
		const upward = ownImports.filter(([from, to]) => isCore(from) && !(isCore(to) && coreRank(to) <= coreRank(from)));
		expect(upward.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
	});

	it("the core uses no package of pi's runtime and touches neither the process, timers nor the file system", () => {
		const impure = modules
			.filter(isCore)
			.flatMap((module) => [
				...(graph.get(module) ?? [])
					.filter(({ target, typeOnly }) => !modules.includes(target) && !typeOnly && !PURE_PACKAGES.has(target))
					.map(({ target }) => `${module} imports ${target}`),
				...impureNames(module).map((name) => `${module} uses ${name}`),
			]);
		expect(impure).toEqual([]);
	});

	it("the store imports only the core; the edges only the core, the store and edges; nothing imports the entry", () => {
		const wrong = ownImports.filter(
			([from, to]) =>
				to === ENTRY || (from === STORE && !isCore(to)) || (isEdge(from) && !isCore(to) && to !== STORE && !isEdge(to)),
		);
		expect(wrong.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
	});

	it("between folders and top-level modules, imports form no cycle", () => {
		const edges = new Map<string, Set<string>>();
		for (const [from, to] of ownImports)
			if (unitOf(from) !== unitOf(to)) edges.set(unitOf(from), (edges.get(unitOf(from)) ?? new Set()).add(unitOf(to)));
		const cycles: string[] = [];
		const visit = (unit: string, path: string[]) => {
			if (path.includes(unit)) {
				cycles.push([...path.slice(path.indexOf(unit)), unit].join(" → "));
				return;
			}
			for (const next of edges.get(unit) ?? []) visit(next, [...path, unit]);
		};
		for (const unit of edges.keys()) visit(unit, []);
		expect(cycles).toEqual([]);
	});

	it("a pure module that touched the process would be caught: the rule sees a name of the process", () => {
		expect(impureNames("edges/host/tell.ts")).toContain("process");
	});
});
