import { describe, expect, it } from "vitest";
import { withInserted, withMoved, withRemoved, withStatus } from "../../src/core/list/changes.ts";
import { hasLinks, linkProblem, subtasksOf } from "../../src/core/list/links.ts";
import { pickNextIndex } from "../../src/core/list/queries.ts";
import {
	isReady,
	nextToStart,
	nextWorkable,
	openSubtasks,
	openWaits,
	parentsCompletedBy,
	waitingItems,
} from "../../src/core/list/ready.ts";
import { item, PLAN, planWith } from "../helpers/linked-lists.ts";

describe("a list's links must point into it, without a cycle, one level deep", () => {
	it("accepts a sound plan and a list without links", () => {
		expect(linkProblem(PLAN)).toBeUndefined();
		expect(linkProblem([item("a"), item("b")])).toBeUndefined();
		expect(hasLinks(PLAN)).toBe(true);
		expect(hasLinks([item("a")])).toBe(false);
	});

	it("names an index that is not in the list", () => {
		expect(linkProblem([item("a", "not_started", { blockedBy: [3] })])).toEqual({
			kind: "unknown",
			index: 0,
			field: "blockedBy",
			target: 3,
		});
		expect(linkProblem([item("a"), item("b", "not_started", { parent: -1 })])).toEqual({
			kind: "unknown",
			index: 1,
			field: "parent",
			target: -1,
		});
	});

	it("names an item that waits for itself, is its own parent, or waits for one item twice", () => {
		expect(linkProblem([item("a", "not_started", { blockedBy: [0] })])).toEqual({
			kind: "self",
			index: 0,
			field: "blockedBy",
		});
		expect(linkProblem([item("a", "not_started", { parent: 0 })])).toEqual({ kind: "self", index: 0, field: "parent" });
		expect(linkProblem([item("a"), item("b", "not_started", { blockedBy: [0, 0] })])).toEqual({
			kind: "twice",
			index: 1,
			target: 0,
		});
	});

	it("refuses a parent that is itself a subtask, and a parent that waits for its own subtask", () => {
		const nested = [item("a"), item("b", "not_started", { parent: 0 }), item("c", "not_started", { parent: 1 })];
		expect(linkProblem(nested)).toEqual({ kind: "nested", index: 2, parent: 1, grandparent: 0 });
		const waitsForChild = [item("a", "not_started", { blockedBy: [1] }), item("b", "not_started", { parent: 0 })];
		expect(linkProblem(waitsForChild)).toEqual({ kind: "waits-for-subtask", index: 0, subtask: 1 });
	});

	it("names a cycle of waits, and one through a subtask waiting for its parent", () => {
		const waits = [
			item("a", "not_started", { blockedBy: [2] }),
			item("b", "not_started", { blockedBy: [0] }),
			item("c", "not_started", { blockedBy: [1] }),
		];
		expect(linkProblem(waits)).toEqual({
			kind: "cycle",
			steps: [
				{ from: 0, to: 2, via: "waits" },
				{ from: 2, to: 1, via: "waits" },
				{ from: 1, to: 0, via: "waits" },
			],
		});
		const throughParent = [item("a"), item("b", "not_started", { parent: 0, blockedBy: [0] })];
		expect(linkProblem(throughParent)).toEqual({
			kind: "cycle",
			steps: [
				{ from: 0, to: 1, via: "subtask" },
				{ from: 1, to: 0, via: "waits" },
			],
		});
	});

	it("lists an item's subtasks in list order", () => {
		expect(subtasksOf(PLAN, 2)).toEqual([3, 4]);
		expect(subtasksOf(PLAN, 0)).toEqual([]);
	});
});

