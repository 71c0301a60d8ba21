/** Calling the extension's tools the way pi does, and checking an error row, for the tool tests. */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { expect } from "vitest";
import { getTodos } from "../../src/state.ts";
import type { FakeUi } from "./fake-ctx.ts";
import { must } from "./must.ts";

/** A tool as far as these helpers call it. */
interface CallableTool {
	execute: unknown;
}

/** Calls a tool's `execute`; `params` is unknown so tests can also bypass the schema. Returns its text and details. */
export async function callTool(
	tool: CallableTool,
	params: unknown,
	ctx: ExtensionContext,
): Promise<{ text: string; details: unknown }> {
	const execute = tool.execute as (
		id: string,
		params: unknown,
		signal: undefined,
		onUpdate: undefined,
		ctx: ExtensionContext,
	) => Promise<{ content: { type: string; text: string }[]; details: unknown }>;
	const result = await execute("call-1", params, undefined, undefined, ctx);
	expect(result.content).toHaveLength(1);
	const content = must(result.content[0], "a content block");
	expect(content.type).toBe("text");
	return { text: content.text, details: result.details };
}

/** Asserts an error row: exact text, exact details, list and status bar untouched. */
export async function expectToolError(
	run: Promise<{ text: string; details: unknown }>,
	expected: { action: "write" | "edit"; text: string; error: string },
	ui: FakeUi,
): Promise<void> {
	const before = structuredClone(getTodos());
	const statusCallsBefore = ui.statusCalls.length;
	const result = await run;
	expect(result.text).toBe(expected.text);
	expect(result.details).toStrictEqual({ action: expected.action, todos: [], error: expected.error });
	expect(getTodos()).toEqual(before);
	expect(ui.statusCalls).toHaveLength(statusCallsBefore);
}
