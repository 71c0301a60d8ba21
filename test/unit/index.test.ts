import { beforeEach, describe, expect, it } from "vitest";
import tilDone, { COMPLETE_MESSAGE_TYPE, COUNTDOWN_MESSAGE_TYPE } from "../../src/index.ts";
import { resetState } from "../../src/state.ts";
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

	it("registers the two commands", () => {
		expect([...pi.commands.keys()]).toEqual(["todos", "loop"]);
	});

	it("registers a renderer for each custom message type and one for the headless stop entry", () => {
		expect([...pi.renderers.keys()]).toEqual([
			"til-done-context",
			COUNTDOWN_MESSAGE_TYPE,
			"til-done-loop",
			COMPLETE_MESSAGE_TYPE,
		]);
		expect([...pi.entryRenderers.keys()]).toEqual([COMPLETE_MESSAGE_TYPE]);
	});

	it("sends nothing while registering", () => {
		expect(pi.sent).toEqual([]);
		expect(pi.userMessages).toEqual([]);
		expect(pi.entries).toEqual([]);
	});
});
