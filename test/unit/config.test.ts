import { describe, expect, it } from "vitest";
import {
	BOOLEAN_SETTINGS,
	DEFAULT_CONFIG,
	flagHelp,
	NUMERIC_SETTINGS,
	resolveConfig,
	switchFlagValue,
	TEXT_SETTINGS,
} from "../../src/core/rules/settings.ts";
import { GOAL_EXPECTED, REMOTE_EXPECTED, settingRefused } from "../helpers/expected.ts";

describe("numbers may be written with an exponent, and warnings repeat at most 40 characters of a bad value", () => {
	it("reads 1e3 and 2.5e1", () => {
		const { config } = resolveConfig({ "til-done-max-continue": "1e3", "til-done-spend-factor": "2.5e1" }, {});
		expect(config).toMatchObject({ maxContinuations: 1000, spendFactor: 25 });
	});

	it("cuts a long bad value", () => {
		expect(resolveConfig({ "til-done-max-continue": "x".repeat(600) }, {}).warnings).toEqual([
			settingRefused("--til-done-max-continue", `${"x".repeat(39)}…`, "a whole number from 1 to 10000"),
		]);
	});
});

describe("defaults", () => {
	it("uses the seed's limits and a 3-second countdown when nothing is set", () => {
		expect(resolveConfig({}, {})).toEqual({
			config: {
				countdownSeconds: 3,
				maxContinuations: 20,
				maxNoProgress: 3,
				maxFailures: 3,
				maxSameAnswers: 3,
				failureBackoffMs: 5000,
				startPaused: false,
				panel: false,
				notify: false,
				checkpoints: false,
				checkTimeoutSeconds: 120,
				modelChecks: true,
				doneCheck: undefined,
				remindEvery: 12,
				workers: 0,
				maxUntrackedMb: 50,
				budgetTokens: 0,
				budgetCost: 0,
				spendFactor: 5,
				judge: "off",
				goal: undefined,
				remote: undefined,
				leaseSeconds: 120,
			},
			warnings: [],
		});
	});

	it("names every numeric flag and variable", () => {
		expect(NUMERIC_SETTINGS.map((s) => [s.key, s.flag, s.env])).toEqual([
			["countdownSeconds", "til-done-countdown", "TIL_DONE_COUNTDOWN"],
			["failureBackoffMs", "til-done-backoff-ms", "TIL_DONE_BACKOFF_MS"],
			["checkTimeoutSeconds", "til-done-check-timeout", "TIL_DONE_CHECK_TIMEOUT"],
			["remindEvery", "til-done-remind-every", "TIL_DONE_REMIND_EVERY"],
			["workers", "til-done-workers", "TIL_DONE_WORKERS"],
			["maxUntrackedMb", "til-done-max-untracked-mb", "TIL_DONE_MAX_UNTRACKED_MB"],
			["leaseSeconds", "til-done-lease", "TIL_DONE_LEASE"],
			["maxFailures", "til-done-max-failures", "TIL_DONE_MAX_FAILURES"],
			["maxSameAnswers", "til-done-max-same-answers", "TIL_DONE_MAX_SAME_ANSWERS"],
			["maxNoProgress", "til-done-max-no-progress", "TIL_DONE_MAX_NO_PROGRESS"],
			["spendFactor", "til-done-spend-factor", "TIL_DONE_SPEND_FACTOR"],
			["maxContinuations", "til-done-max-continue", "TIL_DONE_MAX_CONTINUE"],
			["budgetTokens", "til-done-budget-tokens", "TIL_DONE_BUDGET_TOKENS"],
			["budgetCost", "til-done-budget-cost", "TIL_DONE_BUDGET_COST"],
		]);
		expect(TEXT_SETTINGS.map((s) => [s.key, s.flag, s.env])).toEqual([
			["modelChecks", "til-done-model-checks", "TIL_DONE_MODEL_CHECKS"],
			["doneCheck", "til-done-check", "TIL_DONE_CHECK"],
			["planFile", "til-done-plan", "TIL_DONE_PLAN"],
			["judge", "til-done-judge", "TIL_DONE_JUDGE"],
			["goal", "til-done-goal", "TIL_DONE_GOAL"],
			["remote", "til-done-remote", "TIL_DONE_REMOTE"],
		]);
		expect(BOOLEAN_SETTINGS.map((s) => [s.key, s.flag, s.env])).toEqual([
			["startPaused", "til-done-paused", "TIL_DONE_PAUSED"],
			["panel", "til-done-panel", "TIL_DONE_PANEL"],
			["notify", "til-done-notify", "TIL_DONE_NOTIFY"],
			["checkpoints", "til-done-checkpoints", "TIL_DONE_CHECKPOINTS"],
		]);
	});
});

