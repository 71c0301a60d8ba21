/** Settings with one precedence order: CLI flag, then environment variable, then default. Pure. */

import { BREAKERS } from "../continue/breakers.ts";
import type { EngineLimits } from "../continue/planner.ts";
import { DEFAULT_COUNTDOWN_SECONDS } from "../types.ts";
import { isValidCheck } from "../validation.ts";
import type { NumericSetting, Setting } from "./setting.ts";

export interface TilDoneConfig extends EngineLimits {
	/** Seconds of countdown before a continuation; 0 sends at once. Fractions are allowed (tests use them). */
	countdownSeconds: number;
	/** Start the session with auto-continue paused. */
	startPaused: boolean;
	/** Show the todo panel above the editor. */
	panel: boolean;
	/** How long one check may run before it is killed and counted as failed. */
	checkTimeoutSeconds: number;
	/** Whether checks the model wrote may run at all (they also need pi's bash tool to be active). */
	modelChecks: boolean;
	/** The user's done-check for the whole list, unless `/todos check` set another on the branch. */
	doneCheck: string | undefined;
}

type GeneralKey = "countdownSeconds" | "failureBackoffMs" | "checkTimeoutSeconds";
type TextKey = "modelChecks" | "doneCheck";
type BooleanKey = "startPaused" | "panel";

/** The numeric settings that are not a breaker's limit (those are rows of the breaker table). */
const GENERAL_SETTINGS: readonly NumericSetting<GeneralKey>[] = [
	{
		key: "countdownSeconds",
		flag: "til-done-countdown",
		env: "TIL_DONE_COUNTDOWN",
		description: "Seconds of countdown before auto-continuing (0 = none)",
		default: DEFAULT_COUNTDOWN_SECONDS,
		min: 0,
		max: 600,
		integer: false,
	},
	{
		key: "failureBackoffMs",
		flag: "til-done-backoff-ms",
		env: "TIL_DONE_BACKOFF_MS",
		description: "First back-off after a failed run, in milliseconds; doubles per failure",
		default: 5000,
		min: 0,
		max: 600_000,
		integer: true,
	},
	{
		key: "checkTimeoutSeconds",
		flag: "til-done-check-timeout",
		env: "TIL_DONE_CHECK_TIMEOUT",
		description: "Seconds one check may run before it is killed and counts as failed",
		default: 120,
		min: 0.1,
		max: 3600,
		integer: false,
	},
];

/** Every numeric setting: its flag (without `--`), environment variable, default and accepted range. */
export const NUMERIC_SETTINGS: readonly NumericSetting<GeneralKey | (typeof BREAKERS)[number]["setting"]["key"]>[] = [
	...GENERAL_SETTINGS,
	...BREAKERS.map((row) => row.setting),
];

const numericDefaults = Object.fromEntries(NUMERIC_SETTINGS.map((setting) => [setting.key, setting.default]));

export const DEFAULT_CONFIG: Readonly<TilDoneConfig> = {
	...(numericDefaults as Pick<TilDoneConfig, GeneralKey | keyof EngineLimits>),
	startPaused: false,
	panel: false,
	modelChecks: true,
	doneCheck: undefined,
};

interface TextSetting extends Setting<TextKey> {
	/** The value the text stands for, or undefined when it is not acceptable. */
	parse(raw: string): TilDoneConfig[TextKey] | undefined;
	/** What an acceptable value looks like, for the warning. */
	expected: string;
}

/** Settings given as text: a switch with named values, a command. */
export const TEXT_SETTINGS: readonly TextSetting[] = [
	{
		key: "modelChecks",
		flag: "til-done-model-checks",
		env: "TIL_DONE_MODEL_CHECKS",
		description: "on|off: whether checks the model writes on items may run (they also need pi's bash tool)",
		parse: (raw) => parseBoolean(raw),
		expected: "on or off",
	},
	{
		key: "doneCheck",
		flag: "til-done-check",
		env: "TIL_DONE_CHECK",
		description: "A shell command that exits 0 when the whole list is really done (the done-check)",
		parse: (raw) => (isValidCheck(raw) ? raw.trim() : undefined),
		expected: "a command of 1 to 500 characters",
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
	const config: Record<string, unknown> = { ...DEFAULT_CONFIG };
	const warnings: string[] = [];
	const settings = [
		...NUMERIC_SETTINGS.map((setting) => ({
			...setting,
			parse: (raw: string) => parseNumber(raw, setting),
			expected: describeRange(setting),
		})),
		...TEXT_SETTINGS,
	];
	for (const setting of settings) {
		const sources: [string, unknown][] = [
			[`--${setting.flag}`, flags[setting.flag]],
			[setting.env, env[setting.env]],
		];
		for (const [source, raw] of sources) {
			if (raw === undefined || raw === "" || typeof raw === "boolean") continue;
			const value = setting.parse(raw as string);
			if (value === undefined) {
				warnings.push(`${source}=${String(raw)} ignored: expected ${setting.expected}`);
				continue;
			}
			config[setting.key] = value;
			break;
		}
	}
	resolveBooleans(flags, env, config, warnings);
	return { config: config as unknown as TilDoneConfig, warnings };
}

/** Switches given as a bare flag or as an environment variable. */
function resolveBooleans(flags: FlagValues, env: EnvValues, config: Record<string, unknown>, warnings: string[]): void {
	for (const setting of BOOLEAN_SETTINGS) {
		const fromEnv = parseBoolean(env[setting.env]);
		if (env[setting.env] !== undefined && fromEnv === undefined) {
			warnings.push(`${setting.env}=${env[setting.env]} ignored: expected 1/0, true/false, yes/no or on/off`);
		}
		if (flags[setting.flag] === true) config[setting.key] = true;
		else if (fromEnv !== undefined) config[setting.key] = fromEnv;
	}
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
