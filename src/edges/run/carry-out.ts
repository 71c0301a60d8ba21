/**
 * Carrying a step out: the one place that does the bookkeeping of a decision, whichever mode acts on it. It keeps the
 * decision for `/todos why`, marks a stop, ends a loop, waits and sends a continuation, records the send, and runs a
 * verification and carries out what follows from it. What the user sees and how a message goes out is the mode's.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { itemKey } from "../../core/list/items.ts";
import type { CheckRun, Decision, GoalState, TodoItem } from "../../core/model/types.ts";
import { userRequests } from "../../core/rules/branch.ts";
import { decisionOf } from "../../core/rules/decision.ts";
import { DECISION_ENTRY_TYPE } from "../../core/rules/keys.ts";
import {
	endsGoal,
	type SharedFailure,
	type Step,
	type StepInput,
	stepAfterRun,
	stepNow,
	type VerificationCheck,
} from "../../core/rules/next-step.ts";
import type { RunOutcome } from "../../core/rules/outcome.ts";
import { GOAL_MET_WITH_LIST } from "../../core/rules/reports.ts";
import type { TilDoneConfig } from "../../core/rules/settings.ts";
import type { JudgeResult } from "../../core/rules/verdict.ts";
import { stopTally, workerLeftBetween } from "../../core/rules/worker-dispatch.ts";
import { describeCheckEnd, JUDGE_PROMPT } from "../../core/texts/model.ts";
import { GOAL_ENDS } from "../../core/texts/user/goal.ts";
import { JUDGE_TEXTS } from "../../core/texts/user/judge.ts";
import { LOOP_ENDS } from "../../core/texts/user/loop.ts";
import {
	effectiveDoneCheck,
	forgetClaimedElsewhere,
	getChain,
	getClaimedElsewhere,
	getClaimsMalformed,
	getGoal,
	getLookAgainMs,
	getLoop,
	getState,
	getTodos,
	getVerification,
	getWorkers,
	isJudged,
	isVerified,
	judgeIsOn,
	markRemoteAnswered,
	markRemoteSilent,
	markStopped,
	markWorkersRefused,
	recordDecision,
	recordGoalVerdict,
	recordRun,
	recordSend,
	remoteSilentSince,
	setChecking,
	setGoal,
	setLoop,
	sharedRemote,
	subscribe,
	workersFor,
} from "../../state.ts";
import { checkEnv, modelChecksBlocked } from "../checks/item-checks.ts";
import { applyVerification, runVerification } from "../checks/verification.ts";
import { todoToolsActive } from "../host/active-tools.ts";
import { modelInputPrice } from "../host/model-price.ts";
import { ownEntries } from "../host/own-branch.ts";
import { quietly } from "../host/quietly.ts";
import { tell, tellLasting } from "../host/tell.ts";
import type { SharedTeam } from "../team/branch-landing.ts";
import type { Found, SharedOutcome } from "../team/shared-verdict.ts";
import type { InterruptStop } from "../workers/session-workers.ts";
import type { Mode, Turn } from "./modes.ts";

/** What follows one run (or one command): where it happens, and the signal that cancels it. */
export interface FollowUp extends Turn {
	pi: ExtensionAPI;
	config: TilDoneConfig;
	mode: Mode;
	/** Aborted when the user acts, a new run ends or the session changes: nothing decided before may go on. */
	signal: AbortSignal;
}

/** The state a step is made from, as it is now. */
export function currentInput({ pi, ctx, config }: Pick<FollowUp, "pi" | "ctx" | "config">): StepInput {
	return {
		todos: getTodos(),
		chain: getChain(),
		loop: getLoop(),
		limits: config,
		doneCheck: effectiveDoneCheck(config.doneCheck),
		verified: isVerified(),
		modelChecks: modelChecksBlocked(checkEnv(pi, () => config)) === undefined,
		inputPrice: modelInputPrice(ctx),
		todoTools: todoToolsActive(pi),
		judge: judgeIsOn(),
		judged: isJudged() ? { failed: getVerification()?.failed ?? [] } : undefined,
		goal: getGoal(),
		workers: {
			max: workersFor(config),
			running: getWorkers().map((worker) => worker.index),
			claimed: indexesOf(getClaimedElsewhere()),
			malformed: indexesOf(getClaimsMalformed()),
			lookAgainMs: getLookAgainMs(),
			remoteDown: remoteSilentFor(config.leaseSeconds * 1000),
			shared: sharedRemote(config.remote) !== undefined,
			sharedFailed: sharedFailure(),
		},
	};
}

