/**
 * The plan the claims and shared-plan e2e tests work: items that each add a line to notes.txt, far enough apart that
 * two landings merge, its plan file, and the claim commits another session writes (as any session writes one).
 */
import { execFileSync } from "node:child_process";
import type { FakeStep } from "./cli.ts";
import { sayStep, toolStep } from "./scripts.ts";

export const ITEMS = ["Add line 0 to notes.txt", "Add line 1 to notes.txt"];
/** Where each item adds its line: apart enough that the two landings merge. */
export const NOTES = "start\n1\n2\n3\nend\n";
export const NOTES_DONE = "start\nline 0\n1\n2\n3\nline 1\nend\n";
export const ADD_LINE = [`sed -i 's/^start$/start\\nline 0/' notes.txt`, `sed -i 's/^end$/line 1\\nend/' notes.txt`];
/** Where the claims of the plan of PLAN.md on branch main live. */
export const CLAIMS = "refs/til-done/claims/main--PLAN_md/";

export const bash = (command: string): FakeStep => toolStep("bash", { command });

/** Each item's worker adds its line to notes.txt and says so: the scripts of a worker per item index. */
export const ADD_LINE_WORKERS: Record<string, FakeStep[]> = {
	"0": [bash(ADD_LINE[0] ?? ""), sayStep("Added line 0.")],
	"1": [bash(ADD_LINE[1] ?? ""), sayStep("Added line 1.")],
};

/** The plan file of `texts`, checked or not. */
export const planOf = (texts: readonly string[], done: boolean) =>
	`# Plan\n\n${texts.map((text) => `- [${done ? "x" : " "}] ${text}`).join("\n")}\n`;

/** Who holds a claim another session wrote: its item, session and machine, and (by default 1) its fencing number. */
export interface Holder {
	key: string;
	session: string;
	host: string;
	fence?: number;
}

/** A claim commit of `holder` on the plan of PLAN.md on main, never renewed, written in the repository at `cwd`. */
export function claimBy(cwd: string, { fence = 1, ...holder }: Holder): string {
	const record = { plan: "main--PLAN_md", ...holder, nonce: "another-nonce", fence, renewals: 0, since: 1 };
	const tree = execFileSync("git", ["mktree"], { cwd, input: "", encoding: "utf8" }).trim();
	return execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit-tree", tree], {
		cwd,
		input: `pi-til-done claim v1\n\n${JSON.stringify(record)}\n`,
		encoding: "utf8",
	}).trim();
}
