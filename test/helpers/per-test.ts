/**
 * What an end-to-end test starts and the next test must not inherit: its isolated pi environment, its RPC client and
 * its TUIs. Each is closed, killed or removed after the test; any pi child still alive is killed after the file.
 */
import { afterAll, afterEach } from "vitest";
import { cleanupAll, type FakeStep, type IsolatedEnv, isolatedEnv } from "./cli.ts";
import { type PiRpc, type RpcOptions, startRpc } from "./rpc.ts";
import { startTui, type TuiOptions, type TuiSession } from "./tmux.ts";

export interface PerTest {
	/** A fresh isolated environment (the file's defaults under `vars`), with `steps` as the fake model's script. */
	env(steps: FakeStep[], vars?: NodeJS.ProcessEnv): IsolatedEnv;
	/** pi in RPC mode. */
	rpc(options: RpcOptions): Promise<PiRpc>;
	/** pi's TUI under tmux, killed after the test. */
	tui(options: TuiOptions): Promise<TuiSession>;
}

/** Registers the clean-up hooks of a test file; `before` runs first after each test (e.g. disposing SDK sessions). */
export function perTest(defaults: NodeJS.ProcessEnv = {}, before?: () => Promise<void>): PerTest {
	let iso: IsolatedEnv | undefined;
	let client: PiRpc | undefined;
	const tuis: TuiSession[] = [];
	afterEach(async () => {
		await before?.();
		await client?.close();
		for (const tui of tuis.splice(0)) await tui.kill();
		iso?.cleanup();
		client = undefined;
		iso = undefined;
	});
	afterAll(() => cleanupAll());
	return {
		env(steps, vars = {}) {
			iso = isolatedEnv({ ...defaults, ...vars });
			iso.writeScript(steps);
			return iso;
		},
		async rpc(options) {
			client = await startRpc(options);
			return client;
		},
		async tui(options) {
			const session = await startTui(options);
			tuis.push(session);
			return session;
		},
	};
}
