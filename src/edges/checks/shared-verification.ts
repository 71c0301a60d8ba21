/**
 * A shared plan's verdict kept by a session, whoever verified the branch's tip (edges/team/shared-verdict.ts): stored
 * through the same bookkeeping as a verification of its own, and said once with whose it is. Loaded with the remote.
 */

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { TodoItem } from "../../core/model/types.ts";
import { type SharedVerdict, sharedFindings } from "../../core/rules/shared-verdict.ts";
import { SHARED_VERDICT_TEXTS } from "../../core/texts/user/shared-verdict.ts";
import { getChain } from "../../state.ts";
import { tell } from "../host/tell.ts";
import { keepVerdict } from "./verification.ts";

/**
 * Stores a shared plan's verdict on `checked` (the list as it was when the verification began), whoever verified it,
 * and says whose it is. It reopens nothing: the plan's items are landed on its branch.
 */
export function applySharedVerdict(
	pi: ExtensionAPI,
	ctx: ExtensionContext,
	verdict: SharedVerdict,
	checked: readonly TodoItem[],
	on: { branch: string; remote: string },
): void {
	const { passed, failed, checks } = sharedFindings(verdict);
	const shared = { branch: on.branch, remote: on.remote, tip: verdict.tip, host: verdict.host };
	const judge = verdict.judge ? { judge: verdict.judge } : {};
	keepVerdict(pi, { passed, failed, checks, of: checked, ...judge, shared }, getChain());
	tell(ctx, SHARED_VERDICT_TEXTS.taken(shared, passed, failed, checks), passed ? "info" : "warning");
}
