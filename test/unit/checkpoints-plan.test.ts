import { describe, expect, it } from "vitest";
import { itemKey } from "../../src/core/list/items.ts";
import {
	busyReason,
	type Checkpoint,
	checkpointRef,
	checkpointsOn,
	excludeLines,
	filesBeyondTotal,
	filesLeftOut,
	filesToRevert,
	itemWork,
	keptToLand,
	keptWorkRef,
	leftOutAtStart,
	MAX_CHECKPOINT_REFS,
	parseNameStatus,
	readWorkerRef,
	refsToPrune,
	transitions,
	unmarkedKeptRef,
	workerRef,
} from "../../src/core/rules/checkpoint-rules.ts";
import { diffAsData } from "../../src/core/texts/user/checkpoints.ts";
import type { TodoItem } from "../../src/types.ts";

const item = (text: string, status: TodoItem["status"] = "not_started"): TodoItem => ({ text, status });
const sha = (digit: string): string => digit.repeat(40);

describe("a change of the list calls for a checkpoint per item it starts or completes", () => {
	it("a start and a completion, by index; nothing for an abandon or an unchanged item", () => {
		const before = [item("a", "in_progress"), item("b"), item("c"), item("d", "completed")];
		const after = [item("a", "completed"), item("b", "in_progress"), item("c", "abandoned"), item("d", "completed")];
		expect(transitions(before, after)).toEqual([
			{ index: 0, text: "a", phase: "done" },
			{ index: 1, text: "b", phase: "start" },
		]);
	});

	it("an item completed without a start gets only its done; a new text at an index counts as a new item", () => {
		expect(transitions([item("a", "in_progress")], [item("z", "in_progress"), item("b", "completed")])).toEqual([
			{ index: 0, text: "z", phase: "start" },
			{ index: 1, text: "b", phase: "done" },
		]);
	});

	it("an item a worker holds is not started by its status: its start is taken when its work lands", () => {
		expect(
			transitions([item("a"), item("b")], [item("a", "in_progress"), item("b", "in_progress")], new Set([0])),
		).toEqual([{ index: 1, text: "b", phase: "start" }]);
		expect(transitions([item("a", "in_progress")], [item("a", "completed")], new Set([0]))).toEqual([
			{ index: 0, text: "a", phase: "done" },
		]);
	});

	it("a reopened item (completed back to in progress) is started again", () => {
		expect(transitions([item("a", "completed")], [item("a", "in_progress")])).toEqual([
			{ index: 0, text: "a", phase: "start" },
		]);
	});
});

describe("refs and keys", () => {
	it("a key is the index and 8 hex digits of the text, stable and different for other texts", () => {
		expect(itemKey(3, "Build")).toMatch(/^3-[0-9a-f]{8}$/);
		expect(itemKey(3, "Build")).toBe(itemKey(3, "Build"));
		expect(itemKey(3, "Build")).not.toBe(itemKey(3, "Build it"));
	});

	it("a ref under refs/til-done/, with a session id made safe for git", () => {
		expect(checkpointRef("0199-ab_c.d", "1-00000000", "start")).toBe("refs/til-done/0199-ab_c.d/1-00000000/start");
		expect(checkpointRef("../x y.lock", "0-k", "done")).toBe("refs/til-done/__x_y_lock/0-k/done");
		expect(checkpointRef("", "0-k", "done")).toBe("refs/til-done/_/0-k/done");
	});
});

describe("a worker's refs are read back by their item and what they keep; any other ref is none of them", () => {
	it("its snapshot and its result; an item's checkpoint, the chain's start, a ref outside ours: none", () => {
		expect(readWorkerRef(workerRef("s", "1-00000000", "worker-base"))).toEqual({
			key: "1-00000000",
			kind: "worker-base",
		});
		expect(readWorkerRef(workerRef("s", "2-0000000a", "worker-result"))).toEqual({
			key: "2-0000000a",
			kind: "worker-result",
		});
		expect(keptWorkRef("s", "2-0000000a", "0123456789abcdef0123")).toBe(
			"refs/til-done/s/2-0000000a/worker-kept-0123456789ab",
		);
		expect(readWorkerRef(keptWorkRef("s", "2-0000000a", "0123456789abcdef0123"))).toEqual({
			key: "2-0000000a",
			kind: "worker-kept",
		});
		expect(readWorkerRef("refs/til-done/s/2-0000000a/worker-kept-")).toBeUndefined();
		expect(readWorkerRef(checkpointRef("s", "1-00000000", "start"))).toBeUndefined();
		expect(readWorkerRef("refs/til-done/s/chain/start/x")).toBeUndefined();
		expect(readWorkerRef("refs/heads/s/1-00000000/worker-base")).toBeUndefined();
	});
});

