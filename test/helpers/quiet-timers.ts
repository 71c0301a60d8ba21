/**
 * The fixture of the suites that drive the engine: fake timers (a countdown runs only when a test advances it) and a
 * silenced stderr (what print mode would write), both set up before each test and undone after it.
 */

import { afterEach, beforeEach, type MockInstance, vi } from "vitest";
import { must } from "./must.ts";

export type StderrSpy = MockInstance<typeof process.stderr.write>;

/** Registers the fixture for the file's tests; returns the current test's spy on stderr, to read what was written. */
export function fakeTimersQuietStderr(): () => StderrSpy {
	let stderr: StderrSpy | undefined;
	beforeEach(() => {
		vi.useFakeTimers();
		stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
	});
	afterEach(() => {
		vi.clearAllTimers();
		vi.useRealTimers();
		vi.restoreAllMocks();
		stderr = undefined;
	});
	return () => must(stderr, "the spy on stderr (fakeTimersQuietStderr's fixture runs for each test)");
}