/** The shared plan's verdict on the list as it is now, when it failed. */
function sharedFailure(): SharedFailure | undefined {
	const verification = getVerification();
	if (!verification?.shared || verification.passed || verification.of !== getTodos()) return undefined;
	const { branch, remote, tip } = verification.shared;
	return { branch, remote, tip, failed: verification.failed };
}

/** Whether the shared plan's remote has not answered a claim for `leaseMs` (one lease: three tries at renewing). */
function remoteSilentFor(leaseMs: number): boolean {
	const since = remoteSilentSince();
	return since !== undefined && performance.now() - since >= leaseMs;
}

/** The items of the list whose key is among `claimKeys` (another process holds their claim, or a ref holds none). */
function indexesOf(claimKeys: readonly string[]): number[] {
	const keys = new Set(claimKeys);
	if (keys.size === 0) return [];
	return getTodos().flatMap((todo, index) => (keys.has(itemKey(index, todo.text)) ? [index] : []));
}

/** A run ended: its counters are stored, then what it calls for is carried out. */
export async function afterRun(outcome: RunOutcome, run: FollowUp): Promise<void> {
	const input = currentInput(run);
	const { chain, step } = stepAfterRun(input, outcome);
	recordRun(chain);
	await carryOut(step, { ...input, chain }, run);
}

/** A decision is kept in the store and on the branch, so `/todos why` has it after a reload or a restart. */
function keep(decision: Decision, run: FollowUp): void {
	recordDecision(decision);
	quietly(() => run.pi.appendEntry(DECISION_ENTRY_TYPE, decision));
}

/** Carries out a step made from `input`, and keeps it with its reason for `/todos why`. */
export async function carryOut(step: Step, input: StepInput, run: FollowUp): Promise<void> {
	const decision = decisionOf(step, input, Date.now());
	// Without a list or a loop there is nothing to decide about: no decision is kept.
	if (step.kind !== "idle" || step.code !== "no-todos") keep(decision, run);
	if (step.kind === "send") return send(step, run);
	if (step.kind === "verify") return verify(step, run);
	if (step.kind === "work" || (step.kind === "idle" && step.code === "workers-busy")) return workAndWait(step, run);
	if (step.kind === "wait") return waitOnOthers(step, run);
	if (step.kind === "stop") markStopped(step.code);
	if (step.kind === "end-loop") setLoop(undefined);
	run.mode.show(step, decision, input, run);
	if (getGoal() && endsGoal(step)) endGoal(step, run);
}

/**
 * Waits as the mode does, then sends the step's message. When anything changed the store during the wait (a
 * command of the user, say), the next step is decided again at send time, and that decision is kept too.
 */
async function send(step: Extract<Step, { kind: "send" }>, run: FollowUp): Promise<void> {
	const decidedOn = getState();
	const waited = await run.mode.wait(step.backoffMs, run.signal);
	if (waited === "interrupted") return interrupted(run);
	if (run.signal.reason === PROMPTED) return keep(promptedOver(run), run);
	if (waited === "cancelled" || run.signal.aborted) return;
	let due: Step = step;
	if (getState() !== decidedOn) {
		const input = currentInput(run);
		due = stepNow(input);
		if (due.kind !== "send") return carryOut(due, input, run);
		keep(decisionOf(due, input, Date.now()), run);
	}
	if (await run.mode.deliver(due.message, run)) recordSend(due);
}

/**
 * A shared plan's finished list: verified once per tip of its branch (edges/team/shared-verdict.ts), by this session
 * or another; the verdict, whoever's, is kept and said here. Another session at it is waited for; a remote that does
 * not answer is tried again until the run stops after the lease.
 */
