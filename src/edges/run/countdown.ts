/** The visible, interruptible countdown before a continuation: timers and the widget, nothing else. */

import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { COUNTDOWN_WIDGET_ID } from "../../core/rules/keys.ts";
import { countdownText } from "../../core/texts/user.ts";
import { quietly } from "../host/quietly.ts";

export interface CountdownOptions {
	/** Total length in seconds; fractions allowed. */
	seconds: number;
	/** The UI to draw on and listen to, or undefined when there is none. */
	ui: ExtensionUIContext | undefined;
	/** Called once when the countdown runs out without being interrupted. */
	onFinish: () => void;
	/** Called once when a keypress interrupts the countdown. */
	onInterrupt?: () => void;
}

export interface Countdown {
	/** Stops the countdown and removes the widget; safe to call any number of times. */
	cancel(): void;
	readonly active: boolean;
}

const TICK_MS = 1000;

/** Starts a countdown that shows `n s` above the editor and calls `onFinish` at zero; any keypress cancels it. */
export function startCountdown(options: CountdownOptions): Countdown {
	const totalMs = Math.max(0, options.seconds * 1000);
	// Counted in steps, not read off the clock, so timer jitter can never show a number twice.
	let shown = Math.ceil(totalMs / TICK_MS);
	let timer: ReturnType<typeof setTimeout> | undefined;
	let unsubscribe: (() => void) | undefined;
	let active = true;

	const stop = () => {
		if (!active) return;
		active = false;
		if (timer !== undefined) clearTimeout(timer);
		quietly(() => unsubscribe?.());
		quietly(() => options.ui?.setWidget(COUNTDOWN_WIDGET_ID, undefined));
	};

	const tick = (waitMs: number) => {
		if (!active) return;
		if (shown <= 0) {
			stop();
			options.onFinish();
			return;
		}
		if (
			!quietly(() => options.ui?.setWidget(COUNTDOWN_WIDGET_ID, [countdownText(shown)], { placement: "aboveEditor" }))
		) {
			stop();
			return;
		}
		shown--;
		timer = setTimeout(() => tick(TICK_MS), waitMs);
	};

	// A key that is not consumed still reaches the editor: the user types and the countdown is gone.
	quietly(() => {
		unsubscribe = options.ui?.onTerminalInput(() => {
			if (!active) return undefined;
			stop();
			options.onInterrupt?.();
			return undefined;
		});
	});
	// The first number stays up for the fractional part (3 s: 1000 ms; 0.02 s: 20 ms), every later one for a second.
	// Even a zero-length countdown fires from a fresh task, never inside the event handler that started it.
	if (shown > 0) tick(totalMs - (shown - 1) * TICK_MS);
	else timer = setTimeout(() => tick(0), 0);
	return {
		cancel: stop,
		get active() {
			return active;
		},
	};
}
