/**
 * What runs of workers leave behind, found and removed. A pi that is killed mid-work leaves its workers' trees (each
 * with its TMPDIR and our git folder beside it, named from it) and its private git folder in TMPDIR, objects written
 * aside in the repository's store, and the refs of the snapshots its workers started from. Each carries its owner
 * (edges/host/owner.ts: a folder in its name, a snapshot in its commit's message), so the next run in the repository
 * removes what a gone pi left and nothing a live one uses. Its claims are no leftovers: a lease runs out by itself
 * (edges/git/claims.ts), and `/todos remote release` frees one by hand. What a worker's run kept on purpose (the work of an item it gave
 * back, under a `worker-result` ref) stays until the user cleans it. A landing cut short is undone from its journal
 * (edges/git/landing-journal.ts); its stage, which holds the backups of the user's files, is removed only once each
 * is put back, and kept (named by `/todos workers`) where one cannot be.
 */

import { readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownerOfWorkerBase, readWorkerRef } from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_REF_ROOT } from "../../core/rules/keys.ts";
import { WORKER_TEXTS } from "../../core/texts/user/workers.ts";
import { type Repo, runGit } from "../git/git.ts";
import { STAGE_KIND } from "../git/land.ts";
import { hasJournal, undoCutLanding } from "../git/landing-journal.ts";
import { QUARANTINE_KIND } from "../git/quarantine.ts";
import { ownerIsLive, ownerOf, removeWhole } from "../host/owner.ts";
import { COMPILED_COPY_KIND } from "./compiled-extensions.ts";

/** The kinds of folder and file a run of ours leaves in TMPDIR. */
export const TEMPORARY_KINDS = ["worker", "git", "merge", "index", COMPILED_COPY_KIND] as const;

/** What earlier runs left in a repository and in this machine's TMPDIR. */
export interface Leftovers {
	/** Trees, their TMPDIRs, private git folders and other temporary files of pi processes that are gone. */
	folders: string[];
	/** Folders of objects written aside, in the repository's store, and of files staged to land, of pi processes gone. */
	aside: string[];
	/**
	 * Landings cut short (their pi killed while it wrote): their stages, holding the backups of the user's files and the
	 * journal that puts them back. Removed only once every file is put back.
	 */
	landings: string[];
	/** Refs of the snapshots workers started from, whose worker is gone. */
	bases: string[];
	/** The work of items workers gave back, kept on purpose under `worker-result` refs. */
	kept: string[];
}

/** Entries of a folder whose names carry the owner tag of a gone process, for one of `kinds`. */
function goneOwners(folder: string, kinds: readonly string[]): string[] {
	let names: string[];
	try {
		names = readdirSync(folder);
	} catch {
		return [];
	}
	return names.flatMap((name) => {
		const owner = kinds.map((kind) => ownerOf(name, kind)).find((tag) => tag !== undefined);
		return owner !== undefined && !ownerIsLive(owner) ? [join(folder, name)] : [];
	});
}

/** Every ref under a root, by name, with its commit's subject. */
async function refsUnder(repo: Repo, root: string): Promise<{ ref: string; subject: string }[]> {
	const listed = await runGit(repo.top, ["for-each-ref", "--format=%(refname)%00%(contents:subject)", root]);
	if (listed.code !== 0) return [];
	return listed.stdout.split("\n").flatMap((line) => {
		const [ref = "", subject = ""] = line.split("\0");
		return ref === "" ? [] : [{ ref, subject }];
	});
}

/** The folder of a worker's refs (`refs/til-done/<session>/<item-key>/`): its base and result live there together. */
const workerFolder = (ref: string) => ref.slice(0, ref.lastIndexOf("/") + 1);

