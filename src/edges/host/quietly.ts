/** Host calls that may outlive their session. */

/**
 * Runs a call that may throw because its context went stale (the session was replaced or reloaded); reports whether
 * it succeeded. There is nobody left to tell about such a failure.
 */
export function quietly(call: () => void): boolean {
	try {
		call();
		return true;
	} catch {
		return false;
	}
}
