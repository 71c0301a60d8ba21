/**
 * A landing keeps every byte, mode and permission of the person's, in the real pi on both lines against a real git
 * repository in a temporary folder: a worker's mode change lands, the person's permission bits are never widened, a
 * file is never written through a symbolic link, and a change inside a submodule is refused, not lost. Each test also
 * proves the person's other files (bytes and modes), index, HEAD, branches and stash untouched.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTENSION_ENTRY, type IsolatedEnv, PI_HOSTS, type PiHost, runPrint } from "../helpers/cli.ts";
import { allFinished, stderrLine, WORKERS } from "../helpers/expected.ts";
import { perTest } from "../helpers/per-test.ts";
import { commitAll, gitIn, modeOf, personRepo } from "../helpers/person-repo.ts";
import { sayStep, toolStep, writeFileScript, writeStep } from "../helpers/scripts.ts";

const pi = perTest({ TIL_DONE_COUNTDOWN: "0" });

/** `pi -p` with the workers, started under `umask` (pi and its workers inherit it), run to its end. */
function print(host: PiHost, env: IsolatedEnv, umask = 0o022) {
	const before = process.umask(umask);
	try {
		return runPrint(["-p", "Work the list."], env.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: join(env.root, "sessions") },
		});
	} finally {
		process.umask(before);
	}
}

