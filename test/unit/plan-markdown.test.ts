import { describe, expect, it } from "vitest";
import { parsePlanMarkdown, planToMarkdown, preambleOf } from "../../src/core/rules/plan-file.ts";
import type { TodoItem } from "../../src/types.ts";
import { LINK_ERRORS, PLAN_PROBLEMS } from "../helpers/expected.ts";
import { item, PLAN } from "../helpers/linked-lists.ts";

const lines = (...text: string[]): string => `${text.join("\n")}\n`;
const refused = (line: number, problem: string) => ({ ok: false, line, problem });
/** The refusal of a link problem, in a plan file's words: the tool's error without `Error: `. */
const linkProblem = (error: string) => error.replace(/^Error: /, "");

describe("a list is written as a GitHub task list", () => {
	it("writes boxes, annotations under their item and subtasks nested under their parent", () => {
		const todos: TodoItem[] = [
			{ text: "Design", status: "completed", check: "test -f schema.sql" },
			{ text: "Migrate", status: "in_progress", blockedBy: [0], review: true },
			{ text: "Ship", status: "not_started" },
			{ text: "API", status: "abandoned", parent: 2 },
			{ text: "UI", status: "not_started", parent: 2, blockedBy: [3] },
		];
		expect(planToMarkdown(todos)).toBe(
			lines(
				"# Plan",
				"",
				"- [x] Design",
				"  - check: `test -f schema.sql`",
				"- [ ] Migrate",
				"  - ● in progress",
				"  - 👁 review",
				"  - ⛓ waits for 0",
				"- [ ] Ship",
				"  - [ ] API",
				"    - ✗ abandoned",
				"  - [ ] UI",
				"    - ⛓ waits for 3",
			),
		);
	});

	it("names the parent of a subtask that does not follow it", () => {
		const todos = [item("Ship"), item("Other"), item("API", "not_started", { parent: 0 })];
		expect(planToMarkdown(todos)).toBe(
			lines("# Plan", "", "- [ ] Ship", "- [ ] Other", "- [ ] API", "  - ↳ subtask of 0"),
		);
		expect(parsePlanMarkdown(planToMarkdown(todos))).toEqual({ ok: true, todos });
	});

	it("escapes what would break a line, and reads it back", () => {
		const todos = [item("a\\b\nc\rd\te\u0000f\u2028g"), { ...item("x"), check: "echo `a`\\n" }];
		const text = planToMarkdown(todos);
		expect(text).toBe(
			lines("# Plan", "", "- [ ] a\\\\b\\nc\\rd\\te\\u0000f\\u2028g", "- [ ] x", "  - check: `echo `a`\\\\n`"),
		);
		expect(parsePlanMarkdown(text)).toEqual({ ok: true, todos });
	});

	it("writes an empty list as the heading alone, which reads as an empty list", () => {
		expect(planToMarkdown([])).toBe(lines("# Plan", ""));
		expect(parsePlanMarkdown(planToMarkdown([]))).toEqual({ ok: true, todos: [] });
	});
});

describe("a plan file a person wrote is read", () => {
	it("skips a heading, prose before the first item and blank lines; takes `*`, `+`, `[X]` and CRLF", () => {
		const text = "# My plan\r\nSome words first.\r\n\r\n* [X] Done\r\n\r\n+ [ ] Next\r\n  - 👁 review\r\n";
		expect(parsePlanMarkdown(text)).toEqual({
			ok: true,
			todos: [item("Done", "completed"), { ...item("Next"), review: true }],
		});
	});

	it("reads the small plan back as it was written", () => {
		expect(parsePlanMarkdown(planToMarkdown(PLAN))).toEqual({ ok: true, todos: PLAN });
	});
});

