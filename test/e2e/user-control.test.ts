/**
 * The user's own acts, over RPC on every full pi line, say what they do and keep the rules the model keeps: a prompt
 * typed during the countdown is an interruption that `/todos why` keeps, `/todos approve` closes only an open review
 * item (a refused subcommand, as an RPC client reads it), and the panel counts the items it hides where they are.
 * The other subcommands' refusals (the waits `/todos start` and `/todos done` keep among them) and `/todos help` are
 * tested in process (test/unit/commands.test.ts).
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, PI_HOSTS, type PiHost } from "../helpers/cli.ts";
import { countdownLine, KEY, PROMPTED_OVER, panelAbove, STATUS_REFUSED, todosRefused } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { commandAnswer, type PiRpc } from "../helpers/rpc.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

async function rpc(host: PiHost, steps: FakeStep[], vars: NodeJS.ProcessEnv = {}): Promise<PiRpc> {
	const env = pi.env(steps, vars);
	return pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("a prompt typed during the countdown is an interruption, and /todos why keeps it", async () => {
		const client = await rpc(host, [
			writeStep(["a", "b"]),
			startStep(0),
			completeStep(0),
			sayStep("Finished item 0."),
			sayStep("Here is the answer to your question."),
		]);
		await client.promptAndSettle("Do the list");
		await client.waitFor(
			() => client.widgets.get(KEY.countdown)?.lines?.[0] === countdownLine(600),
			5000,
			"the countdown",
		);
		await client.promptAndSettle("What does item b need?");
		// The prompt's own run ends with b still open: a new countdown, decided after the interruption.
		const why = (await commandAnswer(client, "/todos why")).split("\n").map((line) => line.slice(9));
		expect(why.slice(-3).map((line) => line.split(" [")[0])).toEqual([
			"continue: 1 of 2 todos remain: continuation 1 of 20 follows.",
			`interrupted: ${PROMPTED_OVER}`,
			"continue: 1 of 2 todos remain: continuation 1 of 20 follows.",
		]);
	});

	it("/todos approve closes only an open review item: not an item without the mark, not an abandoned one", async () => {
		const review = { text: "Release notes", review: true };
		const client = await rpc(host, [
			toolStep("write_todos", { mode: "replace", todos: [{ text: "Code" }, review, review] }),
			sayStep("Over to you."),
		]);
		await client.promptAndSettle("Plan the release");
		await commandAnswer(client, "/todos abandon 2");
		expect(await commandAnswer(client, "/todos approve 0")).toBe(todosRefused("approve", STATUS_REFUSED.notReview(0)));
		expect(await commandAnswer(client, "/todos approve 2")).toBe(
			todosRefused("approve", STATUS_REFUSED.notOpen(2, "abandoned")),
		);
		expect(await commandAnswer(client, "/todos")).toBe(
			"– [0] Code\n– [1] Release notes (review)\n✗ [2] Release notes (review)",
		);
	});

	it("the panel counts the finished items it hides above its window, and shows none below the end", async () => {
		const items = ["one", "two", "three", "four", "five", "six", "seven"];
		const client = await rpc(host, [writeStep(items), completeStep(0, 1, 2, 3), startStep(4), sayStep("On five.")], {
			TIL_DONE_PANEL: "on",
		});
		await client.promptAndSettle("Do them");
		expect(client.widgets.get(KEY.panel)?.lines).toEqual([
			panelAbove(2),
			"✓ [2] three",
			"✓ [3] four",
			"● [4] five",
			"– [5] six",
			"– [6] seven",
		]);
	});
});
