import { beforeEach, describe, expect, it } from "vitest";
import { buildContextInjection, buildContinuationPrompt, formatTodoListText } from "../../src/formatting.ts";
import { getTodos, resetState } from "../../src/state.ts";
import { createEditTodosTool, createWriteTodosTool } from "../../src/tools.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";

const textOf = (result: { content: { type: string; text?: string }[] }) =>
	result.content.map((part) => part.text ?? "").join("");

/** Characters the extension adds to the model's context while a model works the list item by item. */
async function workWholeList(count: number, textLength: number): Promise<{ added: number; fullRepeat: number }> {
	const { ctx } = createFakeCtx({ hasUI: false });
	const write = createWriteTodosTool();
	const edit = createEditTodosTool();
	const todos = Array.from({ length: count }, (_, i) => ({
		text: `${i} ${"x".repeat(textLength)}`.slice(0, textLength),
	}));
	let added = 0;
	let fullRepeat = 0;
	const count_ = (text: string) => {
		added += text.length;
		fullRepeat += formatTodoListText(getTodos()).length;
	};
	count_(textOf(await write.execute("w", { mode: "replace", todos }, undefined, undefined, ctx)));
	count_(buildContextInjection(getTodos()));
	for (let i = 0; i < count; i++) {
		count_(textOf(await edit.execute(`s${i}`, { action: "start", indices: [i] }, undefined, undefined, ctx)));
		count_(textOf(await edit.execute(`c${i}`, { action: "complete", indices: [i] }, undefined, undefined, ctx)));
		// A lazy model stops after every item: one continuation prompt per item left.
		if (i < count - 1) count_(buildContinuationPrompt(getTodos()));
	}
	return { added, fullRepeat };
}

describe("token budget: what working a list adds to the model's context", () => {
	beforeEach(() => resetState());

	it("100 items of 1,000 characters add at most a tenth of what repeating the full list adds", async () => {
		const { added, fullRepeat } = await workWholeList(100, 1000);
		expect(fullRepeat).toBeGreaterThan(20_000_000);
		expect(added / fullRepeat).toBeLessThanOrEqual(0.1);
	});

	it("every result, injection and prompt of that work stays near the 2,000-character budget", async () => {
		const { ctx } = createFakeCtx({ hasUI: false });
		const todos = Array.from({ length: 100 }, (_, i) => ({ text: `${i} ${"y".repeat(999)}`.slice(0, 1000) }));
		const result = await createWriteTodosTool().execute("w", { mode: "replace", todos }, undefined, undefined, ctx);
		expect(textOf(result).length).toBeLessThanOrEqual(2_000 + 100 * 12);
		expect(buildContextInjection(getTodos()).length).toBeLessThanOrEqual(2_000 + 100 * 12 + 300);
		expect(buildContinuationPrompt(getTodos()).length).toBeLessThanOrEqual(2_000 + 100 * 12 + 300);
	});

	it("a short list is shown in full, exactly as the seed formats it", async () => {
		const { added, fullRepeat } = await workWholeList(10, 20);
		expect(added).toBeGreaterThan(fullRepeat);
	});
});
