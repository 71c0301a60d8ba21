/**
 * Every way pi finds extensions works in a worker, on both pi lines: a relative `-e` into a folder git ignores, and the
 * project's `.pi` (git-ignored too) naming an extension in such a folder, or one outside the repository by a relative
 * path; and a worker that cannot start is said once,
 * turns workers off for the session, and is no failure of the model's: the session's model works the list.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	EXTENSION_ENTRY,
	FAKE_MODEL_ARGS,
	FAKE_MODEL_EXTENSION,
	type IsolatedEnv,
	PI_HOSTS,
	type PiHost,
	runPrint,
} from "../helpers/cli.ts";
import { allFinished, stderrLine, WORKERS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { completeStep, sayStep, toolStep, writeFileScript, writeStep } from "../helpers/scripts.ts";
import { userRepo } from "../helpers/user-repo.ts";
import { landedLine, startedLine, stderrOf } from "../helpers/workers.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });

/** The project's `vendor/` folder (git ignores it, and `.pi` too): the fake model and pi-til-done, by re-export. */
function vendor(env: IsolatedEnv): void {
	writeFileSync(join(env.cwd, ".gitignore"), "vendor/\n.pi/\n");
	mkdirSync(join(env.cwd, "vendor"));
	writeFileSync(
		join(env.cwd, "vendor", "fake.ts"),
		`export { default } from ${JSON.stringify(FAKE_MODEL_EXTENSION)};\n`,
	);
	writeFileSync(
		join(env.cwd, "vendor", "til-done.ts"),
		`export { default } from ${JSON.stringify(EXTENSION_ENTRY)};\n`,
	);
}

/** pi as the user starts it in the project folder, with `flags` for its extensions. */
function start(host: PiHost, env: IsolatedEnv, flags: string[], prompt = "Write the files.") {
	const args = [...flags, ...FAKE_MODEL_ARGS, "--session-dir", join(env.root, "sessions"), "-p", prompt];
	return runPrint(args, env.env, { host, raw: true, timeoutMs: 60_000 });
}

/**
 * With the project's `.pi/settings.json` as `settings`, a trusted session's one worker lands item 0's a.txt, and the
 * settings file, linked into the worker's tree, never lands.
 */
async function landsWithProjectSettings(host: PiHost, env: IsolatedEnv, state: () => string, settings: string) {
	mkdirSync(join(env.cwd, ".pi"));
	writeFileSync(join(env.cwd, ".pi", "settings.json"), settings);
	env.writeWorkerScripts({ "0": writeFileScript("a.txt") });
	const before = state();
	const result = await start(host, env, ["-e", EXTENSION_ENTRY, "--approve"]);
	expect(stderrOf(result.stderr)).toEqual([
		startedLine(0, "Write a.txt"),
		landedLine(env, 0, ["a.txt"], "Wrote a.txt."),
		stderrLine(allFinished(1)).trimEnd(),
	]);
	expect(result.code).toBe(0);
	expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a.txt\n");
	expect(readFileSync(join(env.cwd, ".pi", "settings.json"), "utf8")).toBe(settings);
	expect(state()).toBe(before);
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("pi -e ./vendor/…, a folder git ignores: each worker loads the same extensions, and the items land", async () => {
		const env = pi.env([writeStep(["Write a.txt", "Write b.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "2" });
		const state = userRepo(env);
		vendor(env);
		env.writeWorkerScripts({ "0": writeFileScript("a.txt"), "1": writeFileScript("b.txt") });
		const before = state();
		const result = await start(host, env, ["-ne", "-e", "./vendor/fake.ts", "-e", "./vendor/til-done.ts"]);
		const lines = stderrOf(result.stderr);
		expect(lines.slice(0, 2)).toEqual([startedLine(0, "Write a.txt"), startedLine(1, "Write b.txt")]);
		expect(lines.slice(2, 4).toSorted()).toEqual(
			[landedLine(env, 0, ["a.txt"], "Wrote a.txt."), landedLine(env, 1, ["b.txt"], "Wrote b.txt.")].toSorted(),
		);
		expect(lines.slice(4)).toEqual([stderrLine(allFinished(2)).trimEnd()]);
		expect(result.code).toBe(0);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a.txt\n");
		expect(readFileSync(join(env.cwd, "b.txt"), "utf8")).toBe("b.txt\n");
		expect(state()).toBe(before);
	});

	it("the project's .pi, which git ignores, names an extension in vendor/: trusted by the session, trusted by its workers", async () => {
		const env = pi.env([writeStep(["Write a.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = userRepo(env);
		vendor(env);
		await landsWithProjectSettings(host, env, state, '{"extensions":["../vendor/fake.ts"]}');
	});

	it("the project's .pi names an extension outside the repository by a relative path: its workers load it too, and the items land", async () => {
		const env = pi.env([writeStep(["Write a.txt"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
		const state = userRepo(env);
		// Beside the repository, not in it: from the worker's tree the same relative path leads nowhere.
		const outside = join(env.root, "outside");
		mkdirSync(outside);
		writeFileSync(join(outside, "ext.ts"), `export { default } from ${JSON.stringify(FAKE_MODEL_EXTENSION)};\n`);
		await landsWithProjectSettings(host, env, state, JSON.stringify({ extensions: ["../../outside/ext.ts"] }));
	});

	it("a worker that cannot start is said once and is no model's failure: workers stop, and the session's model works the list", async () => {
		const steps = [
			writeStep(["Write a.txt"]),
			sayStep("Planned."),
			toolStep("write", { path: "a.txt", content: "a by the session\n" }),
			completeStep(0),
			sayStep("Done."),
		];
		const env = pi.env(steps, { TIL_DONE_WORKERS: "2" });
		const state = userRepo(env);
		vendor(env);
		// The model's provider is there for the session alone: a worker's pi finds no such model and exits.
		const parentOnly = `import fake from ${JSON.stringify(FAKE_MODEL_EXTENSION)};\nexport default (pi: Parameters<typeof fake>[0]) => {\n\tif (!process.env.TIL_DONE_WORKER_OF) fake(pi);\n};\n`;
		writeFileSync(join(env.cwd, "vendor", "parent-only.ts"), parentOnly);
		const before = state();
		const result = await start(host, env, ["-ne", "-e", "./vendor/parent-only.ts", "-e", EXTENSION_ENTRY]);
		const lines = result.stderr.split("\n").filter((line) => line !== "");
		expect(lines).toHaveLength(3);
		expect(lines[0]).toBe(startedLine(0, "Write a.txt"));
		expect(lines[1]).toMatch(WORKERS.cannotStart);
		expect(lines[2]).toBe(stderrLine(allFinished(1)).trimEnd());
		expect(result.code).toBe(0);
		expect(readFileSync(join(env.cwd, "a.txt"), "utf8")).toBe("a by the session\n");
		expect(state()).toBe(before);
	});
});
