/**
 * Proves the CLI harness: the scripted fake model, the RPC client, print/json runners and the tmux TUI driver,
 * using a tiny probe extension (status "ready" on session_start; widget + notify on agent_end).
 */
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, type IsolatedEnv, isolatedEnv, PI_HOSTS, REPO_ROOT, runJson, runPrint } from "../helpers/cli.ts";
import { type PiRpc, startRpc } from "../helpers/rpc.ts";
import { hasTmux, startTui, TMUX_MISSING, type TuiSession } from "../helpers/tmux.ts";

const PROBE = join(REPO_ROOT, "test/fixtures/probe-ui-extension.ts");
const REPLY = "hello from the scripted model";

let iso: IsolatedEnv | undefined;
let rpc: PiRpc | undefined;
let tui: TuiSession | undefined;

afterEach(async () => {
	await rpc?.close();
	await tui?.kill();
	iso?.cleanup();
	rpc = undefined;
	tui = undefined;
	iso = undefined;
});
afterAll(() => cleanupAll());

function setup(): IsolatedEnv {
	iso = isolatedEnv();
	iso.writeScript([{ text: REPLY }]);
	return iso;
}

describe.each(PI_HOSTS)("pi $version", (host) => {
	describe("rpc mode", () => {
		it("reports status, widget and notify records and counts one run per prompt", async () => {
			const env = setup();
			rpc = await startRpc({ host, env: env.env, extensions: [PROBE] });
			await rpc.waitFor(() => rpc?.statuses.get("probe") === "ready", 5000, 'status "probe" = ready');

			await rpc.promptAndSettle("hi there");
			await rpc.waitFor(() => rpc?.widgets.get("probe"), 5000, 'widget "probe"');

			expect(rpc.widgets.get("probe")).toEqual({ lines: ["probe done"], placement: "aboveEditor" });
			expect(rpc.notifications).toContainEqual({ message: "probe: agent_end", type: "info" });
			expect(rpc.countAgentRuns()).toBe(1);
			expect(rpc.assistantTexts()).toEqual([REPLY]);
			expect(env.readLog()).toEqual([expect.objectContaining({ step: 0, lastUser: "hi there" })]);

			// A second prompt goes past the end of the script.
			await rpc.promptAndSettle("again");
			expect(rpc.countAgentRuns()).toBe(2);
			expect(rpc.assistantTexts().at(-1)).toBe("(script exhausted)");
			expect((await rpc.getState()).isStreaming).toBe(false);

			expect(await rpc.close()).toEqual({ code: 0, signal: null });
		});
	});

	describe("print and json modes", () => {
		it("print mode runs one prompt and exits 0 with the model's text", async () => {
			const env = setup();
			const result = await runPrint(["-p", "hi there"], env.env, { host, extensions: [PROBE] });
			expect(result.stderr).toBe("");
			expect(result.code).toBe(0);
			expect(result.stdout.trim()).toBe(REPLY);
			expect(env.readLog()).toHaveLength(1);
		});

		it("json mode emits the session header and the event stream", async () => {
			const env = setup();
			const result = await runJson(["hi there"], env.env, { host, extensions: [PROBE] });
			expect(result.code).toBe(0);
			expect(result.events[0]).toMatchObject({ type: "session" });
			const types = result.events.map((e) => e.type);
			expect(types.filter((t) => t === "agent_start")).toHaveLength(1);
			expect(types.at(-1)).toBe("agent_settled");
			// Print/json modes have no UI: extension_ui_request records never appear on stdout.
			expect(types).not.toContain("extension_ui_request");
		});
	});

	describe.skipIf(!hasTmux())(`interactive TUI under tmux${hasTmux() ? "" : ` (${TMUX_MISSING})`}`, () => {
		it('shows "ready" in the footer and the model\'s reply after a prompt', async () => {
			const env = setup();
			tui = await startTui({ host, env: env.env, extensions: [PROBE] });
			await tui.waitForScreen(/^ready\s*$/m, 5000);

			await tui.type("hi there");
			await tui.sendKeys("Enter");
			const screen = await tui.waitForScreen((s) => s.includes(REPLY) && s.includes("probe done"), 5000);

			const lines = screen.split("\n");
			const widgetRow = lines.findIndex((l) => l.includes("probe done"));
			const editorTop = lines.findIndex((l, i) => i > widgetRow && /^─{20,}/.test(l));
			expect(widgetRow).toBeGreaterThan(-1);
			expect(editorTop).toBe(widgetRow + 1); // the widget sits right above the editor
			expect(screen).toContain("probe: agent_end"); // notify() lands in the chat area
			expect(env.readLog()).toEqual([expect.objectContaining({ lastUser: "hi there" })]);
		});
	});
});
