/**
 * Plan files: how long saving a list of 100 items to its plan file takes (the text, then the atomic write) and how
 * long loading one takes (the read, then the strict parse with every check of `write_todos`). Medians.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePlanMarkdown, planToMarkdown } from "../src/core/rules/plan-file.ts";
import { readPlanFile, writePlanFile } from "../src/edges/files/plan-file-io.ts";
import type { TodoItem } from "../src/types.ts";
import { median } from "./startup.ts";

type Out = (line?: string) => void;

/** 100 items of 200 characters: every third with a check, every fourth (not a subtask) waiting for the one before, subtasks. */
function planOf100(): TodoItem[] {
	return Array.from({ length: 100 }, (_, i): TodoItem => {
		const todo: TodoItem = { text: `Item ${i}: ${"x".repeat(190)}`.slice(0, 200), status: "not_started" };
		if (i % 3 === 0) todo.check = `test -f out/${i}.txt`;
		if (i % 4 === 1 && i % 10 <= 6) todo.blockedBy = [i - 1];
		if (i % 10 > 6) todo.parent = i - (i % 10) + 6;
		return todo;
	});
}

/** Median milliseconds of `fn` over `samples` runs after `warmup`. */
function time(fn: () => void, samples: number, warmup: number): number {
	for (let i = 0; i < warmup; i++) fn();
	const times = Array.from({ length: samples }, () => {
		const start = performance.now();
		fn();
		return performance.now() - start;
	});
	return median(times);
}

export function planFileSection(out: Out, quick: boolean): void {
	const dir = mkdtempSync(join(tmpdir(), "til-done-bench-plan-"));
	const path = join(dir, "PLAN.md");
	const todos = planOf100();
	const samples = quick ? 20 : 200;
	try {
		const save = time(() => writePlanFile(path, planToMarkdown(todos)), samples, 20);
		const load = time(
			() => {
				const read = readPlanFile(path);
				if (!("text" in read) || !parsePlanMarkdown(read.text).ok) throw new Error("the plan file did not load");
			},
			samples,
			20,
		);
		out("## Plan file of 100 items (200 characters each, checks, waits and subtasks; median)");
		out();
		out("| Save (text + atomic write) | Load (read + strict parse) |");
		out("|---:|---:|");
		out(`| ${(save * 1000).toFixed(0)} µs | ${(load * 1000).toFixed(0)} µs |`);
		out();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
