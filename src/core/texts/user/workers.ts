/**
 * What the user reads of the workers: notices, a worker's end and why, the leftovers of earlier runs, the status bar's
 * workers entry, `/todos workers`. Loaded with the workers (most sessions start none).
 */

import type {
	BranchMiss,
	CheckEnd,
	FinishedWorker,
	StopTally,
	WorkerOutcome,
	WritableRefusal,
} from "../../model/types.ts";
import { oneLine, prefix } from "../sanitize.ts";
import { formatTokens, remoteShown } from "../user.ts";

/** What the user reads of the workers. */
export const WORKER_TEXTS = {
	noRepo: "pi-til-done: workers need a git work tree: the session's model works the list alone.",
	givenBack: (index: number, why: string) => `Worker on [${index}]: ${why}; the item is ready again.`,
	/** A worker stopped with work of its own: the item is ready again, and its work stays under its ref. */
	stoppedWithWork: (index: number) =>
		`Worker on [${index}]: stopped; the item is ready again, and its work is kept under its ref (/todos workers names it).`,
	/** A worker whose item the list no longer holds: nothing of it landed, and its work stays under its ref. */
	workKept: (index: number, why: string) =>
		`Worker on [${index}]: ${why}; nothing of it landed, and its work is kept under its ref.`,
	/** The commit a worker's item lands as on a shared plan's branch: the item's text, and where it comes from. */
	landingCommit: (index: number, text: string, key: string) =>
		`${prefix(oneLine(text), 72)}\n\nLanded by pi-til-done: item [${index}] of the plan, worked by a worker.\n\n${LANDED_ITEM_TRAILER}: ${key}\n`,
	/** A worker's item landed on a shared plan's branch, as `commit`. */
	onBranch: (index: number, branch: string, remote: string, commit: string) =>
		`Worker on [${index}]: landed on ${oneLine(branch)} of ${remoteShown(remote)} as ${commit.slice(0, 12)}.`,
	/** The work a try kept when the remote was not reached, landed on the shared plan's branch as `commit`, no worker. */
	keptLanded: (index: number, branch: string, remote: string, commit: string) =>
		`Worker on [${index}]: its work kept when ${remoteShown(remote)} was not reached landed on ${oneLine(branch)} of ${remoteShown(remote)} as ${commit.slice(0, 12)}.`,
	/** That kept work found the item landed by another session: it stays kept. */
	keptLandedElsewhere: (index: number) =>
		`Worker on [${index}]: another session landed it first; the work kept when the remote was not reached stays under its ref (/todos workers names it).`,
	/** That kept work could not land as is (`why`): the item is worked again. */
	keptNotLanded: (index: number, why: string) =>
		`Worker on [${index}]: the work kept when the remote was not reached did not land (${why}); the item is worked again, that work kept under its ref.`,
	/** Landed on the branch, but the person's work tree did not take it (`why`): it is theirs to pull. */
	notInWorkTree: (index: number, branch: string, why: string) =>
		`Worker on [${index}]: your work tree did not take it (${why}): it is on ${oneLine(branch)} for you to pull.`,
	/** A stop that came once the landing had begun writing: a landing is all or nothing, so it landed whole. */
	landedOnStop: (index: number) =>
		`Worker on [${index}]: its landing had begun writing when you stopped it: it landed whole, and the item is completed.`,
	/** A worker started on its item. */
	started: (index: number, text: string) => `Worker on [${index}] started: ${itemWords(text)}`,
	/** A worker's work landed: its time and tokens, the files it changed, and its last answer cut. */
	landed: (worker: FinishedWorker) =>
		`Worker on [${worker.index}] landed in ${spentWords(worker)}: ${changedWords(worker.files)}${answerWords(worker)}`,
	/**
	 * `/todos workers` alone: the setting, one line per worker at work, then those that ended in this chain (`ended`,
	 * each as {@link WORKER_TEXTS.ended} words it) and how to read one's answer.
	 */
	list: (max: number, lines: readonly string[], ended: readonly string[] = []) =>
		[
			max === 0 ? "Workers: off" : `Workers: up to ${max} at once; ${lines.length} at work`,
			...lines,
			...(lines.length === 0 ? [] : ["Esc (in the TUI) or /todos pause stops them all."]),
			...(ended.length === 0
				? []
				: ["Ended in this chain:", ...ended, "/todos workers [<i>] shows what the last worker of item i answered."]),
		].join("\n"),
	/** A worker that ended, as `/todos workers` lists it: its item, its end, time and tokens, its files or why. */
	ended: (worker: FinishedWorker) => `  [${worker.index}] ${itemWords(worker.text)}: ${endedWords(worker)}`,
	/** `/todos workers [<i>]` for a worker that ended: what it did, then its last answer whole. */
	answerOfEnded: (worker: FinishedWorker) =>
		`Worker on [${worker.index}] (${itemWords(worker.text)}) ${endedWords(worker)}. ${answerBlock(worker.answer, false)}`,
	/** `/todos workers [<i>]` for a worker at work: its time and tokens so far, then its last answer so far. */
	answerOfLive: (worker: { index: number; text: string; seconds: number; tokens: number; answer?: string }) =>
		`Worker on [${worker.index}] (${itemWords(worker.text)}) at work for ${worker.seconds} s, ${formatTokens(worker.tokens)} tokens so far. ${answerBlock(worker.answer, true)}`,
	line: (index: number, text: string, seconds: number, tokens: number, dir: string) =>
		`  [${index}] ${itemWords(text)}: ${seconds} s, ${tokens.toLocaleString("en-US")} tokens, in ${dir || "(its tree is being made)"}`,
	set: (max: number) =>
		max === 0 ? "Workers: off for this session." : `Workers: up to ${max} at once in this session.`,
	noRepoRefused: "workers need a git work tree, and this session's folder is not in one",
	/** `/todos workers 0` while the plan is shared through a remote, whose items only workers land. */
	sharedNeedsOne: (remote: string) =>
		`a plan shared through ${remote} is worked by workers alone: at least 1 (after /todos remote off, 0 lets this session's model work it)`,
	/** Where an item's claim should be, a ref holds no claim: the item is left alone until it is freed by hand. */
	malformedClaim: (index: number) =>
		`pi-til-done: the claim ref of [${index}] holds no claim of ours: no worker takes the item until /todos remote release ${index} frees it.`,
	/** The claims could not be read (the remote did not answer): nothing started, tried again shortly. */
	claimsUnreachable: (remote: string | undefined) =>
		`pi-til-done: the claims ${remote === undefined ? "of this repository" : `on the remote ${remoteShown(remote)}`} cannot be read now: no worker started; the claims are tried again shortly.`,
	/** A worker's pi could not start: workers are off for the session, said once. */
	cannotStart: (code: number, stderr: string) =>
		`pi-til-done: a worker could not start (${startFailure(code, stderr)}): workers are off for this session, and the session's model works the list.`,
	/** `/todos workers` alone, after the workers at work: what earlier runs left, when they left anything. */
	leftovers: (left: LeftoverCounts, keptRefs: readonly string[]) => {
		const parts = leftoverParts(left, keptRefs);
		if (parts.length === 0) return undefined;
		return `Left by earlier runs: ${parts.join(", ")}. /todos workers clean removes them.`;
	},
	/** `/todos workers clean`: what it removed. */
	cleaned: (left: LeftoverCounts) => {
		const parts = leftoverParts(left);
		return parts.length === 0
			? "Nothing was left by earlier runs."
			: `Removed what earlier runs left: ${parts.join(", ")}.`;
	},
	/** `/todos workers`: the stages of landings cut short, which hold backups of the user's files until put back. */
	cutLandings: (stages: readonly string[]) =>
		`A landing cut short (its pi was killed while it wrote) left backups of your files in ${stages.join(", ")}: the next workers or /todos workers clean put back each file that is as the landing left it, and never remove a backup they cannot put back.`,
	/** The files of the user's a landing cut short left half written, put back from their backups. */
	putBack: (files: readonly string[]) =>
		`Put back as they were before a landing cut short (its pi was killed while it wrote): ${files.map((file) => `"${file}"`).join(", ")}.`,
	/** Backups kept: a file changed since the landing was cut short, so it was not put back. */
	backupsKept: (stages: readonly string[]) =>
		`Backups of your files from a landing cut short are kept in ${stages.join(", ")}: a file changed since, so it was not put back; nothing of pi-til-done removes them.`,
	/** Said once per session that starts workers where bubblewrap is not installed: their bash is not confined. */
	bwrapMissing:
		"pi-til-done: workers are not confined to their trees: bubblewrap (bwrap) is not installed, so a worker (its tools, the extensions it loads) can write outside its tree.",
	/** Said once per session: an entry of `TIL_DONE_WORKER_WRITABLE` workers are not let write, and why. */
	writableLeftOut: (entry: string, why: WritableRefusal) =>
		`pi-til-done: workers may not write ${JSON.stringify(oneLine(entry))} (TIL_DONE_WORKER_WRITABLE): ${WRITABLE_WHY[why]}.`,
	/** How bubblewrap's trial run failed when it said nothing: it ran past `timeoutMs`, a signal ended it, or its code. */
	bwrapSilent: (end: { timeoutMs?: number; signal?: string; code?: number | string }) =>
		end.timeoutMs !== undefined
			? `it did not end within ${end.timeoutMs / 1000} s`
			: end.signal
				? `it was ended by ${end.signal}`
				: `exit code ${end.code}`,
	/** The same where bubblewrap cannot make its namespaces here: `detail` is its first line, or how it failed. */
	bwrapFailed: (detail: string) =>
		`pi-til-done: workers are not confined to their trees: bubblewrap (bwrap) cannot run here (${prefix(oneLine(detail), 120)}), so a worker (its tools, the extensions it loads) can write outside its tree.`,
	/**
	 * Esc while workers are at work: the items given back, what became of their workers' work, and those whose landing
	 * had begun writing and landed.
	 */
	stoppedByKey: (tally: StopTally) =>
		[
			"Workers stopped by you:",
			...(tally.givenBack > 0 || tally.landed === 0
				? [`${tally.givenBack} item(s) are ready again${workOf(tally)}.`]
				: []),
			...(tally.landed > 0
				? [`${tally.landed} item(s) had begun landing when you stopped them, and landed whole.`]
				: []),
		].join(" "),
} as const;

