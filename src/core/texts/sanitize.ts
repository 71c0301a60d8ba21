/** Plain-text helpers for text that comes from outside (todo text, model answers): data, shown safely. */

import { visibleWidth } from "@earendil-works/pi-tui";

/** Made on first use: creating a segmenter loads ICU data, about 7 ms of every pi start-up otherwise. */
let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of a text: what a reader counts as characters. */
export function* graphemesOf(text: string): Generator<string> {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	for (const part of segmenter.segment(text)) yield part.segment;
}

/** Terminal cells a text takes (wide characters count two), as pi's footer measures it. */
export const cellsOf = (text: string): number => visibleWidth(text);

/**
 * Cuts plain text to at most `cells` terminal cells, marking the cut with `…` (which takes one of them); never splits
 * a character.
 */
export function cutToCells(text: string, cells: number): string {
	if (visibleWidth(text) <= cells) return text;
	let kept = "";
	let used = 0;
	for (const grapheme of graphemesOf(text)) {
		const width = visibleWidth(grapheme);
		if (used + width > cells - 1) break;
		kept += grapheme;
		used += width;
	}
	return `${kept.trimEnd()}…`;
}

/** Todo text is data: control characters and line breaks become spaces so it can never start a line of its own. */
export function oneLine(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
	return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}

/** Cuts text to `max` code points, marking the cut with `…`. */
export function prefix(text: string, max: number): string {
	const points = Array.from(text);
	return points.length <= max ? text : `${points.slice(0, Math.max(1, max - 1)).join("")}…`;
}

/** The text blocks of a message's content (a string, or an array of blocks), joined by line breaks. */
export function textOfContent(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter(
			(block): block is { type: "text"; text: string } => block?.type === "text" && typeof block.text === "string",
		)
		.map((block) => block.text)
		.join("\n");
}

/** Characters of a command's output shown to the model. */
export const MAX_CHECK_OUTPUT_CHARS = 2000;

/**
 * A command's output as the model may read it: the last `max` characters, on one line (line breaks shown as ` ⏎ `),
 * so nothing in it can start a line of its own or pass for an instruction of ours.
 */
export function outputAsData(output: string, max = MAX_CHECK_OUTPUT_CHARS): string {
	const lines = output
		.replace(/\r\n?/g, "\n")
		.split("\n")
		.map((line) => oneLine(line).trim());
	// Trailing lines with nothing visible would push the last words out of the characters kept.
	while (lines.length > 0 && lines.at(-1) === "") lines.pop();
	const flat = lines.join(" ⏎ ");
	const points = Array.from(flat);
	return points.length <= max ? flat : `…${points.slice(points.length - (max - 1)).join("")}`;
}
