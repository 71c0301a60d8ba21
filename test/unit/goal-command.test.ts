import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { registerGoalCommand } from "../../src/edges/commands/goal.ts";
import type { Engine } from "../../src/edges/run/engine.ts";
import { resetState, setGoal } from "../../src/state.ts";
import { goalInProgress, NO_GOAL, GOAL_USAGE as USAGE } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";

/** `/goal` with an engine that records what it was asked to do. */
function setup() {
	const pi = createFakePi();
	const asked: string[] = [];
	const engine = {
		startGoal: async (condition: string) => void asked.push(`start ${condition}`),
		endGoal: () => void asked.push("end"),
	} as unknown as Engine;
	registerGoalCommand(pi.api, engine, () => DEFAULT_CONFIG);
	const fake = createFakeCtx({ mode: "rpc" });
	const goal = (args: string) => pi.commands.get("goal")?.handler(args, fake.commandCtx);
	const told = () => fake.ui.notifications.map((notice) => notice.message);
	return { goal, asked, told };
}

beforeEach(() => resetState());

describe("/goal reads its words strictly", () => {
	it("starts a goal with the condition as written, trimmed", async () => {
		const { goal, asked, told } = setup();
		await goal("  Every test passes.\nNo test is skipped.  ");
		expect(asked).toEqual(["start Every test passes.\nNo test is skipped."]);
		expect(told()).toEqual([]);
	});

	it("off, in any case, ends the goal", async () => {
		const { goal, asked } = setup();
		await goal("OFF");
		expect(asked).toEqual(["end"]);
	});

	it("alone: the goal in progress, or that there is none (the usage is for what it refuses)", async () => {
		const { goal, asked, told } = setup();
		await goal("");
		setGoal({ condition: "Every test\npasses.", runs: 1 });
		await goal("  ");
		expect(told()).toEqual([NO_GOAL, goalInProgress(2, "Every test passes.")]);
		expect(asked).toEqual([]);
	});

	it("refuses a condition over 2,000 characters with the usage, and starts nothing", async () => {
		const { goal, asked, told } = setup();
		await goal("x".repeat(2_001));
		expect(asked).toEqual([]);
		expect(told()).toEqual([`/goal: the condition has 2001 characters, more than 2000\n${USAGE}`]);
	});
});
