/**
 * The package as users get it: `npm pack` (whose `prepack` builds dist/), unpacked where no node_modules lie above it,
 * installed with `pi install <folder>`, on every tested pi version.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
	FAKE_MODEL_ARGS,
	FAKE_MODEL_EXTENSION,
	type IsolatedEnv,
	isolatedEnv,
	NODE,
	PI_HOSTS,
	type PiHost,
	REPO_ROOT,
	readFakeLog,
	runPrint,
} from "../helpers/cli.ts";
import { allFinished, MESSAGE_TYPE, SKILL_HEADING, stderrLine } from "../helpers/expected.ts";
import { must } from "../helpers/must.ts";
import { startRpc } from "../helpers/rpc.ts";
import { continuationPrompts, lazyScript } from "../helpers/scripts.ts";
import { hasTmux, startTui } from "../helpers/tmux.ts";

const ITEMS = ["Parse the flag", "Print JSON", "Update the usage text"];

let packRoot = "";
/** The unpacked tarball: what `npm publish` would upload. */
let packageDir = "";
let iso: IsolatedEnv | undefined;

beforeAll(() => {
	packRoot = mkdtempSync(join(tmpdir(), "til-done-pack-"));
	const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", packRoot], {
		cwd: REPO_ROOT,
		encoding: "utf8",
	});
	expect(pack.status, pack.stderr).toBe(0);
	const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
	const { filename } = must(packed, "the tarball npm pack wrote");
	expect(spawnSync("tar", ["-xzf", join(packRoot, filename), "-C", packRoot]).status).toBe(0);
	packageDir = join(packRoot, "package");
}, 60_000);

afterEach(() => {
	iso?.cleanup();
	iso = undefined;
});
afterAll(() => rmSync(packRoot, { recursive: true, force: true }));

/** The V8 code caches kept beside the unpacked package's bundle. */
const bundleCaches = () => readdirSync(join(packageDir, "dist")).filter((file) => file.startsWith(".v8-cache-"));

/** `pi -p` invoking the package's til-done skill in `env`, the fake model answering once. */
function invokeSkill(host: PiHost, env: IsolatedEnv) {
	env.writeScript([{ text: "Noted." }]);
	const args = [
		"-e",
		FAKE_MODEL_EXTENSION,
		...FAKE_MODEL_ARGS,
		"--no-session",
		"-p",
		"/skill:til-done plan the release",
	];
	return runPrint(args, env.env, { host, raw: true });
}

describe("the packed package", () => {
	it("names the root loader in its pi manifest and ships it with the built files", () => {
		const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
		expect(manifest.pi).toEqual({ extensions: ["./index.ts"], skills: ["./skills"] });
		expect(readFileSync(join(packageDir, "index.ts"), "utf8")).toContain('"dist", "index.cjs"');
		// pi runs the CommonJS bundle; programs that import the package get the ESM one.
		expect(
			readdirSync(join(packageDir, "dist"))
				.filter((file) => /\.c?js$/.test(file))
				.sort(),
		).toEqual(["index.cjs", "index.js"]);
		expect(readFileSync(join(packageDir, "dist/index.cjs"), "utf8")).toContain(MESSAGE_TYPE.continuation);
	});

	it("ships the bundle pi runs in ASCII, which every start reads as one-byte text", () => {
		const bundle = readFileSync(join(packageDir, "dist/index.cjs"), "latin1");
		expect([...bundle].filter((character) => character.charCodeAt(0) > 0x7f)).toEqual([]);
	});
});

