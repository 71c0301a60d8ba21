import type { ExtensionUIContext, TerminalInputHandler } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startCountdown } from "../../src/edges/run/countdown.ts";
import { countdownLine, KEY } from "../helpers/expected.ts";
import { createFakeCtx, type FakeUi } from "../helpers/fake-ctx.ts";
import { must } from "../helpers/must.ts";

const shown = (n: number) => [countdownLine(n)];

function setup() {
	const fake = createFakeCtx();
	const onFinish = vi.fn();
	const onInterrupt = vi.fn();
	return { ...fake, uiContext: fake.ctx.ui, onFinish, onInterrupt };
}

/** The countdown widget's content after each `setWidget` call for it, `undefined` for a clear. */
function countdownFrames(ui: FakeUi): unknown[] {
	return ui.widgetCalls.filter((call) => call.key === KEY.countdown).map((call) => call.content);
}

function pressKey(ui: FakeUi, data = "x"): unknown[] {
	return [...ui.inputHandlers].map((handler) => handler(data));
}

beforeEach(() => {
	vi.useFakeTimers();
});

afterEach(() => {
	vi.useRealTimers();
});

describe("a countdown shows every whole second above the editor, then finishes once", () => {
	it("shows 3, 2, 1 a second apart, then clears the widget and calls onFinish once", () => {
		const { ui, uiContext, onFinish } = setup();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish });
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(3));
		expect(must(ui.widgetCalls[0], "a widget call").options).toEqual({ placement: "aboveEditor" });
		vi.advanceTimersByTime(999);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(3));
		vi.advanceTimersByTime(1);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(2));
		vi.advanceTimersByTime(1000);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(1));
		expect(onFinish).not.toHaveBeenCalled();
		expect(countdown.active).toBe(true);
		vi.advanceTimersByTime(1000);
		expect(countdownFrames(ui)).toEqual([shown(3), shown(2), shown(1), undefined]);
		expect(ui.widgets.has(KEY.countdown)).toBe(false);
		expect(onFinish).toHaveBeenCalledTimes(1);
		expect(countdown.active).toBe(false);
		vi.advanceTimersByTime(10_000);
		expect(onFinish).toHaveBeenCalledTimes(1);
		expect(vi.getTimerCount()).toBe(0);
	});

	it("unsubscribes from terminal input when it finishes", () => {
		const { ui, uiContext, onFinish } = setup();
		startCountdown({ seconds: 1, ui: uiContext, onFinish });
		expect(ui.inputHandlers.size).toBe(1);
		vi.advanceTimersByTime(1000);
		expect(ui.inputHandlers.size).toBe(0);
	});

	it("keeps the first number up only for the fractional part: 2.5 s shows 3 for 500 ms", () => {
		const { ui, uiContext, onFinish } = setup();
		startCountdown({ seconds: 2.5, ui: uiContext, onFinish });
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(3));
		vi.advanceTimersByTime(500);
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(2));
		vi.advanceTimersByTime(1999);
		expect(onFinish).not.toHaveBeenCalled();
		vi.advanceTimersByTime(1);
		expect(countdownFrames(ui)).toEqual([shown(3), shown(2), shown(1), undefined]);
		expect(onFinish).toHaveBeenCalledTimes(1);
	});

	it("shows `1s` for a length below one second and finishes after that fraction", () => {
		const { ui, uiContext, onFinish } = setup();
		startCountdown({ seconds: 0.02, ui: uiContext, onFinish });
		expect(ui.widgets.get(KEY.countdown)?.lines).toEqual(shown(1));
		vi.advanceTimersByTime(19);
		expect(onFinish).not.toHaveBeenCalled();
		vi.advanceTimersByTime(1);
		expect(countdownFrames(ui)).toEqual([shown(1), undefined]);
		expect(onFinish).toHaveBeenCalledTimes(1);
	});

	it("fires a zero-length countdown from a fresh task, never synchronously, and shows no number", () => {
		const { ui, uiContext, onFinish } = setup();
		const countdown = startCountdown({ seconds: 0, ui: uiContext, onFinish });
		expect(onFinish).not.toHaveBeenCalled();
		expect(countdown.active).toBe(true);
		vi.advanceTimersByTime(0);
		expect(onFinish).toHaveBeenCalledTimes(1);
		expect(countdownFrames(ui)).toEqual([undefined]);
	});

	it("treats a negative length as zero", () => {
		const { uiContext, onFinish } = setup();
		startCountdown({ seconds: -5, ui: uiContext, onFinish });
		expect(onFinish).not.toHaveBeenCalled();
		vi.advanceTimersByTime(0);
		expect(onFinish).toHaveBeenCalledTimes(1);
	});

	it("runs without a UI: nothing is drawn and onFinish still fires", () => {
		const onFinish = vi.fn();
		const countdown = startCountdown({ seconds: 2, ui: undefined, onFinish });
		vi.advanceTimersByTime(1999);
		expect(onFinish).not.toHaveBeenCalled();
		vi.advanceTimersByTime(1);
		expect(onFinish).toHaveBeenCalledTimes(1);
		expect(countdown.active).toBe(false);
	});
});

