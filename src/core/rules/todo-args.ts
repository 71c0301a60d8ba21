/**
 * The arguments of `/todos` subcommands, read strictly: indices as the user typed them, named back in every refusal.
 * Pure; a refusal is a sentence of TODO_ARG_REFUSALS (core/texts/user.ts), and edges/commands/todos.ts adds the
 * subcommand's usage.
 */

import { isTooLong } from "../list/items.ts";
import { MAX_INDICES, MAX_TODO_TEXT_LENGTH, MAX_TODOS } from "../model/types.ts";
import { oneLine } from "../texts/sanitize.ts";
import { TODO_ARG_REFUSALS as REFUSALS } from "../texts/user/todos.ts";
import { MAX_REMOTE_LENGTH, parseRemote } from "./settings.ts";

export type Parsed<T> = { value: T } | { error: string };

/** The words of `rest`, or none. */
export const wordsOf = (rest: string): string[] => (rest.trim() === "" ? [] : rest.trim().split(/\s+/));

/** A word as a refusal quotes it: on one line, at most 20 characters. */
export function quoted(word: string): string {
	const text = JSON.stringify(oneLine(word));
	return text.length > 22 ? `${text.slice(0, 20)}…"` : text;
}

/** One index of a list of `length` items, as typed. */
export function parseIndex(word: string | undefined, length: number): Parsed<number> {
	if (word === undefined) return { error: length === 0 ? REFUSALS.emptyList : REFUSALS.whichItem(length) };
	if (!/^\d+$/.test(word)) return { error: REFUSALS.notAnIndex(quoted(word), length) };
	const index = Number(word);
	return index < length ? { value: index } : { error: REFUSALS.notAnItem(word, length) };
}

/** One or more indices (at most {@link MAX_INDICES}), each an item of the list. */
export function parseIndices(rest: string, length: number): Parsed<number[]> {
	const words = wordsOf(rest);
	if (words.length === 0) return parseIndex(undefined, length) as { error: string };
	if (words.length > MAX_INDICES) return { error: REFUSALS.tooManyIndices(words.length) };
	const indices: number[] = [];
	for (const word of words) {
		const index = parseIndex(word, length);
		if ("error" in index) return index;
		if (indices.includes(index.value)) return { error: REFUSALS.givenTwice(index.value) };
		indices.push(index.value);
	}
	return { value: indices };
}

/** The text of an item: not blank, within the limit. */
export function parseText(text: string): Parsed<string> {
	if (text.trim() === "") return { error: REFUSALS.emptyText };
	if (isTooLong(text, MAX_TODO_TEXT_LENGTH)) return { error: REFUSALS.textTooLong };
	return { value: text };
}

/** An index, then the text that follows it. */
export function parseIndexAndText(rest: string, length: number): Parsed<{ index: number; text: string }> {
	const [word] = wordsOf(rest);
	const index = parseIndex(word, length);
	if ("error" in index) return index;
	// The index read, the text is what follows its word.
	const text = parseText(rest.trim().replace(/^\S+/, "").trim());
	return "error" in text ? text : { value: { index: index.value, text: text.value } };
}

/** Two indices: an item, and where it goes. */
export function parseMove(rest: string, length: number): Parsed<{ from: number; to: number }> {
	const words = wordsOf(rest);
	if (words.length !== 2) return { error: REFUSALS.move(length) };
	const from = parseIndex(words[0], length);
	if ("error" in from) return from;
	const to = parseIndex(words[1], length);
	return "error" in to ? to : { value: { from: from.value, to: to.value } };
}

/**
 * What `/todos workers` is asked: to show them (none given), how many may work at once, to clean up, or what the last
 * worker of an item answered.
 */
export type WorkersAsk = undefined | { count: number } | "clean" | { item: number };

/**
 * `/todos workers`'s argument: none (show them), `off` or how many may work at once (0 to `max`), `clean`, or an item
 * in brackets (`[2]`), one of `workedOn` (the items a worker worked on in this chain): a bare number is a count.
 */
