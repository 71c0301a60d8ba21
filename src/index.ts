/**
 * pi-til-done: an ordered todo list for pi that keeps the agent working until every item is finished.
 * The factory only registers; all state is rebuilt from the session when it starts.
 */

import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { checkEnv } from "./edges/checks/item-checks.ts";
import { registerGoalCommand } from "./edges/commands/goal.ts";
import { registerLoopCommand } from "./edges/commands/loop.ts";
import { registerTodosCommand } from "./edges/commands/todos-command.ts";
import { earlierCopy, standAside } from "./edges/host/one-copy.ts";
import { scopedApi } from "./edges/host/scoped-api.ts";
import { registerEventHandlers, registerFlags, registerMessageRenderers } from "./events.ts";
import { getConfig, sessionOf } from "./state.ts";
import { createEditTodosTool, createListTodosTool, createPauseTodosTool, createWriteTodosTool } from "./tools.ts";

/** Where this copy was loaded from, to tell two copies apart. */
const HERE = fileURLToPath(import.meta.url);

export default function tilDone(host: ExtensionAPI): void {
	const first = earlierCopy(host, HERE);
	if (first !== undefined) {
		standAside(host, first, HERE);
		return;
	}
	// This instance's session keeps its own part of the store: nothing it registers reads or writes another's.
	const pi = scopedApi(host, sessionOf(host));
	registerFlags(pi);
	registerMessageRenderers(pi);
	const engine = registerEventHandlers(pi);
	const checks = checkEnv(pi, getConfig);
	pi.registerTool(createWriteTodosTool(checks));
	pi.registerTool(createListTodosTool());
	pi.registerTool(createEditTodosTool(checks));
	pi.registerTool(createPauseTodosTool());
	registerTodosCommand(pi, engine, getConfig);
	registerLoopCommand(pi, engine, getConfig);
	registerGoalCommand(pi, engine, getConfig);
}

export * from "./core/model/types.ts";
export * from "./core/rules/keys.ts";
