/**
 * What runs of workers leave behind, found and removed. A pi that is killed mid-work leaves its workers' trees (each
 * with its TMPDIR and our git folder beside it, named from it) and its private git folder in TMPDIR, objects written
 * aside in the repository's store, the refs of the snapshots its workers started from, and its claims. Each carries its owner (edges/host/owner.ts), so the next run in the repository removes
 * what a gone pi left and nothing a live one uses. What a worker's run kept on purpose (the work of an item it gave
 * back, under a `worker-result` ref) stays until the user cleans it. A landing cut short is undone from its journal
 * (edges/git/landing-journal.ts); its stage, which holds the backups of the user's files, is removed only once each
 * is put back, and kept (named by `/todos workers`) where one cannot be.
 */

import { readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { readWorkerRef } from "../../core/rules/checkpoint-rules.ts";
import { CHECKPOINT_REF_ROOT } from "../../core/rules/keys.ts";
import { WORKER_TEXTS } from "../../core/texts/user.ts";
import { type Claim, claimsOn, holderIsLive, releaseIfHeld } from "../git/claims.ts";
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
	/** Claims held by pi processes of this machine that are gone, by item key. */
	claims: Claim[];
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

/** Every ref under a root, by name. */
async function refsUnder(repo: Repo, root: string): Promise<string[]> {
	const listed = await runGit(repo.top, ["for-each-ref", "--format=%(refname)", root]);
	return listed.code === 0 ? listed.stdout.split("\n").filter((line) => line !== "") : [];
}

/** What earlier runs left: found, nothing changed. */
export async function findLeftovers(repo: Repo): Promise<Leftovers> {
	const claims = await claimsOn(repo);
	const here = hostname();
	const liveKeys = new Set(claims.filter((claim) => claim.host !== here || holderIsLive(claim)).map((c) => c.key));
	const workerRefs = (await refsUnder(repo, CHECKPOINT_REF_ROOT)).flatMap((ref) => {
		const read = readWorkerRef(ref);
		return read ? [{ ref, ...read }] : [];
	});
	const stages = goneOwners(repo.commonDir, [STAGE_KIND]);
	return {
		folders: goneOwners(tmpdir(), TEMPORARY_KINDS),
		aside: [...goneOwners(join(repo.commonDir, "objects"), [QUARANTINE_KIND]), ...stages.filter((s) => !hasJournal(s))],
		landings: stages.filter(hasJournal),
		bases: workerRefs.filter((ref) => ref.kind === "worker-base" && !liveKeys.has(ref.key)).map((ref) => ref.ref),
		claims: claims.filter((claim) => claim.host === here && !holderIsLive(claim)),
		// A worker at work keeps its result there too while its check runs and it lands: that one is not left.
		kept: workerRefs
			.filter((ref) => ref.kind === "worker-kept" || (ref.kind === "worker-result" && !liveKeys.has(ref.key)))
			.map((ref) => ref.ref),
	};
}

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
 * back the user's files a landing cut short left half written; what it removed and put back. A claim is deleted only
 * if it is still the one found (another pi may have taken it over meanwhile).
 */
export async function removeLeftovers(repo: Repo, { kept = false } = {}): Promise<Leftovers & PutBack> {
	const found = await findLeftovers(repo);
	const putBack = undoLandings(found.landings);
	for (const folder of [...found.folders, ...found.aside]) removeWhole(folder);
	const claims: Claim[] = [];
	for (const claim of found.claims) if (await releaseIfHeld(repo, claim.key, claim)) claims.push(claim);
	const bases = (await deleteRefs(repo, found.bases)) ? found.bases : [];
	const results = kept && (await deleteRefs(repo, found.kept)) ? found.kept : [];
	const landings = found.landings.filter((stage) => !putBack.held.includes(stage));
	return { folders: found.folders, aside: found.aside, landings, bases, claims, kept: results, ...putBack };
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
