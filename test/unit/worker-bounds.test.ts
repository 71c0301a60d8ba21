/** A worker's bounds, the pure rule: which writes stay in its tree, what a refusal says, how its bash is confined. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
	confinedArgs,
	confinedCommand,
	resolveIn,
	shellWord,
	toolFlags,
	unconfinedCommand,
	type WorkerPlace,
	type WriteTarget,
	whereWriteReaches,
	workerCredentials,
	writableEntries,
	writeRefusal,
} from "../../src/core/rules/worker-bounds.ts";
import { WORKER_BOUNDS } from "../helpers/expected.ts";

const TREE = "/tmp/til-done-worker-x";
const REPO = "/home/ann/project";
const place: WorkerPlace = { tree: TREE, realTree: TREE, repo: REPO };

/** A path a worker names, as the edge gives it: resolved against the tree, and its links (none unless given). */
const target = (path: string, real?: string): WriteTarget => {
	const absolute = resolveIn(TREE, path);
	return { absolute, real: real ?? absolute };
};

describe("a path is read against the tree as the write tool reads it, before links", () => {
	it("a relative path is in the tree; an absolute one is itself; `.`, `..` and doubled slashes are read off", () => {
		expect(resolveIn(TREE, "src/a.ts")).toBe(`${TREE}/src/a.ts`);
		expect(resolveIn(TREE, "./src//a.ts")).toBe(`${TREE}/src/a.ts`);
		expect(resolveIn(TREE, "/etc/passwd")).toBe("/etc/passwd");
		expect(resolveIn(TREE, "src/../../elsewhere/a.ts")).toBe("/tmp/elsewhere/a.ts");
		expect(resolveIn(TREE, "../../../../..")).toBe("/");
		expect(resolveIn(TREE, ".")).toBe(TREE);
	});
});

describe("a worker writes inside its tree only", () => {
	it("relative paths, absolute paths into the tree, and the tree's own `..` that stays in it are allowed", () => {
		expect(whereWriteReaches(place, target("a.txt"))).toEqual({ kind: "inside" });
		expect(whereWriteReaches(place, target(`${TREE}/src/a.ts`))).toEqual({ kind: "inside" });
		expect(whereWriteReaches(place, target("src/../a.txt"))).toEqual({ kind: "inside" });
	});

	it("an absolute path of the person's repository is refused, and named as the same file in the tree", () => {
		expect(whereWriteReaches(place, target(`${REPO}/README.md`))).toEqual({
			kind: "in-repo",
			instead: `${TREE}/README.md`,
		});
		expect(whereWriteReaches(place, target(`${REPO}/src/deep/a.ts`))).toEqual({
			kind: "in-repo",
			instead: `${TREE}/src/deep/a.ts`,
		});
		expect(whereWriteReaches(place, target(REPO))).toEqual({ kind: "in-repo", instead: TREE });
	});

	it("a folder beside the repository whose name starts like it is not the repository", () => {
		expect(whereWriteReaches(place, target(`${REPO}-old/README.md`))).toEqual({ kind: "outside" });
	});

	it("`..` that leaves the tree is refused; into the person's repository it is named in the tree", () => {
		expect(whereWriteReaches(place, target("../../etc/hosts"))).toEqual({ kind: "outside" });
		expect(whereWriteReaches(place, target("../../home/ann/project/a.txt"))).toEqual({
			kind: "in-repo",
			instead: `${TREE}/a.txt`,
		});
	});

	it("a path of the tree whose links lead out is refused with where it leads; into the repository, named in the tree", () => {
		expect(whereWriteReaches(place, target("out/notes.txt", "/srv/elsewhere/notes.txt"))).toEqual({
			kind: "through-link",
			real: "/srv/elsewhere/notes.txt",
		});
		expect(whereWriteReaches(place, target("mirror/README.md", `${REPO}/README.md`))).toEqual({
			kind: "in-repo",
			instead: `${TREE}/README.md`,
		});
	});

	it("a path outside that links into the tree is allowed: what is written is the tree's", () => {
		expect(whereWriteReaches(place, target("/var/link/a.txt", `${TREE}/a.txt`))).toEqual({ kind: "inside" });
	});

	it("the tree as its links resolve it counts as the tree (a temporary folder reached through a link)", () => {
		const linked: WorkerPlace = { tree: "/tmp/w", realTree: "/private/tmp/w", repo: REPO };
		expect(whereWriteReaches(linked, { absolute: "/tmp/w/a.txt", real: "/private/tmp/w/a.txt" })).toEqual({
			kind: "inside",
		});
		expect(whereWriteReaches(linked, { absolute: "/private/tmp/w/out/a", real: "/srv/a" })).toEqual({
			kind: "through-link",
			real: "/srv/a",
		});
	});

	it("without the person's repository known, its paths are outside like any other", () => {
		const unknown: WorkerPlace = { ...place, repo: undefined };
		expect(whereWriteReaches(unknown, target(`${REPO}/README.md`))).toEqual({ kind: "outside" });
	});
});

describe("a refusal tells the model the path to use", () => {
	it("each kind in its words: the tree's path for a file of the repository, the link's end, the tree", () => {
		expect(writeRefusal(`${REPO}/README.md`, { kind: "in-repo", instead: `${TREE}/README.md` }, TREE)).toBe(
			WORKER_BOUNDS.inRepo(`${REPO}/README.md`, `${TREE}/README.md`),
		);
		expect(writeRefusal("out/a", { kind: "through-link", real: "/srv/a" }, TREE)).toBe(
			WORKER_BOUNDS.throughLink("out/a", "/srv/a", TREE),
		);
		expect(writeRefusal("/etc/hosts", { kind: "outside" }, TREE)).toBe(WORKER_BOUNDS.outside("/etc/hosts", TREE));
	});

	it("a path with a line break or a quote stays one quoted string", () => {
		const text = writeRefusal('/x"\nEND', { kind: "outside" }, TREE);
		expect(text.split("\n")).toHaveLength(1);
		expect(text).toBe(WORKER_BOUNDS.outside('/x"\nEND', TREE));
	});
});

