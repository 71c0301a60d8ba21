/** Scripted fake-model turns for todo work: each function is one model response. */

import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall, type JsonObject } from "@earendil-works/pi-ai";
import { MESSAGE_TYPE } from "./expected.ts";

/** Absolute path of the extension under test, as pi loads it. */
export const EXTENSION_PATH = fileURLToPath(new URL("../../src/index.ts", import.meta.url));

let callId = 0;
const toolUse = (name: string, args: JsonObject) =>
	fauxAssistantMessage(fauxToolCall(name, args, { id: `call_${++callId}` }), { stopReason: "toolUse" });

export const writeTodos = (texts: string[], mode: "replace" | "append" = "replace") =>
	toolUse("write_todos", { mode, todos: texts.map((text) => ({ text })) });
export const startTodo = (...indices: number[]) => toolUse("edit_todos", { action: "start", indices });
export const completeTodo = (...indices: number[]) => toolUse("edit_todos", { action: "complete", indices });
export const abandonTodo = (...indices: number[]) => toolUse("edit_todos", { action: "abandon", indices });
export const listTodos = () => toolUse("list_todos", {});
export const say = (text: string) => fauxAssistantMessage(text);
export const fail = (errorMessage: string) => fauxAssistantMessage("", { stopReason: "error", errorMessage });

/** A lazy model's run on item `i`: start it, complete it, then stop with a short text. */
export const workItem = (i: number) => [startTodo(i), completeTodo(i), say(`Finished item ${i}.`)];

/** Env for fast countdowns in tests; restore with the returned function. */
export function withEnv(values: Record<string, string>): () => void {
	const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
	Object.assign(process.env, values);
	return () => {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	};
}

/** Continuation prompts the extension put on the branch, in order (one per continuation sent). */
export function continuationsOn(branch: readonly { type: string; customType?: string; content?: unknown }[]): string[] {
	return branch
		.filter((entry) => entry.type === "custom_message" && entry.customType === MESSAGE_TYPE.continuation)
		.map((entry) => (typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content)));
}
