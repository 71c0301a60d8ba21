/** `/loop`: the user's command to send a prompt again after every run until the answer holds a marker. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { Engine } from "../continue/engine.ts";
import { LOOP_USAGE, parseLoopArgs } from "../continue/loop.ts";
import type { TilDoneConfig } from "../settings/config.ts";
import { warnOfInertBudget } from "../spend/report.ts";
import { tell } from "../ui/tell.ts";

export function registerLoopCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("loop", {
		description:
			"Send a prompt again after every run until the answer holds a marker: /loop [--max N] [--until M] <prompt>",
		handler: async (args, ctx) => {
			const parsed = parseLoopArgs(args);
			if ("help" in parsed) return tell(ctx, LOOP_USAGE, "info");
			if ("error" in parsed) return tell(ctx, `/loop: ${parsed.error}\n${LOOP_USAGE}`, "error");
			warnOfInertBudget(ctx, getConfig());
			await engine.startLoop(parsed.spec, ctx);
		},
	});
}
