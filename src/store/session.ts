/**
 * The store's session: whose it is, its settings, the warnings it said, the panel switch, the plan files it read or
 * wrote, the remote it chose, and whether its `pi -p` runs at all.
 */

import type { SessionRole } from "../core/model/types.ts";
import type { TilDoneConfig } from "../core/rules/settings.ts";
import { getState, setState } from "./scope.ts";

/** The warnings among `warnings` not shown yet, now counted as shown. */
export function takeUnreported(warnings: readonly string[]): string[] {
	const fresh = warnings.filter((warning) => !getState().reportedWarnings.has(warning));
	if (fresh.length > 0) setState({ reportedWarnings: new Set([...getState().reportedWarnings, ...fresh]) });
	return fresh;
}

export function setPanelEnabled(panelEnabled: boolean): void {
	setState({ panelEnabled });
}

export function isPanelEnabled(): boolean {
	return getState().panelEnabled;
}

/** Whose session this is. */
export function getRole(): SessionRole {
	return getState().role;
}

/** A session started: whose it is, as the process decided (edges/host/role.ts), and its settings. */
export function beginSession(role: SessionRole, config: Readonly<TilDoneConfig>): void {
	setState({ role, config, endedRun: undefined, chainStart: undefined });
}

/** The settings of this session (the defaults before it starts). */
export function getConfig(): Readonly<TilDoneConfig> {
	return getState().config;
}

/** Counts `text` (hash `hash`) as the plan file at `path` as far as this session knows (it read or wrote it). */
export function rememberPlanFile(path: string, hash: string, text: string): void {
	if (getState().planFiles.get(path)?.hash !== hash)
		setState({ planFiles: new Map([...getState().planFiles, [path, { hash, text }]]) });
}

/** The hash of what this session last wrote to or read from the plan file at `path`; undefined when it never did. */
export function planFileHash(path: string): string | undefined {
	return getState().planFiles.get(path)?.hash;
}

/** What this session last wrote to or read from the plan file at `path`; undefined when it never did. */
export function planFileText(path: string): string | undefined {
	return getState().planFiles.get(path)?.text;
}

/** This `pi -p` runs nothing: its settings were not understood. */
export function markRunRefused(): void {
	setState({ runRefused: true });
}

export function isRunRefused(): boolean {
	return getState().runRefused;
}

/** The remote the session's plan is shared through: what `/todos remote` chose, else the setting; undefined: none. */
export function sharedRemote(configured: string | undefined): string | undefined {
	const chosen = getState().remoteChosen;
	return chosen === undefined ? configured : (chosen ?? undefined);
}

/** `/todos remote <name>|off`: the remote of this session (null: none). */
export function chooseRemote(remote: string | null): void {
	// What was seen of the claims was seen where the plan was shared until now: the new place is read anew.
	setState({
		remoteChosen: remote,
		claimedElsewhere: [],
		claimsMalformed: [],
		lookAgainMs: undefined,
		remoteSilentSince: undefined,
	});
}