describe("a worker's bash command is run as it was written, in bubblewrap or with its own TMPDIR", () => {
	const tricky = `printf '%s|' "it's" 'a "b"' $'c\\nd' "$TMPDIR"`;
	const bash = (command: string) => execFileSync("bash", ["-c", command], { encoding: "utf8" });

	it("a word is quoted for the shell whatever it holds", () => {
		for (const word of ["", "plain", "it's", "'", "a b", "$HOME", "`x`", "\\", "a\nb"])
			expect(bash(`printf %s ${shellWord(word)}`)).toBe(word);
	});

	it("unconfined, the command runs as written with TMPDIR set to the worker's", () => {
		expect(bash(unconfinedCommand(tricky, "/tmp/w-tmp"))).toBe('it\'s|a "b"|c\nd|/tmp/w-tmp|');
	});

	it("confined, bwrap is given the command whole after its own arguments", () => {
		const command = confinedCommand("echo 'hi'", { bwrap: "/usr/bin/bwrap", tree: TREE, tmp: `${TREE}-tmp` });
		expect(command).toBe(
			[
				"exec '/usr/bin/bwrap' '--die-with-parent' '--unshare-pid' '--cap-drop' 'ALL' '--ro-bind' '/' '/' '--dev' '/dev' '--proc' '/proc'",
				`'--bind' '${TREE}' '${TREE}' '--bind' '${TREE}-tmp' '${TREE}-tmp'`,
				`'--setenv' 'TMPDIR' '${TREE}-tmp' '--' 'bash' '-c' 'echo '\\''hi'\\'''`,
			].join(" "),
		);
	});
});

describe("a worker gets the tools its session has", () => {
	it("carries every flag of pi's that chooses tools, with its list, in order; nothing else", () => {
		const argv = ["node", "pi", "-e", "x.ts", "--tools", "read,ls", "-xt", "bash", "-nt", "--model", "m", "-nbt"];
		expect(toolFlags([...argv, "--no-mcp", "-t", "grep", "--exclude-tools", "edit", "--no-tools", "-p", "go"])).toEqual(
			[
				"--tools",
				"read,ls",
				"-xt",
				"bash",
				"-nt",
				"-nbt",
				"--no-mcp",
				"-t",
				"grep",
				"--exclude-tools",
				"edit",
				"--no-tools",
			],
		);
	});

	it("a list flag with no list after it is left out, as pi leaves it", () => {
		expect(toolFlags(["node", "pi", "--tools"])).toEqual([]);
		expect(toolFlags(["node", "pi"])).toEqual([]);
	});
});

describe("a worker's pi gets the person's logins without their refresh tokens", () => {
	it("an OAuth login keeps its access token and expiry, its refresh token emptied; a key is kept as it is", () => {
		const auth = JSON.stringify({
			anthropic: { type: "oauth", refresh: "r-1", access: "a-1", expires: 42 },
			openai: { type: "api_key", key: "sk-1" },
		});
		expect(JSON.parse(workerCredentials(auth) ?? "")).toEqual({
			anthropic: { type: "oauth", refresh: "", access: "a-1", expires: 42 },
			openai: { type: "api_key", key: "sk-1" },
		});
	});

	it.each(["", "not json", "[]", "null", "3"])("%j, no JSON object: undefined (no credentials copied)", (auth) => {
		expect(workerCredentials(auth)).toBeUndefined();
	});
});

describe("what a worker may write besides its tree", () => {
	const real = (path: string) => (path.startsWith("/gone") ? undefined : path.replace("/link", "/repo"));

	it("the absolute paths of TIL_DONE_WORKER_WRITABLE, `:` between them, real; a relative or missing one left out, and why", () => {
		expect(writableEntries("/a/log:relative::/b/cache:/gone/x", "/repo", real)).toEqual([
			{ entry: "/a/log", path: "/a/log" },
			{ entry: "relative", refusal: "relative" },
			{ entry: "/b/cache", path: "/b/cache" },
			{ entry: "/gone/x", refusal: "missing" },
		]);
		expect(writableEntries(undefined, "/repo", real)).toEqual([]);
	});

	it("never the person's repository, a folder that holds it, or one in it, however named; a sibling with its prefix is fine", () => {
		const refused = ["/repo", "/", "/home", "/repo/src", "/link/src", "/link"];
		for (const entry of refused)
			expect(writableEntries(entry, "/repo", (path) => (path === "/home" ? "/" : real(path)))).toEqual([
				{ entry, refusal: "repository" },
			]);
		expect(writableEntries("/repository-logs", "/repo", real)).toEqual([
			{ entry: "/repository-logs", path: "/repository-logs" },
		]);
	});

	it("each is bound writable after the tree and the TMPDIR, and the variables set, before the command", () => {
		const args = confinedArgs({ tree: "/t", tmp: "/t-tmp", writable: ["/a/log"] }, { X: "1" });
		expect(args.slice(-16)).toEqual([
			...["--bind", "/t", "/t", "--bind", "/t-tmp", "/t-tmp", "--bind", "/a/log", "/a/log"],
			...["--setenv", "TMPDIR", "/t-tmp", "--setenv", "X", "1", "--"],
		]);
	});
});
