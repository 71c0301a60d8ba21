/**
 * The layer rule of src/, by folder, as docs/ARCHITECTURE.md states it:
 * - the core (core/) imports the core only;
 * - the store (state.ts, its face, and the folder store/) imports the core;
 * - an edge (a folder of edges/) imports the core, the store and the edges below it, in the order of EDGES;
 * - the faces (the seed's other modules at the top of src/) import anything;
 * - between folders, imports form no cycle.
 * A folder is a module's own folder (`core/rules`), or the module itself at the top of src/ (`state.ts`).
 */

import { dirname } from "node:path";

/** The edges, lowest first: each may import those before it. */
export const EDGES = [
	"edges/host",
	"edges/git",
	"edges/team",
	"edges/checks",
	"edges/files",
	"edges/workers",
	"edges/run",
	"edges/commands",
] as const;
/** The store: its face at the top of src/, and the folder of its ground, writers and readers. */
export const STORE = ["state.ts", "store"] as const;
/** The seed's modules at the top of src/ besides the store: they re-export the layers and wire them. */
export const FACES = ["types.ts", "validation.ts", "formatting.ts", "tools.ts", "events.ts", "index.ts"] as const;

/** One import of src/: the importing module and the imported one, as paths relative to src/. */
export type Import = readonly [from: string, to: string];

export const folderOf = (module: string): string => (module.includes("/") ? dirname(module) : module);

type Layer = "core" | "store" | "edge" | "face";

function layerOf(folder: string): Layer | undefined {
	if (folder === "core" || folder.startsWith("core/")) return "core";
	if ((STORE as readonly string[]).includes(folder)) return "store";
	if ((EDGES as readonly string[]).includes(folder)) return "edge";
	if ((FACES as readonly string[]).includes(folder)) return "face";
	return undefined;
}

/** Whether a module of folder `from` may import one of folder `to`. */
function mayImport(from: string, to: string): boolean {
	const target = layerOf(to);
	switch (layerOf(from)) {
		case "core":
			return target === "core";
		case "store":
			return target === "core" || target === "store";
		case "edge":
			return (
				target === "core" ||
				target === "store" ||
				(target === "edge" && EDGES.indexOf(to as never) <= EDGES.indexOf(from as never))
			);
		case "face":
			return true;
		default:
			return false;
	}
}

/** Modules in no layer, named once each. */
export function homeless(modules: readonly string[]): string[] {
	return modules.filter((module) => layerOf(folderOf(module)) === undefined);
}

/** Every import the rule forbids, as `from → to`. */
export function layerViolations(imports: readonly Import[]): string[] {
	return imports
		.filter(([from, to]) => !mayImport(folderOf(from), folderOf(to)))
		.map(([from, to]) => `${from} → ${to}`);
}

/** The folder graph: which folders each folder imports (its own left out). */
export function folderGraph(imports: readonly Import[]): Map<string, Set<string>> {
	const graph = new Map<string, Set<string>>();
	for (const [from, to] of imports) {
		const [source, target] = [folderOf(from), folderOf(to)];
		if (source !== target) graph.set(source, (graph.get(source) ?? new Set()).add(target));
	}
	return graph;
}

/** The folders on an import cycle, each cycle's folders sorted (Tarjan's strongly connected components of 2 or more). */
export function folderCycles(imports: readonly Import[]): string[][] {
	const graph = folderGraph(imports);
	const order = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const cycles: string[][] = [];
	const visit = (folder: string) => {
		order.set(folder, order.size);
		low.set(folder, order.size - 1);
		stack.push(folder);
		for (const next of graph.get(folder) ?? []) {
			if (!order.has(next)) visit(next);
			if (stack.includes(next)) low.set(folder, Math.min(low.get(folder) ?? 0, low.get(next) ?? 0));
		}
		if (low.get(folder) !== order.get(folder)) return;
		const component = stack.splice(stack.indexOf(folder));
		if (component.length > 1) cycles.push(component.sort());
	};
	for (const folder of graph.keys()) if (!order.has(folder)) visit(folder);
	return cycles;
}
