import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PiHarness, startPi } from "../helpers/sdk.ts";
import { completeTodo, EXTENSION_PATH, say, startTodo, withEnv, workItem, writeTodos } from "../helpers/todo-model.ts";

const CONTINUATION_AFTER_ITEM_0 = [
	"There are still incomplete todos. Continue working on the remaining todos.",
	"",
	"Remaining items:",
	"– [1] Implement migration script",
	"– [2] Add API endpoints",
	"",
	"Next action: edit_todos with action 'start' and indices [1]",
].join("\n");

describe("the faithful core in the real pi runtime", () => {
	let pi: PiHarness | undefined;
	let restoreEnv: () => void;

	beforeEach(() => {
		restoreEnv = withEnv({ TIL_DONE_COUNTDOWN: "0.02" });
	});
	afterEach(async () => {
		await pi?.dispose();
		pi = undefined;
		restoreEnv();
	});

	it("continues a list the model left half done, then rebuilds it from the session file", async () => {
		pi = await startPi({
			extensionPaths: [EXTENSION_PATH],
			persist: true,
			responses: [
				writeTodos(["Write database schema", "Implement migration script", "Add API endpoints"]),
				...workItem(0),
				// The continuation run: the model works item 1 and stops again.
				startTodo(1),
				completeTodo(1),
				say("Item 1 done."),
			],
		});
		await pi.prompt("Build the data layer");
		await pi.waitForSettled(2);
		await pi.settle();

		expect(pi.agentRuns()).toBe(3);
		expect(pi.userTexts()).toContain(CONTINUATION_AFTER_ITEM_0);
		expect(pi.ui.status.get("til-done")).toBe("📋 2/3");
		expect(pi.extensionErrors).toEqual([]);

		await pi.reopen();
		expect(pi.ui.status.get("til-done")).toBe("📋 2/3");
		expect(pi.ui.status.get("til-done-active")).toBeUndefined();
	});
});
