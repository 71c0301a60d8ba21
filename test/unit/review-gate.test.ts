import { describe, expect, it } from "vitest";
import type { TodoItem, TodoStatus } from "../../src/types.ts";
import { rewriteReviewError } from "../../src/verify/edits.ts";
import { reviewRewritten } from "../helpers/expected.ts";

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
