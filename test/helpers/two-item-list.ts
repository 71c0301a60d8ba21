/**
 * The fixture of the property tests of "verified": the real extension through its factory, a fresh pi's own session
 * in RPC mode with a 1 s countdown, a list of two items written by the model, and the steps that move it (the model
 * finishing what is open, the user adding or starting an item, a run's end, a second of time).
 */
import { vi } from "vitest";
import tilDone from "../../src/index.ts";
import { getTodos } from "../../src/state.ts";
import { createFakeCtx, type FakeCtxOptions } from "./fake-ctx.ts";
import { createFakePi, type FakePi } from "./fake-pi.ts";
import { freshProcess, inInstance } from "./store.ts";

export type ListStep = "finish" | "add" | "start" | "runEnd" | "tick";

/** The extension after `session_start` and the model's two-item list; `flags` as pi's command line gives them. */
export async function twoItemList(
	flags: Record<string, string>,
	ctx: FakeCtxOptions = {},
	setUp?: (pi: FakePi) => void,
) {
	// Each run's instance must hold the process, as a fresh pi's does: else it is a guest and takes no setting of the user's.
	freshProcess();
	const pi = createFakePi();
	for (const [flag, value] of Object.entries({ "til-done-countdown": "1", ...flags })) pi.flagValues.set(flag, value);
	setUp?.(pi);
	tilDone(pi.api);
	const fake = createFakeCtx({ mode: "rpc", ...ctx });
	const fire = (event: string, payload: Record<string, unknown> = {}) => pi.fire(event, payload, fake.ctx);
	const tool = (name: string, params: Record<string, unknown>) =>
		pi.tools.get(name)?.execute("call", params as never, undefined, undefined, fake.ctx);
	const command = (args: string) => pi.commands.get("todos")?.handler(args, fake.commandCtx);
	await fire("session_start", { reason: "startup" });
	await fire("input", { source: "rpc", text: "go" });
	await tool("write_todos", { mode: "replace", todos: [{ text: "a" }, { text: "b" }] });
	const open = () =>
		inInstance(pi.api, getTodos).flatMap((todo, index) => (todo.status === "completed" ? [] : [index]));
	const steps: Record<ListStep, () => Promise<unknown>> = {
		finish: async () => (open().length > 0 ? tool("edit_todos", { action: "complete", indices: open() }) : undefined),
		add: async () => command("add another"),
		start: async () => command("start 0"),
		runEnd: async () => {
			const message = { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Done." }] };
			await fire("agent_end", { messages: [message] });
			await fire("agent_settled");
		},
		tick: () => vi.advanceTimersByTimeAsync(1100),
	};
	return { pi, ui: fake.ui, steps };
}
