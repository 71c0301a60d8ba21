/**
 * Git's name of a blob, computed here as git computes it (`blob <size>\0` then the bytes, SHA-1 or SHA-256 by the
 * repository's object names): a file of any size is compared with a side of a landing by its name, read in pieces,
 * never held whole.
 */

import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

/** A hash of the repository's kind, by the length of its object names (64: SHA-256). */
const hashFor = (nameLength: number): Hash => createHash(nameLength === 64 ? "sha256" : "sha1");

/** Git's name of a blob holding `bytes` (a link's target). */
export function blobNameOf(bytes: Buffer, nameLength: number): string {
	return hashFor(nameLength).update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Git's name of a blob holding the bytes of the file `path`, of `size` bytes, read a piece at a time. */
export function fileBlobName(path: Buffer, size: number, nameLength: number): string {
	const hash = hashFor(nameLength).update(`blob ${size}\0`);
	const fd = openSync(path, "r");
	try {
		const piece = Buffer.alloc(1 << 20);
		for (let read = readSync(fd, piece, 0, piece.length, null); read > 0; ) {
			hash.update(piece.subarray(0, read));
			read = readSync(fd, piece, 0, piece.length, null);
		}
	} finally {
		closeSync(fd);
	}
	return hash.digest("hex");
}
