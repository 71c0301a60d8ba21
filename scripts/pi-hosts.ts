/**
 * The pi versions this project is tested on, and how each one's CLI gets onto a fresh machine:
 * - 0.87.1 is the pinned devDependency (`npm install` puts it in node_modules);
 * - 1.6.0 (the current line) and 1.5.2 cannot be `npm install`ed here (some of their dependencies are missing from
 *   the registry), but each published tarball carries a self-contained CLI bundle. This script packs that tarball from
 *   the registry, checks it against the pinned integrity, unpacks it and installs the two packages the bundle loads
 *   from beside it (jiti, typebox), all into a cache under node_modules, once.
 *
 * Every command-line suite runs on the full lines (0.87.1 and 1.6.0); 1.5.2, the line before, runs a smoke subset.
 *
 *   node scripts/pi-hosts.ts      # fetch what is missing, then print each version and its CLI
 *
 * The test suite calls `ensurePiHosts()` from its global set-up, so `npm test` works on a fresh clone.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PI_PACKAGE = "@earendil-works/pi-coding-agent";
/** Where fetched pi versions are kept; inside node_modules, so a clean install starts afresh. */
export const PI_HOSTS_CACHE = join(REPO_ROOT, "node_modules/.cache/pi-til-done-hosts");

export interface PiHost {
	/** The pi version, as its package.json states it. */
	version: string;
	/** The CLI entry to run with Node 22: `node <cli> ...`. */
	cli: string;
	/** Whether every command-line suite runs on it (else only the smoke subset). */
	full: boolean;
}

interface PackedHost {
	version: string;
	/** The registry's `dist.integrity` of the tarball, checked before anything is unpacked. */
	integrity: string;
	/** What the CLI bundle imports from outside itself, at the versions the package declares. */
	companions: Readonly<Record<string, string>>;
	/** Whether every command-line suite runs on it (else only the smoke subset). */
	full: boolean;
}

/** The devDependency: the version the SDK tests also run on. */
const INSTALLED_VERSION = "0.87.1";

const PACKED_HOSTS: readonly PackedHost[] = [
	{
		version: "1.5.2",
		integrity: "sha512-mUWI04rqF1Vd/m1q+Ps1XeWsTXEVvRUnsmRa83I3Dzua0Tx5bYS93imeqtIfrXf7PkkaR6ERz+AuQhIJlom5yA==",
		companions: { jiti: "2.7.0", typebox: "1.3.27" },
		full: false,
	},
	{
		version: "1.6.0",
		integrity: "sha512-zX1BVEsshx7A2MRuQ6jfr3RJGWw4Wn+vLq5ZfmlvS1RskhRmByaSZVXH/zcwRrWHO7qPgs98pNCbPOEti/t0fQ==",
		companions: { jiti: "2.7.0", typebox: "1.3.27" },
		full: true,
	},
];

/** Every tested version, oldest first. */
export const PI_VERSIONS: readonly string[] = [INSTALLED_VERSION, ...PACKED_HOSTS.map((host) => host.version)];

function installedHost(): PiHost {
	const dir = join(REPO_ROOT, "node_modules", PI_PACKAGE);
	return { version: readVersion(dir), cli: join(dir, "dist/bundle/cli.js"), full: true };
}

function packedHostDir(host: PackedHost): string {
	return join(PI_HOSTS_CACHE, host.version);
}

function packedCli(host: PackedHost): string {
	return join(packedHostDir(host), "package/dist/bundle/cli.js");
}

function readVersion(packageDir: string): string {
	const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: unknown };
	return String(manifest.version);
}

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.error}`);
	}
	return result.stdout;
}

function sha512(file: string): string {
	return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/** Packs, checks, unpacks and completes one version in a scratch folder, then moves it into the cache whole. */
function fetchPackedHost(host: PackedHost): void {
	mkdirSync(PI_HOSTS_CACHE, { recursive: true });
	const scratch = mkdtempSync(join(PI_HOSTS_CACHE, `.fetch-${host.version}-`));
	try {
		const packed = JSON.parse(run("npm", ["pack", `${PI_PACKAGE}@${host.version}`, "--json"], scratch)) as {
			filename: string;
		}[];
		const [pack] = packed;
		if (!pack) throw new Error(`pi ${host.version}: npm pack named no tarball`);
		const tarball = join(scratch, pack.filename);
		const actual = sha512(tarball);
		if (actual !== host.integrity)
			throw new Error(`pi ${host.version}: tarball integrity ${actual} is not the pinned one`);
		run("tar", ["-xzf", tarball, "-C", scratch], scratch);
		rmSync(tarball);
		// The bundle resolves its companions from the folder above `package/`.
		const manifest = { name: `pi-host-${host.version}`, private: true, dependencies: host.companions };
		writeFileSync(join(scratch, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
		run("npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts"], scratch);
		const version = readVersion(join(scratch, "package"));
		if (version !== host.version) throw new Error(`pi ${host.version}: the tarball says ${version}`);
		const target = packedHostDir(host);
		rmSync(target, { recursive: true, force: true });
		renameSync(scratch, target);
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

/** Every tested pi version with its CLI, fetching what the cache lacks. Throws when a version cannot be had. */
export function ensurePiHosts(): PiHost[] {
	const installed = installedHost();
	if (installed.version !== INSTALLED_VERSION) {
		throw new Error(`node_modules holds pi ${installed.version}, expected ${INSTALLED_VERSION}: run npm install`);
	}
	const hosts = [installed];
	for (const host of PACKED_HOSTS) {
		if (!existsSync(packedCli(host))) fetchPackedHost(host);
		hosts.push({ version: host.version, cli: packedCli(host), full: host.full });
	}
	return hosts;
}

/**
 * The tested versions as they sit in the cache, without fetching (for code that runs after the global set-up); the
 * installed devDependency first.
 */
export function piHosts(): [PiHost, ...PiHost[]] {
	return [
		installedHost(),
		...PACKED_HOSTS.map((host) => ({ version: host.version, cli: packedCli(host), full: host.full })),
	];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	for (const host of ensurePiHosts()) process.stdout.write(`pi ${host.version}: ${host.cli}\n`);
}