const bash = (command: string) => toolStep("bash", { command });

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("a worker's mode change lands", () => {
		it("chmod +x and chmod -x with the bytes unchanged land as the worker left them, and the items complete", async () => {
			const env = pi.env([writeStep(["Make build.sh executable", "Make old.sh plain"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "2",
			});
			const files = { "build.sh": "#!/bin/sh\necho build\n", "old.sh": "#!/bin/sh\necho old\n" };
			const state = personRepo(env.cwd, files);
			gitIn(env.cwd, "update-index", "--chmod=+x", "old.sh");
			gitIn(env.cwd, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "old.sh is executable");
			gitIn(env.cwd, "checkout", "--", "old.sh");
			expect([modeOf(join(env.cwd, "build.sh")), modeOf(join(env.cwd, "old.sh"))]).toEqual([0o644, 0o755]);
			env.writeWorkerScripts({
				"0": [bash("chmod +x build.sh"), sayStep("Made it executable.")],
				"1": [bash("chmod -x old.sh"), sayStep("Made it plain.")],
			});
			const before = state(["build.sh", "old.sh"]);
			const result = await print(host, env);
			expect(result.stderr).toBe(stderrLine(allFinished(2)));
			expect(result.code).toBe(0);
			expect(modeOf(join(env.cwd, "build.sh"))).toBe(0o755);
			expect(modeOf(join(env.cwd, "old.sh"))).toBe(0o644);
			expect(readFileSync(join(env.cwd, "build.sh"), "utf8")).toBe(files["build.sh"]);
			expect(readFileSync(join(env.cwd, "old.sh"), "utf8")).toBe(files["old.sh"]);
			expect(state(["build.sh", "old.sh"])).toBe(before);
		});
	});

	describe("the person's permission bits are never widened", () => {
		it("under umask 027: a 600 file appended to stays 600, a 600 file made executable is 700, new files are 640 and 750", async () => {
			const items = ["Append a token to secret.env", "Make tool.sh executable", "Add run.sh", "Add notes.txt"];
			const env = pi.env([writeStep(items), sayStep("Planned.")], { TIL_DONE_WORKERS: "4" });
			const files = { "secret.env": "TOKEN=1\n", "tool.sh": "#!/bin/sh\necho tool\n" };
			const state = personRepo(env.cwd, files);
			chmodSync(join(env.cwd, "secret.env"), 0o600);
			chmodSync(join(env.cwd, "tool.sh"), 0o600);
			env.writeWorkerScripts({
				"0": [bash("echo TOKEN=2 >> secret.env"), sayStep("Appended.")],
				"1": [bash("chmod +x tool.sh"), sayStep("Made it executable.")],
				"2": [
					toolStep("write", { path: "run.sh", content: "#!/bin/sh\necho run\n" }),
					bash("chmod +x run.sh"),
					sayStep("Added run.sh."),
				],
				"3": writeFileScript("notes.txt"),
			});
			const changed = ["secret.env", "tool.sh", "run.sh", "notes.txt"];
			const before = state(changed);
			const result = await print(host, env, 0o027);
			expect(result.stderr).toBe(stderrLine(allFinished(4)));
			expect(result.code).toBe(0);
			expect(readFileSync(join(env.cwd, "secret.env"), "utf8")).toBe("TOKEN=1\nTOKEN=2\n");
			expect(changed.map((name) => modeOf(join(env.cwd, name)).toString(8))).toEqual(["600", "700", "750", "640"]);
			expect(state(changed)).toBe(before);
		});
	});

	describe("a landing never writes through a symbolic link", () => {
		it("a link to a folder outside lands; a later landing of a file under it is a conflict, nothing of it is written, nothing outside", async () => {
			const outside = "shared outside";
			const env = pi.env([writeStep(["Link out to the shared folder", "Write out/x.txt"]), sayStep("Planned.")], {
				TIL_DONE_WORKERS: "2",
			});
			const target = join(env.root, outside);
			mkdirSync(target);
			const state = personRepo(env.cwd);
			// [1] started on a tree without the link: it writes once [0]'s link has landed in the person's tree.
			env.writeWorkerScripts({
				"0": [bash(`ln -s '${target}' out`), sayStep("Linked.")],
				"1": [
					{ ...toolStep("write", { path: "out/x.txt", content: "x\n" }), waitForFile: join(env.cwd, "out") },
					toolStep("write", { path: "y.txt", content: "y\n" }),
					sayStep("Wrote them."),
				],
				"1/again": writeFileScript("z.txt"),
			});
			const before = state(["out", "z.txt"]);
			const result = await print(host, env);
			const conflict = WORKERS.givenBack(1, WORKERS.conflicts("out/x.txt"));
			expect(result.stderr).toBe(stderrLine(conflict) + stderrLine(allFinished(2)));
			expect(result.code).toBe(0);
			expect(readlinkSync(join(env.cwd, "out"))).toBe(target);
			expect(readdirSync(target)).toEqual([]);
			expect(readFileSync(join(env.cwd, "z.txt"), "utf8")).toBe("z.txt\n");
			expect(state(["out", "z.txt"])).toBe(before);
		});
	});

	describe("a change inside a submodule is refused, not lost", () => {
		it("a worker's edit of a submodule's file: the submodule named, nothing lands, the item ready again; its next try lands", async () => {
			const env = pi.env([writeStep(["Fix the library's greeting"]), sayStep("Planned.")], { TIL_DONE_WORKERS: "1" });
			const library = join(env.root, "library");
			mkdirSync(library);
			gitIn(library, "init", "-q", "-b", "main");
			writeFileSync(join(library, "greeting.txt"), "hello\n");
			commitAll(library, "library");
			const state = personRepo(env.cwd);
			gitIn(env.cwd, "submodule", "add", "-q", library, "lib");
			commitAll(env.cwd, "the library as a submodule");
			const submodule = () => gitIn(join(env.cwd, "lib"), "status", "--porcelain") + gitIn(env.cwd, "submodule");
			env.writeWorkerScripts({
				"0": [toolStep("write", { path: "lib/greeting.txt", content: "hello, world\n" }), sayStep("Fixed.")],
				"0/again": writeFileScript("greeting-notes.txt"),
			});
			const before = state(["greeting-notes.txt"]);
			const inside = submodule();
			const result = await print(host, env);
			const refused = WORKERS.givenBack(0, WORKERS.submodules("lib"));
			expect(result.stderr).toBe(stderrLine(refused) + stderrLine(allFinished(1)));
			expect(result.code).toBe(0);
			expect(readFileSync(join(env.cwd, "lib", "greeting.txt"), "utf8")).toBe("hello\n");
			expect(readFileSync(join(env.cwd, "greeting-notes.txt"), "utf8")).toBe("greeting-notes.txt\n");
			expect(submodule()).toBe(inside);
			expect(state(["greeting-notes.txt"])).toBe(before);
		});
	});
});
