/**
 * Beside the subagent extensions users run, in the real pi on every full line: pi's own `subagent` example (child
 * processes), pi-subagents 0.67.0 (children in the parent's process, forked, or in a detached runner) and a subagent
 * built on pi's SDK. A child agent is a guest: its answer reaches the parent model as it gave it, its exit status is
 * pi's own, the user's own settings in the environment (plan file, checkpoints, done-check) are not its, it drives no
 * list it inherited, and nothing it does changes the parent's list, countdown or exit status.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { IsolatedEnv, PiHost } from "../helpers/cli.ts";
import { FAKE_MODEL_ARGS, PI_HOSTS, waitForValue } from "../helpers/cli.ts";
import { allFinished, allVerified, CONTINUATION_HEAD, INJECTION_HEAD, stderrLine } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, startStep, toolStep, writeStep } from "../helpers/scripts.ts";
import { installForChildren, runParent, scriptsByDepth, toolResults } from "../helpers/subagents.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "600" });

const QUESTION = "Which database should I use?";
/** A child that plans its own list and stops to ask the user a question (a todo chain's `asks-user`). */
const ASKING_CHILD = [writeStep(["Look at the options"]), sayStep(QUESTION)];

const git = (cwd: string, ...args: string[]): string =>
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

/** The lines of ours on a stderr (pi and pi-subagents write their own there too), each with its line end. */
const ourLines = (stderr: string): string[] =>
	stderr
		.split("\n")
		.filter((line) => line.startsWith("[til-done] "))
		.map((line) => `${line}\n`);

/** Every model call's last user message in a log starts so: a continuation of ours, or the injected list. */
const continuationsIn = (log: { lastUser: string }[]) =>
	log.filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD));

