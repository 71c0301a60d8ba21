/**
 * What every start of pi loads of ours is what every session needs: what most sessions never use (the workers, the
 * judge, the checkpoints, plan files, the remote, `/todos`'s subcommands, the `/todos` view, `/loop`'s parser, the
 * ring, and each one's texts) is imported where it is first needed, so loading the extension never evaluates it
 * (docs/ARCHITECTURE.md, rule 10).
 */

import { describe, expect, it } from "vitest";
import { loadedWith, MODULES, type ModuleImport } from "../helpers/imports.ts";

/** What most sessions never use, by feature: a folder of src/ (ending in `/`) or a module. */
const ON_FIRST_USE: Readonly<Record<string, readonly string[]>> = {
	workers: [
		"edges/workers/",
		"core/rules/workers.ts",
		"core/rules/worker-reports.ts",
		"edges/commands/workers.ts",
		"core/texts/user/workers.ts",
	],
	judge: ["edges/checks/judge.ts", "edges/checks/evidence.ts", "core/rules/judge.ts"],
	checkpoints: [
		"edges/git/git.ts",
		"edges/git/recorder.ts",
		"edges/git/chain-start.ts",
		"core/rules/checkpoint-rules.ts",
		"edges/commands/checkpoints.ts",
		"core/texts/user/checkpoints.ts",
	],
	"plan files": [
		"edges/files/",
		"core/rules/plan-file.ts",
		"core/rules/plan-file-sync.ts",
		"edges/commands/plan-file.ts",
		"core/texts/user/plan-file.ts",
	],
	"the remote": [
		"edges/team/",
		"edges/commands/remote.ts",
		"core/texts/user/remote.ts",
		"core/rules/shared-verdict.ts",
		"edges/checks/shared-verification.ts",
		"core/texts/user/shared-verdict.ts",
	],
	"/todos's subcommands": ["edges/commands/todos.ts", "core/rules/todo-args.ts", "core/texts/user/todos.ts"],
	"the list view": ["core/views/list-view.ts", "core/texts/user/list-view.ts"],
	"/loop's parser": ["core/rules/loop-args.ts"],
	"the ring": ["edges/host/ring.ts"],
};

const isPart = (module: string, part: string) => (part.endsWith("/") ? module.startsWith(part) : module === part);

describe("a start loads none of what most sessions never use", () => {
	const loaded = loadedWith("index.ts");

	it.each(Object.entries(ON_FIRST_USE))("%s: loaded only where first needed", (_feature, parts) => {
		expect(loaded.filter((module) => parts.some((part) => isPart(module, part)))).toEqual([]);
	});

	it("every part named is a module of src/ or a folder that holds some", () => {
		const parts = Object.values(ON_FIRST_USE).flat();
		expect(parts.filter((part) => !MODULES.some((module) => isPart(module, part)))).toEqual([]);
	});
});

describe("what a start loads follows static imports only", () => {
	const imports = (graph: Record<string, ModuleImport[]>) => (module: string) => graph[module] ?? [];
	const value = (target: string): ModuleImport => ({ target, typeOnly: false, dynamic: false, local: true });

	it("a module imported statically is loaded, and what it imports", () => {
		const graph = { "index.ts": [value("events.ts")], "events.ts": [value("state.ts")] };
		expect(loadedWith("index.ts", imports(graph))).toEqual(["events.ts", "index.ts", "state.ts"]);
	});

	it("a module imported by import() or for its types alone is not", () => {
		const graph = {
			"index.ts": [
				{ target: "edges/workers/session-workers.ts", typeOnly: false, dynamic: true, local: true },
				{ target: "core/rules/judge.ts", typeOnly: true, dynamic: false, local: true },
			],
		};
		expect(loadedWith("index.ts", imports(graph))).toEqual(["index.ts"]);
	});
});
