import { describe, expect, it } from "vitest";
import { rewriteReviewError } from "../../src/core/rules/edit-gates.ts";
import { rewritePlanError } from "../../src/edges/checks/checked-edit.ts";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { PLAN_NOTICES, planRewriteError, reviewRewritten } from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";

const item = (text: string, status: TodoStatus = "not_started", review = false): TodoItem =>
	review ? { text, status, review } : { text, status };

describe("a rewrite keeps every open item the user must review, or is refused", () => {
	const before = [item("Write the code", "completed"), item("Release notes", "in_progress", true), item("Tag it")];

	it("keeping it with its text and the mark is fine, wherever it now stands", () => {
		expect(rewriteReviewError(before, [item("Tag it"), item("Release notes", "not_started", true)])).toBeNull();
	});

	it.each([
		["dropping it", [item("Write the code"), item("Tag it")]],
		["unmarking it", [item("Release notes"), item("Tag it")]],
		["renaming it", [item("Release notes, final", "not_started", true)]],
	])("%s is refused, naming the item and how the user closes it", (_name, after) => {
		expect(rewriteReviewError(before, after)?.message).toBe(reviewRewritten(1, "Release notes"));
		expect(rewriteReviewError(before, after)?.detail).toBe("review item dropped");
	});

	it("two review items with one text need two in the new list", () => {
		const twice = [item("Check", "not_started", true), item("Check", "in_progress", true)];
		expect(rewriteReviewError(twice, [item("Check", "not_started", true)])?.message).toBe(reviewRewritten(1, "Check"));
		expect(
			rewriteReviewError(
				twice,
				twice.map((todo) => ({ ...todo, status: "not_started" })),
			),
		).toBeNull();
	});

	it("a review item the user already closed (completed or abandoned) may go", () => {
		const closed = [item("Approved", "completed", true), item("Dropped by the user", "abandoned", true)];
		expect(rewriteReviewError(closed, [])).toBeNull();
	});
});

describe("a rewrite of a list that follows a plan file keeps every open item, or is refused and the user told", () => {
	const before = [item("Parse", "completed"), item("Print", "in_progress"), item("Test")];

	it("without a followed file, or keeping every open item with its text, anywhere, is fine", () => {
		const { ctx } = createFakeCtx();
		expect(rewritePlanError(ctx, undefined, before, [])).toBeNull();
		expect(rewritePlanError(ctx, "PLAN.md", before, [item("Test"), item("Print"), item("More")])).toBeNull();
	});

	it("dropping one is refused, naming it, and the user reads why", () => {
		const { ctx, ui } = createFakeCtx();
		const error = rewritePlanError(ctx, "PLAN.md", before, [item("Print"), item("Test, reworded")]);
		expect(error).toEqual({
			message: planRewriteError("PLAN.md", 'the open item [2] "Test"'),
			detail: "plan item dropped",
		});
		expect(ui.notifications).toEqual([
			{ message: PLAN_NOTICES.rewriteRefusedOne("PLAN.md", "[2] Test"), type: "warning" },
		]);
	});

	it("dropping several names them all", () => {
		const { ctx } = createFakeCtx();
		expect(rewritePlanError(ctx, "PLAN.md", before, [])?.message).toBe(
			planRewriteError("PLAN.md", 'the open items [1] "Print", [2] "Test"'),
		);
	});
});
