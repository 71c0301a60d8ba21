/** A change of the list not made by a tool (the user's, a verification's, a worker's), stored on the session branch. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { cloneTodos } from "../../core/list/items.ts";
import type { TodoDetails } from "../../core/model/types.ts";
import { SNAPSHOT_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { getTodos, resetChain } from "../../state.ts";

/** Stores the list as it is now on the branch, replayed like a tool result on a reload or a move in the tree. */
export function storeList(pi: ExtensionAPI): void {
	const details: TodoDetails = { action: "write", todos: cloneTodos(getTodos()) };
	pi.appendEntry(SNAPSHOT_ENTRY_TYPE, details);
}

/** Stores the list the user changed; the user took the wheel, so the chain starts again. */
export function commitUserList(pi: ExtensionAPI): void {
	storeList(pi);
	resetChain();
}
