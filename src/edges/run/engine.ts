/**
 * The auto-continue between pi's events: it holds a run's outcome in the store until pi settles, then decides with
 * core/rules/next-step.ts and carries out with carry-out.ts, in the session's mode (chosen once, when the session
 * starts). Its own are the handles of what follows a run: the mode, and the abort of what was to follow (cancelled
 * when the user acts, a new run ends or the session changes).
 */

import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import type { LoopSpec } from "../../core/model/types.ts";
import { GOAL_MESSAGE_TYPE, LOOP_MESSAGE_TYPE } from "../../core/rules/keys.ts";
import { stepNow } from "../../core/rules/next-step.ts";
import { runOutcome } from "../../core/rules/outcome.ts";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import { GOAL_PROMPTS, loopPrompt } from "../../core/texts/model.ts";
import { GOAL_ENDS } from "../../core/texts/user/goal.ts";
import { LOOP_ENDS } from "../../core/texts/user/loop.ts";
import {
	bindToSession,
	getGoal,
	getLoop,
	getWorkers,
	holdEndedRun,
	judgeIsOn,
	recordChainStart,
	resetChain,
	setGoal,
	setLoop,
	takeEndedRun,
} from "../../state.ts";
import { quietly } from "../host/quietly.ts";
import { tell } from "../host/tell.ts";
import { afterRun, carryOut, currentInput, type FollowUp, PROMPTED } from "./carry-out.ts";
import { type Mode, modeFor } from "./modes.ts";

