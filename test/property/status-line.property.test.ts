/**
 * Whatever the list, the texts and the states on screen, at 80 columns and wider our part of the footer fits the
 * width and the state that matters (stopped and why, paused, the review wait, the verification, the progress count)
 * is never the part cut off. Texts mix wide characters, emoji and line breaks.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoppedBy } from "../../src/core/rules/breakers.ts";
import { BREAKERS, stopWords } from "../../src/core/rules/breakers.ts";
import { cellsOf } from "../../src/core/texts/sanitize.ts";
import {
	activeStatus,
	checkStatus,
	loopStatus,
	nextStatus,
	pausedStatus,
	stopStatus,
} from "../../src/core/texts/user.ts";
import { progressOf, reviewOf, statusEntries } from "../../src/core/views/status-entries.ts";
import { fitStatusLine, type StatusEntry } from "../../src/core/views/status-line.ts";
import type { TodoItem } from "../../src/types.ts";
import { KEY } from "../helpers/expected.ts";

const word = fc.constantFrom("fix", "auth", "テスト", "数据库", "🚀", "émigré", "x".repeat(30), "a\nb", "tab\there");
const text = fc.array(word, { minLength: 1, maxLength: 60 }).map((words) => words.join(" "));
const status = fc.constantFrom<TodoItem["status"]>("not_started", "in_progress", "completed", "abandoned");
const todos = fc.array(
	fc.record({ text, status, review: fc.boolean() }).map(({ review, ...item }) => (review ? { ...item, review } : item)),
	{ minLength: 1, maxLength: 30 },
);
const stopped = fc.option(
	fc.constantFrom<string>(...BREAKERS.map((row) => stopWords(row.code)), stopWords("interrupted")),
);
const check = fc.oneof(
	fc.constant(undefined),
	fc.record({ what: fc.constantFrom("[2]", "the done-check"), command: text }).map((c) => checkStatus(c, undefined)),
	fc
		.array(text, { minLength: 1, maxLength: 4 })
		.map((failed) => checkStatus(undefined, { passed: false, failed, checks: 5 })),
	fc.constant(checkStatus(undefined, { passed: true, failed: [], checks: 3 })),
	fc.constant(checkStatus(undefined, undefined, true)),
);
const screen = fc.record({
	todos,
	paused: fc.option(fc.option(text, { nil: undefined }), { nil: null }),
	stopped,
	check,
	loop: fc.boolean(),
	plan: fc.option(fc.record({ next: fc.option(fc.nat(99), { nil: undefined }), waiting: fc.nat(99) }), { nil: null }),
	width: fc.integer({ min: 80, max: 240 }),
});

/** The line pi draws from the fitted values: present ones, sorted by key, one space between. */
const drawn = (values: [string, string | undefined][]) =>
	values
		.filter((entry): entry is [string, string] => entry[1] !== undefined)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([, value]) => value)
		.join(" ");

describe("the footer's status line at 80 columns and wider", () => {
	it("fits the width, and keeps every state's words", () => {
		fc.assert(
			fc.property(screen, ({ todos, paused, stopped, check, loop, plan, width }) => {
				const next =
					plan?.next === undefined
						? undefined
						: ([plan.next, { text: `next ${"🚀 ".repeat(30)}`, status: "not_started" }] as const);
				const entries: StatusEntry[] = [
					[KEY.status, progressOf(todos, false)],
					[KEY.active, activeStatus(todos)],
					[KEY.check, check],
					[KEY.loop, loop ? loopStatus(1000, 1000) : undefined],
					[KEY.paused, paused === null ? undefined : pausedStatus(paused)],
					[KEY.next, plan === null ? undefined : nextStatus(next as never, plan.waiting)],
					[KEY.review, reviewOf(todos)],
					[KEY.stop, stopStatus(stopped ?? undefined)],
				];
				const fitted = new Map(fitStatusLine(entries, width));
				expect(cellsOf(drawn([...fitted]))).toBeLessThanOrEqual(width);

				const finished = todos.filter((t) => t.status === "completed" || t.status === "abandoned").length;
				const shown = (key: string) => fitted.get(key) ?? "none";
				expect(shown(KEY.status)).toMatch(new RegExp(`^📋 ${finished}/${todos.length}( |$)`));
				// The loop's counter is the one state that may go, at the narrowest, with everything else on screen.
				expect(shown(KEY.loop)).toMatch(loop ? /^(🔁 (loop )?1000\/1000|none)$/ : /^none$/);
				expect(shown(KEY.paused)).toMatch(paused === null ? /^none$/ : /^⏸ (auto-continue )?paused/);
				// Like the loop's counter, the plan's entry may go at the narrowest, with every state on screen.
				const planShown =
					plan === null || (next === undefined && plan.waiting === 0) ? /^none$/ : /^(▶ \[\d+\]|⛓ \d+|none$)/;
				expect(shown(KEY.next)).toMatch(planShown);
				expect(shown(KEY.review)).toMatch(reviewOf(todos) ? /^👁 \[\d+\]( (waits for your )?review)?$/ : /^none$/);
				const stops =
					stopped === null
						? ["none"]
						: [`⏹ auto-continue stopped: ${stopped} (/todos why)`, `⏹ stopped: ${stopped}`, `⏹ ${stopped}`];
				expect(stops).toContain(shown(KEY.stop));
				expect(shown(KEY.check)).toMatch(
					check ? /^(🔎 (checking )?(\[2\]|the done-check)|✗ not verified|✓ verified|🔎 not verified yet)/ : /^none$/,
				);
			}),
			{ numRuns: 2000 },
		);
	});
});