describe.each(PI_HOSTS)("pi $version", (host: PiHost) => {
	describe("pi's subagent example: a child process is a guest", () => {
		it("a child that asks a question answers with its question, not a failed subagent; the parent's list goes on", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { example: true });
			const log = scriptsByDepth(
				env,
				[
					writeStep(["Pick the database", "Write the schema"]),
					startStep(0),
					toolStep("subagent", { agent: "helper", task: "Find the database options" }),
					completeStep(0),
					startStep(1),
					completeStep(1),
					sayStep("Done."),
				],
				ASKING_CHILD,
			);
			const run = await runParent(env, host, "Build it");
			expect(toolResults(run, "subagent")).toEqual([{ text: QUESTION, isError: false }]);
			expect(run.stderr).toBe(stderrLine(allFinished(2)));
			expect(run.code).toBe(0);
			expect(log(1)).toHaveLength(2);
		});

		it("the user's plan file, checkpoints and done-check in the environment stay the parent's", async () => {
			const plan = "# Release\n\n- [ ] Build\n- [ ] Ship\n";
			const env = pi.env([], {
				TIL_DONE_PLAN: "PLAN.md",
				TIL_DONE_CHECKPOINTS: "1",
				TIL_DONE_CHECK: "test -f shipped.txt",
			});
			installForChildren(env, host, { example: true });
			git(env.cwd, "init", "-q", "-b", "main");
			writeFileSync(join(env.cwd, "PLAN.md"), plan);
			git(env.cwd, "add", "-A");
			git(env.cwd, "commit", "-q", "-m", "plan");
			scriptsByDepth(
				env,
				[
					startStep(0),
					toolStep("subagent", { agent: "helper", task: "Say hello" }),
					completeStep(0),
					startStep(1),
					toolStep("bash", { command: "touch shipped.txt" }),
					completeStep(1),
					sayStep("Shipped."),
				],
				[writeStep(["Greet"]), startStep(0), completeStep(0), sayStep("Hello.")],
			);
			const run = await runParent(env, host, "Work the plan");
			expect(toolResults(run, "subagent")).toEqual([{ text: "Hello.", isError: false }]);
			expect(readFileSync(join(env.cwd, "PLAN.md"), "utf8")).toBe("# Release\n\n- [x] Build\n- [x] Ship\n");
			const sessions = readdirSync(join(env.root, "sessions"));
			const refs = git(env.cwd, "for-each-ref", "--format=%(refname)", "refs/til-done/").split("\n").filter(Boolean);
			const owners = new Set(refs.map((ref) => ref.split("/")[2]));
			expect(owners.size).toBe(1);
			expect(sessions.some((file) => file.includes([...owners][0] ?? "?"))).toBe(true);
			expect(refs).toHaveLength(4);
			expect(run.code).toBe(0);
			expect(run.stderr.split("\n").filter(Boolean).at(-1)).toBe(stderrLine(allVerified(2)).trimEnd());
		});
	});

	describe("pi-subagents: children in the parent's process are guests", () => {
		it("a child that asks leaves the exit status of a parent without a list at 0, and writes nothing to its stderr", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { piSubagents: true });
			const log = scriptsByDepth(env, [
				toolStep("subagent", { agent: "inproc", task: "Find the database options", async: false }),
				...ASKING_CHILD,
				sayStep("The child asks which database."),
			]);
			const run = await runParent(env, host, "Ask the helper");
			const [result] = toolResults(run, "subagent");
			expect(result?.text).toContain(QUESTION);
			expect(ourLines(run.stderr)).toEqual([]);
			expect(run.code).toBe(0);
			expect(log(0)).toHaveLength(4);
		});

		it("a forked child answers its own task and drives none of the parent's items; the parent finishes them", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { piSubagents: true });
			const log = scriptsByDepth(env, [
				writeStep(["a", "b", "c"]),
				startStep(0),
				toolStep("subagent", { agent: "inproc", task: "Say hello", async: false, context: "fork" }),
				sayStep("Hello."),
				completeStep(0),
				startStep(1),
				completeStep(1),
				startStep(2),
				completeStep(2),
				sayStep("All three done."),
			]);
			const run = await runParent(env, host, "Do a, b and c");
			expect(toolResults(run, "subagent")[0]?.text).toContain("Hello.");
			expect(continuationsIn(log(0))).toEqual([]);
			expect(ourLines(run.stderr)).toEqual([stderrLine(allFinished(3))]);
			expect(run.code).toBe(0);
		});

		it("a forked child without the todo tools gets no list, no injection and no continuation", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { piSubagents: true });
			const log = scriptsByDepth(env, [
				writeStep(["a", "b"]),
				startStep(0),
				toolStep("subagent", { agent: "toolless", task: "Say hello", async: false }),
				sayStep("Hello."),
				completeStep(0, 1),
				sayStep("Both done."),
			]);
			const run = await runParent(env, host, "Do a and b");
			const child = log(0)[3];
			expect(child?.userHeads.filter((head) => head === INJECTION_HEAD)).toEqual([]);
			expect(continuationsIn(log(0))).toEqual([]);
			expect(toolResults(run, "subagent")[0]?.text).toContain("Hello.");
			expect(run.code).toBe(0);
		});
	});

	describe("a subagent built on pi's SDK, in the parent's process", () => {
		it("a child told to say hello leaves the parent's three open items in place, and the parent finishes them", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { sdk: true });
			scriptsByDepth(env, [
				writeStep(["a", "b", "c"]),
				toolStep("sdk_subagent", { task: "Say hello" }),
				sayStep("Hello."),
				toolStep("list_todos", {}),
				completeStep(0, 1, 2),
				sayStep("Done."),
			]);
			const run = await runParent(env, host, "Do a, b and c");
			expect(toolResults(run, "sdk_subagent")).toEqual([{ text: "Hello.", isError: false }]);
			expect(toolResults(run, "list_todos")).toEqual([{ text: "– [0] a\n– [1] b\n– [2] c", isError: false }]);
			expect(run.stderr).toBe(stderrLine(allFinished(3)));
			expect(run.code).toBe(0);
		});

		it("a child that plans and finishes its own list shows nothing of it in the parent's", async () => {
			const env = pi.env([]);
			installForChildren(env, host, { sdk: true });
			scriptsByDepth(env, [
				writeStep(["a", "b", "c"]),
				toolStep("sdk_subagent", { task: "Greet" }),
				writeStep(["x", "y", "z"]),
				completeStep(0, 1, 2),
				sayStep("Greeted."),
				toolStep("list_todos", {}),
				sayStep("Stopping here."),
			]);
			const run = await runParent(env, host, "Do a, b and c", ["--til-done-max-continue", "1"]);
			expect(toolResults(run, "sdk_subagent")).toEqual([{ text: "Greeted.", isError: false }]);
			expect(toolResults(run, "list_todos")).toEqual([{ text: "– [0] a\n– [1] b\n– [2] c", isError: false }]);
			expect(run.code).toBe(4);
		});

		it("the parent's done-check, run after a child that finished its own list, verifies the parent's list alone", async () => {
			const env = pi.env([], { TIL_DONE_CHECK: "true" });
			installForChildren(env, host, { sdk: true });
			scriptsByDepth(env, [
				writeStep(["a", "b"]),
				toolStep("sdk_subagent", { task: "Plan and finish" }),
				writeStep(["x"]),
				completeStep(0),
				sayStep("Child done."),
				completeStep(0, 1),
				sayStep("Done."),
			]);
			const run = await runParent(env, host, "Do a and b");
			expect(toolResults(run, "sdk_subagent")).toEqual([{ text: "Child done.", isError: false }]);
			expect(run.stderr).toBe(stderrLine(allVerified(2)));
			expect(run.code).toBe(0);
		});

		it("over RPC, the parent's countdown and continuation follow its own run, whatever the child did", async () => {
			const env = pi.env([], { TIL_DONE_COUNTDOWN: "0.05" });
			installForChildren(env, host, { sdk: true });
			scriptsByDepth(env, [
				writeStep(["a", "b"]),
				startStep(0),
				toolStep("sdk_subagent", { task: "Plan and finish" }),
				writeStep(["x"]),
				completeStep(0),
				sayStep("Child done."),
				completeStep(0),
				sayStep("Finished item 0."),
				startStep(1),
				completeStep(1),
				sayStep("Finished item 1."),
			]);
			const client = await pi.rpc({ host, env: env.env, args: [...FAKE_MODEL_ARGS], raw: true });
			await client.prompt("Do a and b");
			await client.waitFor(() => client.statuses.get("til-done") === "✓ Done (2 items)", 15_000, "the list done");
			expect(client.countAgentRuns()).toBe(2);
		});
	});
});

