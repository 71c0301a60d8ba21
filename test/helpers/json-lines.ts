import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/**
 * Calls `onLine` with every line of `stream` that is not blank, as strict JSONL splits them: on LF only (a U+2028
 * inside a JSON string is no line break), a trailing CR dropped. A last line without its LF is never passed.
 */
export function readLines(stream: Readable, onLine: (line: string) => void): void {
	const decoder = new StringDecoder("utf8");
	let buffer = "";
	stream.on("data", (chunk: Buffer) => {
		buffer += decoder.write(chunk);
		let newline = buffer.indexOf("\n");
		while (newline !== -1) {
			const line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 1);
			const text = line.endsWith("\r") ? line.slice(0, -1) : line;
			if (text.trim() !== "") onLine(text);
			newline = buffer.indexOf("\n");
		}
	});
}