/** What earlier runs left: found, nothing changed. */
export async function findLeftovers(repo: Repo): Promise<Leftovers> {
	const workerRefs = (await refsUnder(repo, CHECKPOINT_REF_ROOT)).flatMap(({ ref, subject }) => {
		const read = readWorkerRef(ref);
		return read ? [{ ref, subject, ...read }] : [];
	});
	// A worker is live while the pi its base names is (a base that names none is an older pi's: gone by now).
	const liveWorkers = new Set(
		workerRefs
			.filter(({ kind, subject }) => kind === "worker-base" && isLiveOwner(ownerOfWorkerBase(subject)))
			.map(({ ref }) => workerFolder(ref)),
	);
	const live = (ref: string) => liveWorkers.has(workerFolder(ref));
	const stages = goneOwners(repo.commonDir, [STAGE_KIND]);
	return {
		folders: goneOwners(tmpdir(), TEMPORARY_KINDS),
		aside: [...goneOwners(join(repo.commonDir, "objects"), [QUARANTINE_KIND]), ...stages.filter((s) => !hasJournal(s))],
		landings: stages.filter(hasJournal),
		bases: workerRefs.filter(({ ref, kind }) => kind === "worker-base" && !live(ref)).map(({ ref }) => ref),
		// A worker at work keeps its result there too while its check runs and it lands: that one is not left.
		kept: workerRefs
			.filter(({ ref, kind }) => kind === "worker-kept" || (kind === "worker-result" && !live(ref)))
			.map(({ ref }) => ref),
	};
}

const isLiveOwner = (owner: string | undefined): boolean => owner !== undefined && ownerIsLive(owner);

/** Deletes refs, all or none; whether git did. */
async function deleteRefs(repo: Repo, refs: readonly string[]): Promise<boolean> {
	if (refs.length === 0) return true;
	const input = refs.map((ref) => `delete ${ref}\n`).join("");
	return (await runGit(repo.top, ["update-ref", "--stdin"], { input })).code === 0;
}

/** What undoing the landings cut short did: the user's files put back, and the stages kept for a backup not put back. */
export interface PutBack {
	restored: string[];
	held: string[];
}

/** Each landing cut short undone from its journal; its stage removed once nothing of the user's is left only in it. */
function undoLandings(landings: readonly string[]): PutBack {
	const restored: string[] = [];
	const held: string[] = [];
	for (const stage of landings) {
		const undone = undoCutLanding(stage);
		restored.push(...undone.restored);
		if (undone.kept) held.push(stage);
		else rmSync(stage, { recursive: true, force: true });
	}
	return { restored, held };
}

/**
 * Removes what gone runs left (`kept` too: the work of items given back, which only the user's clean removes), and puts
 * back the user's files a landing cut short left half written; what it removed and put back.
 */
export async function removeLeftovers(repo: Repo, { kept = false } = {}): Promise<Leftovers & PutBack> {
	const found = await findLeftovers(repo);
	const putBack = undoLandings(found.landings);
	for (const folder of [...found.folders, ...found.aside]) removeWhole(folder);
	const bases = (await deleteRefs(repo, found.bases)) ? found.bases : [];
	const results = kept && (await deleteRefs(repo, found.kept)) ? found.kept : [];
	const landings = found.landings.filter((stage) => !putBack.held.includes(stage));
	return { folders: found.folders, aside: found.aside, landings, bases, kept: results, ...putBack };
}

/** What undoing the landings cut short did, in the user's words (nothing when there were none). */
export function putBackLines({ restored, held }: PutBack): string[] {
	return [
		...(restored.length > 0 ? [WORKER_TEXTS.putBack(restored)] : []),
		...(held.length > 0 ? [WORKER_TEXTS.backupsKept(held)] : []),
	];
}

/** The repositories whose leftovers this process removed already: once, at its first workers there. */
const swept = new Set<string>();

/**
 * At the first workers in a repository, what gone runs left there is removed (the work kept on purpose stays), and the
 * files a landing cut short left are put back; what was put back and kept, once (later calls: nothing).
 */
export async function sweepOnce(repo: Repo): Promise<PutBack> {
	if (swept.has(repo.commonDir)) return { restored: [], held: [] };
	swept.add(repo.commonDir);
	const { restored, held } = await removeLeftovers(repo);
	return { restored, held };
}