describe("work kept only because the remote was not reached is found to land as is; any other kept work is not", () => {
	it("a to-land ref of the item, of any session, is found; a plain kept ref, another item's, a result ref: none", () => {
		const toLand = "refs/til-done/old-session/0-bd7c6224/worker-kept-0123456789ab-to-land";
		expect(keptWorkRef("old-session", "0-bd7c6224", "0123456789abcdef0123", true)).toBe(toLand);
		expect(readWorkerRef(toLand)).toEqual({ key: "0-bd7c6224", kind: "worker-kept" });
		const others = [
			"refs/til-done/s/0-bd7c6224/worker-kept-0123456789ab",
			"refs/til-done/s/1-00000000/worker-kept-0123456789ab-to-land",
			"refs/til-done/s/0-bd7c6224/worker-result",
			"refs/til-done/s/0-bd7c6224/worker-base",
			"",
		];
		expect(keptToLand([...others, toLand], "0-bd7c6224")).toBe(toLand);
		expect(keptToLand(others, "0-bd7c6224")).toBeUndefined();
		expect(unmarkedKeptRef(toLand)).toBe("refs/til-done/old-session/0-bd7c6224/worker-kept-0123456789ab");
		expect(unmarkedKeptRef(others[0] ?? "")).toBe(others[0]);
	});
});

describe("the user's own git operation is left alone", () => {
	it("names the first marker present, and nothing when none is", () => {
		expect(busyReason((name) => name === "MERGE_HEAD" || name === "index.lock")).toBe(
			"another git process holds the index",
		);
		expect(busyReason((name) => name === "rebase-merge")).toBe("a rebase is in progress");
		expect(busyReason(() => false)).toBeUndefined();
	});
});

const entry = (data: unknown, customType = "til-done-checkpoint") => ({ type: "custom", customType, data });
const checkpoint = (index: number, text: string, phase: "start" | "done", digit: string, at = 1): Checkpoint => ({
	key: itemKey(index, text),
	index,
	text,
	phase,
	commit: sha(digit),
	ref: checkpointRef("s", itemKey(index, text), phase),
	at,
});

describe("replay keeps the well-formed checkpoints of a branch and skips the rest", () => {
	it("skips other entries and every malformed field", () => {
		const good = checkpoint(0, "a", "start", "a");
		const branch = [
			entry(good),
			entry(good, "til-done-snapshot"),
			{ type: "message", customType: "til-done-checkpoint", data: good },
			entry({ ...good, commit: "HEAD" }),
			entry({ ...good, ref: "refs/heads/main" }),
			entry({ ...good, phase: "middle" }),
			entry({ ...good, index: -1 }),
			entry({ ...good, key: "0-00000000" }),
			entry({ ...good, at: "now" }),
			entry(null),
			null,
		];
		expect(checkpointsOn(branch)).toEqual([good]);
	});

	it("keeps the paths a snapshot left out, as text; a list of anything else names none", () => {
		const good = checkpoint(0, "a", "start", "a");
		expect(checkpointsOn([entry({ ...good, leftOut: ["big.bin", 3, "vendor/lib"] })])).toEqual([
			{ ...good, leftOut: ["big.bin", "vendor/lib"] },
		]);
		expect(checkpointsOn([entry({ ...good, leftOut: [3] }), entry({ ...good, leftOut: "big.bin" })])).toEqual([
			good,
			good,
		]);
	});
});

describe("a revert never removes as the item's own what its start snapshot left out", () => {
	it("a file left out, or one inside a folder left out, is named; others, and a start that left none out, are not", () => {
		const start = { ...checkpoint(0, "a", "start", "a"), leftOut: ["big.bin", "vendor/lib"] };
		expect(leftOutAtStart(start, ["big.bin", "vendor/lib/x.c", "vendor/library.c", "new.txt"])).toEqual([
			"big.bin",
			"vendor/lib/x.c",
		]);
		expect(leftOutAtStart(checkpoint(0, "a", "start", "a"), ["big.bin"])).toEqual([]);
	});
});

