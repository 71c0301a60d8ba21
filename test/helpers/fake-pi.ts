/** A fake `ExtensionAPI` for unit tests: it records what the extension registers and sends, and fires events. */

import {
	createEventBus,
	type EventBus,
	type ExtensionAPI,
	type ExtensionContext,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { ENTRY_TYPE } from "./expected.ts";
import { runnerEnded } from "./fake-runner.ts";

export interface SentMessage {
	message: { customType: string; content: unknown; display: boolean; details?: unknown };
	options?: { triggerTurn?: boolean; deliverAs?: string };
}

export interface FakePi {
	api: ExtensionAPI;
	tools: Map<string, ToolDefinition>;
	renderers: Map<string, (...args: unknown[]) => unknown>;
	/** Renderers registered with `registerEntryRenderer`, by custom type. */
	entryRenderers: Map<string, (...args: unknown[]) => unknown>;
	flags: Map<string, { type: string; description?: string }>;
	flagValues: Map<string, string | boolean>;
	commands: Map<
		string,
		{
			description?: string;
			handler: (args: string, ctx: unknown) => Promise<void>;
			getArgumentCompletions?: (prefix: string) => unknown;
		}
	>;
	sent: SentMessage[];
	/** Every `pi.exec` call, in order. */
	execCalls: { command: string; args: string[]; options?: { cwd?: string; timeout?: number; signal?: AbortSignal } }[];
	/** Answers `pi.exec` (the check runner); by default every check passes at once with no output. */
	onExec: (
		call: FakePi["execCalls"][number],
	) => Promise<{ stdout: string; stderr: string; code: number; killed: boolean }>;
	/** What `pi.getActiveTools()` answers (default: pi's defaults, bash included, and the todo tools). */
	activeTools: string[];
	userMessages: { content: unknown; options?: unknown }[];
	entries: { customType: string; data: unknown }[];
	/** The lines that stay in the transcript (report entries), as `{ level, text }`, in order. */
	reports(): { level: string; text: string }[];
	/** Calls every handler registered for `event` in order and returns their results. */
	fire(event: string, payload: Record<string, unknown>, ctx: ExtensionContext): Promise<unknown[]>;
	handlerCount(event: string): number;
}

/** `events`: the bus extensions share, as pi gives every extension of one session the same one. */
export function createFakePi(events: EventBus = createEventBus()): FakePi {
	const handlers = new Map<string, ((event: unknown, ctx: unknown) => unknown)[]>();
	const fake: Omit<FakePi, "api"> = {
		tools: new Map(),
		renderers: new Map(),
		entryRenderers: new Map(),
		flags: new Map(),
		flagValues: new Map(),
		commands: new Map(),
		sent: [],
		execCalls: [],
		onExec: async (call) => runnerEnded(call.args, 0),
		activeTools: ["read", "bash", "edit", "write", "write_todos", "list_todos", "edit_todos", "pause_todos"],
		userMessages: [],
		entries: [],
		reports: () =>
			fake.entries.flatMap((entry) =>
				entry.customType === ENTRY_TYPE.report ? [entry.data as { level: string; text: string }] : [],
			),
		async fire(event, payload, ctx) {
			const results: unknown[] = [];
			for (const handler of handlers.get(event) ?? []) results.push(await handler({ type: event, ...payload }, ctx));
			return results;
		},
		handlerCount: (event) => handlers.get(event)?.length ?? 0,
	};
	const api = {
		on(event: string, handler: (event: unknown, ctx: unknown) => unknown) {
			const list = handlers.get(event) ?? [];
			list.push(handler);
			handlers.set(event, list);
			return () => list.splice(list.indexOf(handler), 1);
		},
		registerTool: (tool: ToolDefinition) => fake.tools.set(tool.name, tool),
		registerMessageRenderer: (type: string, renderer: (...args: unknown[]) => unknown) =>
			fake.renderers.set(type, renderer),
		registerEntryRenderer: (type: string, renderer: (...args: unknown[]) => unknown) =>
			fake.entryRenderers.set(type, renderer),
		registerFlag: (name: string, options: { type: string; description?: string }) => fake.flags.set(name, options),
		getFlag: (name: string) => fake.flagValues.get(name),
		registerCommand: (name: string, options: FakePi["commands"] extends Map<string, infer C> ? C : never) =>
			fake.commands.set(name, options),
		sendMessage: (message: SentMessage["message"], options?: SentMessage["options"]) =>
			fake.sent.push({ message, options }),
		sendUserMessage: (content: unknown, options?: unknown) => fake.userMessages.push({ content, options }),
		appendEntry: (customType: string, data: unknown) => fake.entries.push({ customType, data }),
		exec: (command: string, args: string[], options?: FakePi["execCalls"][number]["options"]) => {
			const call = { command, args, options };
			fake.execCalls.push(call);
			return fake.onExec(call);
		},
		getActiveTools: () => fake.activeTools,
		events,
	};
	// The same object, so a test that sets `onExec` or `activeTools` changes what `api` sees.
	return Object.assign(fake, { api: api as unknown as ExtensionAPI }) as FakePi;
}