/** What a file holds as JSON, or undefined while it is missing or half written. */
function readJson(path: string): Record<string, unknown> | undefined {
	try {
		return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}

/** Whether a process is alive. */
function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** A detached run's result, once it is complete and its runner process has exited (it writes until then). */
async function runnerResult(env: IsolatedEnv, id: string): Promise<Record<string, unknown>> {
	const root = join(env.tmpDir, "pi-subagents-uid-0");
	const result = await waitForValue(
		() => {
			const found = readJson(join(root, "async-subagent-results", `${id}.json`));
			return found?.state === "complete" ? found : undefined;
		},
		60_000,
		`the result of run ${id}`,
	);
	const pid = Number(readJson(join(root, "async-subagent-runs", id, "status.json"))?.pid);
	await waitForValue(() => (Number.isInteger(pid) && alive(pid) ? undefined : true), 30_000, "the runner's exit");
	return result;
}

/** The runner children pi-subagents starts by default; they run here on 0.87.1 only (see docs/TESTING.md). */
describe.each(PI_HOSTS.filter((host) => host.version === "0.87.1"))("pi $version: pi-subagents' runner", (host) => {
	it("a child in a detached runner is a guest: the parent's followed plan file is not its to load or write", async () => {
		const plan = "# Plan\n\n- [ ] Build\n";
		const env: IsolatedEnv = pi.env([], { TIL_DONE_PLAN: "PLAN.md" });
		installForChildren(env, host, { piSubagents: true });
		writeFileSync(join(env.cwd, "PLAN.md"), plan);
		scriptsByDepth(
			env,
			[toolStep("subagent", { agent: "runner", task: "Say hello" }), sayStep("Started the helper.")],
			[writeStep(["Greet"]), startStep(0), completeStep(0), sayStep("Hello.")],
		);
		const run = await runParent(env, host, "Start the helper", ["--til-done-paused"]);
		expect(run.code).toBe(4);
		const id = /Async: runner \[([0-9a-f-]+)\]/.exec(toolResults(run, "subagent")[0]?.text ?? "")?.[1];
		const result = await runnerResult(env, id ?? "?");
		expect((result.results as { output?: string }[] | undefined)?.map((child) => child.output)).toEqual(["Hello."]);
		expect(readFileSync(join(env.cwd, "PLAN.md"), "utf8")).toBe(plan);
	});
});