describe("an item's work is its last completion and the first start before it", () => {
	it("pairs them, ignoring other items", () => {
		const list = [
			checkpoint(0, "a", "start", "1"),
			checkpoint(1, "b", "start", "2"),
			checkpoint(0, "a", "done", "3"),
			checkpoint(0, "a", "start", "4"),
			checkpoint(0, "a", "done", "5"),
		];
		expect(itemWork(list, itemKey(0, "a"))).toEqual({ start: list[0], done: list[4] });
		expect(itemWork(list, itemKey(1, "b"))).toBeUndefined();
		expect(itemWork([checkpoint(0, "a", "done", "1")], itemKey(0, "a"))).toBeUndefined();
	});
});

describe("a revert restores what the item changed or deleted and removes what it created", () => {
	it("reads git's NUL-separated name-status, paths with spaces and newlines kept", () => {
		const changes = parseNameStatus("M\0src/a.ts\0A\0new file\nx\0D\0gone.txt\0T\0link\0");
		expect(changes).toEqual([
			{ status: "M", path: "src/a.ts" },
			{ status: "A", path: "new file\nx" },
			{ status: "D", path: "gone.txt" },
			{ status: "T", path: "link" },
		]);
		expect(filesToRevert(changes)).toEqual({ restore: ["src/a.ts", "gone.txt", "link"], remove: ["new file\nx"] });
		expect(parseNameStatus("")).toEqual([]);
	});
});

describe("the refs beyond the limit are pruned, oldest first", () => {
	it("keeps the newest MAX_CHECKPOINT_REFS", () => {
		const refs = Array.from({ length: MAX_CHECKPOINT_REFS + 2 }, (_, i) => `r${i}`);
		expect(refsToPrune(refs)).toEqual(["r0", "r1"]);
		expect(refsToPrune(refs.slice(0, MAX_CHECKPOINT_REFS))).toEqual([]);
		expect(refsToPrune(["a", "b", "c"], 1)).toEqual(["a", "b"]);
	});
});

describe("a diff is shown as data, and cut past its line limit with the command that shows it all", () => {
	it("control characters become spaces, line breaks stay; a long diff ends with how many lines are left", () => {
		expect(diffAsData("+a\u001b[31mred\n-b\r\n", sha("a"), sha("b"))).toBe("+a [31mred\n-b ");
		expect(diffAsData("1\n2\n3\n4\n", sha("a"), sha("b"), 2)).toBe(
			`1\n2\n… 2 more line(s): git diff ${"a".repeat(12)} ${"b".repeat(12)}`,
		);
	});
});

describe("which untracked files a snapshot leaves out, and the exclude lines that name them", () => {
	const file = (path: string, bytes: number) => ({ path, bytes });

	it("those over the bound in MB (1,000,000 bytes), biggest first; none with a bound of 0", () => {
		const files = [file("a", 1_000_000), file("b", 1_000_001), file("c", 9_000_000)];
		expect(filesLeftOut(files, 1)).toEqual([file("c", 9_000_000), file("b", 1_000_001)]);
		expect(filesLeftOut(files, 0)).toEqual([]);
	});

	it("within the bound, the biggest past ten times it in all, biggest first, the smallest kept; none with a bound of 0", () => {
		const files = [
			file("a", 4_000_000),
			file("b", 3_000_000),
			file("c", 900_000),
			file("d", 3_000_000),
			file("e", 1_000_000),
		];
		// 10 MB in all: c, e, b, d (7.9 MB) are kept, and a (4 MB) would pass it.
		expect(filesBeyondTotal(files, 1)).toEqual([file("a", 4_000_000)]);
		expect(filesBeyondTotal(files, 2)).toEqual([]);
		expect(filesBeyondTotal(files, 0)).toEqual([]);
	});

	it("anchors each path and escapes git's pattern characters and a trailing space; a path with a line break is not named", () => {
		expect(excludeLines(["a*b?[c]\\d.bin", "end ", "two\nlines"])).toBe("/a\\*b\\?\\[c]\\\\d.bin\n/end\\ \n");
	});
});
