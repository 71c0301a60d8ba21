/**
 * The checks of items the model asks to complete: each runs before its item may be completed, one after another,
 * shown on the status bar and as the tool's partial result while it runs. Also who may run the model's checks at all.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { CheckRun, TodoItem } from "../../core/model/types.ts";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { CHECKS_BLOCKED } from "../../core/texts/model.ts";
import { TOOL_DISPLAY } from "../../core/texts/user.ts";
import { setChecking } from "../../state.ts";
import { isToolActive } from "../host/active-tools.ts";
import { type Exec, runCheck } from "./run-check.ts";

/** What running the model's checks needs from pi and the session. */
export interface CheckEnv {
	exec: Exec;
	getConfig: () => TilDoneConfig;
	/** The names of pi's active tools. */
	activeTools: () => string[];
}

/** What running checks needs from pi. */
export function checkEnv(pi: ExtensionAPI, getConfig: () => TilDoneConfig): CheckEnv {
	return {
		exec: (command, args, options) => pi.exec(command, args, options),
		getConfig,
		activeTools: () => pi.getActiveTools(),
	};
}

/**
 * Why checks the model wrote cannot run here, or undefined when they can. A check is a command the model chose: it
 * runs only where the model could run the same command itself, with pi's bash tool.
 */
export function modelChecksBlocked(env: CheckEnv): string | undefined {
	if (!env.getConfig().modelChecks) return CHECKS_BLOCKED.off;
	return isToolActive(env.activeTools, "bash") ? undefined : CHECKS_BLOCKED.noBash;
}

/** The items among `indices` whose check must pass before they are completed (not yet completed, with a check). */
export function itemsToCheck(todos: readonly TodoItem[], indices: readonly number[]): number[] {
	return [...new Set(indices)]
		.sort((a, b) => a - b)
		.filter((index) => todos[index]?.check !== undefined && todos[index]?.status !== "completed");
}

export interface ItemCheckRun {
	cwd: string;
	signal?: AbortSignal;
	/** Told before each check starts, for the tool's partial result. */
	progress: (text: string) => void;
}

/** Runs the check of each item at `indices`, in order; stops early only when the run is aborted. */
export async function runItemChecks(
	todos: readonly TodoItem[],
	indices: readonly number[],
	env: CheckEnv,
	run: ItemCheckRun,
): Promise<[number, CheckRun][]> {
	const timeoutSeconds = env.getConfig().checkTimeoutSeconds;
	const runs: [number, CheckRun][] = [];
	for (const index of indices) {
		const command = todos[index]?.check;
		if (command === undefined) continue;
		setChecking({ what: `[${index}]`, command });
		run.progress(TOOL_DISPLAY.runningCheck(index, command));
		try {
			runs.push([index, await runCheck(env.exec, command, { cwd: run.cwd, timeoutSeconds, signal: run.signal })]);
		} finally {
			setChecking(undefined);
		}
		if (run.signal?.aborted) break;
	}
	return runs;
}