async function verifyAsTeam(step: Extract<Step, { kind: "verify" }>, run: FollowUp, remote: string): Promise<void> {
	const { joinTeam } = await import("../team/join.ts");
	const { verifyShared } = await import("../team/shared-verdict.ts");
	const { coversChecks } = await import("../../core/rules/shared-verdict.ts");
	const { sessionNonce } = await import("../workers/session-workers.ts");
	const { claimantOf } = await import("../git/claims.ts");
	const { SHARED_VERDICT_TEXTS } = await import("../../core/texts/user/shared-verdict.ts");
	const { applySharedVerdict } = await import("../checks/shared-verification.ts");
	const { holdInterrupt } = await import("../host/interrupt.ts");
	const joined = await joinTeam(run.ctx.cwd, remote, run.config.planFile);
	const team = "team" in joined ? { ...joined.team, remote } : undefined;
	const checked = getTodos();
	const checking = cancelledBy(run.signal, () => getTodos() !== checked);
	// Ctrl+C of pi -p while verifying: the checks stop and the claim is let go before the process ends by it.
	const interrupt = new AbortController();
	const release = holdInterrupt(() => interrupt.abort());
	let outcome: SharedOutcome = { kind: "unreachable" };
	try {
		if (team) {
			const me = claimantOf(run.ctx.sessionManager.getSessionId(), sessionNonce(run.pi));
			const said = SHARED_VERDICT_TEXTS.malformed(team.branch, remote);
			outcome = await verifyShared({
				team,
				claims: { place: team, me, leaseMs: run.config.leaseSeconds * 1000 },
				verifyIn: (cwd, signal) => checksIn(step, checked, cwd, { ...run, signal }),
				covers: (verdict) => coversChecks(verdict, step.checks, step.judge !== "off"),
				onMalformed: () => tell(run.ctx, said, "warning"),
				cwd: run.ctx.cwd,
				signal: AbortSignal.any([checking.signal, interrupt.signal]),
			});
			if (outcome.kind === "verdict") {
				markRemoteAnswered();
				applySharedVerdict(run.pi, run.ctx, outcome.verdict, checked, team);
			}
		}
	} finally {
		checking.release();
		await release();
	}
	if (outcome.kind === "stopped") return setChecking(undefined);
	if (outcome.kind !== "verdict" && (await untilVerifiable(outcome, run, remote, team)) !== "go") return;
	const input = currentInput(run);
	await carryOut(stepNow(input), input, run);
}

/** Runs a verify step's checks with `cwd` (a tree of a shared plan's tip), then the judge; null when stopped. */
async function checksIn(
	step: Extract<Step, { kind: "verify" }>,
	checked: readonly TodoItem[],
	cwd: string,
	run: FollowUp,
): Promise<Found | null> {
	const timeoutSeconds = run.config.checkTimeoutSeconds;
	const exec = checkEnv(run.pi, () => run.config).exec;
	const results = await runVerification(step.checks, { exec, cwd, timeoutSeconds, signal: run.signal });
	const passed = results.every(([, result]) => result.passed);
	const judge = passed ? await judgeOf(step, checked, results, run) : undefined;
	if (run.signal.aborted || judge === null) return null;
	const checks = results.map(([check, result]) => ({
		name: check.what,
		command: check.command,
		passed: result.passed,
		ended: describeCheckEnd(result, timeoutSeconds),
	}));
	return judge === undefined ? { checks } : { checks, judge };
}

/**
 * Waits before a shared plan's verification is tried again: until another session's claim on it moves (its verdict
 * pushed, or it let go) or its lease may have run out; or, the remote silent (said once), a renewal's interval. The
 * user's stops end the wait.
 */
