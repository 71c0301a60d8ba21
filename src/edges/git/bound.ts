/**
 * The bound every snapshot of a session keeps: untracked files over `--til-done-max-untracked-mb` are left out (a
 * worker's tree, a checkpoint and the judge's evidence never copy them), the biggest of the rest past ten times it in
 * all (a snapshot's time grows with what it reads), and so are repositories nested in the tree
 * with no commit yet (git cannot take one in); the user is told which, once.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { UNTRACKED_TOTAL_FACTOR } from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_TEXTS } from "../../core/texts/user/checkpoints.ts";
import { getConfig, takeUnreported } from "../../state.ts";
import { tell } from "../host/tell.ts";
import type { SnapshotBound } from "./git.ts";

/** The session's bound on snapshots, which names what it leaves out once per session. */
export function snapshotBound(ctx: ExtensionContext): SnapshotBound {
	const maxMb = getConfig().maxUntrackedMb;
	return {
		maxMb,
		leftOut: (files) => {
			for (const text of takeUnreported([CHECKPOINT_TEXTS.leftOut(files, maxMb)])) tell(ctx, text, "warning");
		},
		beyondTotal: (files) => {
			const said = CHECKPOINT_TEXTS.beyondTotal(files, maxMb * UNTRACKED_TOTAL_FACTOR);
			for (const text of takeUnreported([said])) tell(ctx, text, "warning");
		},
		emptyRepositories: (paths) => {
			for (const text of takeUnreported([CHECKPOINT_TEXTS.emptyRepositories(paths)])) tell(ctx, text, "warning");
		},
	};
}
