/** `/loop`: the user's command to send a prompt again after every run until the answer holds a marker. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { LOOP_USAGE, loopRefused } from "../../core/texts/user/loop.ts";
import { LOOP_DESCRIPTION } from "../../core/texts/user.ts";
import { warnOfInertBudget } from "../host/model-price.ts";
import { tell } from "../host/tell.ts";
import type { Engine } from "../run/engine.ts";
import { refuseCommand } from "./refuse.ts";

export function registerLoopCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("loop", {
		description: LOOP_DESCRIPTION,
		handler: async (args, ctx) => {
			// Its parser is loaded on first use: most sessions never loop.
			const { parseLoopArgs } = await import("../../core/rules/loop-args.ts");
			const parsed = parseLoopArgs(args);
			if ("help" in parsed) return tell(ctx, LOOP_USAGE, "info");
			if ("error" in parsed) return refuseCommand(engine, ctx, loopRefused(parsed.error));
			warnOfInertBudget(ctx, getConfig());
			await engine.startLoop(parsed.spec, ctx);
		},
	});
}
