/**
 * src/ is a house whose folders are its layers (the rule, in test/helpers/layers.ts): the core imports the core; the
 * store imports the core; an edge imports the core, the store and the edges below it; the faces import anything; no
 * import cycle between folders. The core also touches neither the process, timers nor the file system, and uses no
 * package of pi's runtime (only types, and pi-tui's pure helpers).
 */

import ts from "typescript";
import { describe, expect, it } from "vitest";
import { importsOf, MODULES, parse } from "../helpers/imports.ts";
import { folderCycles, homeless, type Import, layerViolations } from "../helpers/layers.ts";

/** Packages whose values the core may use: pi-tui's `Text`, widths and key matching are pure. */
const PURE_PACKAGES = new Set(["@earendil-works/pi-tui"]);
/** What a pure module may not touch: the process, timers, the file system and other hosts' modules. */
const IMPURE_NAMES = new Set(["process", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval"]);

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

const modules = MODULES;
const graph = new Map(modules.map((module) => [module, importsOf(module)]));
const ownImports: Import[] = [...graph].flatMap(([module, imports]) =>
	imports.filter(({ target }) => modules.includes(target)).map(({ target }) => [module, target] as const),
);
const isCore = (module: string) => module.startsWith("core/");

describe("src/ is layered by folder: the core, the store, the edges in order, the faces", () => {
	it("every module is in a layer", () => {
		expect(homeless(modules)).toEqual([]);
	});

	it("every relative import names a module of src/ as it is spelt (a `.js` or no extension would escape the rule)", () => {
		const stray = [...graph].flatMap(([module, imports]) =>
			imports
				.filter(({ local, target }) => local && !modules.includes(target))
				.map(({ target }) => `${module} → ${target}`),
		);
		expect(stray).toEqual([]);
	});

	it("every import keeps the layer rule", () => {
		expect(layerViolations(ownImports)).toEqual([]);
	});

	it("between folders, imports form no cycle", () => {
		expect(folderCycles(ownImports)).toEqual([]);
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

	it("only the store's face imports store/: its one setter, and its private helpers, are reached from nowhere else", () => {
		const reaching = ownImports.filter(
			([from, to]) => to.startsWith("store/") && from !== "state.ts" && !from.startsWith("store/"),
		);
		expect(reaching).toEqual([]);
		expect(ownImports.filter(([from, to]) => from === "state.ts" && to.startsWith("store/")).length).toBe(7);
	});

	it("a pure module that touched the process would be caught: the rule sees a name of the process", () => {
		expect(impureNames("edges/host/tell.ts")).toContain("process");
	});
});

describe("the layer rule refuses what breaks it", () => {
	it("the core importing a face, the store or an edge", () => {
		const imports: Import[] = [
			["core/rules/next-step.ts", "formatting.ts"],
			["core/views/panel.ts", "state.ts"],
			["core/list/queries.ts", "edges/host/tell.ts"],
		];
		expect(layerViolations(imports)).toEqual([
			"core/rules/next-step.ts → formatting.ts",
			"core/views/panel.ts → state.ts",
			"core/list/queries.ts → edges/host/tell.ts",
		]);
	});

	it("the store importing an edge or a face; an edge importing a face or an edge above it", () => {
		const imports: Import[] = [
			["state.ts", "edges/host/tell.ts"],
			["state.ts", "validation.ts"],
			["edges/git/git.ts", "types.ts"],
			["edges/host/tell.ts", "edges/git/git.ts"],
			["edges/workers/session-workers.ts", "edges/run/engine.ts"],
		];
		expect(layerViolations(imports)).toEqual(imports.map(([from, to]) => `${from} → ${to}`));
	});

	it("lets each layer import what is below it, and the faces anything", () => {
		const imports: Import[] = [
			["core/rules/next-step.ts", "core/list/queries.ts"],
			["state.ts", "core/rules/chain.ts"],
			["edges/run/engine.ts", "edges/workers/session-workers.ts"],
			["edges/run/engine.ts", "state.ts"],
			["edges/commands/todos.ts", "edges/host/tell.ts"],
			["formatting.ts", "core/list/queries.ts"],
			["index.ts", "events.ts"],
		];
		expect(layerViolations(imports)).toEqual([]);
	});

	it("a module outside every layer", () => {
		expect(homeless(["core/list/queries.ts", "helpers.ts", "edges/net/remote.ts"])).toEqual([
			"helpers.ts",
			"edges/net/remote.ts",
		]);
	});

	it("folders on a cycle, however long, and none where imports go one way", () => {
		const imports: Import[] = [
			["core/rules/a.ts", "core/list/b.ts"],
			["core/list/b.ts", "core/texts/c.ts"],
			["core/texts/c.ts", "core/rules/d.ts"],
			["edges/run/e.ts", "edges/host/f.ts"],
			["edges/host/f.ts", "state.ts"],
		];
		expect(folderCycles(imports)).toEqual([["core/list", "core/rules", "core/texts"]]);
		expect(folderCycles(imports.slice(1))).toEqual([]);
	});
});