describe("a keypress interrupts the countdown", () => {
	it("clears the widget, unsubscribes, calls onInterrupt once and never onFinish", () => {
		const { ui, uiContext, onFinish, onInterrupt } = setup();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish, onInterrupt });
		vi.advanceTimersByTime(1000);
		pressKey(ui);
		expect(countdownFrames(ui)).toEqual([shown(3), shown(2), undefined]);
		expect(ui.inputHandlers.size).toBe(0);
		expect(onInterrupt).toHaveBeenCalledTimes(1);
		expect(countdown.active).toBe(false);
		vi.advanceTimersByTime(10_000);
		expect(onFinish).not.toHaveBeenCalled();
		expect(vi.getTimerCount()).toBe(0);
	});

	it("does not consume the key, so it still reaches the editor", () => {
		const { ui, uiContext, onFinish } = setup();
		startCountdown({ seconds: 3, ui: uiContext, onFinish });
		expect(pressKey(ui, "a")).toEqual([undefined]);
	});

	it("works without an onInterrupt callback", () => {
		const { ui, uiContext, onFinish } = setup();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish });
		expect(() => pressKey(ui)).not.toThrow();
		expect(countdown.active).toBe(false);
	});

	it("ignores a key that reaches a handler kept past the end of the countdown", () => {
		const { ui, uiContext, onFinish, onInterrupt } = setup();
		startCountdown({ seconds: 1, ui: uiContext, onFinish, onInterrupt });
		const [registered] = ui.inputHandlers;
		const handler = must(registered, "the countdown's input handler");
		vi.advanceTimersByTime(1000);
		expect(handler("x")).toBeUndefined();
		expect(onInterrupt).not.toHaveBeenCalled();
		expect(onFinish).toHaveBeenCalledTimes(1);
	});

	it("stays stopped when the key arrives while the widget is being drawn", () => {
		const { ui, uiContext, onFinish, onInterrupt } = setup();
		let handler: TerminalInputHandler | undefined;
		let draws = 0;
		const reentrant = {
			...uiContext,
			onTerminalInput(h: TerminalInputHandler) {
				handler = h;
				return () => undefined;
			},
			setWidget(key: string, content: unknown, options?: unknown) {
				(uiContext.setWidget as (k: string, c: unknown, o?: unknown) => void)(key, content, options);
				if (content !== undefined && ++draws === 2) handler?.("x");
			},
		} as unknown as ExtensionUIContext;
		const countdown = startCountdown({ seconds: 3, ui: reentrant, onFinish, onInterrupt });
		vi.advanceTimersByTime(10_000);
		expect(countdown.active).toBe(false);
		expect(onInterrupt).toHaveBeenCalledTimes(1);
		expect(onFinish).not.toHaveBeenCalled();
		expect(countdownFrames(ui)).toEqual([shown(3), shown(2), undefined]);
	});
});

describe("cancel stops the countdown and is idempotent", () => {
	it("clears the widget once, however often it is called, and never calls onFinish or onInterrupt", () => {
		const { ui, uiContext, onFinish, onInterrupt } = setup();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish, onInterrupt });
		countdown.cancel();
		countdown.cancel();
		countdown.cancel();
		expect(countdownFrames(ui)).toEqual([shown(3), undefined]);
		expect(ui.inputHandlers.size).toBe(0);
		expect(countdown.active).toBe(false);
		vi.advanceTimersByTime(10_000);
		expect(onFinish).not.toHaveBeenCalled();
		expect(onInterrupt).not.toHaveBeenCalled();
	});

	it("cancels a zero-length countdown before it fires", () => {
		const { uiContext, onFinish } = setup();
		const countdown = startCountdown({ seconds: 0, ui: uiContext, onFinish });
		countdown.cancel();
		vi.advanceTimersByTime(0);
		expect(onFinish).not.toHaveBeenCalled();
	});
});

describe("a stale UI stops the countdown quietly", () => {
	it("stops without throwing when the UI is already stale at the start", () => {
		const { uiContext, makeStale, onFinish, onInterrupt } = setup();
		makeStale();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish, onInterrupt });
		expect(countdown.active).toBe(false);
		vi.advanceTimersByTime(10_000);
		expect(onFinish).not.toHaveBeenCalled();
		expect(onInterrupt).not.toHaveBeenCalled();
		expect(() => countdown.cancel()).not.toThrow();
	});

	it("stops at the next tick when the UI goes stale mid-countdown", () => {
		const { ui, uiContext, makeStale, onFinish } = setup();
		const countdown = startCountdown({ seconds: 3, ui: uiContext, onFinish });
		makeStale();
		expect(() => vi.advanceTimersByTime(1000)).not.toThrow();
		expect(countdown.active).toBe(false);
		expect(ui.inputHandlers.size).toBe(0);
		vi.advanceTimersByTime(10_000);
		expect(onFinish).not.toHaveBeenCalled();
		expect(countdownFrames(ui)).toEqual([shown(3)]);
	});
});