export interface Engine {
	/** A session started: forget the one before, and from now on carry steps out in this one's mode. */
	onSessionStart(ctx: ExtensionContext, config: TilDoneConfig): void;
	/** A run ended; what it calls for waits until pi has settled (interactive modes). */
	onRunEnd(messages: readonly unknown[], ctx: ExtensionContext): void;
	/** pi will do nothing more on its own: carry out what the run that ended calls for. */
	onSettled(ctx: ExtensionContext): void;
	/** In-run modes: carry it out inside the run, asking pi for one more model call. */
	onBeforeSettle(event: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined>;
	/** Whether the session's mode acts in `agent_before_settle`. */
	readonly actsBeforeSettle: boolean;
	/**
	 * The user submitted a prompt: stop whatever follows a run, and any loop, and start a new chain. A prompt that
	 * starts a run (`startsRun`; not one steering a run under way) starts the work the judge reads the change of:
	 * resolves once the work tree is snapshotted.
	 */
	onUserInput(ctx: ExtensionContext, startsRun?: boolean): Promise<void>;
	/** The session was replaced, reloaded or moved in its tree: forget everything tied to the old one. */
	onSessionChange(): Promise<void>;
	/** Starts a `/loop`: its first iteration goes out now (after the current run if one is going). */
	startLoop(spec: LoopSpec, ctx: ExtensionCommandContext): Promise<void>;
	/** Starts a goal (`/goal <condition>`): its first run goes out now (after the current run if one is going). */
	startGoal(condition: string, ctx: ExtensionCommandContext): Promise<void>;
	/** `/goal off`: the goal ends, and what was to follow a run with it. */
	endGoal(ctx: ExtensionContext): void;
	/**
	 * A command of the user changed the list or the auto-continue: what the list calls for now is carried out (a
	 * countdown, a verification, a notice), if pi is idle. In-run, the command returns once it is done.
	 */
	resume(ctx: ExtensionContext): Promise<void>;
	/** `/todos pause`: stops what follows a run, and a `/loop`. */
	pause(ctx: ExtensionContext): void;
}

/** The handles the engine keeps between events, for one extension instance. */
interface EngineState {
	pi: ExtensionAPI;
	getConfig: () => TilDoneConfig;
	mode?: Mode;
	/** Cancels what follows the last run: a countdown, a verification, a back-off; undefined while nothing follows. */
	following: AbortController | undefined;
	/** What follows runs, under way: a session's end waits for each to end once cancelled (a shared verification's tree removed, its claim let go). */
	carrying: Set<Promise<void>>;
}

/**
 * How long a session's end waits for what followed its runs to end once cancelled: a claim let go is one push, which
 * git gives up on after its own timeout; past this the session ends without them.
 */
const CARRIED_END_WAIT_MS = 30_000;

/** Settles once every one of `works` settled, or after `ms`, whichever is first (no timer is left behind). */
function atMost(ms: number, works: readonly Promise<unknown>[]): Promise<unknown> {
	if (works.length === 0) return Promise.resolve();
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise((resolve) => {
		timer = setTimeout(resolve, ms);
	});
	return Promise.race([Promise.allSettled(works), late]).finally(() => clearTimeout(timer));
}

/** `work` (what follows a run) counted as under way until it ends. */
function carry(engine: EngineState, work: Promise<void>): Promise<void> {
	const carried = work.finally(() => engine.carrying.delete(carried));
	engine.carrying.add(carried);
	return carried;
}

/**
 * Cancels what was to follow (`why`: the abort's reason). A controller is made only for a follow-up: aborting one
 * nothing listens to would cost a start Node's first abort error (about 0.5 ms).
 */
function cancelFollowing(engine: EngineState, why?: string): void {
	engine.following?.abort(why);
	engine.following = undefined;
}

/** Cancels what was to follow, and returns a fresh follow-up in the session's mode (none before a session starts). */
function follow(engine: EngineState, ctx: ExtensionContext): FollowUp | undefined {
	cancelFollowing(engine);
	const { pi, getConfig, mode } = engine;
	if (!mode) return undefined;
	engine.following = new AbortController();
	return { pi, ctx, config: getConfig(), mode, signal: engine.following.signal };
}

/** Stops the session's workers, if any are at work: their module is loaded only when there are some. */
async function stopSessionWorkers(pi: ExtensionAPI): Promise<void> {
	if (getWorkers().length === 0) return;
	const { stopWorkers } = await import("../workers/session-workers.ts");
	await stopWorkers(pi);
}

/** The signals on which pi ends itself (its own listeners exit once the session is disposed). */
const ENDING_SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** Raises `signal` again with `listener` gone: the process ends by it as it would have. */
function endBy(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): void {
	process.off(signal, listener);
	process.kill(process.pid, signal);
}

/** The user took the wheel (`why`: a prompt of theirs): what was to follow is dropped, and a `/loop` ends with a notice. */
function takeOver(engine: EngineState, ctx: ExtensionContext, why?: string): void {
	cancelFollowing(engine, why);
	holdEndedRun(undefined);
	void stopSessionWorkers(engine.pi);
	if (!getLoop()) return;
	setLoop(undefined);
	tell(ctx, LOOP_ENDS.byUser, "info");
}

/**
 * A chain's work starts: while the judge or a goal is on, the work tree is snapshotted first (the git edge loaded only
 * then), so that the judge reads the work as the change of the files since, not as what a tool printed.
 */
async function snapshotIfJudged(ctx: ExtensionContext): Promise<void> {
	if (!judgeIsOn() && getGoal() === undefined) return;
	const { snapshotChainStart } = await import("../git/chain-start.ts");
	recordChainStart(await snapshotChainStart(ctx));
}

async function startLoop(engine: EngineState, spec: LoopSpec, ctx: ExtensionCommandContext): Promise<void> {
	const run = follow(engine, ctx);
	holdEndedRun(undefined);
	// A loop is the user's new start: its runs count in a fresh chain (they share its failure count and back-off).
	resetChain();
	const first = { ...spec, iteration: 1 };
	setLoop(first);
	await snapshotIfJudged(ctx);
	const message = { customType: LOOP_MESSAGE_TYPE, content: loopPrompt(first) };
	if (!(await run?.mode.startRun(message, ctx))) setLoop(undefined);
}

async function startGoal(engine: EngineState, condition: string, ctx: ExtensionCommandContext): Promise<void> {
	const run = follow(engine, ctx);
	holdEndedRun(undefined);
	// A goal is the user's new start: its runs count in a fresh chain, bounded by the chain's breakers and budgets.
	resetChain();
	setGoal({ condition, runs: 0 });
	await snapshotIfJudged(ctx);
	const message = { customType: GOAL_MESSAGE_TYPE, content: GOAL_PROMPTS.first(condition) };
	if (!(await run?.mode.startRun(message, ctx))) setGoal(undefined);
}

function endGoal(engine: EngineState, ctx: ExtensionContext): void {
	cancelFollowing(engine);
	holdEndedRun(undefined);
	if (!getGoal()) {
		tell(ctx, GOAL_ENDS.none, "info");
		return;
	}
	setGoal(undefined);
	tell(ctx, GOAL_ENDS.byUser, "info");
}

/** Carries out what the list calls for now, if pi is idle; otherwise the next run's end decides. */
async function resume(engine: EngineState, ctx: ExtensionContext): Promise<void> {
	let idle = false;
	quietly(() => {
		idle = ctx.isIdle();
	});
	const run = idle ? follow(engine, ctx) : undefined;
	if (!run) return;
	const input = currentInput(run);
	const done = carry(engine, carryOut(stepNow(input), input, run));
	if (run.mode.holdsCommands) await done;
}

/**
 * Where pi lets the extension act before a run settles (print and JSON modes): what follows the run happens inside it,
 * and its result is the run's boundary.
 */
async function settleInside(
	engine: EngineState,
	event: Parameters<Engine["onBeforeSettle"]>[0],
	ctx: Parameters<Engine["onBeforeSettle"]>[1],
): ReturnType<Engine["onBeforeSettle"]> {
	const run = follow(engine, ctx);
	if (!run) return undefined;
	const inside: FollowUp = { ...run, boundary: {} };
	// pi ends on SIGTERM or SIGHUP once the run ends (pi 1.6 waits for it before the session ends): what the run
	// waits for, the workers too, ends at once, so the run does not wait on them.
	// Bound to the session: a signal's listener runs outside it, where the store is nobody's.
	const ending = bindToSession((signal: NodeJS.Signals) => {
		cancelFollowing(engine);
		const alone = process.listenerCount(signal) === 1;
		// A pi that takes no such signal itself ends by it, as it would have without this listener.
		void stopSessionWorkers(engine.pi).finally(() => alone && endBy(signal, ending));
	});
	for (const signal of ENDING_SIGNALS) process.on(signal, ending);
	try {
		await carry(engine, afterRun(runOutcome(event.context.contextMessages, event.outcome === "aborted"), inside));
	} finally {
		for (const signal of ENDING_SIGNALS) process.off(signal, ending);
	}
	return run.signal.aborted ? undefined : inside.boundary?.result;
}

export function createEngine(pi: ExtensionAPI, getConfig: () => TilDoneConfig): Engine {
	const engine: EngineState = { pi, getConfig, following: undefined, carrying: new Set() };
	/** Forgets what follows a run; resolves once the workers (if any) are stopped, their claims let go. */
	const forget = (): Promise<void> => {
		cancelFollowing(engine);
		holdEndedRun(undefined);
		const stopped = stopSessionWorkers(pi);
		if (getLoop()) setLoop(undefined);
		if (getGoal()) setGoal(undefined);
		// Cancelled above, each ends soon; pi 0.87 exits on SIGTERM once the session ended, before they would.
		return Promise.allSettled([stopped, atMost(CARRIED_END_WAIT_MS, [...engine.carrying])]).then(() => undefined);
	};
	return {
		onSessionStart(ctx, config) {
			void forget();
			engine.mode = modeFor({ pi, ctx, config });
		},
		onRunEnd(messages) {
			cancelFollowing(engine);
			holdEndedRun(engine.mode?.actsBeforeSettle ? undefined : runOutcome(messages));
		},
		onSettled(ctx) {
			const outcome = takeEndedRun();
			const run = outcome && follow(engine, ctx);
			if (outcome && run) void carry(engine, afterRun(outcome, run));
		},
		onBeforeSettle: (event, ctx) => settleInside(engine, event, ctx),
		get actsBeforeSettle() {
			return engine.mode?.actsBeforeSettle ?? false;
		},
		async onUserInput(ctx, startsRun = false) {
			takeOver(engine, ctx, PROMPTED);
			resetChain();
			if (startsRun) await snapshotIfJudged(ctx);
		},
		onSessionChange: forget,
		startLoop: (spec, ctx) => startLoop(engine, spec, ctx),
		startGoal: (condition, ctx) => startGoal(engine, condition, ctx),
		endGoal: (ctx) => endGoal(engine, ctx),
		resume: (ctx) => resume(engine, ctx),
		pause: (ctx) => takeOver(engine, ctx),
	};
}
