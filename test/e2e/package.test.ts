/** The package loads in the real pi the ways a user installs it: `pi install <path>` and `pi -e <built file>`. */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	FAKE_MODEL_ARGS,
	FAKE_MODEL_EXTENSION,
	type IsolatedEnv,
	isolatedEnv,
	PI_HOSTS,
	REPO_ROOT,
	readFakeLog,
	runPrint,
} from "../helpers/cli.ts";
import { continuationPrompts, lazyScript } from "../helpers/scripts.ts";

const ITEMS = ["Parse the flag", "Print JSON", "Update the usage text"];
const DIST_ENTRY = join(REPO_ROOT, "dist/index.js");

let iso: IsolatedEnv | undefined;
afterEach(() => {
	iso?.cleanup();
	iso = undefined;
});

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("installing the package", () => {
		it("`pi install <path>` loads the extension from the package's pi manifest and it works a list to the end", async () => {
			iso = isolatedEnv();
			const install = await runPrint(["install", REPO_ROOT], iso.env, { host, raw: true });
			expect(install.code).toBe(0);
			expect(install.stdout).toContain("Installed");

			const script = iso.writeScript(lazyScript(ITEMS));
			// No -ne: the installed package is discovered like any user's package.
			const run = await runPrint(
				["-e", FAKE_MODEL_EXTENSION, ...FAKE_MODEL_ARGS, "--no-session", "-p", "Do the three things"],
				iso.env,
				{ host, raw: true },
			);
			expect(run.code).toBe(0);
			expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(2);
			expect(run.stdout).toContain("Finished item 2.");

			// The package also ships the til-done skill: invoking it hands its guidance to the model.
			iso.writeScript([{ text: "Noted." }]);
			const skill = await runPrint(
				["-e", FAKE_MODEL_EXTENSION, ...FAKE_MODEL_ARGS, "--no-session", "-p", "/skill:til-done plan the release"],
				iso.env,
				{ host, raw: true },
			);
			expect(skill.code).toBe(0);
			const lastUser = readFakeLog(iso.env.TIL_DONE_FAKE_LOG as string).at(-1)?.lastUser ?? "";
			expect(lastUser).toContain("# Planning with todos");
			expect(lastUser).toContain("plan the release");
		});

		it.skipIf(!existsSync(DIST_ENTRY))(
			"`pi -e dist/index.js` (the tsup build) loads and works a list to the end",
			async () => {
				iso = isolatedEnv();
				const script = iso.writeScript(lazyScript(ITEMS));
				const run = await runPrint(
					["-ne", "-e", DIST_ENTRY, "-e", FAKE_MODEL_EXTENSION, ...FAKE_MODEL_ARGS, "--no-session", "-p", "Do it"],
					iso.env,
					{ host, raw: true },
				);
				expect(run.code).toBe(0);
				expect(run.stderr).not.toContain("Failed to load extension");
				expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(2);
				expect(run.stdout).toContain("Finished item 2.");
			},
		);
	});
});
