/**
 * "Done and verified" is never shown, stored or announced for a list with an open item, whatever the user and the model
 * do while a verification runs. Random interleavings of list changes (the model's tools, the user's /todos), run ends
 * and check completions drive the real extension through its factory, with a done-check whose runs the test finishes.
 */

import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { hasIncomplete } from "../../src/core/list/queries.ts";
import { getTodos as readTodos, isVerified as readVerified, resetState } from "../../src/state.ts";
import { runnerEnded } from "../helpers/fake-runner.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
import { inInstance } from "../helpers/store.ts";
import { twoItemList } from "../helpers/two-item-list.ts";

type Action = "finish" | "add" | "start" | "runEnd" | "pass" | "fail" | "tick";
const ACTIONS: readonly Action[] = ["finish", "add", "start", "runEnd", "pass", "fail", "tick"];

/** The API object of the extension instance under test: its part of the store is what the checks read. */
let instance: object = {};
const getTodos = () => inInstance(instance, readTodos);
const isVerified = () => inInstance(instance, readVerified);

/** The extension after `session_start`, with a done-check whose every run waits until the test ends it. */
async function start() {
	resetState();
	const pending: ((code: number) => void)[] = [];
	const list = await twoItemList({ "til-done-check": "npm test" }, {}, (pi) => {
		pi.onExec = (call) => new Promise((resolve) => pending.push((code) => resolve(runnerEnded(call.args, code))));
	});
	instance = list.pi.api;
	const steps: Record<Action, () => Promise<unknown>> = {
		...list.steps,
		pass: async () => pending.shift()?.(0),
		fail: async () => pending.shift()?.(1),
	};
	return { pi: list.pi, ui: list.ui, steps };
}

fakeTimersQuietStderr();

describe("no verified verdict for a list with an open item, in any interleaving", () => {
	it("is never kept in the store, shown on the status bar or announced", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.constantFrom(...ACTIONS), { minLength: 1, maxLength: 25 }), async (actions) => {
				const { pi, ui, steps } = await start();
				for (const action of actions) {
					const told = ui.notifications.length;
					const stayed = pi.reports().length;
					await steps[action]();
					await vi.advanceTimersByTimeAsync(0);
					const open = hasIncomplete(getTodos());
					if (!open) continue;
					expect(isVerified(), action).toBe(false);
					expect(ui.status.get("til-done-check") ?? "", action).not.toMatch(/verified \(/);
					expect(ui.status.get("til-done") ?? "", action).not.toMatch(/Done/);
					const announced = [
						...ui.notifications.slice(told).map((notice) => notice.message),
						...pi
							.reports()
							.slice(stayed)
							.map((line) => line.text),
					];
					expect(
						announced.filter((message) => message.includes("verified")),
						action,
					).toEqual([]);
				}
			}),
			{ numRuns: 150 },
		);
	});

	it("the passes it lets through are real: a finished list whose check passed is verified and announced once", async () => {
		const { pi, ui, steps } = await start();
		await steps.finish();
		await steps.runEnd();
		await steps.pass();
		await vi.advanceTimersByTimeAsync(0);
		expect(isVerified()).toBe(true);
		expect(ui.status.get("til-done-check")).toBe("✓ verified (1 check(s) passed)");
		expect(pi.reports()).toEqual([
			{ level: "success", text: "✓ All 2 todos are done and verified (1 check(s) passed)." },
		]);
		expect(ui.notifications.filter((notice) => notice.message.includes("verified"))).toEqual([]);
	});
});
