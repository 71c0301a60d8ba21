/**
 * A parent pi and its child agents, all on the fake model, for the tests of the subagent extensions users run beside
 * pi-til-done. Children load what the agent folder installs, not the parent's `-e` paths, so the test's own agent
 * folder installs the fake model (one script per process depth), this extension, and the subagent extensions:
 * - pi's own `examples/extensions/subagent/` as the host ships it (children: `pi --mode json -p --no-session`);
 * - pi-subagents 0.67.0, the pinned dev dependency (children in the parent's process, or in a detached runner);
 * - a subagent built on pi's SDK (test/fixtures/sdk-subagent.ts: `createAgentSession` in the parent's process).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
	EXTENSION_ENTRY,
	FAKE_MODEL_ARGS,
	type FakeLogLine,
	type FakeStep,
	type IsolatedEnv,
	type JsonRunResult,
	type PiHost,
	REPO_ROOT,
	readFakeLog,
	runJson,
	workerWritable,
	writeScript,
} from "./cli.ts";

export const NESTED_FAKE_MODEL = join(REPO_ROOT, "test/fixtures/nested-fake-model.ts");
export const SDK_SUBAGENT = join(REPO_ROOT, "test/fixtures/sdk-subagent.ts");
/** pi-subagents as `npm install` put it: a local package, whose dependencies resolve from the repo's node_modules. */
export const PI_SUBAGENTS = join(REPO_ROOT, "node_modules/pi-subagents");

/** pi's own `subagent` example as `host` ships it (each version's example imports that version's exports). */
export function exampleSubagent(host: PiHost): string {
	return resolve(host.cli, "../../../examples/extensions/subagent/index.ts");
}

/** The subagent extensions a test installs beside the fake model and pi-til-done. */
export interface Beside {
	example?: boolean;
	piSubagents?: boolean;
	sdk?: boolean;
}

const TODO_TOOLS = "write_todos, list_todos, edit_todos, pause_todos";

/** An agent definition both subagent extensions read from the agent folder. */
function agent(name: string, fields: Record<string, string>): string {
	const lines = Object.entries({ name, description: `${name}, for tests`, ...fields }).map(([k, v]) => `${k}: ${v}`);
	return `---\n${lines.join("\n")}\n---\nYou are ${name}.\n`;
}

/**
 * The agents: `helper` (pi's example; it may plan with the todo tools), and for pi-subagents `inproc` (a child in the
 * parent's process, which loads only the extensions it lists), `runner` (a detached runner, which loads what is
 * installed) and `toolless` (forked, without the todo tools, as pi-subagents' packaged `worker`).
 */
function writeAgents(agentDir: string): void {
	const dir = join(agentDir, "agents");
	mkdirSync(dir, { recursive: true });
	const inProcess = `${NESTED_FAKE_MODEL}, ${EXTENSION_ENTRY}`;
	const definitions: Record<string, Record<string, string>> = {
		helper: { tools: `read, bash, ${TODO_TOOLS}` },
		inproc: { extensions: inProcess, systemPromptMode: "append" },
		runner: { tools: `read, bash, ${TODO_TOOLS}`, systemPromptMode: "append" },
		toolless: { tools: "read, grep, ls", extensions: inProcess, systemPromptMode: "append", defaultContext: "fork" },
	};
	for (const [name, fields] of Object.entries(definitions)) writeFileSync(join(dir, `${name}.md`), agent(name, fields));
}

/** Installs, in `env`'s agent folder, the fake model, pi-til-done and the subagent extensions `beside` names. */
export function installForChildren(env: IsolatedEnv, host: PiHost, beside: Beside): void {
	const extensions = [NESTED_FAKE_MODEL, EXTENSION_ENTRY];
	if (beside.example) extensions.push(exampleSubagent(host));
	if (beside.sdk) extensions.push(SDK_SUBAGENT);
	const packages = beside.piSubagents ? [PI_SUBAGENTS] : [];
	writeFileSync(join(env.agentDir, "settings.json"), JSON.stringify({ extensions, packages }, null, 2));
	writeAgents(env.agentDir);
}

/** Gives each process depth its script (0: the parent, 1: a child process); reads each depth's log. */
export function scriptsByDepth(env: IsolatedEnv, ...byDepth: FakeStep[][]): (depth: number) => FakeLogLine[] {
	const logs = byDepth.map((steps, depth) => {
		const files = writeScript(steps, env.root);
		env.env[`TIL_DONE_FAKE_SCRIPT_${depth}`] = files.scriptFile;
		env.env[`TIL_DONE_FAKE_LOG_${depth}`] = files.logFile;
		return files.logFile;
	});
	env.env.TIL_DONE_WORKER_WRITABLE = workerWritable(env.env);
	return (depth) => readFakeLog(logs[depth] ?? "");
}

/** The parent, `pi --mode json -p <prompt>` with what the agent folder installs (no `-ne`: that would leave it out). */
export function runParent(env: IsolatedEnv, host: PiHost, prompt: string, args: string[] = []): Promise<JsonRunResult> {
	const session = ["--session-dir", join(env.root, "sessions")];
	return runJson([...FAKE_MODEL_ARGS, ...session, ...args, "-p", prompt], env.env, {
		host,
		raw: true,
		timeoutMs: 60_000,
	});
}

/** What each call of `tool` returned to the parent model, in order: its text and whether pi marked it an error. */
export function toolResults(run: JsonRunResult, tool: string): { text: string; isError: boolean }[] {
	return run.events.flatMap((event) => {
		const message = event.message as
			| { role?: string; toolName?: string; isError?: boolean; content?: { type: string; text?: string }[] }
			| undefined;
		if (event.type !== "message_end" || message?.role !== "toolResult" || message.toolName !== tool) return [];
		const text = (message.content ?? []).map((part) => part.text ?? "").join("");
		return [{ text, isError: message.isError === true }];
	});
}
