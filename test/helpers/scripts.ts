/**
 * Step builders for the scripted fake model (demo/fake-model-extension.ts) driving the todo tools from the real CLI.
 * Each builder returns one {@link FakeStep}, i.e. the answer to one model call.
 */
import type { JsonObject } from "@earendil-works/pi-ai";
import type { FakeLogLine, FakeStep } from "./cli.ts";
import { CONTINUATION_HEAD, INJECTION_HEAD } from "./expected.ts";

/** For each model call, how many copies of the injected list its request holds. */
export const injectionsPerCall = (log: readonly FakeLogLine[]): number[] =>
	log.map((line) => line.userHeads.filter((head) => head === INJECTION_HEAD).length);

/** One model call that calls one tool. */
export const toolStep = (name: string, args: JsonObject): FakeStep => ({ toolCalls: [{ name, arguments: args }] });
export const writeStep = (texts: readonly string[]): FakeStep =>
	toolStep("write_todos", { mode: "replace", todos: texts.map((text) => ({ text })) });
export const startStep = (...indices: number[]): FakeStep => toolStep("edit_todos", { action: "start", indices });
export const completeStep = (...indices: number[]): FakeStep => toolStep("edit_todos", { action: "complete", indices });
/** One model call that ends the run with plain text (stopReason `stop`). */
export const sayStep = (text: string, delayMs?: number): FakeStep =>
	delayMs === undefined ? { text } : { text, delayMs };
/** A worker's whole script: it writes `name` (its content: the name and a newline), then says so. */
export const writeFileScript = (name: string): FakeStep[] => [
	toolStep("write", { path: name, content: `${name}\n` }),
	sayStep(`Wrote ${name}.`),
];

/** A lazy model's run on item `i`: start it, complete it, then stop. */
export const workItemSteps = (i: number): FakeStep[] => [startStep(i), completeStep(i), sayStep(`Finished item ${i}.`)];

/**
 * A model that writes `items`, then stops after every finished item: run 1 writes the list and does item 0, and each
 * later run (one per continuation) does the next item. `items.length` runs, `items.length - 1` continuations.
 */
export function lazyScript(items: readonly string[]): FakeStep[] {
	return [writeStep(items), ...items.flatMap((_, i) => workItemSteps(i))];
}

/**
 * A model that writes `items` and then, in every run, only talks: it never finishes anything. `runs` runs in all
 * (the first one writes the list); later calls fall through to "(script exhausted)", which also finishes nothing.
 */
export function stallScript(items: readonly string[], runs: number): FakeStep[] {
	const talk = Array.from({ length: runs }, (_, run) => sayStep(`Still looking at it (run ${run + 1}).`));
	return [writeStep(items), ...talk];
}

/** Model calls whose last user message is a continuation prompt. */
export const continuationCalls = (log: readonly FakeLogLine[]): FakeLogLine[] =>
	log.filter((line) => line.lastUser.startsWith(CONTINUATION_HEAD));

/**
 * The continuation prompts the model saw, in order, consecutive repeats merged: one per continuation sent as long as
 * the remaining list changes between continuations (true for {@link lazyScript}). For a model that makes no progress
 * the prompts repeat; count {@link continuationCalls} there (one call per run in {@link stallScript}).
 */
export function continuationPrompts(log: readonly FakeLogLine[]): string[] {
	const prompts: string[] = [];
	for (const line of continuationCalls(log)) if (prompts.at(-1) !== line.lastUser) prompts.push(line.lastUser);
	return prompts;
}
