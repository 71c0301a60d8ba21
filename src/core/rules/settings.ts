/** Settings with one precedence order: CLI flag, then environment variable, then default. Pure. */

import { isValidCheck } from "../list/items.ts";
import { DEFAULT_COUNTDOWN_SECONDS, type SessionRole } from "../model/types.ts";
import { flagHelpLine, SETTING_DESCRIPTIONS, SETTING_EXPECTED, SETTING_WARNINGS } from "../texts/user.ts";
import { BREAKERS } from "./breakers.ts";
import type { EngineLimits } from "./next-step.ts";
import type { NumericSetting, Setting } from "./setting.ts";
import { MAX_WORKERS } from "./worker-dispatch.ts";

export interface TilDoneConfig extends EngineLimits {
	/** Seconds of countdown before a continuation; 0 sends at once. Fractions are allowed (tests use them). */
	countdownSeconds: number;
	/** Start the session with auto-continue paused. */
	startPaused: boolean;
	/** Show the todo panel above the editor. */
	panel: boolean;
	/** Ring the terminal and raise a desktop notification when a chain ends (TUI only). */
	notify: boolean;
	/** Snapshot the git work tree when an item starts and when it completes (refs/til-done/…). */
	checkpoints: boolean;
	/** How long one check may run before it is killed and counted as failed. */
	checkTimeoutSeconds: number;
	/** Whether checks the model wrote may run at all (they also need pi's bash tool to be active). */
	modelChecks: boolean;
	/** The user's done-check for the whole list, unless `/todos check` set another on the branch. */
	doneCheck: string | undefined;
	/** Tool calls without a todo tool, while an item is in progress, per reminder of the list; 0 turns it off. */
	remindEvery: number;
	/** Ready items worked at once by workers, each a pi of its own in a tree of its own; 0 turns workers off. */
	workers: number;
	/** Untracked files bigger than this many MB (1,000,000 bytes) are left out of every snapshot; 0 leaves none out. */
	maxUntrackedMb: number;
	/** The plan file the list follows: loaded into a session without a list, written after every change. */
	planFile: string | undefined;
	/** Whether an independent model judges a finished list: `off`, `on` (the session's model) or `<provider>/<model>`. */
	judge: string;
	/** A goal the judge decides after every run, in progress from the session's start; undefined when none. */
	goal: string | undefined;
	/** The git remote (a name or URL) whose sessions work one plan together; undefined: this machine's sessions only. */
	remote: string | undefined;
	/** Seconds a claim may stay unchanged (unrenewed) before another session takes it over. */
	leaseSeconds: number;
}

/** The words a switch takes, in any case: the same for every flag, variable and `/todos panel`. */
/** The longest goal condition `/goal` and `--til-done-goal` take: it reaches the judge verbatim. */
export const MAX_GOAL_LENGTH = 2_000;

export const ON_WORDS = ["on", "true", "yes", "1"] as const;
export const OFF_WORDS = ["off", "false", "no", "0"] as const;
const SWITCH_WORDS = `${ON_WORDS.join(", ")}, ${OFF_WORDS.join(", ")}`;

/** A switch's value from its word (trimmed, any case); undefined for anything else. */
export function parseSwitch(raw: string | undefined): boolean | undefined {
	const word = raw?.trim().toLowerCase();
	if ((ON_WORDS as readonly (string | undefined)[]).includes(word)) return true;
	if ((OFF_WORDS as readonly (string | undefined)[]).includes(word)) return false;
	return undefined;
}

/** Longest part of a bad value a warning repeats. */
const WARNING_VALUE_CHARS = 40;

/** A bad value as a warning repeats it: on one line, cut with an ellipsis. */
function cutValue(raw: string): string {
	const flat = raw.replace(/\s+/g, " ");
	return flat.length > WARNING_VALUE_CHARS ? `${flat.slice(0, WARNING_VALUE_CHARS - 1)}…` : flat;
}

/** The same, quoted when it holds a space or nothing, so the value's end is plain. */
function shownValue(raw: string): string {
	const cut = cutValue(raw);
	return /^$|\s/.test(cut) ? JSON.stringify(cut) : cut;
}

type GeneralKey =
	| "countdownSeconds"
	| "failureBackoffMs"
	| "checkTimeoutSeconds"
	| "remindEvery"
	| "workers"
	| "maxUntrackedMb"
	| "leaseSeconds";
