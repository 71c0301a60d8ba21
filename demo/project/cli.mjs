#!/usr/bin/env node
// wordcount: print the line, word and character counts of a file.
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
	console.error("usage: wordcount <file>");
	process.exit(1);
}

const text = readFileSync(file, "utf8");
const counts = {
	lines: text.split("\n").length - 1,
	words: text.split(/\s+/).filter(Boolean).length,
	chars: text.length,
};
console.log(`${counts.lines} ${counts.words} ${counts.chars} ${file}`);