describe("a plan file that is not understood is refused with its line and what is wrong", () => {
	it.each([
		["a list line that is not an item", lines("- [ ] a", "-[ ] b"), 2, PLAN_PROBLEMS.notAnItem],
		["a malformed box", lines("- [ ] a", "- [y] b"), 2, PLAN_PROBLEMS.notAnItem],
		["prose after the items", lines("- [ ] a", "", "more words"), 3, PLAN_PROBLEMS.proseAfterItems],
		["an item indented 4 spaces", lines("- [ ] a", "    - [ ] b"), 2, PLAN_PROBLEMS.itemDepth],
		["a subtask first", lines("# Plan", "  - [ ] b"), 2, PLAN_PROBLEMS.subtaskWithoutItem],
		["an annotation first", lines("# Plan", "- ● in progress"), 2, PLAN_PROBLEMS.annotationWithoutItem],
		["an annotation at the margin", lines("- [ ] a", "- ● in progress"), 2, PLAN_PROBLEMS.annotationDepth],
		["an annotation too deep", lines("- [ ] a", "    - 👁 review"), 2, PLAN_PROBLEMS.annotationDepth],
		["an unknown annotation", lines("- [ ] a", "  - due friday"), 2, PLAN_PROBLEMS.unknownAnnotation("due friday")],
		[
			"a long unknown annotation, named by its first 39 characters",
			lines("- [ ] a", `  - ${"note ".repeat(20)}`),
			2,
			PLAN_PROBLEMS.unknownAnnotation("note note note note note note note note…"),
		],
		[
			"waits that are not indices",
			lines("- [ ] a", "  - ⛓ waits for one"),
			2,
			PLAN_PROBLEMS.unknownAnnotation("⛓ waits for one"),
		],
		["two statuses", lines("- [ ] a", "  - ● in progress", "  - ✗ abandoned"), 3, PLAN_PROBLEMS.twice("status")],
		["a review mark twice", lines("- [ ] a", "  - 👁 review", "  - 👁 review"), 3, PLAN_PROBLEMS.twice("review mark")],
		[
			"a checked item in progress",
			lines("- [x] a", "  - ● in progress"),
			2,
			PLAN_PROBLEMS.checkedNotOpen("in progress"),
		],
		["a checked item abandoned", lines("- [x] a", "  - ✗ abandoned"), 2, PLAN_PROBLEMS.checkedNotOpen("abandoned")],
		[
			"a nested subtask naming a parent",
			lines("- [ ] a", "- [ ] b", "  - [ ] c", "    - ↳ subtask of 0"),
			4,
			PLAN_PROBLEMS.nestedWithParent,
		],
		["a stray backslash in a text", lines("- [ ] C:\\path"), 1, PLAN_PROBLEMS.badEscape],
		["a stray backslash in a check", lines("- [ ] a", "  - check: `a\\b`"), 2, PLAN_PROBLEMS.badEscape],
	])("%s", (_, text, line, problem) => {
		expect(parsePlanMarkdown(text)).toEqual(refused(line, problem));
	});
});

describe("a plan file read must pass what write_todos checks, naming the item's line", () => {
	it.each([
		["an empty text", lines("# Plan", "- [ ] a", "- [ ]    "), 3, PLAN_PROBLEMS.emptyText(1)],
		["a text over 1000 characters", lines("- [ ] a", `- [ ] ${"x".repeat(1001)}`), 2, PLAN_PROBLEMS.textTooLong(1)],
		["an empty check", lines("- [ ] a", "  - check: ` `"), 1, PLAN_PROBLEMS.emptyCheck(0)],
		["a wait out of the list", lines("- [ ] a", "  - ⛓ waits for 4"), 1, linkProblem(LINK_ERRORS.unknownWait(0, 4, 0))],
		[
			"a wait for itself",
			lines("- [ ] a", "- [ ] b", "  - ⛓ waits for 1"),
			2,
			linkProblem(LINK_ERRORS.waitsForItself(1)),
		],
		[
			"a wait given twice",
			lines("- [ ] a", "- [ ] b", "  - ⛓ waits for 0, 0"),
			2,
			linkProblem(LINK_ERRORS.twice(1, 0)),
		],
		[
			"a cycle",
			lines("- [ ] a", "  - ⛓ waits for 1", "- [ ] b", "  - ⛓ waits for 0"),
			1,
			linkProblem(LINK_ERRORS.cycle("[0] waits for [1], [1] waits for [0]")),
		],
		[
			"a subtask of a subtask",
			lines("- [ ] a", "  - [ ] b", "- [ ] c", "  - ↳ subtask of 1"),
			3,
			linkProblem(LINK_ERRORS.nested(2, 1, 0)),
		],
	])("%s", (_, text, line, problem) => {
		expect(parsePlanMarkdown(text)).toEqual(refused(line, problem));
	});

	it("more than 100 items: the line of the 101st", () => {
		const text = lines(...Array.from({ length: 101 }, (_, i) => `- [ ] item ${i}`));
		expect(parsePlanMarkdown(text)).toEqual(refused(101, PLAN_PROBLEMS.tooMany(101)));
	});
});

describe("what a plan file holds above its list is kept as its preamble", () => {
	it("a heading and a note, without the blank lines around them", () => {
		expect(preambleOf(lines("", "# Release 1.2", "", "Work top to bottom.", "", "- [ ] Build"))).toBe(
			"# Release 1.2\n\nWork top to bottom.",
		);
	});
	it("none, no file, or a file that starts with its list: the default heading", () => {
		expect(preambleOf(lines("- [ ] Build"))).toBe("# Plan");
		expect(preambleOf(undefined)).toBe("# Plan");
		expect(preambleOf("")).toBe("# Plan");
	});
	it("a list written under it reads back as the same list, with the preamble kept", () => {
		const todos = [item("Build", "completed"), item("Ship")];
		const text = planToMarkdown(todos, "# Release 1.2");
		expect(text).toBe(lines("# Release 1.2", "", "- [x] Build", "- [ ] Ship"));
		expect(parsePlanMarkdown(text)).toEqual({ ok: true, todos });
		expect(preambleOf(text)).toBe("# Release 1.2");
	});
});
