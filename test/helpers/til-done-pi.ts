/** The extension under test in an in-process pi, with fast countdowns, and what tests read off it. */

import { ENTRY_TYPE, KEY, MESSAGE_TYPE } from "./expected.ts";
import { type PiHarness, type StartPiOptions, startPi } from "./sdk.ts";
import { continuationsOn, EXTENSION_PATH, withEnv } from "./todo-model.ts";

/** Countdown and back-off short enough for tests, long enough to see the widget. */
export const FAST_ENV = { TIL_DONE_COUNTDOWN: "0.02", TIL_DONE_BACKOFF_MS: "50" };

const running: { harness: PiHarness; restoreEnv: () => void }[] = [];

/** Starts pi with the extension; `env` overrides `FAST_ENV` for this session. Pair with `disposeAll` in afterEach. */
export async function startTilDone(
	options: StartPiOptions,
	env: Record<string, string> = {},
	defaults: Record<string, string> = FAST_ENV,
): Promise<PiHarness> {
	const restoreEnv = withEnv({ ...defaults, ...env });
	const harness = await startPi({ extensionPaths: [EXTENSION_PATH], ...options });
	running.push({ harness, restoreEnv });
	return harness;
}

export async function disposeAll(): Promise<void> {
	for (const { harness, restoreEnv } of running.splice(0).reverse()) {
		await harness.dispose();
		restoreEnv();
	}
}

/**
 * Resolves once the last run has settled (pi has sent `agent_settled`, so it is done handling the settle) and no
 * countdown is showing. The extension sends a continuation only when a countdown runs out, so from then on nothing
 * happens until the user acts (test/unit/quiet.test.ts proves that part with fake timers). Sound only with a countdown
 * above 0: its widget appears inside the extension's `agent_settled` handler, before pi sends the event, and when it
 * runs out the widget goes and the continuation's run starts in one step. At zero length the continuation goes out
 * from a timer that no widget announces.
 */
export function idle(harness: PiHarness, timeoutMs = 10_000): Promise<void> {
	const settled = () => {
		const types = harness.events.map((event) => event.type);
		return types.lastIndexOf("agent_settled") > types.lastIndexOf("agent_start");
	};
	return harness.waitFor(
		() => settled() && harness.session.isIdle && !harness.ui.widgets.has(KEY.countdown),
		timeoutMs,
		"the last run settled, no countdown",
	);
}

export const continuations = (harness: PiHarness) => continuationsOn(harness.branch() as never);
export const notices = (harness: PiHarness) => harness.ui.notifications.map((n) => n.message);
export const warnings = (harness: PiHarness) =>
	harness.ui.notifications.filter((n) => n.type === "warning").map((n) => n.message);
/** The lines that stay in the transcript (report entries on the branch), as `{ level, text }`, in order. */
export const reported = (harness: PiHarness) =>
	harness
		.branch()
		.flatMap((entry) =>
			entry.type === "custom" && entry.customType === ENTRY_TYPE.report
				? [entry.data as { level: string; text: string }]
				: [],
		);
/** Their texts. */
export const stayed = (harness: PiHarness) => reported(harness).map((line) => line.text);
/** The stops (tripped breakers, budgets) the extension put on the branch as warning messages, in order. */
export const stopMessages = (harness: PiHarness) =>
	harness
		.branch()
		.flatMap((entry) =>
			entry.type === "custom_message" &&
			entry.customType === MESSAGE_TYPE.complete &&
			(entry.details as { level?: string } | undefined)?.level === "warning"
				? [entry.content]
				: [],
		);
export const countdownWidgets = (harness: PiHarness) => harness.ui.widgetHistory.filter((w) => w.key === KEY.countdown);
/** The countdown widget's history: its line, or undefined for a clear. */
export const countdownLines = (harness: PiHarness) => countdownWidgets(harness).map((w) => w.lines?.[0]);