describe.each(NUMERIC_SETTINGS)("$key: flag > env > default", (setting) => {
	const fallback = DEFAULT_CONFIG[setting.key];
	const flagValue = String(setting.min + 1);
	const envValue = String(setting.min + 2);

	it("takes the flag over the environment", () => {
		const { config, warnings } = resolveConfig({ [setting.flag]: flagValue }, { [setting.env]: envValue });
		expect(config[setting.key]).toBe(Number(flagValue));
		expect(warnings).toEqual([]);
	});

	it("takes the environment when no flag is given", () => {
		expect(resolveConfig({}, { [setting.env]: envValue }).config[setting.key]).toBe(Number(envValue));
	});

	it("treats an empty variable as not given, as a shell unsets one", () => {
		const { config, warnings } = resolveConfig({}, { [setting.env]: "" });
		expect(config[setting.key]).toBe(fallback);
		expect(warnings).toEqual([]);
	});

	it("warns about an invalid flag and falls back to the environment", () => {
		const { config, warnings } = resolveConfig({ [setting.flag]: "lots" }, { [setting.env]: envValue });
		expect(config[setting.key]).toBe(Number(envValue));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(new RegExp(`^--${setting.flag}=lots is refused: expected a (whole )?number from `));
	});

	it("warns about an invalid variable and keeps the default", () => {
		const { config, warnings } = resolveConfig({}, { [setting.env]: "-1" });
		expect(config[setting.key]).toBe(fallback);
		expect(warnings).toEqual([
			settingRefused(
				setting.env,
				"-1",
				`${setting.integer ? "a whole number" : "a number"} from ${setting.min} to ${setting.max}`,
			),
		]);
	});

	it("rejects values above the maximum", () => {
		const { config, warnings } = resolveConfig({ [setting.flag]: String(setting.max + 1) }, {});
		expect(config[setting.key]).toBe(fallback);
		expect(warnings).toHaveLength(1);
	});

	it("accepts the bounds of its range", () => {
		expect(resolveConfig({ [setting.flag]: String(setting.min) }, {}).config[setting.key]).toBe(setting.min);
		expect(resolveConfig({ [setting.flag]: String(setting.max) }, {}).config[setting.key]).toBe(setting.max);
	});

	it("ignores a boolean flag value without a warning", () => {
		const { config, warnings } = resolveConfig({ [setting.flag]: true }, {});
		expect(config[setting.key]).toBe(fallback);
		expect(warnings).toEqual([]);
	});
});

describe("a flag given an empty or a blank value is refused alike, as every bad value is", () => {
	const expected = (setting: (typeof TEXT_SETTINGS)[number] | (typeof NUMERIC_SETTINGS)[number]) =>
		"expected" in setting
			? setting.expected
			: `${setting.integer ? "a whole number" : "a number"} from ${setting.min} to ${setting.max}`;

	it.each(["", "   "])("--til-done-goal %j: the setting's line, no goal", (blank) => {
		const { config, warnings } = resolveConfig({ "til-done-goal": blank }, {});
		expect(config.goal).toBeUndefined();
		expect(warnings).toEqual([settingRefused("--til-done-goal", blank === "" ? '""' : '" "', GOAL_EXPECTED)]);
	});

	it.each([...TEXT_SETTINGS, ...NUMERIC_SETTINGS].map((setting) => [setting.flag, setting] as const))(
		'--%s "": its line, and the default stays',
		(flag, setting) => {
			const { config, warnings } = resolveConfig({ [flag]: "" }, {});
			expect(config[setting.key]).toEqual(DEFAULT_CONFIG[setting.key]);
			expect(warnings).toEqual([settingRefused(`--${flag}`, '""', expected(setting))]);
		},
	);
});

