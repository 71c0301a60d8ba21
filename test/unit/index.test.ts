import { beforeEach, describe, expect, it } from "vitest";
import tilDone from "../../src/index.ts";
import { resetState } from "../../src/state.ts";
import { ENTRY_TYPE, MESSAGE_TYPE } from "../helpers/expected.ts";
import { createFakePi } from "../helpers/fake-pi.ts";

beforeEach(() => {
	resetState();
});

describe("the extension factory only registers", () => {
	const pi = createFakePi();
	tilDone(pi.api);

	it("registers the four tools", () => {
		expect([...pi.tools.keys()]).toEqual(["write_todos", "list_todos", "edit_todos", "pause_todos"]);
	});

	it("registers the three commands", () => {
		expect([...pi.commands.keys()]).toEqual(["todos", "loop", "goal"]);
	});

	it("registers a renderer for each custom message type, one for the headless stop entry and one for the lines that stay", () => {
		expect([...pi.renderers.keys()]).toEqual([
			"til-done-context",
			MESSAGE_TYPE.continuation,
			"til-done-loop",
			"til-done-goal",
			MESSAGE_TYPE.complete,
		]);
		expect([...pi.entryRenderers.keys()]).toEqual([MESSAGE_TYPE.complete, ENTRY_TYPE.report]);
	});

	it("sends nothing while registering", () => {
		expect(pi.sent).toEqual([]);
		expect(pi.userMessages).toEqual([]);
		expect(pi.entries).toEqual([]);
	});
});
