/** Which of pi's tools the session has active, as the extension needs to know it. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** Whether `name` is among the tools `activeTools` lists; false when pi cannot say (a stale context). */
export function isToolActive(activeTools: () => readonly string[], name: string): boolean {
	try {
		return activeTools().includes(name);
	} catch {
		return false;
	}
}

/**
 * Whether the model can change the list in this session: `edit_todos` is active. A session without it (a guest
 * whose tools leave ours out, a user who switched them off) gets no injection, no reminder and no continuation.
 */
export function todoToolsActive(pi: Pick<ExtensionAPI, "getActiveTools">): boolean {
	return isToolActive(() => pi.getActiveTools(), "edit_todos");
}