describe("a flag's text in pi --help never runs into the flag", () => {
	const countdown = NUMERIC_SETTINGS.find((setting) => setting.flag === "til-done-countdown");
	const workers = NUMERIC_SETTINGS.find((setting) => setting.flag === "til-done-workers");
	const text = (setting: typeof countdown) =>
		`${setting?.description} [default ${DEFAULT_CONFIG[setting?.key ?? "workers"]}, ${setting?.env}]`;

	it("a flag that reaches pi's column of 30 (`  --til-done-countdown <value>`): its text on the next line, at the column", () => {
		expect(countdown && flagHelp(countdown, true)).toBe(`\n${" ".repeat(30)}${text(countdown)}`);
	});

	it("a shorter one (`  --til-done-workers <value>`, 28): its text on its line, after pi's padding", () => {
		expect(workers && flagHelp(workers, true)).toBe(text(workers));
	});
});

describe("number parsing", () => {
	it("accepts a fractional countdown", () => {
		expect(resolveConfig({ "til-done-countdown": "0.5" }, {}).config.countdownSeconds).toBe(0.5);
	});

	it("accepts 0 to turn the countdown and the no-progress breaker off", () => {
		const { config } = resolveConfig({ "til-done-countdown": "0" }, { TIL_DONE_MAX_NO_PROGRESS: "0" });
		expect(config.countdownSeconds).toBe(0);
		expect(config.maxNoProgress).toBe(0);
	});

	it("allows surrounding whitespace", () => {
		expect(resolveConfig({}, { TIL_DONE_MAX_CONTINUE: " 7 " }).config.maxContinuations).toBe(7);
	});

	it.each(["2.5", "1e-1", "0x10", "5s", "NaN", "Infinity", "+3", "-1"])(
		"rejects %j for a whole-number setting",
		(raw) => {
			const { config, warnings } = resolveConfig({ "til-done-max-continue": raw }, {});
			expect(config.maxContinuations).toBe(20);
			expect(warnings).toEqual([settingRefused("--til-done-max-continue", raw, "a whole number from 1 to 10000")]);
		},
	);

	it("rejects a hard cap of 0 (minimum 1)", () => {
		expect(resolveConfig({ "til-done-max-continue": "0" }, {}).config.maxContinuations).toBe(20);
	});

	it("reports one warning per bad source", () => {
		const { config, warnings } = resolveConfig({ "til-done-max-failures": "x" }, { TIL_DONE_MAX_FAILURES: "y" });
		expect(config.maxFailures).toBe(3);
		expect(warnings).toEqual([
			settingRefused("--til-done-max-failures", "x", "a whole number from 1 to 100"),
			settingRefused("TIL_DONE_MAX_FAILURES", "y", "a whole number from 1 to 100"),
		]);
	});
});

