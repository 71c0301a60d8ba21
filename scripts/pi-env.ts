/** An environment that runs pi offline and isolated: its own HOME, agent dir and TMPDIR, and no credentials. */

import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** Variables that carry credentials of model providers or code hosts, whatever their prefix. */
const CREDENTIAL = /(_API_KEY|_AUTH_TOKEN|_ACCESS_TOKEN|_OAUTH_TOKEN|_SECRET_ACCESS_KEY|_SESSION_TOKEN)$/;
const STRIPPED = new Set([
	"AWS_PROFILE",
	"AWS_ACCESS_KEY_ID",
	"GOOGLE_APPLICATION_CREDENTIALS",
	"GOOGLE_CLOUD_PROJECT",
	"AZURE_OPENAI_ENDPOINT",
	"COPILOT_GITHUB_TOKEN",
	"GH_TOKEN",
	"GITHUB_TOKEN",
	// Never let a pi started here attach to the user's tmux.
	"TMUX",
	"TMUX_PANE",
]);

export interface PiEnv {
	env: NodeJS.ProcessEnv;
	home: string;
	agentDir: string;
	tmpDir: string;
}

/**
 * The current environment without credentials and without `PI_*` settings (and whatever `drop` names), with HOME,
 * PI_CODING_AGENT_DIR and TMPDIR made under `root`, and pi told to stay offline and quiet.
 */
export function isolatedPiEnv(root: string, drop: (key: string) => boolean = () => false): PiEnv {
	const home = join(root, "home");
	const agentDir = join(root, "agent");
	const tmpDir = join(root, "tmp");
	for (const dir of [home, agentDir, tmpDir]) mkdirSync(dir, { recursive: true });
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (CREDENTIAL.test(key) || STRIPPED.has(key) || key.startsWith("PI_") || drop(key)) continue;
		env[key] = value;
	}
	Object.assign(env, {
		HOME: home,
		USERPROFILE: home,
		XDG_CONFIG_HOME: join(home, ".config"),
		XDG_CACHE_HOME: join(home, ".cache"),
		XDG_DATA_HOME: join(home, ".local/share"),
		PI_CODING_AGENT_DIR: agentDir,
		TMPDIR: tmpDir,
		TMP: tmpDir,
		TEMP: tmpDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
	});
	return { env, home, agentDir, tmpDir };
}
