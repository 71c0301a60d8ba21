/**
 * Waiting for a condition on something that runs beside the test (pi in process, pi over RPC): each wait checks its
 * predicate at once, again whenever the source reports a change (`changed()`), and every `pollMs` for what nothing
 * announces (a file another process writes). Its timeout only bounds a failure. When the source is gone (`end`),
 * every wait fails, and so does every later one.
 */

export type Predicate<T> = () => T | undefined | null | false;

export interface WaitSpec<T> {
	predicate: Predicate<T>;
	/** What the test waits for, for the failure message. */
	label: string;
	timeoutMs: number;
	pollMs: number;
}

interface Pending {
	check(): void;
	fail(error: Error): void;
}

export class Waiters {
	readonly #pending = new Set<Pending>();
	#ended: Error | undefined;

	/** `context()` is added to a timeout's message: what the source last did, to tell why. */
	readonly context: () => string;

	constructor(context: () => string = () => "") {
		this.context = context;
	}

	/** The source changed: every wait checks its predicate again. */
	changed(): void {
		for (const pending of [...this.#pending]) pending.check();
	}

	/** The source is gone: every wait fails with `error`, now and from now on. */
	end(error: Error): void {
		this.#ended = error;
		for (const pending of [...this.#pending]) pending.fail(error);
	}

	/** Resolves with the predicate's first truthy value; rejects on timeout, on `end`, or if the predicate throws. */
	until<T>({ predicate, label, timeoutMs, pollMs }: WaitSpec<T>): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			const failed = (error: Error) => new Error(`waiting for ${label}: ${error.message}`);
			const first = attempt(predicate);
			if ("error" in first) return reject(failed(first.error));
			if (first.value) return resolve(first.value);
			if (this.#ended) return reject(failed(this.#ended));
			const done = () => {
				clearTimeout(timer);
				clearInterval(poll);
				this.#pending.delete(pending);
			};
			const pending: Pending = {
				check: () => {
					const result = attempt(predicate);
					if ("error" in result) pending.fail(result.error);
					else if (result.value) {
						done();
						resolve(result.value);
					}
				},
				fail: (error) => {
					done();
					reject(failed(error));
				},
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label}${this.context()}`));
			}, timeoutMs);
			const poll = setInterval(pending.check, pollMs);
			this.#pending.add(pending);
		});
	}
}

/** The predicate's value, or the error it threw. */
function attempt<T>(predicate: Predicate<T>): { value: ReturnType<Predicate<T>> } | { error: Error } {
	try {
		return { value: predicate() };
	} catch (error) {
		return { error: error instanceof Error ? error : new Error(String(error)) };
	}
}
