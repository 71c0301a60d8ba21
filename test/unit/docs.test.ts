import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as names from "../../src/session/keys.ts";
import { BOOLEAN_SETTINGS, DEFAULT_CONFIG, NUMERIC_SETTINGS, TEXT_SETTINGS } from "../../src/settings/config.ts";

const api = readFileSync(new URL("../../docs/API.md", import.meta.url), "utf8");
/** The rows of the API doc's settings table, by flag. */
const settingRows = new Map(
	api
		.split("\n")
		.filter((line) => line.startsWith("| `--til-done-"))
		.map((line) => [line.split("`")[1]?.split(" ")[0] ?? "", line.split("|").map((cell) => cell.trim())]),
);

describe("the public surface doc names every setting and every name the extension gives pi", () => {
	it("one settings row per flag, with its variable and default", () => {
		const settings = [...NUMERIC_SETTINGS, ...TEXT_SETTINGS, ...BOOLEAN_SETTINGS];
		expect([...settingRows.keys()].sort()).toEqual(settings.map((setting) => `--${setting.flag}`).sort());
		for (const setting of NUMERIC_SETTINGS) {
			const row = settingRows.get(`--${setting.flag}`);
			expect(row?.[2], setting.flag).toBe(`\`${setting.env}\``);
			expect(row?.[3], setting.flag).toBe(`\`${DEFAULT_CONFIG[setting.key]}\``);
		}
	});

	it("every exported name, with its value", () => {
		for (const [constant, value] of Object.entries(names)) {
			expect(api, constant).toContain(`\`${value}\` (\`${constant}\`)`);
		}
	});
});

describe("the skill tells the model what the tools expect", () => {
	const skill = readFileSync(new URL("../../skills/til-done/SKILL.md", import.meta.url), "utf8");

	it("abandoning goes through edit_todos with its reason, which the user is shown", () => {
		const bullet = skill.split("\n- ").find((line) => line.includes("`abandon`"));
		expect(bullet?.replace(/\s+/g, " ")).toContain(
			"`abandon` items that turn out unnecessary with `edit_todos`, giving the why in its `reason`",
		);
	});
});
