import { afterEach, describe, expect, it } from "vitest";
import { cellsOf } from "../../src/core/texts/sanitize.ts";
import { activeStatus, checkStatus, pausedStatus, stopStatus } from "../../src/core/texts/user.ts";
import { progressOf, reviewOf, statusEntries, type UiView } from "../../src/core/views/status-entries.ts";
import { fitStatusLine, type StatusEntry } from "../../src/core/views/status-line.ts";
import { registerEventHandlers } from "../../src/events.ts";
import type { TodoItem } from "../../src/types.ts";
import {
	KEY,
	notVerifiedStatus,
	progressStatus,
	reviewWait,
	workersIndices,
	workersStatus,
} from "../helpers/expected.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";

const LONG = "Refactor the authentication middleware so that every route checks the session token first ".repeat(4);
const item = (text: string, status: TodoItem["status"] = "not_started", review?: boolean): TodoItem =>
	review ? { text, status, review } : { text, status };
/** A 3-item list: [0] done, [1] in progress with a 400-character text, [2] open. */
const LIST = [item("Plan", "completed"), item(LONG, "in_progress"), item("Ship")];

/** The line pi draws from the fitted values: present ones, sorted by key, one space between. */
const line = (values: [string, string | undefined][]) =>
	values
		.filter((entry): entry is [string, string] => entry[1] !== undefined)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([, text]) => text)
		.join(" ");

const entries = (extra: StatusEntry[] = []): StatusEntry[] => [
	[KEY.status, progressOf(LIST, false)],
	[KEY.active, activeStatus(LIST)],
	...extra,
];

describe("the status line fits the terminal: item texts are cut first", () => {
	it("leaves a line that fits alone", () => {
		const short = [item("a", "in_progress"), item("b")];
		const fitted = fitStatusLine(
			[
				[KEY.status, progressOf(short, false)],
				[KEY.active, activeStatus(short)],
			],
			80,
		);
		expect(line(fitted)).toBe("📋 0/2 [░░░░░░░░░░] [0] a");
	});

	it("cuts a long item in progress with … to fill exactly the width", () => {
		const fitted = line(fitStatusLine(entries(), 80));
		expect(fitted).toBe(`📋 1/3 [███░░░░░░░] [1] ${LONG.slice(0, 55)}…`);
		expect(cellsOf(fitted)).toBe(80);
	});

	it("shares the room between several items in progress", () => {
		const two = [item(LONG, "in_progress"), item(`Second ${LONG}`, "in_progress")];
		const fitted = fitStatusLine(
			[
				[KEY.status, progressOf(two, false)],
				[KEY.active, activeStatus(two)],
			],
			80,
		);
		expect(line(fitted)).toBe(`📋 0/2 [░░░░░░░░░░] [0] ${LONG.slice(0, 24)}… [1] ${`Second ${LONG}`.slice(0, 25)}…`);
	});
});

describe("the status line fits the terminal: the state is never the part cut off", () => {
	it("keeps the pause and its reason whole, the item cut to make room", () => {
		const fitted = line(fitStatusLine(entries([[KEY.paused, pausedStatus("lunch")]]), 80));
		expect(fitted).toBe(`📋 1/3 [███░░░░░░░] [1] ${LONG.slice(0, 25)}… ⏸ auto-continue paused: lunch`);
	});

	it("drops the item in progress before it cuts the user's pause reason", () => {
		const reason = "waiting for the design review of the new login page";
		const fitted = line(fitStatusLine(entries([[KEY.paused, pausedStatus(reason)]]), 80));
		expect(fitted).toBe(`📋 1/3 [███░░░░░░░] ⏸ auto-continue paused: ${reason.slice(0, 35)}…`);
		expect(cellsOf(fitted)).toBe(80);
	});

	it("keeps a stop's sentence whole at 80 columns: the progress bar gives way", () => {
		const stop = stopStatus("spending without progress");
		const fitted = line(fitStatusLine(entries([[KEY.stop, stop]]), 80));
		expect(fitted).toBe("📋 1/3 ⏹ auto-continue stopped: spending without progress (/todos why)");
	});

	it("shortens entries, the stop last, when pause, review and stop are all on screen at 80 columns", () => {
		const review = [item("Plan", "completed"), item("Look", "in_progress", true)];
		const fitted = fitStatusLine(
			[
				[KEY.status, progressOf(review, false)],
				[KEY.active, activeStatus(review)],
				[KEY.paused, pausedStatus("checking the copy with legal")],
				[KEY.review, reviewOf(review)],
				[KEY.stop, stopStatus("continuation limit reached")],
			],
			80,
		);
		expect(line(fitted)).toBe("📋 1/2 ⏸ paused 👁 [1] review ⏹ stopped: continuation limit reached");
	});

	it("cuts what a verification found, never the words `not verified`", () => {
		const failed = checkStatus(undefined, { passed: false, failed: [`the check of [1] ${LONG}`], checks: 2 });
		const fitted = line(
			fitStatusLine(
				[
					[KEY.status, progressOf(LIST, false)],
					[KEY.check, failed],
				],
				80,
			),
		);
		expect(fitted).toBe(`📋 1/3 [███░░░░░░░] ✗ not verified: ${`the check of [1] ${LONG}`.slice(0, 43)}…`);
	});

	it("fits at 120 columns too, keeping more of the item", () => {
		const fitted = line(fitStatusLine(entries([[KEY.stop, stopStatus("no todo completed")]]), 120));
		expect(fitted).toBe(
			`📋 1/3 [███░░░░░░░] [1] ${LONG.slice(0, 38)}… ⏹ auto-continue stopped: no todo completed (/todos why)`,
		);
		// 119: the cut falls after a word, and the space before `…` is not kept.
		expect(cellsOf(fitted)).toBe(119);
	});
});