describe("an item is ready when everything it and its parent wait for is completed", () => {
	it("waits for its own blockers and its parent's", () => {
		const withParentWait = [
			item("x"),
			item("p", "not_started", { blockedBy: [0] }),
			item("c", "not_started", { parent: 1 }),
		];
		expect(openWaits(withParentWait, 2)).toEqual([0]);
		expect(isReady(withParentWait, 2)).toBe(false);
		expect(isReady(withStatus(withParentWait, [0], "completed"), 2)).toBe(true);
	});

	it("an abandoned blocker is never completed: its dependents stay waiting", () => {
		const list = planWith({ 0: "abandoned" });
		expect(openWaits(list, 1)).toEqual([0]);
		expect(waitingItems(list)).toEqual([1, 4, 5]);
	});

	it("a finished item is not ready: there is nothing left to do", () => {
		expect(isReady(planWith({ 0: "completed" }), 0)).toBe(false);
		expect(isReady(PLAN, 99)).toBe(false);
	});

	it("works a parent through its subtasks: the next action is its first ready subtask", () => {
		expect(openSubtasks(PLAN, 2)).toEqual([3, 4]);
		expect(nextWorkable(planWith({ 0: "completed", 1: "completed" }))).toBe(3);
		expect(nextWorkable(planWith({ 0: "completed", 1: "completed", 3: "completed" }))).toBe(4);
	});

	it("the next action is the first workable item in progress, else the first workable one in list order", () => {
		expect(nextWorkable(PLAN)).toBe(0);
		expect(nextWorkable(planWith({ 3: "in_progress" }))).toBe(3);
		// [1] is in progress but still waits for [0]: the next action is [0].
		expect(nextWorkable(planWith({ 1: "in_progress" }))).toBe(0);
		expect(pickNextIndex(planWith({ 0: "abandoned", 3: "abandoned" }))).toBeUndefined();
	});

	it("the next to start is the first workable item not started, whatever is in progress", () => {
		expect(nextToStart(planWith({ 0: "in_progress" }))).toBe(3);
		expect(nextToStart(planWith({ 0: "completed", 3: "in_progress" }))).toBe(1);
		expect(
			nextToStart([item("Build", "in_progress"), item("Deploy", "not_started", { blockedBy: [0] })]),
		).toBeUndefined();
	});

	it("without links, the next action is the first item in progress, else the first not started", () => {
		expect(nextWorkable([item("a", "completed"), item("b"), item("c", "in_progress")])).toBe(2);
		expect(nextWorkable([item("a", "completed"), item("b", "abandoned")])).toBeUndefined();
	});
});

describe("a parent completes with its last subtask", () => {
	it("completing the last open subtask completes the parent; an earlier one does not", () => {
		expect(parentsCompletedBy(PLAN, [3], "completed")).toEqual([]);
		expect(parentsCompletedBy(planWith({ 3: "completed" }), [4], "completed")).toEqual([2]);
		expect(parentsCompletedBy(PLAN, [3, 4], "completed")).toEqual([2]);
	});

	it("abandoning the last open subtask completes the parent when another subtask was completed", () => {
		expect(parentsCompletedBy(planWith({ 3: "completed" }), [4], "abandoned")).toEqual([2]);
		expect(parentsCompletedBy(planWith({ 3: "abandoned" }), [4], "abandoned")).toEqual([]);
	});

	it("a parent already finished, or finished in the same call, is not completed again", () => {
		expect(parentsCompletedBy(planWith({ 2: "completed", 3: "completed" }), [4], "completed")).toEqual([]);
		expect(parentsCompletedBy(PLAN, [2, 3, 4], "completed")).toEqual([]);
	});

	it("starting or reopening a subtask completes nothing", () => {
		expect(parentsCompletedBy(planWith({ 3: "completed" }), [4], "in_progress")).toEqual([]);
	});
});

describe("changes that move items keep every link on the same item", () => {
	it("insert: the items from the insertion point on move down, and so do the links to them", () => {
		const list = withInserted(PLAN, 1, [item("New")]);
		expect(list.map((todo) => [todo.text, todo.blockedBy, todo.parent])).toEqual([
			["Design the schema", undefined, undefined],
			["New", undefined, undefined],
			["Write the migration", [0], undefined],
			["Ship the feature", undefined, undefined],
			["Add the API", undefined, 3],
			["Add the UI", [4], 3],
			["Release", [2, 3], undefined],
		]);
	});

	it("remove: links to a removed item are dropped, the rest close up; an item left with no wait has none", () => {
		const list = withRemoved(PLAN, [0, 3]);
		expect(list).toEqual([
			item("Write the migration"),
			item("Ship the feature"),
			item("Add the UI", "not_started", { parent: 1 }),
			item("Release", "not_started", { blockedBy: [0, 1] }),
		]);
		expect(Object.keys(list[0] ?? {})).toEqual(["text", "status"]);
	});

	it("move: the moved item and the items between keep their links", () => {
		const list = withMoved(PLAN, 5, 0);
		expect(list[0]).toEqual(item("Release", "not_started", { blockedBy: [2, 3] }));
		expect(list[2]).toEqual(item("Write the migration", "not_started", { blockedBy: [1] }));
		expect(list[5]).toEqual(item("Add the UI", "not_started", { parent: 3, blockedBy: [4] }));
		expect(withMoved(PLAN, 0, 5)[5]).toEqual(item("Design the schema"));
		expect(withMoved(PLAN, 0, 5)[0]).toEqual(item("Write the migration", "not_started", { blockedBy: [5] }));
	});
});