describe.each(PI_HOSTS)("pi $version", (host) => {
	it("`pi install` of the unpacked tarball runs dist/index.cjs with pi's own libraries and works a list to the end", async () => {
		iso = isolatedEnv();
		// Without the source beside it, only the built file can have loaded.
		renameSync(join(packageDir, "src"), join(packageDir, "src.hidden"));
		onTestFinished(() => renameSync(join(packageDir, "src.hidden"), join(packageDir, "src")));
		const install = await runPrint(["install", packageDir], iso.env, { host, raw: true });
		expect(install.code).toBe(0);

		const script = iso.writeScript(lazyScript(ITEMS));
		// No -ne: the installed package is discovered like any user's package. Nothing above the unpacked folder
		// holds pi-ai or pi-tui, so the extension loads only if pi hands it its own copies.
		// A followed plan file: its part of the bundle is evaluated on first use.
		const run = await runPrint(
			[
				"-e",
				FAKE_MODEL_EXTENSION,
				...FAKE_MODEL_ARGS,
				"--no-session",
				"--til-done-plan",
				"PLAN.md",
				"-p",
				"Do the three things",
			],
			iso.env,
			{ host, raw: true },
		);
		expect(run.stderr).toBe(stderrLine(allFinished(ITEMS.length)));
		expect(run.code).toBe(0);
		expect(continuationPrompts(readFakeLog(script.logFile))).toHaveLength(2);
		expect(run.stdout).toBe("Finished item 2.\n");
		expect(readFileSync(join(iso.cwd, "PLAN.md"), "utf8")).toBe(
			`# Plan\n\n${ITEMS.map((item) => `- [x] ${item}\n`).join("")}`,
		);

		// The bundle's code cache is kept beside it, one file; a cache V8 cannot use is only slower, and is made again.
		const [cache] = bundleCaches();
		expect(bundleCaches()).toHaveLength(1);
		const cachePath = join(packageDir, "dist", must(cache, "the code cache"));
		writeFileSync(cachePath, "not a code cache");

		// The package also ships the til-done skill: invoking it hands its guidance to the model.
		const skill = await invokeSkill(host, iso);
		expect(skill.code).toBe(0);
		const lastUser = readFakeLog(iso.env.TIL_DONE_FAKE_LOG as string).at(-1)?.lastUser ?? "";
		expect(lastUser).toContain(SKILL_HEADING);
		expect(lastUser).toContain("plan the release");
		expect(bundleCaches()).toEqual([cache]);
		expect(readFileSync(cachePath, "utf8")).not.toBe("not a code cache");
	});

	it("a bundle written again (a rebuild, an update in place) has a code cache of its own, made anew; the old one goes", async () => {
		iso = isolatedEnv();
		expect((await runPrint(["install", packageDir], iso.env, { host, raw: true })).code).toBe(0);
		expect((await invokeSkill(host, iso)).code).toBe(0);
		const before = bundleCaches();
		expect(before).toHaveLength(1);
		const bundle = join(packageDir, "dist", "index.cjs");
		writeFileSync(bundle, readFileSync(bundle));
		expect((await invokeSkill(host, iso)).code).toBe(0);
		expect(bundleCaches()).toHaveLength(1);
		expect(bundleCaches()).not.toEqual(before);
	});

	it("a session that began before the bundle was written again leaves the new bundle's code cache as it ends", async () => {
		iso = isolatedEnv();
		expect((await runPrint(["install", packageDir], iso.env, { host, raw: true })).code).toBe(0);
		for (const cache of bundleCaches()) rmSync(join(packageDir, "dist", cache));
		// Without a cache, the session makes one and writes it again as it goes on.
		const args = ["-e", FAKE_MODEL_EXTENSION, ...FAKE_MODEL_ARGS, "--no-session"];
		const rpc = await startRpc({ env: iso.env, host, raw: true, args });
		onTestFinished(async () => {
			await rpc.close();
		});
		const bundle = join(packageDir, "dist", "index.cjs");
		writeFileSync(bundle, readFileSync(bundle));
		expect((await invokeSkill(host, iso)).code).toBe(0);
		const rebuilt = bundleCaches();
		expect(rebuilt).toHaveLength(1);
		iso.writeScript([{ text: "Noted." }]);
		await rpc.promptAndSettle("/skill:til-done plan the release");
		await rpc.close();
		expect(bundleCaches()).toEqual(rebuilt);
	});

	it.skipIf(!hasTmux())(
		"pi's start-up header lists the installed package by its folder's name, not as `dist`",
		async () => {
			iso = isolatedEnv();
			expect((await runPrint(["install", packageDir], iso.env, { host, raw: true })).code).toBe(0);
			// Without -ne, so pi discovers the installed package as a user's pi does.
			const command = [NODE, host.cli, "-e", FAKE_MODEL_EXTENSION, ...FAKE_MODEL_ARGS, "--no-session"];
			const tui = await startTui({ host, env: iso.env, command, width: 200 });
			onTestFinished(() => tui.kill());
			// The header is drawn line by line: the one under [Extensions] may not be there yet when its heading is.
			const listed = (screen: string) => {
				const lines = screen.split("\n");
				return lines[lines.findIndex((line) => line.trim() === "[Extensions]") + 1]?.trim() ?? "";
			};
			const screen = await tui.waitForScreen((shown) => listed(shown) !== "", 30_000);
			// npm's tarball unpacks into `package`; a clone's folder is `pi-til-done`, and an npm install shows the name.
			expect(listed(screen)).toBe("fake-model-extension.ts, package");
		},
	);
});