/** What became of the work of the workers of the items a stop gave back, as the end of the sentence that counts them. */
function workOf({ givenBack, kept, notKept }: StopTally): string {
	const unchanged = givenBack - kept - notKept;
	if (givenBack === 0) return "";
	if (kept === givenBack) return ", each worker's work kept under a ref of pi-til-done";
	if (unchanged === givenBack) return "; no worker of theirs had changed anything, so nothing is kept";
	const parts = [
		...(kept > 0 ? [`the work of ${kept} kept under a ref of pi-til-done`] : []),
		...(unchanged > 0 ? [`${unchanged} had changed nothing`] : []),
		...(notKept > 0 ? [`the work of ${notKept} could not be kept`] : []),
	];
	return `; of their workers, ${parts.join(", ")}`;
}

/** An item's text in a worker's line: on one line, cut to 60 characters. */
const itemWords = (text: string): string => prefix(oneLine(text), 60);

/** The most files a worker's line names (the rest are counted), and the characters of its answer a landing line shows. */
export const WORKER_LINE_LIMITS = { files: 5, answer: 100 } as const;

const spentWords = ({ seconds, tokens }: FinishedWorker): string => `${seconds} s, ${formatTokens(tokens)} tokens`;

/** The files a worker's landing changed, as data: some named, the rest counted. */
function changedWords(files: readonly string[]): string {
	if (files.length === 0) return "changed no file";
	const named = files.slice(0, WORKER_LINE_LIMITS.files).map((file) => JSON.stringify(oneLine(file)));
	const more = files.length - named.length;
	return `changed ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** How a worker ended, as `/todos workers` says it. */
const END_WORDS: Record<FinishedWorker["end"], string> = {
	landed: "landed",
	"given-back": "given back",
	kept: "kept aside",
	"cannot-start": "ended",
};

/** What a worker that ended did: `landed after 2 s, 4,445 tokens; changed "b.txt"`, or its end, figures and why. */
function endedWords(worker: FinishedWorker): string {
	const spent = `${END_WORDS[worker.end]} after ${worker.seconds} s, ${formatTokens(worker.tokens)} tokens`;
	return worker.end === "landed" ? `${spent}; ${changedWords(worker.files)}` : `${spent}: ${worker.why}`;
}

/** A worker's last answer whole, each of its lines indented and freed of control characters (so far, when `live`). */
function answerBlock(answer: string | undefined, live: boolean): string {
	if (answer === undefined || answer.trim() === "")
		return live ? "It has written no answer yet." : "It wrote no answer.";
	const lines = answer.replace(/\r\n?/g, "\n").split("\n");
	return [`Its last answer${live ? " so far" : ""}:`, ...lines.map((line) => `  ${oneLine(line)}`)].join("\n");
}

/** A worker's last answer on one line, cut. */
function answerWords({ answer }: FinishedWorker): string {
	const flat = oneLine(answer).trim();
	return flat === "" ? "" : `; it answered «${prefix(flat, WORKER_LINE_LIMITS.answer)}»`;
}

/** How many of each thing earlier runs of workers left. */
export interface LeftoverCounts {
	folders: number;
	bases: number;
	kept: number;
}

/**
 * The counts of what earlier runs left, as parts of a sentence (none for what they left none of); the work kept named
 * by its refs when they are given (a stopped worker's line sends the user to them).
 */
function leftoverParts({ folders, bases, kept }: LeftoverCounts, keptRefs: readonly string[] = []): string[] {
	return [
		...(folders > 0
			? [
					`${folders} folder(s) of gone pi processes (workers' trees and their TMPDIRs, private git folders, copies of compiled extensions)`,
				]
			: []),
		...(bases > 0 ? [`${bases} snapshot ref(s) of gone workers`] : []),
		...(kept > 0
			? [
					`${kept} item(s)' work not landed, kept under ${keptRefs.length > 0 ? keptRefs.join(", ") : "refs/til-done/…"}`,
				]
			: []),
	];
}