async function untilVerifiable(
	outcome: Exclude<SharedOutcome, { kind: "verdict" | "stopped" }>,
	run: FollowUp,
	remote: string,
	team: SharedTeam | undefined,
): Promise<"go" | "stopped"> {
	const { verificationMoved } = await import("../team/shared-verdict.ts");
	const { renewEveryMs } = await import("../../core/rules/leases.ts");
	const { WORKER_TEXTS } = await import("../../core/texts/user/workers.ts");
	const every = renewEveryMs(run.config.leaseSeconds * 1000);
	if (outcome.kind === "held") markRemoteAnswered();
	else if (markRemoteSilent(performance.now())) tell(run.ctx, WORKER_TEXTS.claimsUnreachable(remote), "warning");
	const end = await untilStopped(run, (signal) => [
		delay(outcome.kind === "held" ? Math.min(outcome.leftMs, every) : every, signal),
		...(team && outcome.kind === "held" ? [verificationMoved(team, signal)] : []),
	]);
	if (end === "key") interrupted(run);
	return end === "go" && !run.signal.aborted ? "go" : "stopped";
}

/** The goal ends with the chain: its own end says why; a list the judge passed says the goal was met with it. */
function endGoal(step: Step, run: FollowUp): void {
	setGoal(undefined);
	if (step.kind === "idle" && step.code === "all-done" && step.verified)
		tellLasting(run.pi, run.ctx, GOAL_MET_WITH_LIST);
}

/**
 * Starts workers on the items of a `work` step, then waits for one of them to end and decides again (a
 * `workers-busy` step only waits).
 */
async function workAndWait(step: Step, run: FollowUp): Promise<void> {
	// Workers that end from here on wake the wait, even those that end while workers are being started.
	const ends = watchWorkerEnds();
	let end: WaitEnd;
	try {
		if (step.kind === "work") await startOn(step.items, run);
		end = await waitForWorkers(run, ends);
	} finally {
		ends.stop();
	}
	if (run.signal.aborted) return;
	if (typeof end === "object") {
		// The run holds until the session has stopped its workers and raised the interrupt again, which ends pi -p.
		await end.stopped;
		return interrupted(run);
	}
	if (end === "key") {
		const { stopWorkers } = await import("../workers/session-workers.ts");
		const { WORKER_TEXTS } = await import("../../core/texts/user/workers.ts");
		tell(run.ctx, WORKER_TEXTS.stoppedByKey(stopTally(await stopWorkers(run.pi))), "info");
		return interrupted(run);
	}
	const input = currentInput(run);
	await carryOut(stepNow(input), input, run);
}

/** Starts workers on `items`; outside a git work tree none starts, and the session's model works its list. */
async function startOn(items: readonly number[], run: FollowUp): Promise<void> {
	const { startWorkers } = await import("../workers/session-workers.ts");
	const request = userRequests(ownEntries(run.ctx)).at(-1) ?? "";
	const started = await startWorkers(items, {
		pi: run.pi,
		ctx: run.ctx,
		request,
		checkTimeoutSeconds: run.config.checkTimeoutSeconds,
		spendFactor: run.config.spendFactor,
		planFile: run.config.planFile,
		remote: run.config.remote,
		leaseSeconds: run.config.leaseSeconds,
	});
	if (!started) markWorkersRefused();
}

/**
 * Every open item held by other sessions: waits `lookAgainMs`, or until one of their claims moves (read every
 * `CLAIMS_POLL_MS`: landed, freed, renewed), then reads the plan file again (the items they landed are completed here)
 * and decides again with the claims to be tried anew (a holder seen unchanged for its lease is taken over). Esc in the
 * TUI, a prompt, `/todos pause` or a session change (the follow-up's cancellation) end the wait; an interrupt of
 * `pi -p` ends the process.
 */
async function waitOnOthers(step: Extract<Step, { kind: "wait" }>, run: FollowUp): Promise<void> {
	const { othersMoved } = await import("../workers/session-workers.ts");
	const held = getClaimedElsewhere();
	const end = await untilStopped(run, (signal) => [delay(step.lookAgainMs, signal), othersMoved(run.pi, held, signal)]);
	if (end === "key") return interrupted(run);
	if (end === "cancelled" || run.signal.aborted) return;
	if (run.config.planFile !== undefined) {
		const { readPlanAgain } = await import("../files/follow.ts");
		readPlanAgain(run.pi, run.ctx, run.config.planFile);
	}
	forgetClaimedElsewhere();
	const input = currentInput(run);
	await carryOut(stepNow(input), input, run);
}

