/**
 * A worker loads what this pi loaded, however pi found it: the `-e` paths of its command line (a relative one made
 * absolute: the worker runs in its own tree, where a git-ignored folder is not), `-ne`, the packages of the user's
 * settings (the worker shares the user's agent folder), and the project's `.pi` (its settings, extensions and
 * packages), with this pi's decision on trusting it. What of the project the tree lacks (a `.pi` git ignores, a folder
 * its settings name that git ignores) is linked into the tree from the person's, and excluded there, so it never lands;
 * what its settings name by a relative path outside the repository is given as `-e` with the path made absolute.
 */

import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { excludeLines } from "../../core/rules/checkpoint-rules.ts";
import { excludeInTree, type WorkerTree } from "../git/worker-tree.ts";
import { quietly } from "../host/quietly.ts";

/** The sources `-e` takes that are not paths on this machine: a package manager's or a URL. */
const NOT_A_PATH = /^(npm:|git:|https?:|ssh:|git@|~)/;

/** The flags of this pi's command line that choose its extensions, each path as the worker must read it. */
export function extensionFlags(argv: readonly string[] = process.argv, cwd = process.cwd()): string[] {
	const flags: string[] = [];
	argv.forEach((arg, i) => {
		if (arg === "-ne" || arg === "--no-extensions") flags.push(arg);
		const value = argv[i + 1];
		if ((arg === "-e" || arg === "--extension") && value !== undefined) {
			flags.push(arg, NOT_A_PATH.test(value) || isAbsolute(value) ? value : resolve(cwd, value));
		}
	});
	return flags;
}

/** This pi's word on trusting the project, for the worker to take as its own (pi without the question: none). */
export function trustFlags(ctx: ExtensionContext): string[] {
	let trusted: boolean | undefined;
	quietly(() => {
		trusted = typeof ctx.isProjectTrusted === "function" ? ctx.isProjectTrusted() : undefined;
	});
	return trusted === undefined ? [] : [trusted ? "--approve" : "--no-approve"];
}

/** Whether a path is there, a dangling link included. */
function there(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}

/** What pi reads as a pattern in a resource list, not a path to load: an exclusion, an exact include or exclude, a glob. */
const PATTERN = /^[!+-]|[*?]/;

/** The keys of a package's object form that narrow what of it loads (`-e` cannot say that). */
const PACKAGE_FILTERS = ["extensions", "skills", "prompts", "themes"];

/** An entry of a project's settings that is a relative local path: as written, and whether `-e` loads what it loads. */
interface NamedPath {
	path: string;
	/** A plain path (no pattern) of `extensions`, or a package's source with no filter. */
	loadable: boolean;
}

/**
 * The relative local paths a project's settings name, as written (they resolve from its `.pi`). An `extensions` list
 * that excludes anything makes none of its paths loadable: which of them pi then loads is pi's reading of the patterns.
 */
function namedPaths(settingsFile: string): NamedPath[] {
	let settings: { packages?: unknown; extensions?: unknown };
	try {
		settings = JSON.parse(readFileSync(settingsFile, "utf8"));
	} catch {
		return [];
	}
	const relativeOnly = (path: unknown): path is string =>
		typeof path === "string" && !NOT_A_PATH.test(path) && !isAbsolute(path);
	const packages = (Array.isArray(settings.packages) ? settings.packages : []).flatMap((entry): NamedPath[] => {
		const filtered = typeof entry === "object" && entry !== null && PACKAGE_FILTERS.some((key) => key in entry);
		const source = typeof entry === "string" ? entry : (entry as { source?: unknown } | null)?.source;
		return relativeOnly(source) ? [{ path: source, loadable: !filtered }] : [];
	});
	const listed: unknown[] = Array.isArray(settings.extensions) ? settings.extensions : [];
	const excludes = listed.some((entry) => typeof entry === "string" && /^[!-]/.test(entry));
	const extensions = listed.flatMap((entry): NamedPath[] =>
		relativeOnly(entry) ? [{ path: entry.replace(/^[+-]/, ""), loadable: !excludes && !PATTERN.test(entry) }] : [],
	);
	return [...packages, ...extensions];
}

/** Where the project's `.pi` is: this pi's folder's, as pi finds it from where it runs. */
function projectPi(cwd: string): string | undefined {
	const folder = join(cwd, ".pi");
	return existsSync(folder) ? folder : undefined;
}

/** Whether `path` is the repository's top `top` or under it. */
function inside(top: string, path: string): boolean {
	return path === top || path.startsWith(`${top}${sep}`);
}

/**
 * The paths the project's settings name relatively that lead outside the repository, each there and loadable by
 * `-e`, made absolute: from the worker's tree the same relative path leads elsewhere (or nowhere).
 */
function outsideProject(top: string, cwd: string): string[] {
	const folder = projectPi(cwd);
	if (!folder) return [];
	const named = namedPaths(join(folder, "settings.json")).filter(({ loadable }) => loadable);
	const paths = named.map(({ path }) => resolve(folder, path)).filter((path) => !inside(top, path) && there(path));
	return [...new Set(paths)];
}

/**
 * Everything a worker's command line needs to load what this pi loaded: this pi's extension flags, its word on
 * trusting the project, and the project's entries outside the repository as `-e` (none when this pi loads no configured
 * extension, `-ne`, or does not trust the project, as pi then loads none of them).
 */
export function workerExtensionFlags(
	ctx: ExtensionContext,
	top: string,
	argv: readonly string[] = process.argv,
): string[] {
	const flags = extensionFlags(argv);
	const trust = trustFlags(ctx);
	const configured = !flags.includes("-ne") && !flags.includes("--no-extensions") && !trust.includes("--no-approve");
	const outside = configured ? outsideProject(top, ctx.cwd).flatMap((path) => ["-e", path]) : [];
	return [...flags, ...trust, ...outside];
}

/**
 * What the worker's tree needs of the person's project that it lacks, as paths relative to the repository's top: the
 * project's `.pi` or entries of it, and the local paths its settings name, inside the repository.
 */
function missingInTree(top: string, cwd: string, tree: string): string[] {
	const folder = projectPi(cwd);
	if (!folder) return [];
	const inTree = (path: string) => join(tree, relative(top, path));
	const named = namedPaths(join(folder, "settings.json")).map(({ path }) => resolve(folder, path));
	// Each entry of it the tree lacks (a git-ignored `npm` folder, say), in a `.pi` of the tree's own even when git ignores
	// all of it: the worker's confined pi locks its settings there (a lock folder beside them), never in the person's.
	const parts = readdirSync(folder).map((name) => join(folder, name));
	const wanted = [...new Set([...parts, ...named])];
	const missing = wanted.filter((path) => inside(top, path) && there(path) && !there(inTree(path)));
	// A path inside another one linked is there through that link.
	const under = (path: string) => missing.some((other) => path.startsWith(`${other}${sep}`));
	return missing.filter((path) => !under(path)).map((path) => relative(top, path));
}

/**
 * Links into the worker's `tree` what it lacks of the person's project (see {@link missingInTree}), each excluded in
 * the tree's own repository so that it is never part of the worker's result; the paths linked.
 */
export function provideProject(top: string, cwd: string, tree: WorkerTree): string[] {
	const missing = missingInTree(top, cwd, tree.dir);
	for (const path of missing) {
		mkdirSync(dirname(join(tree.dir, path)), { recursive: true });
		symlinkSync(join(top, path), join(tree.dir, path));
	}
	if (missing.length > 0) excludeInTree(tree, excludeLines(missing));
	return missing;
}
