/**
 * `/todos` as pi lists it, registered at every start; its subcommands (edges/commands/todos.ts, their texts and
 * parsers) are loaded on the command's first use: most sessions never type it.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { TODOS_DESCRIPTION } from "../../core/texts/user.ts";
import type { Engine } from "../run/engine.ts";

export function registerTodosCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("todos", {
		description: TODOS_DESCRIPTION,
		getArgumentCompletions: async (prefix) => (await import("./todos.ts")).completeTodosArgs(prefix),
		handler: async (args, ctx) => {
			const config = getConfig();
			const { runTodos } = await import("./todos.ts");
			return runTodos(pi, engine, config, args, ctx);
		},
	});
}