describe.each(BOOLEAN_SETTINGS)("$key: a flag switches it on, else the environment decides", (setting) => {
	it("is on with the flag", () => {
		expect(resolveConfig({ [setting.flag]: true }, {}).config[setting.key]).toBe(true);
	});

	it("the flag wins over a variable that says off", () => {
		expect(resolveConfig({ [setting.flag]: true }, { [setting.env]: "0" }).config[setting.key]).toBe(true);
	});

	it("an absent or false flag leaves it to the environment", () => {
		expect(resolveConfig({ [setting.flag]: false }, { [setting.env]: "1" }).config[setting.key]).toBe(true);
		expect(resolveConfig({}, { [setting.env]: "1" }).config[setting.key]).toBe(true);
	});

	it.each(["1", "true", "yes", "on", "TRUE", " On "])("reads %j as on", (raw) => {
		expect(resolveConfig({}, { [setting.env]: raw }).config[setting.key]).toBe(true);
	});

	it.each(["0", "false", "no", "off", "", "OFF"])("reads %j as off", (raw) => {
		expect(resolveConfig({}, { [setting.env]: raw }).config[setting.key]).toBe(false);
	});

	it("ignores an unreadable value and keeps the default", () => {
		expect(resolveConfig({}, { [setting.env]: "maybe" }).config[setting.key]).toBe(false);
	});

	it.each([
		["off", false],
		["OFF", false],
		["0", false],
		["false", false],
		["on", true],
		["yes", true],
	])("the flag with a word: =%s is %s, over the environment", (word, value) => {
		const flags = { [setting.flag]: { word, attached: true } };
		const env = { [setting.env]: value ? "0" : "1" };
		expect(resolveConfig(flags, env)).toEqual({
			config: expect.objectContaining({ [setting.key]: value }),
			warnings: [],
		});
	});

	it("a word after the flag that is no switch's (pi gave the flag the prompt) is refused, and says the word was taken", () => {
		const word = { word: "fix the failing test", attached: false };
		expect(resolveConfig({ [setting.flag]: word }, { [setting.env]: "on" })).toEqual({
			config: expect.objectContaining({ [setting.key]: true }),
			warnings: [
				`--${setting.flag} took "fix the failing test" as its value (pi gives a switch the word after it), which is no switch's word: it is refused, and that word was not sent; write --${setting.flag}=on, or put the prompt before the switch`,
			],
		});
		expect(resolveConfig({ [setting.flag]: word }, {}).config[setting.key]).toBe(false);
	});

	it("a word after = that is no switch's is refused: the switch stays as the environment or the default has it", () => {
		const flags = { [setting.flag]: { word: "maybe", attached: true } };
		expect(resolveConfig(flags, {})).toEqual({
			config: expect.objectContaining({ [setting.key]: false }),
			warnings: [`--${setting.flag}=maybe is refused: a switch takes one of on, true, yes, 1, off, false, no, 0`],
		});
		expect(resolveConfig(flags, { [setting.env]: "1" }).config[setting.key]).toBe(true);
	});
});

describe("resolveConfig is pure", () => {
	it("does not change the defaults", () => {
		const before = { ...DEFAULT_CONFIG };
		resolveConfig({ "til-done-countdown": "9", "til-done-panel": true }, {});
		expect(DEFAULT_CONFIG).toEqual(before);
	});
});

describe("the check settings: a timeout, model checks on or off, the done-check", () => {
	it("takes a fractional check timeout, and rejects 0", () => {
		expect(resolveConfig({ "til-done-check-timeout": "0.5" }, {}).config.checkTimeoutSeconds).toBe(0.5);
		expect(resolveConfig({}, { TIL_DONE_CHECK_TIMEOUT: "0" }).warnings).toEqual([
			settingRefused("TIL_DONE_CHECK_TIMEOUT", "0", "a number from 0.1 to 3600"),
		]);
	});

	it.each([
		["off", false],
		["on", true],
		["0", false],
		["yes", true],
	])("--til-done-model-checks %s turns model checks %s", (raw, on) => {
		expect(resolveConfig({ "til-done-model-checks": raw }, {}).config.modelChecks).toBe(on);
	});

	it("rejects any other word for model checks, and falls back to the environment", () => {
		expect(resolveConfig({ "til-done-model-checks": "maybe" }, { TIL_DONE_MODEL_CHECKS: "off" })).toMatchObject({
			config: { modelChecks: false },
			warnings: [settingRefused("--til-done-model-checks", "maybe", "one of on, true, yes, 1, off, false, no, 0")],
		});
	});

	it("takes a done-check command from the flag over the environment, trimmed", () => {
		const { config } = resolveConfig({ "til-done-check": "  npm test  " }, { TIL_DONE_CHECK: "make check" });
		expect(config.doneCheck).toBe("npm test");
		expect(resolveConfig({}, { TIL_DONE_CHECK: "make check" }).config.doneCheck).toBe("make check");
	});

	it("rejects a blank or oversized done-check", () => {
		expect(resolveConfig({}, { TIL_DONE_CHECK: "   " }).warnings).toEqual([
			settingRefused("TIL_DONE_CHECK", '" "', "a command of 1 to 500 characters"),
		]);
		expect(resolveConfig({}, { TIL_DONE_CHECK: "x".repeat(501) }).config.doneCheck).toBeUndefined();
	});
});

