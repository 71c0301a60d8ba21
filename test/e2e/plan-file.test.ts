/**
 * Plan files in the real pi, print mode, on every tested pi version: `--til-done-plan` loads the file into a session
 * without a list and writes every change back, a model's rewrite that would drop the file's items is refused, a file
 * changed on disk mid-run is left alone with one warning line, and `/todos export` and `/todos import` move a list out
 * and in. A file that cannot be loaded or imported is refused in process (test/unit/events.test.ts, plan-file.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type FakeStep, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { allFinished, allVerified, listLines, PLAN_NOTICES, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { commandAnswer } from "../helpers/rpc.ts";
import { completeStep, sayStep, startStep, toolStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });
const lines = (...text: string[]): string => `${text.join("\n")}\n`;

/** A plan a person wrote: a heading of their own, an item with a check, one that waits for it. */
const HAND_WRITTEN = lines(
	"# Release 1.2",
	"",
	"Work top to bottom.",
	"",
	"- [ ] Build",
	"  - check: `test -f build.txt`",
	"- [ ] Document",
	"  - ⛓ waits for 0",
);

/** pi over RPC following PLAN.md, in a project folder holding `files`. */
async function rpcWith(host: PiHost, files: Record<string, string>) {
	const env = pi.env([]);
	for (const [name, text] of Object.entries(files)) writeFileSync(join(env.cwd, name), text);
	const client = await pi.rpc({
		host,
		env: env.env,
		extensions: [EXTENSION_ENTRY],
		args: ["--til-done-plan", "PLAN.md"],
	});
	return Object.assign(client, { cwd: env.cwd });
}

/** `pi -p --til-done-plan PLAN.md <prompt>` in a project folder holding `files`, the session kept. */
async function run(host: PiHost, steps: FakeStep[], prompt: string, files: Record<string, string>) {
	const env: IsolatedEnv = pi.env(steps);
	for (const [name, text] of Object.entries(files)) writeFileSync(join(env.cwd, name), text);
	const dir = join(env.root, "sessions");
	const result = await runPrint(["--til-done-plan", "PLAN.md", "-p", prompt], env.env, {
		host,
		extensions: [EXTENSION_ENTRY],
		session: { dir },
	});
	const read = (name: string) => readFileSync(join(env.cwd, name), "utf8");
	return { ...result, read };
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("works through a plan file and leaves it updated; the list is verified and pi exits 0", async () => {
		const result = await run(
			host,
			[
				startStep(0),
				toolStep("bash", { command: "echo ok > build.txt" }),
				completeStep(0),
				sayStep("Built."),
				startStep(1),
				completeStep(1),
				sayStep("Documented."),
			],
			"work through the plan",
			{ "PLAN.md": HAND_WRITTEN },
		);
		// The person's heading and note stay; only the list below them follows the session.
		expect(result.read("PLAN.md")).toBe(
			lines(
				"# Release 1.2",
				"",
				"Work top to bottom.",
				"",
				"- [x] Build",
				"  - check: `test -f build.txt`",
				"- [x] Document",
				"  - ⛓ waits for 0",
			),
		);
		expect(result.stderr).toBe(stderrLine(PLAN_NOTICES.loaded("PLAN.md", 2)) + stderrLine(allVerified(2)));
		expect(result.code).toBe(0);
	});

	it("a model's rewrite of the list is refused, naming the file's open items: every item the person wrote stays in the file", async () => {
		const plan = lines(
			"# Sprint",
			"",
			"- [ ] Parse the input",
			"- [ ] Print the output",
			"- [ ] Test both",
			"- [ ] Ship it",
		);
		const result = await run(
			host,
			[toolStep("write_todos", { mode: "replace", todos: [{ text: "Do it all" }] }), sayStep("Rewrote the plan.")],
			"plan the work and do it",
			{ "PLAN.md": plan },
		);
		expect(result.read("PLAN.md")).toBe(plan);
		const items = "[0] Parse the input, [1] Print the output, [2] Test both, [3] Ship it";
		expect(result.stderr.split("\n").slice(0, 2)).toEqual([
			stderrLine(PLAN_NOTICES.loaded("PLAN.md", 4)).trimEnd(),
			stderrLine(PLAN_NOTICES.rewriteRefused("PLAN.md", items)).trimEnd(),
		]);
		expect(result.code).toBe(4);
	});

	it("leaves a file changed on disk mid-run alone, says so once, and keeps the session's list", async () => {
		const result = await run(
			host,
			[
				startStep(0),
				toolStep("bash", { command: "echo '- [ ] Added by hand' >> PLAN.md" }),
				completeStep(0),
				startStep(1),
				completeStep(1),
				sayStep("Done."),
			],
			"work through the plan",
			{ "PLAN.md": lines("- [ ] Build", "- [ ] Document") },
		);
		expect(result.read("PLAN.md")).toBe(
			lines("# Plan", "", "- [ ] Build", "  - ● in progress", "- [ ] Document", "- [ ] Added by hand"),
		);
		expect(result.stderr).toBe(
			stderrLine(PLAN_NOTICES.loaded("PLAN.md", 2)) +
				stderrLine(PLAN_NOTICES.changedOnDisk("PLAN.md")) +
				stderrLine(allFinished(2)),
		);
		expect(result.code).toBe(0);
	});

	it("/todos export writes the list to the file named", async () => {
		const result = await run(host, [], "/todos export out.md", { "PLAN.md": HAND_WRITTEN });
		expect(result.read("out.md")).toBe(
			lines("# Plan", "", "- [ ] Build", "  - check: `test -f build.txt`", "- [ ] Document", "  - ⛓ waits for 0"),
		);
		expect(result.stderr).toBe(
			stderrLine(PLAN_NOTICES.loaded("PLAN.md", 2)) + stderrLine(PLAN_NOTICES.exported("out.md", 2)),
		);
	});

	it("/todos import replaces the list, and the followed file follows (RPC)", async () => {
		const other = lines("- [x] Plan", "- [ ] Act", "  - 👁 review");
		const client = await rpcWith(host, { "PLAN.md": HAND_WRITTEN, "other.md": other });
		expect(await commandAnswer(client, "/todos import other.md")).toBe(PLAN_NOTICES.imported("other.md", 2));
		expect(await commandAnswer(client, "/todos")).toBe(listLines("✓ [0] Plan", "– [1] Act (review)"));
		expect(readFileSync(join(client.cwd, "PLAN.md"), "utf8")).toBe(
			lines("# Release 1.2", "", "Work top to bottom.", "", "- [x] Plan", "- [ ] Act", "  - 👁 review"),
		);
	});
});
