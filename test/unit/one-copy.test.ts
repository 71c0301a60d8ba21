import { fileURLToPath } from "node:url";
import { createEventBus } from "@earendil-works/pi-coding-agent";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { earlierCopy, standAside } from "../../src/edges/host/one-copy.ts";
import tilDone from "../../src/index.ts";
import { sameCopyTwice, secondCopy, stderrLine } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";

const ENTRY = fileURLToPath(new URL("../../src/index.ts", import.meta.url));

describe("one copy of the extension acts in a pi", () => {
	it("the first copy pi loads registers everything; a later one on the same bus registers only its warning", async () => {
		const events = createEventBus();
		const first = createFakePi(events);
		const later = createFakePi(events);
		tilDone(first.api);
		tilDone(later.api);
		expect([...first.tools.keys()]).toEqual(["write_todos", "list_todos", "edit_todos", "pause_todos"]);
		expect([...later.tools.keys()]).toEqual([]);
		expect(later.flags.size).toBe(0);
		expect(later.commands.size).toBe(0);
		expect(later.handlerCount("session_start")).toBe(1);

		const { ctx, ui } = createFakeCtx();
		await later.fire("session_start", { reason: "startup" }, ctx);
		expect(ui.notifications).toEqual([{ message: sameCopyTwice(ENTRY), type: "warning" }]);
	});

	it("two copies in two places are each named, the one that acts first", async () => {
		const events = createEventBus();
		const first = createFakePi(events);
		earlierCopy(first.api, "/dev/pi-til-done/src/index.ts");
		const later = createFakePi(events);
		standAside(later.api, "/dev/pi-til-done/src/index.ts", "/home/me/.pi/pi-til-done/dist/index.js");
		const { ctx, ui } = createFakeCtx();
		await later.fire("session_start", { reason: "startup" }, ctx);
		expect(ui.notifications).toEqual([
			{
				message: secondCopy("/dev/pi-til-done/src/index.ts", "/home/me/.pi/pi-til-done/dist/index.js"),
				type: "warning",
			},
		]);
	});

	it("says where each copy lives", () => {
		const events = createEventBus();
		expect(earlierCopy(createFakePi(events).api, "/dev/pi-til-done/src/index.ts")).toBeUndefined();
		expect(earlierCopy(createFakePi(events).api, "/home/me/.pi/pi-til-done/dist/index.js")).toBe(
			"/dev/pi-til-done/src/index.ts",
		);
	});

	it("a new bus (pi's reload, another session) starts over: its first copy acts", () => {
		const before = createFakePi(createEventBus());
		tilDone(before.api);
		const after = createFakePi(createEventBus());
		tilDone(after.api);
		expect(after.tools.size).toBe(4);
	});

	it("in print mode the warning goes to stderr", async () => {
		const events = createEventBus();
		tilDone(createFakePi(events).api);
		const later = createFakePi(events);
		tilDone(later.api);
		const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		onTestFinished(() => stderr.mockRestore());
		const { ctx } = createFakeCtx({ mode: "print" });
		await later.fire("session_start", { reason: "startup" }, ctx);
		expect(stderr.mock.calls.map((call) => call[0])).toEqual([stderrLine(sameCopyTwice(ENTRY))]);
	});
});