export function parseWorkersAsk(rest: string, max: number, workedOn: readonly number[] = []): Parsed<WorkersAsk> {
	const [word, ...more] = wordsOf(rest);
	if (word === undefined) return { value: undefined };
	if (more.length === 0 && word.startsWith("[")) {
		const item = /^\[(\d+)\]$/.exec(word)?.[1];
		const index = Number(item);
		if (item === undefined || !workedOn.includes(index)) return { error: REFUSALS.noWorkerOn(quoted(word), workedOn) };
		return { value: { item: index } };
	}
	if (more.length === 0 && word.toLowerCase() === "clean") return { value: "clean" };
	if (more.length > 0 || !(word.toLowerCase() === "off" || /^\d+$/.test(word)) || Number(word) > max) {
		return { error: REFUSALS.workerCount(quoted(rest.trim()), max) };
	}
	return { value: { count: word.toLowerCase() === "off" ? 0 : Number(word) } };
}

/** What `/todos remote` is asked: to show the team (none given), to work alone, to join a remote, to free a claim. */
export type RemoteAsk = undefined | "off" | { join: string } | { release: number };

/** `/todos remote`'s argument: none, `off`, `release <i>` (an item of the list), or one remote's name or URL. */
export function parseRemoteAsk(rest: string, length: number): Parsed<RemoteAsk> {
	const words = wordsOf(rest);
	const [word, second] = words;
	if (word === undefined) return { value: undefined };
	if (word.toLowerCase() === "release") {
		if (words.length > 2) return { error: REFUSALS.oneIndexOnly(quoted(words.slice(2).join(" "))) };
		const index = parseIndex(second, length);
		return "error" in index ? index : { value: { release: index.value } };
	}
	if (words.length > 1) return { error: REFUSALS.oneRemote(quoted(rest.trim()), MAX_REMOTE_LENGTH) };
	if (word.toLowerCase() === "off") return { value: "off" };
	// The rule of `--til-done-remote`: what the flag refuses, the command refuses too.
	const remote = parseRemote(word);
	return remote === undefined
		? { error: REFUSALS.oneRemote(quoted(word), MAX_REMOTE_LENGTH) }
		: { value: { join: remote } };
}

/** Nothing: a subcommand that takes no arguments. */
export function parseNothing(rest: string): Parsed<undefined> {
	const [word] = wordsOf(rest);
	return word === undefined ? { value: undefined } : { error: REFUSALS.takesNothing(quoted(word)) };
}

/** Whether another item fits in the list. */
export function roomFor(length: number): Parsed<undefined> {
	return length < MAX_TODOS ? { value: undefined } : { error: REFUSALS.listFull };
}

/** One file name (without spaces), or `fallback` when none is given and there is one. */
export function parseFile(rest: string, fallback?: string): Parsed<string> {
	const words = wordsOf(rest);
	const [word] = words;
	if (word === undefined) return fallback === undefined ? { error: REFUSALS.whichFile } : { value: fallback };
	return words.length === 1 ? { value: word } : { error: REFUSALS.oneFile(words.length) };
}

/** Exactly one index, and nothing after it. */
export function parseOneIndex(rest: string, length: number): Parsed<number> {
	const words = wordsOf(rest);
	const index = parseIndex(words[0], length);
	if ("error" in index || words.length === 1) return index;
	return { error: REFUSALS.oneIndexOnly(quoted(words.slice(1).join(" "))) };
}

/** Nothing, or one of `words`: undefined for nothing. */
export function parseOptionalWord<W extends string>(rest: string, words: readonly W[]): Parsed<W | undefined> {
	const given = wordsOf(rest);
	if (given.length === 0) return { value: undefined };
	const [word] = given;
	if (given.length === 1 && (words as readonly string[]).includes(word as string)) return { value: word as W };
	return { error: REFUSALS.takesNothingOr(quoted(rest.trim()), words) };
}
