/**
 * `/todos` strict, in the real pi on every tested version: what it does not understand is refused with its usage and
 * changes nothing, over RPC; a subcommand that goes on runs the chain inside the same `pi -p`. `/loop`'s refusals are
 * tested in process (test/unit/commands.test.ts); one of them stays end to end in headless-commands.test.ts.
 */
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, PI_HOSTS, runPrint } from "../helpers/cli.ts";
import {
	allFinished,
	KEY,
	listLines,
	stderrLine,
	TODOS_ERRORS,
	TODOS_HELP_TEXT,
	todosRefused,
} from "../helpers/expected.ts";
import { writeChecked } from "../helpers/lying-models.ts";
import { perTest } from "../helpers/per-test.ts";
import { commandAnswer } from "../helpers/rpc.ts";
import { completeStep, sayStep, startStep, writeStep } from "../helpers/scripts.ts";
import { sessionDir } from "../helpers/session-file.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

describe.each(PI_HOSTS)("pi $version: /todos", (host) => {
	const rpc = async (steps: Parameters<typeof pi.env>[0] = []) => {
		const env = pi.env(steps);
		return pi.rpc({ host, env: env.env, extensions: [EXTENSION_ENTRY] });
	};

	it("panel takes a switch word in any case, and refuses anything else with its usage", async () => {
		const client = await rpc([writeStep(["a", "b"]), sayStep("Planned.")]);
		await client.promptAndSettle("Plan it");
		expect(await commandAnswer(client, "/todos panel ON")).toBe("Todo panel on.");
		expect(client.widgets.get(KEY.panel)?.lines).toEqual(["– [0] a", "– [1] b"]);
		expect(await commandAnswer(client, "/todos panel maybe")).toBe(
			todosRefused("panel", '"maybe" is neither on nor off'),
		);
		expect(client.widgets.has(KEY.panel)).toBe(true);
		expect(await commandAnswer(client, "/todos panel Off")).toBe("Todo panel off.");
		expect(client.widgets.has(KEY.panel)).toBe(false);
	});

	it("add names no index on a long list; help lists the subcommands; an item twice is refused; edit, move, remove and unreview work", async () => {
		const client = await rpc([writeStep(["a", "b", "c", "d", "e", "f"]), sayStep("Planned.")]);
		await client.promptAndSettle("Plan it");
		await commandAnswer(client, "/todos pause");
		expect(await commandAnswer(client, "/todos add")).toBe(TODOS_ERRORS.addEmpty);
		expect(await commandAnswer(client, "/todos help")).toBe(TODOS_HELP_TEXT);
		await commandAnswer(client, "/todos edit 0 Write the parser");
		await commandAnswer(client, "/todos review 1");
		await commandAnswer(client, "/todos unreview 1");
		await commandAnswer(client, "/todos move 5 0");
		expect(await commandAnswer(client, "/todos remove 2 3 3")).toBe(TODOS_ERRORS.twice("remove", 3));
		expect(await commandAnswer(client, "/todos remove 2 3 4 5")).toBe(listLines("– [0] f", "– [1] Write the parser"));
	});
});

describe.each(PI_HOSTS)("pi $version: a /todos command that goes on runs the chain inside the same pi -p", (host) => {
	const REVIEW = [
		writeChecked([{ text: "Release notes", review: true }, { text: "Tag it" }]),
		startStep(0),
		sayStep("Over to you."),
	];

	it("approve: the chain goes on to the end in the same invocation", async () => {
		const env = pi.env(REVIEW);
		const dir = sessionDir(env);
		const first = await runPrint(["-p", "Release"], env.env, { host, extensions: [EXTENSION_ENTRY], session: { dir } });
		expect(first.code).toBe(4);
		env.writeScript([startStep(1), completeStep(1), sayStep("Tagged.")]);
		const result = await runPrint(["-c", "-p", "/todos approve 0"], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir },
		});
		expect(result.stderr).toBe(
			stderrLine(listLines("✓ [0] Release notes (review)", "– [1] Tag it")) + stderrLine(allFinished(2)),
		);
		expect(result.code).toBe(0);
	});

	it("while paused nothing runs, and the line says why; the pause stays on the branch", async () => {
		const env = pi.env([sayStep("Hello.")]);
		const options = { host, extensions: [EXTENSION_ENTRY], session: { dir: sessionDir(env) } };
		// pi keeps a session file once it holds an answer: a first exchange, then the pause.
		await runPrint(["-p", "Hello"], env.env, options);
		await runPrint(["-c", "-p", "/todos pause not now"], env.env, options);
		const result = await runPrint(["-c", "-p", "/todos add b"], env.env, options);
		expect(result.stderr).toBe(
			stderrLine("Added [0] b") + stderrLine("Auto-continue is paused (not now): it waits for you."),
		);
		expect(env.readLog()).toHaveLength(1);
		expect(result.code).toBe(4);
	});
});
