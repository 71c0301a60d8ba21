/** `/goal`: the user's command to work until the independent judge finds a condition met. */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { MAX_GOAL_LENGTH, parseGoal, type TilDoneConfig } from "../../core/rules/settings.ts";
import { GOAL_ANSWERS } from "../../core/texts/user/goal.ts";
import { GOAL_DESCRIPTION } from "../../core/texts/user.ts";
import { getGoal } from "../../state.ts";
import { warnOfInertBudget } from "../host/model-price.ts";
import { tell } from "../host/tell.ts";
import type { Engine } from "../run/engine.ts";
import { refuseCommand } from "./refuse.ts";

/** The word that ends the goal in progress. */
const OFF = "off";

export function registerGoalCommand(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.registerCommand("goal", {
		description: GOAL_DESCRIPTION,
		handler: async (args, ctx) => {
			const words = args.trim();
			if (words === "") {
				const goal = getGoal();
				return tell(ctx, goal ? GOAL_ANSWERS.current(goal.condition, goal.runs) : GOAL_ANSWERS.none);
			}
			if (words.toLowerCase() === OFF) return engine.endGoal(ctx);
			const condition = parseGoal(words);
			if (condition === undefined) {
				const tooLong = GOAL_ANSWERS.tooLong(words.length, MAX_GOAL_LENGTH);
				return refuseCommand(engine, ctx, `${tooLong}\n${GOAL_ANSWERS.usage(MAX_GOAL_LENGTH)}`);
			}
			warnOfInertBudget(ctx, getConfig());
			await engine.startGoal(condition, ctx);
		},
	});
}
