/** Which of pi's tools the session has active, as the extension needs to know it. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/**
 * Whether the model can change the list in this session: `edit_todos` is active. A session without it (a subagent
 * whose tools leave ours out, a user who switched them off) gets no injection, no reminder and no continuation.
 */
export function todoToolsActive(pi: Pick<ExtensionAPI, "getActiveTools">): boolean {
	try {
		return pi.getActiveTools().includes("edit_todos");
	} catch {
		return false;
	}
}
