/**
 * The auto-continue engine as the unit tests drive it: a fake pi, a fake ctx whose UI the store is painted into, the
 * configuration a test may change as it goes, and a session started.
 */

import { DEFAULT_CONFIG, type TilDoneConfig } from "../../src/core/rules/settings.ts";
import { createEngine } from "../../src/edges/run/engine.ts";
import { KEY } from "./expected.ts";
import { createFakeCtx, type FakeCtxOptions } from "./fake-ctx.ts";
import { createFakePi } from "./fake-pi.ts";
import { freshStore } from "./store.ts";

/** The messages of a run whose model is still working: it ends with a plain answer. */
export const WORKING = [{ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Working on it." }] }];

export function startEngine(options: FakeCtxOptions = {}, overrides: Partial<TilDoneConfig> = {}) {
	const config: TilDoneConfig = { ...DEFAULT_CONFIG, ...overrides };
	const pi = createFakePi();
	const engine = createEngine(pi.api, () => config);
	const fake = createFakeCtx(options);
	freshStore(fake.ctx);
	engine.onSessionStart(fake.ctx, config);
	return {
		config,
		pi,
		engine,
		...fake,
		/** Whether a countdown shows. */
		counting: () => fake.ui.widgets.has(KEY.countdown),
		/** One run ends and pi settles (TUI/RPC). */
		endRun: (messages: readonly unknown[] = WORKING) => {
			engine.onRunEnd(messages, fake.ctx);
			engine.onSettled(fake.ctx);
		},
	};
}
