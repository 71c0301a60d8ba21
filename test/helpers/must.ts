/** `value`, narrowed: a test that indexes what must be there fails here, naming `what`, if it is not. */
export function must<T>(value: T | undefined, what: string): T {
	if (value === undefined) throw new Error(`expected ${what}, found nothing`);
	return value;
}
