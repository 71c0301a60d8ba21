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

	it("registers the thirteen flags", () => {
		expect([...pi.flags.keys()]).toEqual([
			"til-done-countdown",
			"til-done-max-continue",
			"til-done-max-no-progress",
			"til-done-max-failures",
			"til-done-backoff-ms",
			"til-done-check-timeout",
			"til-done-budget-tokens",
			"til-done-budget-cost",
			"til-done-spend-factor",
			"til-done-model-checks",
			"til-done-check",
			"til-done-paused",
			"til-done-panel",
		]);
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
