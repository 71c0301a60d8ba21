import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeState } from "../fixtures/probe-extension.ts";
import { type PiHarness, startPi } from "../helpers/sdk.ts";

const PROBE = fileURLToPath(new URL("../fixtures/probe-extension.ts", import.meta.url));

describe("in-process pi harness", () => {
	let pi: PiHarness | undefined;

	beforeEach(() => {
		probeState().log.length = 0;
		probeState().hooks = {};
	});

	afterEach(async () => {
		await pi?.dispose();
		pi = undefined;
	});

	it("runs the probe tool through the fake model and survives reopen", async () => {
		pi = await startPi({
			extensionPaths: [PROBE],
			persist: true,
			responses: [
				fauxAssistantMessage(fauxToolCall("probe_echo", { text: "hello" }), { stopReason: "toolUse" }),
				fauxAssistantMessage("done"),
			],
		});
		expect(pi.ui.status.get("probe")).toBe("probe ready");

		// The prompt resolves once the run has ended and pi has settled.
		await pi.prompt("please echo");

		const log = probeState().log.map((record) => record.event);
		expect(log).toContain("probe_echo:end");
		expect(pi.ui.status.get("probe")).toBe("echoed hello");
		expect(pi.ui.statusHistory.map((call) => call.text)).toEqual(["probe ready", "echoed hello"]);
		expect(pi.agentRuns()).toBe(1);
		expect(pi.modelCalls).toHaveLength(2);
		expect(pi.userTexts()).toEqual(["please echo", "please echo"]);
		expect(pi.extensionErrors).toEqual([]);

		const hasToolResult = () =>
			pi!
				.branch()
				.some(
					(entry) =>
						entry.type === "message" && entry.message.role === "toolResult" && entry.message.toolName === "probe_echo",
				);
		expect(hasToolResult()).toBe(true);
		const file = pi.sessionFile;
		expect(file).toBeDefined();

		await pi.reopen();
		expect(pi.sessionFile).toBe(file);
		expect(hasToolResult()).toBe(true);
		expect(pi.branch().some((entry) => entry.type === "custom" && entry.customType === "probe-echo")).toBe(true);
		const starts = probeState().log.filter((record) => record.event === "session_start");
		expect(starts.map((record) => record.info.reason)).toEqual(["startup", "startup"]);
		expect(probeState().log.find((record) => record.event === "session_shutdown")?.info.reason).toBe("quit");
	});

	it("feeds keypresses to onTerminalInput handlers and honours unsubscribe", async () => {
		pi = await startPi({ extensionPaths: [PROBE] });
		const seen: string[] = [];
		const off = pi.ui.ui.onTerminalInput((data) => {
			seen.push(data);
			return { consume: true };
		});
		expect(pi.ui.pressKey("x")).toBe(true);
		off();
		expect(pi.ui.pressKey("y")).toBe(false);
		expect(seen).toEqual(["x"]);
	});

	it("reports ctx.mode and ctx.hasUI per mode", async () => {
		pi = await startPi({ extensionPaths: [PROBE], mode: "print" });
		const start = probeState().log.find((record) => record.event === "session_start");
		expect(start?.info).toMatchObject({ mode: "print", hasUI: false });
	});
});
