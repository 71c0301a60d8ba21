/** Wires pi's events to the store, the painter, the context injection and the engine; registers renderers and flags. */

import type { ExtensionAPI, ExtensionContext, MessageRenderer, Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { buildContextInjection } from "./core/list/list-text.ts";
import { hasIncomplete, isAllFinished } from "./core/list/queries.ts";
import type { SessionRole } from "./core/model/types.ts";
import { inheritsBranch } from "./core/rules/branch.ts";
import {
	COMPLETE_MESSAGE_TYPE,
	CONTEXT_MESSAGE_TYPE,
	COUNTDOWN_MESSAGE_TYPE,
	COUNTDOWN_WIDGET_ID,
	GOAL_MESSAGE_TYPE,
	GUEST_ENTRY_TYPE,
	LOOP_MESSAGE_TYPE,
	REMINDER_MESSAGE_TYPE,
	REPORT_ENTRY_TYPE,
} from "./core/rules/keys.ts";
import { canAct, verificationChecks } from "./core/rules/next-step.ts";
import { staleReminder } from "./core/rules/reminder.ts";
import {
	BOOLEAN_SETTINGS,
	type FlagValues,
	flagHelp,
	judgeModelOf,
	NUMERIC_SETTINGS,
	resolveConfig,
	switchFlagValue,
	TEXT_SETTINGS,
	type TilDoneConfig,
} from "./core/rules/settings.ts";
import { textOfContent } from "./core/texts/sanitize.ts";
import { NOTICES, SETTING_WARNINGS } from "./core/texts/user.ts";
import type { FollowedPlan } from "./edges/files/follow.ts";
import { checkpointsSettled } from "./edges/git/queue.ts";
import type { CheckpointFollower } from "./edges/git/recorder.ts";
import { todoToolsActive } from "./edges/host/active-tools.ts";
import { warnOfInertBudget } from "./edges/host/model-price.ts";
import { createPainter } from "./edges/host/painter.ts";
import { quietly } from "./edges/host/quietly.ts";
import { isGuest, releaseRole, takeRole, WORKER_MARKER } from "./edges/host/role.ts";
import { tell } from "./edges/host/tell.ts";
import { currentInput } from "./edges/run/carry-out.ts";
import { createEngine, type Engine } from "./edges/run/engine.ts";
import { refuseRun } from "./edges/run/modes.ts";
import {
	beginSession,
	bindToSession,
	getConfig,
	getGoal,
	getLoop,
	getState,
	getTodos,
	isRunRefused,
	judgeIsOn,
	reconstructState,
	recordUsage,
	setGoal,
	setPanelEnabled,
	subscribe,
	takeUnreported,
	type UiView,
} from "./state.ts";

type ThemeColor = Parameters<Theme["fg"]>[0];

interface IconStyle {
	icon: string;
	iconColor: ThemeColor;
	textColor: ThemeColor;
}

const SUCCESS: IconStyle = { icon: "✓", iconColor: "success", textColor: "text" };
const WARNING: IconStyle = { icon: "⚠", iconColor: "warning", textColor: "warning" };

function iconText(style: IconStyle, text: string, theme: Theme): Text {
	return new Text(`${theme.fg(style.iconColor, style.icon)} ${theme.fg(style.textColor, text)}`, 0, 0);
}

function iconRenderer(style: IconStyle): MessageRenderer {
	return (message, _options, theme) => iconText(style, textOfContent(message.content), theme);
}

export function registerMessageRenderers(pi: ExtensionAPI): void {
	pi.registerMessageRenderer(CONTEXT_MESSAGE_TYPE, iconRenderer({ icon: "📋", iconColor: "accent", textColor: "dim" }));
	pi.registerMessageRenderer(
		COUNTDOWN_MESSAGE_TYPE,
		iconRenderer({ icon: "⏳", iconColor: "accent", textColor: "dim" }),
	);
	pi.registerMessageRenderer(LOOP_MESSAGE_TYPE, iconRenderer({ icon: "🔁", iconColor: "accent", textColor: "text" }));
	pi.registerMessageRenderer(GOAL_MESSAGE_TYPE, iconRenderer({ icon: "🎯", iconColor: "accent", textColor: "text" }));
	// A tripped breaker is a warning, not a success: `details.level` says which one this message is.
	pi.registerMessageRenderer(COMPLETE_MESSAGE_TYPE, (message, _options, theme) => {
		const level = (message.details as { level?: unknown } | undefined)?.level;
		return iconText(level === "warning" ? WARNING : SUCCESS, textOfContent(message.content), theme);
	});
	// Print and JSON modes record why each invocation ended as a custom entry (edges/run/modes.ts); show it on resume.
	// Entries written before they carried a level were breaker stops: warnings.
	pi.registerEntryRenderer(COMPLETE_MESSAGE_TYPE, (entry, _options, theme) => {
		const data = entry.data as { text?: unknown; level?: unknown } | undefined;
		const text = typeof data?.text === "string" ? data.text : "";
		return iconText(data?.level === "info" ? SUCCESS : WARNING, text, theme);
	});
	// The lines that stay (edges/host/tell.ts tellLasting): each carries its own words, coloured by its level.
	pi.registerEntryRenderer(REPORT_ENTRY_TYPE, (entry, _options, theme) => {
		const data = entry.data as { text?: unknown; level?: unknown } | undefined;
		const text = typeof data?.text === "string" ? data.text : "";
		return new Text(theme.fg(REPORT_COLORS[String(data?.level)] ?? "text", text), 0, 0);
	});
}

/** How a line that stays is coloured, by its level. */
const REPORT_COLORS: Record<string, ThemeColor> = { info: "muted", success: "success", warning: "warning" };

/** Registers the extension's CLI flags; their values are read at every session start. */
export function registerFlags(pi: ExtensionAPI): void {
	for (const setting of [...NUMERIC_SETTINGS, ...TEXT_SETTINGS]) {
		pi.registerFlag(setting.flag, { type: "string", description: flagHelp(setting, true) });
	}
	for (const setting of BOOLEAN_SETTINGS) {
		pi.registerFlag(setting.flag, { type: "boolean", description: flagHelp(setting, false) });
	}
}

/**
 * The flags pi was given. pi keeps only "set" for a switch; its word (`--til-done-paused=off`) is on the process's
 * command line, which a session nested in another's process does not own.
 */
function readFlags(pi: ExtensionAPI, role: SessionRole): FlagValues {
	const flags: Record<string, FlagValues[string]> = {};
	for (const setting of [...NUMERIC_SETTINGS, ...TEXT_SETTINGS]) flags[setting.flag] = pi.getFlag(setting.flag);
	const argv = role === "nested" ? [] : process.argv;
	for (const { flag } of BOOLEAN_SETTINGS) {
		flags[flag] = pi.getFlag(flag) === true ? switchFlagValue(argv, flag) : pi.getFlag(flag);
	}
	return flags;
}

/** Whether pi says the run starts from a custom message (pi 1.2+; older versions fire only for prompts). */
export function startedByCustomMessage(event: object): boolean {
	return (event as { messageType?: unknown }).messageType === "custom";
}

/** Bad settings, said once: as notices where there is a UI, on stderr where there is none. */
function reportSettingWarnings(ctx: ExtensionContext, warnings: readonly string[]): void {
	for (const warning of takeUnreported(warnings)) {
		tell(ctx, NOTICES.settingWarning(warning), "warning");
	}
}

/** The session's UI follows the store from now on; returns the function that stops it. */
function paintSession(pi: ExtensionAPI, ctx: ExtensionContext, config: TilDoneConfig): () => void {
	const view = (): UiView => {
		const state = getState();
		// Only a finished list asks what verifies it (the bash tool may have been switched on or off meanwhile).
		const finished = isAllFinished(state.todos);
		const judgeOn = judgeIsOn();
		const toVerify = finished && (judgeOn || verificationChecks(currentInput({ pi, ctx, config })).length > 0);
		return { ...state, toVerify, judgeOn };
	};
	const paint = createPainter(ctx, view);
	paint();
	const unsubscribe = subscribe(paint);
	// The footer is fitted to the terminal's width: a resize fits it again (the listener is called outside the session).
	const resize = bindToSession(() => paint());
	if (ctx.mode === "tui") process.stdout.on("resize", resize);
	return () => {
		unsubscribe();
		process.stdout.off("resize", resize);
	};
}

/**
 * pi builds a context for each `agent_before_settle` listener at the end of every run (a few milliseconds of every
 * `pi -p`), so the in-run adapter listens only while the next-step rules can act: while there is a list or a loop.
 */
function listenBeforeSettle(pi: ExtensionAPI, engine: Engine): () => void {
	let stopListening: (() => void) | undefined;
	const follow = () => {
		const wanted = canAct(getTodos(), getLoop(), getGoal());
		if (wanted && !stopListening) {
			stopListening = pi.on("agent_before_settle", (event, ctx) => engine.onBeforeSettle(event, ctx));
		} else if (!wanted && stopListening) {
			stopListening();
			stopListening = undefined;
		}
	};
	follow();
	const unsubscribe = subscribe(follow);
	return () => {
		unsubscribe();
		stopListening?.();
		stopListening = undefined;
	};
}

/**
 * A tool runs only once the snapshots of what the list started and completed before it are taken, so an item's start
 * holds none of its own work and its completion all of it. Only while checkpoints are on: with a `tool_call`
 * listener pi builds a context before every tool call.
 */
function waitForCheckpointsBeforeTools(pi: ExtensionAPI): () => void {
	return pi.on("tool_call", async () => {
		await checkpointsSettled();
	});
}

/** The handles of what a session's start set going: the function that stops what follows its store. */
interface StartedSession {
	stop: () => void;
	/** Takes the session's checkpoints, while they are on. */
	checkpoints: CheckpointFollower | undefined;
}

/**
 * Why the judge the setting names cannot be called, found before any model call rather than after the whole list was
 * worked; the judge's module is loaded only when a model is named.
 */
async function judgeProblem(ctx: ExtensionContext, choice: string): Promise<string | undefined> {
	if (judgeModelOf(choice) === undefined) return undefined;
	const { namedJudgeProblem } = await import("./edges/checks/judge.ts");
	const why = await namedJudgeProblem(ctx, choice);
	return why === undefined ? undefined : SETTING_WARNINGS.judgeUnusable(choice, why);
}

/**
 * Joins the remote the session's setting names, before any model call: why it cannot, or undefined. Joined with no list
 * and no plan file, the session takes the list shared there. The team's modules are loaded only when a remote is named.
 */
async function joinRemote(pi: ExtensionAPI, ctx: ExtensionContext, config: TilDoneConfig) {
	if (config.remote === undefined) return undefined;
	const { joinTeam } = await import("./edges/team/join.ts");
	const joined = await joinTeam(ctx.cwd, config.remote, config.planFile);
	if ("problem" in joined) return joined.problem;
	if (config.planFile !== undefined) return undefined;
	const { joinSharedList } = await import("./edges/team/shared-list.ts");
	await joinSharedList(pi, ctx, { ...joined.team, remote: config.remote });
	return undefined;
}

/** The plan file a session follows, its module loaded on first use (most sessions follow none). */
async function followPlan(pi: ExtensionAPI, ctx: ExtensionContext, file: string | undefined) {
	if (file === undefined) return undefined;
	const { followPlanFile } = await import("./edges/files/follow.ts");
	return followPlanFile(pi, ctx, file);
}

/** A worker's bounds, their module loaded in a worker only. */
async function keepWorkerInTree(pi: ExtensionAPI, ctx: ExtensionContext) {
	const { keepInTree } = await import("./edges/workers/confine.ts");
	return keepInTree(pi, ctx);
}

/** The session's checkpoints, the git edge loaded on first use (checkpoints are off unless asked for). */
async function followCheckpointsIf(on: boolean, pi: ExtensionAPI, ctx: ExtensionContext) {
	if (!on) return undefined;
	const { followCheckpoints } = await import("./edges/git/recorder.ts");
	return followCheckpoints(pi, ctx);
}

/**
 * A session starts: whose it is, its settings, its list rebuilt from the branch (a guest's own part of it), the plan
 * file it follows, and what follows its store from now on. A `pi -p` of the user's whose settings were not understood,
 * or whose judge pi cannot call, runs nothing.
 */
async function startSession(pi: ExtensionAPI, ctx: ExtensionContext, engine: Engine): Promise<StartedSession> {
	const role = takeRole(pi);
	const worker = role === "child" && process.env[WORKER_MARKER] !== undefined;
	// A worker of a session of ours ends with the session that started it.
	if (worker) void import("./edges/workers/watchdog.ts").then(({ watchParentOnce }) => watchParentOnce());
	// ...and stays in its tree from its first tool call.
	const stopBounds = worker ? await keepWorkerInTree(pi, ctx) : () => {};
	const resolved = resolveConfig(readFlags(pi, role), process.env, role);
	const config = resolved.config;
	beginSession(role, config);
	engine.onSessionStart(ctx, config);
	reportSettingWarnings(ctx, resolved.warnings);
	setPanelEnabled(config.panel);
	reconstructState(ctx, { inherited: isGuest(role) && markInherited(pi, ctx), startPaused: config.startPaused });
	// `--til-done-goal`: the goal is in progress from the start (a guest never takes the user's).
	if (config.goal !== undefined) setGoal({ condition: config.goal, runs: 0 });
	const judge = await judgeProblem(ctx, config.judge);
	if (judge !== undefined) reportSettingWarnings(ctx, [judge]);
	const remote = await joinRemote(pi, ctx, config);
	if (remote !== undefined) reportSettingWarnings(ctx, [remote]);
	const planFile: FollowedPlan | undefined = await followPlan(pi, ctx, config.planFile);
	const problems = [...resolved.warnings, judge, remote, planFile?.problem].filter((problem) => problem !== undefined);
	if (role === "own" && engine.actsBeforeSettle && problems.length > 0) refuseRun(ctx);
	const stopPainting = paintSession(pi, ctx, config);
	const stopListening = engine.actsBeforeSettle ? listenBeforeSettle(pi, engine) : () => {};
	const checkpoints: CheckpointFollower | undefined = await followCheckpointsIf(config.checkpoints, pi, ctx);
	const stopWaiting = config.checkpoints ? waitForCheckpointsBeforeTools(pi) : () => {};
	const stop = () => {
		stopBounds();
		planFile?.stop();
		stopPainting();
		stopListening();
		stopWaiting();
		checkpoints?.stop();
	};
	return { stop, checkpoints };
}

/**
 * A guest starting on a branch it inherited (pi-subagents' forked children) marks where its own part begins: the list
 * before it is its parent's, which the parent drives. Whether it did.
 */
function markInherited(pi: ExtensionAPI, ctx: ExtensionContext): boolean {
	let inherited = false;
	quietly(() => {
		const sessionId = ctx.sessionManager.getSessionId();
		inherited = inheritsBranch(ctx.sessionManager.getBranch(), sessionId);
		if (inherited) pi.appendEntry(GUEST_ENTRY_TYPE, { sessionId });
	});
	return inherited;
}

/** Registers every event handler; returns the engine, which the commands drive. */
export function registerEventHandlers(pi: ExtensionAPI): Engine {
	let session: StartedSession | undefined;
	const engine = createEngine(pi, getConfig);

	pi.on("session_start", async (_event, ctx) => {
		session?.stop();
		session = undefined;
		session = await startSession(pi, ctx, engine);
	});
	pi.on("session_tree", (_event, ctx) => {
		void engine.onSessionChange();
		// A move in the tree starts and completes nothing: the list it rebuilds takes no checkpoint.
		const checkpoints = session?.checkpoints;
		if (checkpoints) checkpoints.hold(() => reconstructState(ctx));
		else reconstructState(ctx);
	});
	pi.on("session_shutdown", async (_event, ctx) => {
		// pi's SIGTERM ends with this event: the workers end, and let their claims go, before the process does.
		await engine.onSessionChange();
		await checkpointsSettled();
		session?.stop();
		session = undefined;
		releaseRole(pi);
		quietly(() => {
			if (ctx.hasUI) ctx.ui.setWidget(COUNTDOWN_WIDGET_ID, undefined);
		});
	});
	registerRunHandlers(pi, engine, getConfig);
	return engine;
}

/**
 * Before each model call: after many tool calls without a todo tool, the list's reminder rides on this call alone. pi
 * sends what `context` returns without storing it, and turns the hidden custom message into a user message.
 */
function remindOfStaleList(pi: ExtensionAPI, getConfig: () => TilDoneConfig): void {
	pi.on("context", (event) => {
		const reminder = staleReminder(event.messages, getTodos(), getConfig().remindEvery);
		if (reminder === undefined || !todoToolsActive(pi)) return undefined;
		const message = {
			role: "custom" as const,
			customType: REMINDER_MESSAGE_TYPE,
			content: reminder,
			display: false,
			timestamp: Date.now(),
		};
		return { messages: [...event.messages, message] };
	});
}

/**
 * The handlers around a run: the user's input, the injection before it, the engine after it (and, in print and JSON
 * modes, before it settles: {@link listenBeforeSettle}).
 */
function registerRunHandlers(pi: ExtensionAPI, engine: Engine, getConfig: () => TilDoneConfig): void {
	pi.on("input", async (event, ctx) => {
		// A refused `pi -p` runs nothing: no model is called for the prompt (refuseRun set the exit status).
		if (isRunRefused()) return { action: "handled" };
		// A prompt while a run is under way steers it: the work it is part of began before.
		if (event.source !== "extension") await engine.onUserInput(ctx, event.streamingBehavior === undefined);
		return { action: "continue" };
	});
	pi.on("before_agent_start", (event, ctx) => {
		// Workers start from the compiled extensions' copy: begun now, it is ready by the first worker's start.
		if (getConfig().workers > 0 && !getState().workersRefused) {
			const cwd = ctx.cwd;
			void import("./edges/workers/worker-jail.ts")
				.then(({ prepareWorkerJail }) => prepareWorkerJail(cwd))
				.catch(() => undefined);
		}
		// pi 1.2+ also fires this for runs a custom message starts (continuations, /loop), and says so in `messageType`;
		// their prompt already carries the current list, so a second copy would only cost tokens and bury the prompt.
		if (startedByCustomMessage(event)) return undefined;
		// A prompt of the user starts a chain: a budget that cannot apply is said before it runs.
		warnOfInertBudget(ctx, getConfig());
		const todos = getTodos();
		if (!hasIncomplete(todos) || !todoToolsActive(pi)) return undefined;
		return { message: { customType: CONTEXT_MESSAGE_TYPE, content: buildContextInjection(todos), display: false } };
	});
	remindOfStaleList(pi, getConfig);
	pi.on("message_end", (event) => recordUsage(event.message));
	pi.on("agent_end", (event, ctx) => {
		engine.onRunEnd(event.messages, ctx);
		// The run's last checkpoints are taken before print mode lets pi exit.
		return checkpointsSettled();
	});
	pi.on("agent_settled", (_event, ctx) => engine.onSettled(ctx));
}