describe("the remote a plan is shared through: one word, never one git could take for an option", () => {
	it.each(["origin", "git://127.0.0.1:9418/team.git", "file:///srv/team.git", "git@host:team.git"])(
		"takes %s",
		(raw) => {
			expect(resolveConfig({ "til-done-remote": `  ${raw} ` }, {}).config.remote).toBe(raw);
		},
	);

	it.each([
		["--upload-pack=touch", "--upload-pack=touch"],
		["two words", '"two words"'],
	])("refuses %s, and takes the environment's", (raw, shown) => {
		expect(resolveConfig({ "til-done-remote": raw }, { TIL_DONE_REMOTE: "origin" })).toMatchObject({
			config: { remote: "origin" },
			warnings: [settingRefused("--til-done-remote", shown, REMOTE_EXPECTED)],
		});
		expect(resolveConfig({}, { TIL_DONE_REMOTE: "x".repeat(501) }).config.remote).toBeUndefined();
	});

	it("a lease is at least 0.2 seconds", () => {
		expect(resolveConfig({ "til-done-lease": "0.5" }, {}).config.leaseSeconds).toBe(0.5);
		expect(resolveConfig({}, { TIL_DONE_LEASE: "0.1" }).warnings).toEqual([
			settingRefused("TIL_DONE_LEASE", "0.1", "a number from 0.2 to 86400"),
		]);
	});
});

describe("a switch flag's word is read off pi's command line, as pi's parser gives it", () => {
	it.each([
		[["pi", "--til-done-paused"], true],
		[["pi", "--til-done-paused=off"], { word: "off", attached: true }],
		[["pi", "--til-done-paused", "no"], { word: "no", attached: false }],
		[["pi", "--til-done-paused", "fix the bug"], { word: "fix the bug", attached: false }],
		[["pi", "--til-done-paused", "--til-done-panel"], true],
		[["pi", "--til-done-paused", "@file.md"], true],
		[["pi", "--til-done-paused=on", "--til-done-paused=off"], { word: "off", attached: true }],
		[["pi", "--til-done-panel=on"], true],
	] as const)("%j gives %j", (argv, value) => {
		expect(switchFlagValue(argv, "til-done-paused")).toEqual(value);
	});
});

describe("a guest (a child agent) takes none of the user's own session's settings from what it inherits", () => {
	const env = {
		TIL_DONE_PLAN: "PLAN.md",
		TIL_DONE_CHECKPOINTS: "1",
		TIL_DONE_CHECK: "npm test",
		TIL_DONE_NOTIFY: "on",
		TIL_DONE_COUNTDOWN: "7",
		TIL_DONE_PAUSED: "1",
	};
	const owned = { planFile: undefined, checkpoints: false, doneCheck: undefined, notify: false };

	it("a child process: the plan file, checkpoints, the done-check and the ring from the environment do not apply; the rest does", () => {
		expect(resolveConfig({}, env, "child")).toEqual({
			config: expect.objectContaining({ ...owned, countdownSeconds: 7, startPaused: true }),
			warnings: [],
		});
	});

	it("a child process: flags given to the child itself apply", () => {
		const flags = { "til-done-plan": "TASK.md", "til-done-checkpoints": true, "til-done-check": "make" };
		expect(resolveConfig(flags, env, "child").config).toMatchObject({
			planFile: "TASK.md",
			checkpoints: true,
			doneCheck: "make",
		});
	});

	it("a session nested in another's process: neither the flags nor the environment it sees are its own", () => {
		const flags = { "til-done-plan": "TASK.md", "til-done-checkpoints": true, "til-done-countdown": "3" };
		expect(resolveConfig(flags, env, "nested").config).toMatchObject({ ...owned, countdownSeconds: 3 });
	});

	it("the user's own session takes every one", () => {
		expect(resolveConfig({}, env, "own").config).toMatchObject({
			planFile: "PLAN.md",
			checkpoints: true,
			doneCheck: "npm test",
			notify: true,
		});
	});
});