/** Resolves "go" after `ms`, unless `signal` ends the wait first. */
function delay(ms: number, signal: AbortSignal): Promise<"go"> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve("go"), ms);
		signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
	});
}

/** The ends of workers from a decision on, as the store records them, until `stop`. */
interface WorkerEnds {
	/** Resolves at the first end since the decision (at once if there was one), or once none is at work. */
	next(): Promise<void>;
	stop(): void;
}

/**
 * Watches from now on for a worker's end: the worker leaves those at work (`removeWorker`), or its claim was won by
 * another process (its place goes to the next ready item at once, not after a worker's whole item). Watched from the
 * decision, not from the wait: workers end while others start.
 */
function watchWorkerEnds(): WorkerEnds {
	let atWork = getWorkers();
	let ended = false;
	let wake = () => {};
	const unsubscribe = subscribe(() => {
		ended ||= workerLeftBetween(atWork, getWorkers());
		atWork = getWorkers();
		wake();
	});
	const next = () =>
		new Promise<void>((resolve) => {
			wake = () => {
				if (!ended && getWorkers().length > 0) return;
				unsubscribe();
				resolve();
			};
			wake();
		});
	return { next, stop: unsubscribe };
}

/** What ended a wait for workers: one's end, the follow-up's cancellation, Esc in the TUI, or an interrupt caught. */
type WaitEnd = "ended" | "cancelled" | "key" | InterruptStop;

/**
 * Waits for the next worker to end; Esc in the TUI (to stop every worker), an interrupt of the process (SIGINT: the
 * session stops them) and the follow-up's cancellation (a prompt, `/todos pause`, a session change) end the wait too.
 */
async function waitForWorkers(run: FollowUp, ends: WorkerEnds): Promise<WaitEnd> {
	const { workersInterrupted } = await import("../workers/session-workers.ts");
	return untilStopped(run, (signal) => [ends.next().then(() => "ended" as const), workersInterrupted(run.pi, signal)]);
}

/**
 * The first of what `awaited` gives (each told by `signal` when the wait is over) and the user's stops: the
 * follow-up's cancellation, or Esc in the TUI. Each wait's listeners go with it: a chain of many waits waits on one
 * follow-up's signal.
 */
async function untilStopped<T>(
	run: FollowUp,
	awaited: (signal: AbortSignal) => Promise<T>[],
): Promise<T | "cancelled" | "key"> {
	const waiting = new AbortController();
	const cancelled = new Promise<"cancelled">((resolve) =>
		run.signal.addEventListener("abort", () => resolve("cancelled"), { once: true, signal: waiting.signal }),
	);
	const keyed = run.mode.stopKey(waiting.signal).then(() => "key" as const);
	try {
		return await Promise.race([...awaited(waiting.signal), cancelled, keyed]);
	} finally {
		waiting.abort();
	}
}

/** Why a follow-up is cancelled when a prompt of the user's takes its place (the engine aborts with it). */
export const PROMPTED = "prompted";

/** A prompt of the user's took the place of a continuation that was counting down. */
function promptedOver(run: FollowUp): Decision {
	return decisionOf({ kind: "idle", code: "interrupted", byPrompt: true }, currentInput(run), Date.now());
}

/**
 * The user interrupted a countdown: nothing is sent, the decision says so and the status bar shows it until the next
 * prompt, and a `/loop` that was waiting for it ends.
 */
function interrupted(run: FollowUp): void {
	const input = currentInput(run);
	keep(decisionOf({ kind: "idle", code: "interrupted" }, input, Date.now()), run);
	markStopped("interrupted");
	if (getGoal() !== undefined) {
		setGoal(undefined);
		tell(run.ctx, GOAL_ENDS.byUser, "info");
	}
	if (getLoop() === undefined) return;
	setLoop(undefined);
	tell(run.ctx, LOOP_ENDS.byUser, "info");
}

