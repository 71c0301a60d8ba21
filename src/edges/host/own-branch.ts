/** The session's branch as this session's own part of it, read safely: what the judge, the workers and `/todos diff` read. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ownBranch } from "../../core/rules/branch.ts";

/** The session's branch, this session's own part of it (a guest's inherited entries left out); [] when pi cannot give it. */
export function ownEntries(ctx: Pick<ExtensionContext, "sessionManager">): readonly unknown[] {
	try {
		return ownBranch(ctx.sessionManager.getBranch());
	} catch {
		return [];
	}
}