/** A list with items in progress, some held by workers (in the order they started), one of them maybe for review. */
const atWork = fc
	.record({
		todos: fc.array(fc.record({ text, status }), { minLength: 1, maxLength: 30 }),
		review: fc.nat(29),
		picks: fc.array(fc.nat(29), { maxLength: 16 }),
	})
	.map(({ todos, review, picks }) => {
		// The last item stays open: a list in progress (the verification's words are the other property's).
		const marked = todos.map((todo, at) => (at === review % todos.length ? { ...todo, review: true } : todo));
		const list: TodoItem[] = [...marked, { text: "last", status: "not_started" }];
		const open = [...list.keys()].filter((at) => list[at]?.status === "in_progress" && !list[at]?.review);
		// Workers hold distinct items in progress, never a review item; the picks give the order they started in.
		const workers = [...new Set(picks.map((pick) => open[pick % Math.max(1, open.length)]))]
			.filter((index): index is number => index !== undefined)
			.map((index) => ({ index }));
		return { todos: list, workers };
	});
const withWorkers = fc.record({
	list: atWork,
	paused: fc.option(fc.option(text, { nil: undefined }), { nil: null }),
	stopped: fc.option(fc.constantFrom<StoppedBy>(...BREAKERS.map((row) => row.code), "interrupted"), { nil: undefined }),
	failed: fc.option(fc.array(text, { minLength: 1, maxLength: 4 }), { nil: undefined }),
	goal: fc.option(text, { nil: undefined }),
	loop: fc.boolean(),
	width: fc.integer({ min: 80, max: 240 }),
});

describe("the footer's status line with workers, at 80 columns and wider", () => {
	it("names each item in progress once, the workers' by index, fits the width and keeps every state", () => {
		fc.assert(
			fc.property(withWorkers, ({ list: { todos, workers }, paused, stopped, failed, goal, loop, width }) => {
				const view = {
					todos,
					chain: { paused: paused !== null, pauseReason: paused ?? undefined, stopped },
					loop: loop ? { prompt: "p", iteration: 1000, max: 1000, marker: "DONE" } : undefined,
					goal: goal === undefined ? undefined : { condition: goal, runs: 0 },
					workers,
					panelEnabled: false,
					checking: undefined,
					verification: failed && { passed: false, failed, checks: 5, of: todos },
					toVerify: false,
				};
				const fitted = new Map(fitStatusLine(statusEntries(view), width));
				expect(cellsOf(drawn([...fitted]))).toBeLessThanOrEqual(width);

				// Each item in progress is named at most once among the entries that name items in progress.
				const named = [KEY.active, KEY.review, KEY.workers].map((key) => fitted.get(key) ?? "").join(" ");
				for (const [index, todo] of todos.entries()) {
					if (todo.status !== "in_progress") continue;
					expect(named.split(`[${index}]`).length - 1).toBeLessThanOrEqual(1);
				}
				// The workers: their count always, their indices (when shown) all of them, by index.
				const shownWorkers = fitted.get(KEY.workers) ?? "none";
				const indices = workers.map(({ index }) => index).sort((a, b) => a - b);
				expect(shownWorkers).toMatch(workers.length === 0 ? /^none$/ : new RegExp(`^⚙ ${workers.length}( |$)`));
				const listed = [...shownWorkers.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
				expect(listed.length === 0 ? [] : listed).toEqual(listed.length === 0 ? [] : indices);
				// Every state stays: the progress count, the pause, the review wait, the stop, the failed verification.
				const finished = todos.filter((t) => t.status === "completed" || t.status === "abandoned").length;
				expect(fitted.get(KEY.status)).toMatch(new RegExp(`^📋 ${finished}/${todos.length}( |$)`));
				expect(fitted.get(KEY.paused) ?? "none").toMatch(paused === null ? /^none$/ : /^⏸ (auto-continue )?paused/);
				expect(fitted.get(KEY.review) ?? "none").toMatch(reviewOf(todos) ? /^👁 \[\d+\]/ : /^none$/);
				expect(fitted.get(KEY.stop) ?? "none").toMatch(stopped === undefined ? /^none$/ : /^⏹ /);
				expect(fitted.get(KEY.check) ?? "none").toMatch(failed ? /^✗ not verified/ : /^none$/);
				// Like the loop's counter, the goal's mark may go at the narrowest, with every state on screen.
				expect(fitted.get(KEY.goal) ?? "none").toMatch(goal === undefined ? /^none$/ : /^(🎯 goal|none$)/);
			}),
			{ numRuns: 2000 },
		);
	});
});