/**
 * Runs the checks a `verify` step names, then (every check passed) the judge, stores what they found, and carries
 * out what follows, decided from the store. A verdict holds for the list it checked only: any change to the list
 * while a check runs (a command of the user, a move in the tree) cancels the checks, and the list is verified again
 * when it is next finished.
 */
async function verify(step: Extract<Step, { kind: "verify" }>, run: FollowUp): Promise<void> {
	const remote = sharedRemote(run.config.remote);
	if (remote !== undefined && getTodos().length > 0) return verifyAsTeam(step, run, remote);
	const timeoutSeconds = run.config.checkTimeoutSeconds;
	const exec = checkEnv(run.pi, () => run.config).exec;
	const checked = getTodos();
	const checking = cancelledBy(run.signal, () => getTodos() !== checked);
	try {
		const results = await runVerification(step.checks, {
			exec,
			cwd: run.ctx.cwd,
			timeoutSeconds,
			signal: checking.signal,
		});
		const passed = results.every(([, result]) => result.passed);
		const judge = passed ? await judgeOf(step, checked, results, { ...run, signal: checking.signal }) : undefined;
		if (checking.signal.aborted || judge === null) return setChecking(undefined);
		if (checked.length === 0 && judge) recordGoalVerdict(goalVerdictOf(judge));
		else applyVerification(run.pi, currentInput(run), results, timeoutSeconds, checked, judge);
	} finally {
		checking.release();
	}
	const input = currentInput(run);
	await carryOut(stepNow(input), input, run);
}

/**
 * The judge's verdict on the list `checked`: asked now, or the one kept for it (asked at most once per state of the
 * list); undefined when the judge is off, null when the call was cancelled. A call that gives no verdict is said once.
 */
async function judgeOf(
	step: Extract<Step, { kind: "verify" }>,
	checked: readonly TodoItem[],
	results: readonly [VerificationCheck, CheckRun][],
	run: FollowUp,
): Promise<JudgeResult | undefined | null> {
	if (step.judge === "off") return undefined;
	if (step.judge === "kept") return getVerification()?.judge;
	const { askJudge } = await import("../checks/judge.ts");
	const { gatherEvidence } = await import("../checks/evidence.ts");
	const branch = ownEntries(run.ctx);
	const checks = results.map(([check, result]) => ({
		what: check.what,
		passed: result.passed,
		ended: describeCheckEnd(result, run.config.checkTimeoutSeconds),
	}));
	const goal = getGoal()?.condition;
	const input = {
		requests: userRequests(branch),
		todos: checked,
		checks,
		...(await gatherEvidence(run.ctx, branch, checked, run.config.checkpoints)),
		...(goal === undefined ? {} : { goal }),
	};
	const judge = await askJudge(input, run);
	if (judge === undefined) return null;
	// A goal without a list ends with its own word on a judge that gave none.
	if (!judge.judged && checked.length > 0) tell(run.ctx, JUDGE_TEXTS.notJudgedNotice(judge.why), "warning");
	return judge;
}

/** The judge's word on a goal without a list, as the goal keeps it. */
function goalVerdictOf(judge: JudgeResult): NonNullable<GoalState["verdict"]> {
	if (!judge.judged) return { why: judge.why };
	return judge.goal ? { word: judge.goal.verdict, reason: judge.goal.reason } : { why: JUDGE_PROMPT.unread.noGoal };
}

/** A signal aborted with `parent`, or as soon as a change of the store makes `changed` true. */
function cancelledBy(parent: AbortSignal, changed: () => boolean): { signal: AbortSignal; release: () => void } {
	const controller = new AbortController();
	const abort = () => controller.abort();
	parent.addEventListener("abort", abort);
	const unsubscribe = subscribe(() => {
		if (changed()) abort();
	});
	if (parent.aborted) abort();
	return {
		signal: controller.signal,
		release: () => {
			unsubscribe();
			parent.removeEventListener("abort", abort);
		},
	};
}
