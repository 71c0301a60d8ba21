/** A check environment for the tool tests: pi's bash tool active, each command exiting with the code the test gives. */

import { DEFAULT_CONFIG, type TilDoneConfig } from "../../src/core/rules/settings.ts";
import type { CheckEnv } from "../../src/edges/checks/item-checks.ts";
import { runnerEnded } from "./fake-runner.ts";

/** Commands exit with `codes[command]` (0 by default), printing `output of <command>`; `ran` lists them in order. */
export function scriptedChecks(codes: Record<string, number> = {}, config: Partial<TilDoneConfig> = {}) {
	const ran: string[] = [];
	const env: CheckEnv & { tools: string[] } = {
		tools: ["read", "bash"],
		exec: async (_command, args) => {
			const command = args[3] ?? "";
			ran.push(command);
			return runnerEnded(args, codes[command] ?? 0, `output of ${command}\n`);
		},
		getConfig: () => ({ ...DEFAULT_CONFIG, ...config }),
		activeTools: () => env.tools,
	};
	return { env, ran };
}