/** How a worker's pi ended before any model call: its exit code, and the end of what it wrote to stderr. */
function startFailure(code: number, stderr: string): string {
	const said = stderr.trim() ? `: ${prefix(oneLine(stderr.trim()), 120)}` : "";
	return `exit code ${code} before any model call${said}`;
}

/** How a check that did not pass ended, as the user reads it. */
function checkEndText(end: CheckEnd): string {
	if (end.kind === "exit") return `exit code ${end.code}`;
	if (end.kind === "signal") return `killed by signal ${end.signal}`;
	return `timed out after ${end.seconds} s`;
}

/** Why a worker's item went back to ready (or, landed, that it landed), in the words the user and its next try read. */
/** ` in "a", "b"`: the files named, or nothing when none is. */
const inFiles = (files: readonly string[]): string =>
	files.length === 0 ? "" : ` in ${files.map((file) => JSON.stringify(oneLine(file))).join(", ")}`;

export function workerWhy(outcome: WorkerOutcome): string {
	switch (outcome.kind) {
		case "landed":
			return "it landed";
		case "stopped":
			return "stopped";
		case "overspent":
			return `it spent ${formatTokens(outcome.tokens)} tokens on its item, more than ${outcome.factor} × the median of ${formatTokens(outcome.median)} tokens per todo a worker landed`;
		case "timed-out":
			return `it ran past its ${outcome.minutes}-minute limit`;
		case "failed": {
			const { code, stderr, error } = outcome;
			if (error !== undefined)
				return `its model call failed${error.trim() ? `: «${prefix(oneLine(error.trim()), 120)}»` : ""}`;
			const said = stderr.trim() ? `: ${prefix(oneLine(stderr.trim()), 120)}` : "";
			return `it ended with ${code === null ? "a signal" : `exit code ${code}`}${said}`;
		}
		case "unfinished":
			if (outcome.said === undefined) return "its answer was cut at the model's output limit before it ended its item";
			return outcome.said === ""
				? "it said it could not do its item"
				: `it said it could not do its item: «${outcome.said}»`;
		case "check-failed":
			return `its check failed in its tree (${checkEndText(outcome.end)})`;
		case "no-tree":
			return "its tree could not be made from a snapshot of the work tree";
		case "no-result":
			return "its work could not be kept";
		case "list-changed":
			return "the list changed while it worked: its item is no longer where it was";
		case "conflict":
			return `its work conflicts with ${outcome.on === undefined ? "the work tree" : `${oneLine(outcome.on.branch)} of ${remoteShown(outcome.on.remote)}`}${inFiles(outcome.files)}`;
		case "unwritable":
			return `its work cannot be written${inFiles(outcome.files)} (the work tree does not let this pi write there): nothing of it landed`;
		case "git-busy":
			return `git is busy in the work tree (${outcome.why}): nothing of its work landed`;
		case "not-compared":
			return "git could not compare its work with the work tree (its work is kept under its ref)";
		case "submodules": {
			const { paths } = outcome;
			const named = paths.map((path) => JSON.stringify(oneLine(path))).join(", ");
			const which =
				paths.length === 0 ? "a submodule" : `the ${paths.length === 1 ? "submodule" : "submodules"} ${named}`;
			return `its work changes ${which}, and a worker's change to a submodule never lands (its work is kept under its ref)`;
		}
		case "cannot-start":
			return `it could not start (${startFailure(outcome.code, outcome.stderr)})`;
		case "claim-lost":
			return "its claim is no longer its session's (taken over by another after a lease it did not renew, or freed by hand with /todos remote release): its work is kept under its ref and does not land";
		case "landed-elsewhere":
			return "another session landed its item first (the plan's branch has it checked)";
		case "not-on-branch":
			return `its work could not land on ${oneLine(outcome.branch)} of ${remoteShown(outcome.remote)}: ${BRANCH_MISSES[outcome.why]}`;
	}
}

/** The trailer of a landing commit naming its item's key: how another machine finds the commit that landed an item. */
export const LANDED_ITEM_TRAILER = "Til-done-item";

/** Why a worker's work did not land on the plan's branch, in words. */
const BRANCH_MISSES: Record<BranchMiss, string> = {
	unreachable: "the remote was not reached",
	"tip-kept-moving": "other sessions kept landing on it while it merged",
	"no-branch": "the remote no longer has that branch",
	rewritten:
		"the branch no longer holds what this clone last fetched of it, landings among it (rewritten by someone): fetch and set the branch right first",
	rejected: "the remote refused the push",
	"git-failed": "git could not write its commit in this repository",
};

/** Why an entry of `TIL_DONE_WORKER_WRITABLE` is left out. */
const WRITABLE_WHY: Record<WritableRefusal, string> = {
	relative: "not an absolute path",
	missing: "nothing is there",
	repository: "it holds your repository, or is in it, which workers never write",
};