describe("with workers, a review wait and a failed verdict: each item once, the workers by index, the state whole", () => {
	const WORKED = [
		"Write a.txt: the greeting for every new user",
		"Write b.txt: the list of contributors",
		"Write c.txt",
	];
	/** [0] waits for the user's review; workers have [1], [2] and [3], started in the order 3, 1, 2; [4] is open. */
	const todos = [
		item("Review the API design", "in_progress", true),
		...WORKED.map((text) => item(text, "in_progress")),
		item("Tag the release"),
	];
	const failed = { passed: false, failed: ["the done-check (exit code 1)"], checks: 1, of: todos };
	const view = (verified?: boolean): UiView => ({
		todos,
		chain: { paused: false, stopped: undefined },
		loop: undefined,
		workers: [{ index: 3 }, { index: 1 }, { index: 2 }],
		panelEnabled: false,
		checking: undefined,
		verification: verified === false ? failed : undefined,
		toVerify: false,
	});
	const byIndex = WORKED.map((text, at): [number, string] => [at + 1, text]);
	const fitted = (width: number, verified?: boolean) => {
		const shown = line(fitStatusLine(statusEntries(view(verified)), width));
		expect(cellsOf(shown)).toBeLessThanOrEqual(width);
		return shown;
	};

	it("at 120 columns: each item once, the workers' items by index with their texts cut, the review wait whole", () => {
		const cut = byIndex.map(([index, text]): [number, string] => [
			index,
			text.length > 15 ? `${text.slice(0, 15)}…` : text,
		]);
		expect(fitted(120)).toBe(`${progressStatus(0, 5)} ${reviewWait(0)} ${workersStatus(cut)}`);
	});

	it("at 120 columns with a failed verdict too: the workers' texts give way, their indices and every state stay", () => {
		expect(fitted(120, false)).toBe(
			`${progressStatus(0, 5)} ${notVerifiedStatus("the done-check (exit code 1)")} ${reviewWait(0)} ${workersIndices([1, 2, 3])}`,
		);
	});

	it("at 80 columns: the indices of the workers' items and the review wait, whole", () => {
		expect(fitted(80)).toBe(`${progressStatus(0, 5)} ${reviewWait(0)} ${workersIndices([1, 2, 3])}`);
	});

	it("at 80 columns with a failed verdict too: the words `not verified`, the review wait and the workers stay", () => {
		expect(fitted(80, false)).toBe(`📋 0/5 ${notVerifiedStatus("…")} ${reviewWait(0)} ${workersIndices([1, 2, 3])}`);
	});

	it("a worker of the session's own item in progress: that item once, the workers' once", () => {
		const own = [item("Own item", "in_progress"), item("Write a.txt", "in_progress")];
		const entries = statusEntries({ ...view(), todos: own, workers: [{ index: 1 }] });
		expect(line(fitStatusLine(entries, 120))).toBe(
			`${progressStatus(0, 2)} [0] Own item ${workersStatus([[1, "Write a.txt"]])}`,
		);
	});
});

describe("the status line is fitted again when the terminal is resized", () => {
	const columns = Object.getOwnPropertyDescriptor(process.stdout, "columns");
	afterEach(() => {
		if (columns) Object.defineProperty(process.stdout, "columns", columns);
		else delete (process.stdout as { columns?: number }).columns;
	});

	it("repaints on resize in the TUI: narrower, the item is cut; wider, it is whole again", async () => {
		Object.defineProperty(process.stdout, "columns", { value: 200, configurable: true, writable: true });
		const pi = createFakePi();
		registerEventHandlers(pi.api);
		const text = "Wire the new flag into main() and the config loader";
		const fake = createFakeCtx({
			mode: "tui",
			branch: [
				{
					type: "message",
					message: {
						role: "toolResult",
						toolName: "write_todos",
						details: { action: "write", todos: [item(text, "in_progress"), item("b")] },
						isError: false,
					},
				},
			],
		});
		await pi.fire("session_start", { reason: "startup" }, fake.ctx);
		expect(fake.ui.status.get(KEY.active)).toBe(`[0] ${text}`);
		process.stdout.columns = 40;
		process.stdout.emit("resize");
		expect(fake.ui.status.get(KEY.active)).toBe(`[0] ${text.slice(0, 15)}…`);
		process.stdout.columns = 200;
		process.stdout.emit("resize");
		expect(fake.ui.status.get(KEY.active)).toBe(`[0] ${text}`);
		await pi.fire("session_shutdown", {}, fake.ctx);
		process.stdout.columns = 40;
		process.stdout.emit("resize");
		expect(fake.ui.status.get(KEY.active)).toBe(`[0] ${text}`);
	});
});
