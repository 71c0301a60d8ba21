/**
 * `/todos` in the interactive TUI under tmux opens the view of the list: the tree with its marks and waits, a
 * selection moved with the arrow keys, `a` that approves the selected review item (stored on the branch, shown at
 * once) and refuses any other item with why, and Escape that gives the editor back, after which the chain goes on.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import { countdownLine, ENTRY_TYPE, LIST_VIEW, reviewWait } from "../helpers/expected.ts";
import { writeChecked } from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep } from "../helpers/scripts.ts";
import { sessionEntries } from "../helpers/session-file.ts";
import { editorLine, hasTmux, submit, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

/** A plan whose review item the model started and left for the user: item 1 waits for the user's review. */
const STEPS = [
	writeChecked([
		{ text: "Write the schema" },
		{ text: "Review the migration", review: true, blockedBy: [0] },
		{ text: "Run the migration", blockedBy: [1] },
		{ text: "Announce it", parent: 2 },
	]),
	startStep(0),
	completeStep(0),
	startStep(1),
	sayStep("The migration is drafted: please review it."),
];

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

async function start(host: PiHost): Promise<{ session: TuiSession; sessions: string }> {
	const iso = pi.env(STEPS);
	const sessions = join(iso.root, "sessions");
	const session = await pi.tui({ host, env: iso.env, extensions: [EXTENSION_ENTRY], session: { dir: sessions } });
	return { session, sessions };
}

/** The view's lines on screen: from its title to its keys line, each without the padding pi adds. */
function viewLines(screen: string): string[] {
	const lines = screen.split("\n").map((line) => line.trimEnd());
	const first = lines.findIndex((line) => /^Todos \d+\/\d+$/.test(line));
	const last = lines.indexOf(LIST_VIEW.keys);
	return first === -1 || last < first ? [] : lines.slice(first, last + 1);
}

/** Waits until the view shows exactly `expected`, and returns the screen. */
const waitForView = (session: TuiSession, expected: readonly string[]): Promise<string> =>
	session.waitForScreen((screen) => viewLines(screen).join("\n") === expected.join("\n"));

/** The statuses of the last list the session stored from a change by the user. */
function storedStatuses(sessions: string): unknown[] {
	const snapshots = sessionEntries(sessions).filter((entry) => entry.customType === ENTRY_TYPE.snapshot);
	const todos = (snapshots.at(-1)?.data as { todos?: { status: string }[] } | undefined)?.todos ?? [];
	return todos.map((todo) => todo.status);
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe.skipIf(!hasTmux())(`the /todos view in the TUI${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it("opens on /todos, approves the selected review item with a, refuses another, and Escape gives the editor back", async () => {
			const { session, sessions } = await start(host);
			await submit(session, "Migrate the database");
			await session.waitForScreen(reviewWait(1));

			// With a trailing space, the list of the subcommands would open and Enter would take the first.
			await submit(session, "/todos", { trailingSpace: false });
			const opened = [
				LIST_VIEW.title(1, 4),
				"› ✓ [0] Write the schema",
				"  ● [1] Review the migration (review) ⛓ [0]",
				"  – [2] Run the migration ⛓ [1]",
				"    – [3] Announce it",
				LIST_VIEW.keys,
			];
			await waitForView(session, opened);

			await session.type("a");
			await waitForView(session, [...opened.slice(0, -1), LIST_VIEW.notReview(0), LIST_VIEW.keys]);
			expect(storedStatuses(sessions)).toEqual([]);

			await session.sendKeys("Down");
			const onReview = [
				LIST_VIEW.title(1, 4),
				"  ✓ [0] Write the schema",
				"› ● [1] Review the migration (review) ⛓ [0]",
				"  – [2] Run the migration ⛓ [1]",
				"    – [3] Announce it",
				LIST_VIEW.keys,
			];
			await waitForView(session, onReview);

			await session.type("a");
			const approved = await waitForView(session, [
				LIST_VIEW.title(2, 4),
				"  ✓ [0] Write the schema",
				"› ✓ [1] Review the migration (review) ⛓ [0]",
				"  – [2] Run the migration ⛓ [1]",
				"    – [3] Announce it",
				LIST_VIEW.approved(1),
				LIST_VIEW.keys,
			]);
			// The countdown waits for the view to close.
			expect(approved).not.toContain(countdownLine(600));
			expect(storedStatuses(sessions)).toEqual(["completed", "completed", "not_started", "not_started"]);

			await session.sendKeys("Escape");
			const closed = await session.waitForScreen(
				(screen) => viewLines(screen).length === 0 && editorLine(screen) === "" && screen.includes(countdownLine(600)),
			);
			expect(closed).not.toContain(LIST_VIEW.keys);
		});
	});
});
