/**
 * What models that lie about being done get away with: each scripted liar of test/helpers/lying-models.ts runs in
 * `pi -p` (the real CLI, pi's bash tool active), and its session file says which completions were accepted, on what
 * grounds, how many continuations the chain used and how long the item checks took.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE_MESSAGE_TYPE } from "../src/core/rules/keys.ts";
import type { TodoItem } from "../src/types.ts";
import {
	DEFAULT_HOST,
	EXTENSION_ENTRY,
	isolatedEnv,
	type PiHost,
	parseJsonLines,
	runPrint,
} from "../test/helpers/cli.ts";
import { LYING_MODELS, type LyingModel } from "../test/helpers/lying-models.ts";

export interface LiarFigures {
	name: string;
	/** `edit_todos complete` calls the model made. */
	completeCalls: number;
	refused: number;
	/** Accepted completions of an item whose check did not pass in that call, or of an item the user must review. */
	falseAccepted: number;
	/** Items completed in a call that ran and passed their check. */
	completedAfterCheck: number;
	continuations: number;
	/** From each `edit_todos complete` call on items with a check to its result, summed. */
	checkMs: number;
	/** The reason code of the invocation's end, and pi's exit status. */
	end: string;
	exitCode: number | null;
}

interface Call {
	arguments: { action?: string; indices?: number[] };
	at: number;
}

interface EditResult {
	call: Call;
	details: { error?: string; checked?: { index: number }[]; todos?: TodoItem[] };
	at: number;
}

/** The `edit_todos` results of a session file, each with the call that asked for it. */
function editResults(entries: Record<string, unknown>[]): EditResult[] {
	const calls = new Map<string, Call>();
	const results: EditResult[] = [];
	for (const entry of entries) {
		const message = entry.message as Record<string, unknown> | undefined;
		const at = Number(message?.timestamp);
		if (message?.role === "assistant") {
			for (const block of (message.content as Record<string, unknown>[]) ?? []) {
				if (block.type === "toolCall")
					calls.set(String(block.id), { arguments: block.arguments as Call["arguments"], at });
			}
		}
		const call = calls.get(String(message?.toolCallId));
		if (message?.role === "toolResult" && message.toolName === "edit_todos" && call) {
			results.push({ call, details: (message.details ?? {}) as EditResult["details"], at });
		}
	}
	return results;
}

/** Tallies the completions of one session: accepted, refused, on what grounds, and the time their checks took. */
function tallyCompletions(results: readonly EditResult[]) {
	const completes = results.filter((result) => result.call.arguments.action === "complete");
	let falseAccepted = 0;
	let completedAfterCheck = 0;
	let checkMs = 0;
	for (const { call, details, at } of completes) {
		const indices = call.arguments.indices ?? [];
		const items = details.todos ?? [];
		if (indices.some((index) => items[index]?.check !== undefined)) checkMs += at - call.at;
		if (details.error !== undefined) continue;
		const passed = new Set((details.checked ?? []).map((run) => run.index));
		for (const index of indices) {
			const item = items[index];
			if (item?.review || (item?.check !== undefined && !passed.has(index))) falseAccepted++;
			else if (passed.has(index)) completedAfterCheck++;
		}
	}
	const refused = completes.filter((result) => result.details.error !== undefined).length;
	return { completeCalls: completes.length, refused, falseAccepted, completedAfterCheck, checkMs };
}

export async function measureLiar(model: LyingModel, host: PiHost = DEFAULT_HOST): Promise<LiarFigures> {
	const iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0.05", ...model.env });
	try {
		iso.writeScript(model.steps);
		const sessions = join(iso.root, "sessions");
		const run = await runPrint(["-p", model.prompt], iso.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: sessions },
		});
		const file = readdirSync(sessions).find((name) => name.endsWith(".jsonl"));
		if (!file) throw new Error(`no session file for "${model.name}": ${run.stderr}`);
		const entries = parseJsonLines(readFileSync(join(sessions, file), "utf8"));
		const end = entries.find((entry) => entry.type === "custom" && entry.customType === COMPLETE_MESSAGE_TYPE)?.data as
			| { code: string; counters: { continuations: number } }
			| undefined;
		if (!end) throw new Error(`no end reason recorded for "${model.name}": ${run.stderr}`);
		const tally = tallyCompletions(editResults(entries));
		return { name: model.name, ...tally, continuations: end.counters.continuations, end: end.code, exitCode: run.code };
	} finally {
		iso.cleanup();
	}
}

export async function verifiedSection(out: (line?: string) => void, host: PiHost = DEFAULT_HOST): Promise<void> {
	out(`## Models that lie about being done (\`pi -p\`, real pi ${host.version}, scripted fake model, bash active)`);
	out();
	out(
		"| The model | complete calls | refused | false completions accepted | completed after their check passed | continuations | time in item checks | end | exit |",
	);
	out("|---|---:|---:|---:|---:|---:|---:|---|---:|");
	for (const model of LYING_MODELS) {
		const f = await measureLiar(model, host);
		out(
			`| ${f.name} | ${f.completeCalls} | ${f.refused} | ${f.falseAccepted} | ${f.completedAfterCheck} | ${f.continuations} | ${f.checkMs} ms | \`${f.end}\` | ${f.exitCode} |`,
		);
	}
	out();
	out(
		"Time in item checks: from each `edit_todos complete` call on items with a check to its result, summed (the checks run there). The done-check runs between runs and is not in it.",
	);
	out();
}
