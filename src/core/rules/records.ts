/**
 * The records a shared plan keeps in commit messages (a claim, a shared list, a verdict): a header naming what the
 * record is and its version, a blank line, then the record as one line of JSON. They come from other machines, so they
 * are read strictly: anything but exactly that shape is no record.
 */

/** The longest text field a record may carry (a session id, a host name, a nonce). */
export const MAX_RECORD_FIELD = 200;

/** A record's commit message under `header`. */
export function recordMessage(header: string, record: object): string {
	return `${header}\n\n${JSON.stringify(record)}\n`;
}

/**
 * The record a message under `header` holds: a plain object with exactly `fields` (those of `optional` may be
 * missing); undefined for anything else.
 */
export function readRecord(
	message: string,
	header: string,
	fields: ReadonlySet<string>,
	optional: readonly string[] = [],
): Record<string, unknown> | undefined {
	const prefix = `${header}\n\n`;
	if (!message.startsWith(prefix)) return undefined;
	const body = message.slice(prefix.length).replace(/\n$/, "");
	if (body.includes("\n")) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return undefined;
	}
	return hasFields(parsed, fields, optional) ? (parsed as Record<string, unknown>) : undefined;
}

/** Whether `value` is a plain object with exactly the fields `allowed` (those of `optional` may be missing). */
export function hasFields(value: unknown, allowed: ReadonlySet<string>, optional: readonly string[] = []): boolean {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const names = Object.keys(value);
	const required = [...allowed].filter((name) => !optional.includes(name));
	return names.every((name) => allowed.has(name)) && required.every((name) => names.includes(name));
}

/** A name a record may carry (a session, a host, a nonce): not empty, within the limit, no control character. */
export const isRecordName = (value: unknown): value is string =>
	typeof value === "string" && value.length > 0 && value.length <= MAX_RECORD_FIELD && !/[\p{Cc}]/u.test(value);

/** A commit's full name, SHA-1 or SHA-256. */
export const isCommitName = (value: unknown): value is string =>
	typeof value === "string" && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
