/** Settings with one precedence order: CLI flag, then environment variable, then default. Pure. */

import type { EngineLimits } from "./planner.ts";
import { DEFAULT_COUNTDOWN_SECONDS, MAX_AUTO_CONTINUE, MAX_NO_PROGRESS } from "./types.ts";

export interface TilDoneConfig extends EngineLimits {
	/** Seconds of countdown before a continuation; 0 sends at once. Fractions are allowed (tests use them). */
	countdownSeconds: number;
	/** Start the session with auto-continue paused. */
	startPaused: boolean;
	/** Show the todo panel above the editor. */
	panel: boolean;
}

export const DEFAULT_MAX_FAILURES = 3;
export const DEFAULT_FAILURE_BACKOFF_MS = 5000;

export const DEFAULT_CONFIG: Readonly<TilDoneConfig> = {
	countdownSeconds: DEFAULT_COUNTDOWN_SECONDS,
	maxContinuations: MAX_AUTO_CONTINUE,
	maxNoProgress: MAX_NO_PROGRESS,
	maxFailures: DEFAULT_MAX_FAILURES,
	failureBackoffMs: DEFAULT_FAILURE_BACKOFF_MS,
	startPaused: false,
	panel: false,
};

type NumericKey = "countdownSeconds" | "maxContinuations" | "maxNoProgress" | "maxFailures" | "failureBackoffMs";
type BooleanKey = "startPaused" | "panel";

interface Setting<K> {
	key: K;
	flag: string;
	env: string;
	description: string;
}

interface NumericSetting extends Setting<NumericKey> {
	min: number;
	max: number;
	integer: boolean;
}

/** Every numeric setting: its flag (without `--`), environment variable and accepted range. */
export const NUMERIC_SETTINGS: readonly NumericSetting[] = [
	{
		key: "countdownSeconds",
		flag: "til-done-countdown",
		env: "TIL_DONE_COUNTDOWN",
		description: "Seconds of countdown before auto-continuing (0 = none)",
		min: 0,
		max: 600,
		integer: false,
	},
	{
		key: "maxContinuations",
		flag: "til-done-max-continue",
		env: "TIL_DONE_MAX_CONTINUE",
		description: "Hard cap on continuations per user prompt",
		min: 1,
		max: 10_000,
		integer: true,
	},
	{
		key: "maxNoProgress",
		flag: "til-done-max-no-progress",
		env: "TIL_DONE_MAX_NO_PROGRESS",
		description: "Stop after this many continuations in a row finish no item (0 = off)",
		min: 0,
		max: 10_000,
		integer: true,
	},
	{
		key: "maxFailures",
		flag: "til-done-max-failures",
		env: "TIL_DONE_MAX_FAILURES",
		description: "Give up after this many failed runs in a row (provider error, output limit)",
		min: 1,
		max: 100,
		integer: true,
	},
	{
		key: "failureBackoffMs",
		flag: "til-done-backoff-ms",
		env: "TIL_DONE_BACKOFF_MS",
		description: "First back-off after a failed run, in milliseconds; doubles per failure",
		min: 0,
		max: 600_000,
		integer: true,
	},
];

export const BOOLEAN_SETTINGS: readonly Setting<BooleanKey>[] = [
	{ key: "startPaused", flag: "til-done-paused", env: "TIL_DONE_PAUSED", description: "Start with auto-continue off" },
	{ key: "panel", flag: "til-done-panel", env: "TIL_DONE_PANEL", description: "Show the todo panel above the editor" },
];

export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;
export type EnvValues = Readonly<Record<string, string | undefined>>;

/** Merges flags over environment over defaults; bad values are reported and fall back to the next source. */
export function resolveConfig(flags: FlagValues, env: EnvValues): { config: TilDoneConfig; warnings: string[] } {
	const config: TilDoneConfig = { ...DEFAULT_CONFIG };
	const warnings: string[] = [];
	for (const setting of NUMERIC_SETTINGS) {
		const sources: [string, unknown][] = [
			[`--${setting.flag}`, flags[setting.flag]],
			[setting.env, env[setting.env]],
		];
		for (const [source, raw] of sources) {
			if (raw === undefined || raw === "" || typeof raw === "boolean") continue;
			const value = parseNumber(raw as string, setting);
			if (value === undefined) {
				warnings.push(`${source}=${String(raw)} ignored: expected ${describeRange(setting)}`);
				continue;
			}
			config[setting.key] = value;
			break;
		}
	}
	for (const setting of BOOLEAN_SETTINGS) {
		const fromEnv = parseBoolean(env[setting.env]);
		if (env[setting.env] !== undefined && fromEnv === undefined) {
			warnings.push(`${setting.env}=${env[setting.env]} ignored: expected 1/0, true/false, yes/no or on/off`);
		}
		if (flags[setting.flag] === true) config[setting.key] = true;
		else if (fromEnv !== undefined) config[setting.key] = fromEnv;
	}
	return { config, warnings };
}

function parseNumber(raw: string, setting: NumericSetting): number | undefined {
	if (!/^\s*\d+(\.\d+)?\s*$/.test(raw)) return undefined;
	const value = Number(raw);
	if (setting.integer && !Number.isInteger(value)) return undefined;
	return value >= setting.min && value <= setting.max ? value : undefined;
}

function parseBoolean(raw: string | undefined): boolean | undefined {
	if (raw === undefined) return undefined;
	const value = raw.trim().toLowerCase();
	if (["1", "true", "yes", "on"].includes(value)) return true;
	if (["0", "false", "no", "off", ""].includes(value)) return false;
	return undefined;
}

function describeRange(setting: NumericSetting): string {
	return `${setting.integer ? "a whole number" : "a number"} from ${setting.min} to ${setting.max}`;
}