type TextKey = "modelChecks" | "doneCheck" | "planFile" | "judge" | "goal" | "remote";
type BooleanKey = "startPaused" | "panel" | "notify" | "checkpoints";

/** The numeric settings that are not a breaker's limit (those are rows of the breaker table). */
const GENERAL_SETTINGS: readonly NumericSetting<GeneralKey>[] = [
	{
		key: "countdownSeconds",
		flag: "til-done-countdown",
		env: "TIL_DONE_COUNTDOWN",
		description: SETTING_DESCRIPTIONS.countdownSeconds,
		default: DEFAULT_COUNTDOWN_SECONDS,
		min: 0,
		max: 600,
		integer: false,
	},
	{
		key: "failureBackoffMs",
		flag: "til-done-backoff-ms",
		env: "TIL_DONE_BACKOFF_MS",
		description: SETTING_DESCRIPTIONS.failureBackoffMs,
		default: 5000,
		min: 0,
		max: 600_000,
		integer: true,
	},
	{
		key: "checkTimeoutSeconds",
		flag: "til-done-check-timeout",
		env: "TIL_DONE_CHECK_TIMEOUT",
		description: SETTING_DESCRIPTIONS.checkTimeoutSeconds,
		default: 120,
		min: 0.1,
		max: 3600,
		integer: false,
	},
	{
		key: "remindEvery",
		flag: "til-done-remind-every",
		env: "TIL_DONE_REMIND_EVERY",
		description: SETTING_DESCRIPTIONS.remindEvery,
		default: 12,
		min: 0,
		max: 1000,
		integer: true,
	},
	{
		key: "workers",
		flag: "til-done-workers",
		env: "TIL_DONE_WORKERS",
		description: SETTING_DESCRIPTIONS.workers,
		owned: true,
		default: 0,
		min: 0,
		max: MAX_WORKERS,
		integer: true,
	},
	{
		key: "maxUntrackedMb",
		flag: "til-done-max-untracked-mb",
		env: "TIL_DONE_MAX_UNTRACKED_MB",
		description: SETTING_DESCRIPTIONS.maxUntrackedMb,
		default: 50,
		min: 0,
		max: 1_000_000,
		integer: false,
	},
	{
		key: "leaseSeconds",
		flag: "til-done-lease",
		env: "TIL_DONE_LEASE",
		description: SETTING_DESCRIPTIONS.leaseSeconds,
		default: 120,
		min: 0.2,
		max: 86_400,
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
	notify: false,
	checkpoints: false,
	modelChecks: true,
	doneCheck: undefined,
	planFile: undefined,
	judge: "off",
	goal: undefined,
	remote: undefined,
};

/** The longest remote name or URL taken. */
export const MAX_REMOTE_LENGTH = 500;

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
		description: SETTING_DESCRIPTIONS.modelChecks,
		parse: (raw) => parseSwitch(raw),
		expected: SETTING_EXPECTED.switch(SWITCH_WORDS),
	},
	{
		key: "doneCheck",
		flag: "til-done-check",
		env: "TIL_DONE_CHECK",
		description: SETTING_DESCRIPTIONS.doneCheck,
		owned: true,
		parse: (raw) => (isValidCheck(raw) ? raw.trim() : undefined),
		expected: SETTING_EXPECTED.command,
	},
	{
		key: "planFile",
		flag: "til-done-plan",
		env: "TIL_DONE_PLAN",
		description: SETTING_DESCRIPTIONS.planFile,
		owned: true,
		parse: (raw) => (raw.trim() === "" ? undefined : raw.trim()),
		expected: SETTING_EXPECTED.file,
	},
	{
		key: "judge",
		flag: "til-done-judge",
		env: "TIL_DONE_JUDGE",
		description: SETTING_DESCRIPTIONS.judge,
		owned: true,
		parse: parseJudgeChoice,
		expected: SETTING_EXPECTED.judge(SWITCH_WORDS),
	},
	{
		key: "goal",
		flag: "til-done-goal",
		env: "TIL_DONE_GOAL",
		description: SETTING_DESCRIPTIONS.goal,
		owned: true,
		parse: parseGoal,
		expected: SETTING_EXPECTED.goal(MAX_GOAL_LENGTH),
	},
	{
		key: "remote",
		flag: "til-done-remote",
		env: "TIL_DONE_REMOTE",
		description: SETTING_DESCRIPTIONS.remote,
		owned: true,
		parse: parseRemote,
		expected: SETTING_EXPECTED.remote(MAX_REMOTE_LENGTH),
	},
];

