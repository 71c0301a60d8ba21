/** The user's change of the list, stored on the session branch so reload and tree moves replay it like a tool result. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { SNAPSHOT_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { getTodos, resetChain } from "../../state.ts";
import type { TodoDetails } from "../../types.ts";
import { cloneTodos } from "../../validation.ts";

/** Stores the list as it is now on the branch; the user took the wheel, so the chain starts again. */
export function commitUserList(pi: ExtensionAPI): void {
	const details: TodoDetails = { action: "write", todos: cloneTodos(getTodos()) };
	pi.appendEntry(SNAPSHOT_ENTRY_TYPE, details);
	resetChain();
}
