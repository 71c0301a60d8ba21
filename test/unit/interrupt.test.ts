/** Ctrl+C held while a piece of work lets go of what it holds: stopped at once, raised again once it has. */
import { describe, expect, it, vi } from "vitest";
import { holdInterrupt } from "../../src/edges/host/interrupt.ts";

describe("an interrupt held while work lets go", () => {
	it("none caught: released with nothing raised, and no listener left", async () => {
		const before = process.listenerCount("SIGINT");
		const stop = vi.fn();
		const release = holdInterrupt(stop);
		expect(process.listenerCount("SIGINT")).toBe(before + 1);
		await release();
		expect(stop).not.toHaveBeenCalled();
		expect(process.listenerCount("SIGINT")).toBe(before);
	});

	it("one caught: the work is stopped at once, and the interrupt raised again once it is released", async () => {
		const stop = vi.fn();
		const release = holdInterrupt(stop);
		process.emit("SIGINT", "SIGINT");
		expect(stop).toHaveBeenCalledTimes(1);
		// Stands in for the process's end: the interrupt raised again reaches the listener left.
		const raised = new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
		await release();
		await raised;
		expect(stop).toHaveBeenCalledTimes(1);
	});
});