/** A remote's name or URL: one word, never one git could take for an option (a leading `-`); undefined otherwise. */
export function parseRemote(raw: string): string | undefined {
	const remote = raw.trim();
	return remote.length <= MAX_REMOTE_LENGTH && /^[^\s-]\S*$/.test(remote) ? remote : undefined;
}

/** A goal's condition: its text trimmed, of 1 to MAX_GOAL_LENGTH characters; undefined otherwise. */
export function parseGoal(raw: string): string | undefined {
	const condition = raw.trim();
	return condition === "" || condition.length > MAX_GOAL_LENGTH ? undefined : condition;
}

/** A judge setting's word: a switch's (`on` is the session's model), or a model named `<provider>/<model>`. */
export function parseJudgeChoice(raw: string): string | undefined {
	const on = parseSwitch(raw);
	if (on !== undefined) return on ? "on" : "off";
	const named = raw.trim();
	return /^[^\s/]+\/\S+$/.test(named) ? named : undefined;
}

/** The model a judge setting names, or undefined for `off` and `on` (`on` judges with the session's model). */
export function judgeModelOf(choice: string): { provider: string; id: string } | undefined {
	const slash = choice.indexOf("/");
	return slash < 0 ? undefined : { provider: choice.slice(0, slash), id: choice.slice(slash + 1) };
}

export const BOOLEAN_SETTINGS: readonly Setting<BooleanKey>[] = [
	{
		key: "startPaused",
		flag: "til-done-paused",
		env: "TIL_DONE_PAUSED",
		description: SETTING_DESCRIPTIONS.startPaused,
	},
	{ key: "panel", flag: "til-done-panel", env: "TIL_DONE_PANEL", description: SETTING_DESCRIPTIONS.panel },
	{
		key: "notify",
		flag: "til-done-notify",
		env: "TIL_DONE_NOTIFY",
		description: SETTING_DESCRIPTIONS.notify,
		owned: true,
	},
	{
		key: "checkpoints",
		flag: "til-done-checkpoints",
		env: "TIL_DONE_CHECKPOINTS",
		description: SETTING_DESCRIPTIONS.checkpoints,
		owned: true,
	},
];

/** The column pi's `--help` pads a flag's name (and ` <value>`) to, writing its text right after (0.87.1 to 1.6.0). */
export const PI_HELP_COLUMN = 30;

/**
 * A flag's text in `pi --help`: what it does, its default and its variable. A flag whose name (`takesValue`: with
 * ` <value>`) reaches pi's column would run into its text, so that text starts on the next line, at the column.
 */
export function flagHelp(setting: Setting<keyof TilDoneConfig>, takesValue: boolean): string {
	const text = flagHelpLine(setting.description, DEFAULT_CONFIG[setting.key], setting.env);
	const head = `  --${setting.flag}${takesValue ? " <value>" : ""}`;
	return head.length < PI_HELP_COLUMN ? text : `\n${" ".repeat(PI_HELP_COLUMN)}${text}`;
}

/** A switch flag's word as written: `--flag=word` (attached), or the word after `--flag`, which pi takes as its value. */
export interface SwitchWord {
	word: string;
	attached: boolean;
}

export type FlagValues = Readonly<Record<string, string | boolean | SwitchWord | undefined>>;

/**
 * What pi's command line gave a switch flag that pi reports as just set: the word after `=`, or the word after the
 * flag that pi's parser takes as its value (one that starts with neither `-` nor `@`); true when bare. The last one
 * given wins, as in pi.
 */
export function switchFlagValue(argv: readonly string[], flag: string): SwitchWord | true {
	let value: SwitchWord | true = true;
	argv.forEach((arg, index) => {
		if (arg.startsWith(`--${flag}=`)) value = { word: arg.slice(flag.length + 3), attached: true };
		else if (arg === `--${flag}`) {
			const next = argv[index + 1];
			value =
				next !== undefined && !next.startsWith("-") && !next.startsWith("@") ? { word: next, attached: false } : true;
		}
	});
	return value;
}
export type EnvValues = Readonly<Record<string, string | undefined>>;

