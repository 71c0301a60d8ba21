/**
 * `/loop`: its arguments, read strictly (its defaults and limit are in core/model/types.ts, its usage and refusals in
 * core/texts/user.ts). Pure; core/rules/next-step.ts decides what follows each iteration.
 */

import { DEFAULT_LOOP_MARKER, DEFAULT_LOOP_MAX, type LoopSpec, MAX_LOOP_ITERATIONS } from "../model/types.ts";
import { LOOP_ARG_REFUSALS as REFUSALS } from "../texts/user/loop.ts";

/** Why a `/loop` ends. */
export type LoopEndCode = "loop-done" | "loop-limit" | "loop-aborted" | "loop-failures" | "loop-budget";

/** What `/loop` was given: a loop to start, a refusal, or a request for its usage. */
export type LoopArgs = { spec: LoopSpec } | { error: string } | { help: true };

interface Scan {
	raw: string;
	/** Where the next word is looked for. */
	at: number;
	max?: number;
	marker?: string;
	/** The prompt's pieces, as written between the options. */
	prompt: string[];
}

/** The next word from `scan.at`: its text and where it starts and ends; undefined at the end. */
function nextWord(scan: Scan): { text: string; start: number; end: number } | undefined {
	const match = /\S+/g;
	match.lastIndex = scan.at;
	const found = match.exec(scan.raw);
	return found ? { text: found[0], start: found.index, end: found.index + found[0].length } : undefined;
}

/** An option's value: after `=`, or the next word; a marker may be quoted, and its quote must close. */
function optionValue(scan: Scan, word: { text: string; end: number }, quoted: boolean): string | { error: string } {
	const name = word.text.split("=")[0] ?? "";
	if (word.text.includes("=")) return word.text.slice(name.length + 1);
	const value = nextWord(scan);
	if (!value || value.text.startsWith("--")) return { error: REFUSALS.needsValue(name) };
	const quote = value.text[0];
	if (quoted && (quote === '"' || quote === "'")) {
		const close = scan.raw.indexOf(quote, value.start + 1);
		if (close === -1) return { error: REFUSALS.quoteNotClosed(name, quote) };
		scan.at = close + 1;
		return scan.raw.slice(value.start + 1, close);
	}
	scan.at = value.end;
	return value.text;
}

/** Reads one of the options; an error, or undefined once it is stored. */
function readOption(scan: Scan, word: { text: string; end: number }): string | undefined {
	const name = word.text.split("=")[0] ?? "";
	if (name === "--max" ? scan.max !== undefined : scan.marker !== undefined) return REFUSALS.givenTwice(name);
	const value = optionValue(scan, word, name === "--until");
	if (typeof value !== "string") return value.error;
	if (name === "--max") {
		const max = Number(value);
		if (!/^\d+$/.test(value) || max < 1 || max > MAX_LOOP_ITERATIONS) {
			return REFUSALS.max;
		}
		scan.max = max;
	} else {
		if (value.trim() === "") return REFUSALS.emptyMarker;
		scan.marker = value.trim();
	}
	return undefined;
}

const OPTION = /^--(max|until)(=|$)/;

/**
 * Reads `/loop [--max N] [--until MARKER] [--] <prompt>` strictly: its options stand anywhere, each once and with a
 * value; `--` starts a prompt that holds them as words; `--help` asks for the usage; anything else that starts with
 * `-` before the prompt is not understood. The prompt is kept as written.
 */
export function parseLoopArgs(args: string): LoopArgs {
	const scan: Scan = { raw: args, at: 0, prompt: [] };
	for (let word = nextWord(scan); word; word = nextWord(scan)) {
		scan.at = word.end;
		if (word.text === "--") {
			scan.prompt.push(args.slice(word.end));
			break;
		}
		if (word.text === "--help" || word.text === "-h") return { help: true };
		if (OPTION.test(word.text)) {
			const error = readOption(scan, word);
			if (error) return { error };
			continue;
		}
		if (word.text.startsWith("-") && scan.prompt.join("").trim() === "")
			return { error: REFUSALS.notAnOption(word.text) };
		scan.prompt.push(args.slice(word.start, nextWord(scan)?.start ?? args.length));
	}
	const prompt = scan.prompt.join("").replace(/\s+$/, "").trim();
	if (prompt === "") return { error: REFUSALS.noPrompt };
	return { spec: { prompt, max: scan.max ?? DEFAULT_LOOP_MAX, marker: scan.marker ?? DEFAULT_LOOP_MARKER } };
}
