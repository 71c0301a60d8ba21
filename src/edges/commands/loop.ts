/** `/loop`: the user's command to send a prompt again after every run until the answer holds a marker. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { LOOP_USAGE, parseLoopArgs } from "../../core/rules/loop-args.ts";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { warnOfInertBudget } from "../host/model-price.ts";
import { tell } from "../host/tell.ts";
import type { Engine } from "../run/engine.ts";

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