/**
 * Whether `setting` may come from `source` in a session of `role`: a setting of the user's own session comes to a
 * child process only from its own flags, and to a session nested in another's process from nowhere (the flags and
 * the environment it sees are its host's).
 */
function mayTake(setting: { owned?: true }, source: "flag" | "env", role: SessionRole): boolean {
	if (!setting.owned || role === "own") return true;
	return role === "child" && source === "flag";
}

/**
 * Merges flags over environment over defaults; bad values (a flag given nothing or blanks among them) are reported and
 * fall back to the next source. A guest's session (`role`) leaves out what belongs to the user's own.
 */
export function resolveConfig(
	flags: FlagValues,
	env: EnvValues,
	role: SessionRole = "own",
): { config: TilDoneConfig; warnings: string[] } {
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
		const sources: [string, unknown, "flag" | "env"][] = [];
		if (mayTake(setting, "flag", role)) sources.push([`--${setting.flag}`, flags[setting.flag], "flag"]);
		if (mayTake(setting, "env", role)) sources.push([setting.env, env[setting.env], "env"]);
		for (const [source, raw, kind] of sources) {
			// A variable set empty is not given, as a shell unsets one; a flag given nothing is refused, as blanks are.
			if (typeof raw !== "string" || (raw === "" && kind === "env")) continue;
			const value = setting.parse(raw);
			if (value === undefined) {
				warnings.push(SETTING_WARNINGS.refused(source, shownValue(raw), setting.expected));
				continue;
			}
			config[setting.key] = value;
			break;
		}
	}
	resolveBooleans(flags, env, role, config, warnings);
	return { config: config as unknown as TilDoneConfig, warnings };
}

/** A switch flag's value: on when bare, what its word says, or undefined (refused, with the warning pushed). */
function switchFromFlag(flag: string, value: FlagValues[string], warnings: string[]): boolean | undefined {
	if (typeof value === "boolean" || value === undefined) return value === true ? true : undefined;
	const word = typeof value === "string" ? { word: value, attached: false } : value;
	const parsed = parseSwitch(word.word);
	if (parsed !== undefined) return parsed;
	warnings.push(
		word.attached
			? SETTING_WARNINGS.switchRefused(flag, shownValue(word.word), SWITCH_WORDS)
			: SETTING_WARNINGS.switchTookWord(flag, JSON.stringify(cutValue(word.word))),
	);
	return undefined;
}

/**
 * Switches: a bare flag is on, `--flag=<word>` is what its word says, then the variable. A word that is no switch's
 * is refused, with the flag given after it (pi gives the flag the word after it, most likely the prompt), and the
 * switch falls back to the variable.
 */
function resolveBooleans(
	flags: FlagValues,
	env: EnvValues,
	role: SessionRole,
	config: Record<string, unknown>,
	warnings: string[],
): void {
	for (const setting of BOOLEAN_SETTINGS) {
		const fromFlag = mayTake(setting, "flag", role)
			? switchFromFlag(setting.flag, flags[setting.flag], warnings)
			: undefined;
		const raw = mayTake(setting, "env", role) ? env[setting.env] : undefined;
		const fromEnv = raw === undefined || raw.trim() === "" ? undefined : parseSwitch(raw);
		if (raw !== undefined && raw.trim() !== "" && fromEnv === undefined) {
			warnings.push(SETTING_WARNINGS.refused(setting.env, shownValue(raw), SETTING_EXPECTED.switch(SWITCH_WORDS)));
		}
		const value = fromFlag ?? fromEnv;
		if (value !== undefined) config[setting.key] = value;
	}
}

function parseNumber(raw: string, setting: NumericSetting): number | undefined {
	// Digits with an optional fraction and exponent (`3`, `0.5`, `1e3`): no sign, no hex, no words.
	if (!/^\s*(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw)) return undefined;
	const value = Number(raw);
	if (setting.integer && !Number.isInteger(value)) return undefined;
	return value >= setting.min && value <= setting.max ? value : undefined;
}

function describeRange(setting: NumericSetting): string {
	return SETTING_EXPECTED.range(setting.integer, setting.min, setting.max);
}
