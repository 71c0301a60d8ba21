/** Reading the one session file a CLI test's pi wrote under its isolated root: its entries and its tool results. */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type IsolatedEnv, parseJsonLines } from "./cli.ts";
import { must } from "./must.ts";

/** Where the CLI tests keep a session: under the isolated root. */
export const sessionDir = (env: IsolatedEnv): string => join(env.root, "sessions");

/** The path of the one session file under `dir`. */
export function sessionFile(dir: string): string {
	const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
	if (files.length !== 1) throw new Error(`expected one session file in ${dir}, found ${files.length}`);
	return join(dir, must(files[0], "a session file"));
}

/** Every entry of the one session file under `dir`. */
export function sessionEntries(dir: string): Record<string, unknown>[] {
	return parseJsonLines(readFileSync(sessionFile(dir), "utf8"));
}

export interface ToolResultEntry {
	toolName: string;
	/** The text of the result's first block. */
	text: string;
	details: { error?: string; checked?: { index: number; ms: number }[]; todos?: unknown[] };
}

/** Every tool result in the one session file under `dir`, in order; only those of `toolName` when it is given. */
export function toolResults(dir: string, toolName?: string): ToolResultEntry[] {
	return sessionEntries(dir).flatMap((entry) => {
		const message = entry.message as
			| { role?: string; toolName?: string; content?: { text: string }[]; details?: ToolResultEntry["details"] }
			| undefined;
		if (message?.role !== "toolResult" || (toolName !== undefined && message.toolName !== toolName)) return [];
		return [
			{ toolName: message.toolName ?? "", text: message.content?.[0]?.text ?? "", details: message.details ?? {} },
		];
	});
}
