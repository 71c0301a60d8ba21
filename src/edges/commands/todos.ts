/** `/todos`: the user's controls to see and change the list and the auto-continue. */

import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { withMoved, withRemoved, withStatus } from "../../core/list/changes.ts";
import { isValidCheck } from "../../core/list/items.ts";
import { formatTodoListText } from "../../core/list/list-text.ts";
import { parentsCompletedBy } from "../../core/list/ready.ts";
import { DEFAULT_PLAN_FILE, INITIAL_STATUS, type TodoStatus } from "../../core/model/types.ts";
import { breakerReport, stopWords } from "../../core/rules/breakers.ts";
import type { ChainState } from "../../core/rules/chain.ts";
import { DONE_CHECK_ENTRY_TYPE, PAUSE_ENTRY_TYPE } from "../../core/rules/keys.ts";
import { stepNow } from "../../core/rules/next-step.ts";
import {
	BOOLEAN_SETTINGS,
	NUMERIC_SETTINGS,
	parseSwitch,
	TEXT_SETTINGS,
	type TilDoneConfig,
} from "../../core/rules/settings.ts";
import { type StatusWord, statusRefusal } from "../../core/rules/status-rules.ts";
import {
	type Parsed,
	parseFile,
	parseIndexAndText,
	parseIndices,
	parseMove,
	parseNothing,
	parseRemoteAsk,
	parseText,
	parseWorkersAsk,
	quoted,
	roomFor,
	wordsOf,
} from "../../core/rules/todo-args.ts";
import { itemsWorkedOn, MAX_WORKERS } from "../../core/rules/worker-dispatch.ts";
import {
	COUNTDOWN_IN_RUN,
	formatWhy,
	spentLine,
	TODO_ARG_REFUSALS,
	TODOS_ANSWERS,
	TODOS_HELP,
	TODOS_STATUS,
} from "../../core/texts/user/todos.ts";
import { NEXT_RUN } from "../../core/texts/user.ts";
import {
	appendTodos,
	bindToSession,
	effectiveDoneCheck,
	getChain,
	getDecisions,
	getEndedWorkers,
	getLoop,
	getTodos,
	getWorkers,
	isPanelEnabled,
	pauseAutoContinue,
	resetChain,
	resumeAutoContinue,
	setBranchDoneCheck,
	setPanelEnabled,
	setTodos,
	sharedRemote,
	workersFor,
} from "../../state.ts";
import { commitUserList } from "../host/commit.ts";
import { modelInputPrice, modelPriced } from "../host/model-price.ts";
import { tell } from "../host/tell.ts";
import { currentInput } from "../run/carry-out.ts";
import type { Engine } from "../run/engine.ts";
import type { CheckpointCall } from "./checkpoints.ts";
import { refuseCommand } from "./refuse.ts";

/** What a `/todos` subcommand needs. */
interface TodosCall {
	pi: ExtensionAPI;
	engine: Engine;
	config: TilDoneConfig;
	ctx: ExtensionCommandContext;
	/** Everything after the subcommand, trimmed. */
	rest: string;
	sub: string;
}

/** Completions for the first word after `/todos`. */
export function completeTodosArgs(prefix: string): { value: string; label: string; description: string }[] | null {
	if (prefix.includes(" ")) return null;
	const matches = TODOS_SUBCOMMANDS.filter((sub) => sub.name.startsWith(prefix.trim()));
	return matches.length > 0
		? matches.map((sub) => ({ value: sub.name, label: sub.name, description: sub.description }))
		: null;
}

/** Whether checks the model writes can run now: they need model checks on and pi's bash tool active. */
function itemChecksState(config: TilDoneConfig, activeTools: readonly string[]): string {
	if (!config.modelChecks) return TODOS_STATUS.checksOff;
	return activeTools.includes("bash") ? TODOS_STATUS.on : TODOS_STATUS.checksWithoutBash;
}

/** On, paused (and why), or stopped by a breaker or a budget until the user acts. */
function autoContinueState(chain: Readonly<ChainState>): string {
	if (chain.paused) return TODOS_STATUS.paused(chain.pauseReason);
	return chain.stopped === undefined ? TODOS_STATUS.on : TODOS_STATUS.stopped(stopWords(chain.stopped));
}

/** What `/todos status` reads off the host: pi's active tools, the model's price, and whether runs go on in-run. */
export interface StatusHost {
	activeTools: readonly string[];
	inputPrice?: number;
	priced?: boolean;
	/** Print and JSON modes: no countdown, the chain goes on inside the run. */
	inRun?: boolean;
	/** Every todo is done, by the next-step rules (finished, and verified where something verifies it). */
	listDone?: boolean;
}

/** A one-paragraph account of the auto-continue for `/todos status`. */
export function formatStatusReport(
	config: TilDoneConfig,
	{ activeTools, inputPrice, priced = true, inRun = false, listDone = false }: StatusHost,
): string {
	const chain = getChain();
	const doneCheck = effectiveDoneCheck(config.doneCheck);
	const next = getLoop() ? NEXT_RUN.loop : NEXT_RUN.chain;
	return [
		TODOS_STATUS.autoContinue(autoContinueState(chain)),
		spentLine(chain.spend),
		...breakerReport({ chain, inputPrice, priced, next, tail: "", listDone }, config),
		inRun ? COUNTDOWN_IN_RUN : TODOS_STATUS.countdown(config.countdownSeconds),
		TODOS_STATUS.reminder(config.remindEvery),
		TODOS_STATUS.doneCheck(doneCheck),
		TODOS_STATUS.itemChecks(itemChecksState(config, activeTools), config.checkTimeoutSeconds),
		TODOS_STATUS.judge(config.judge, chain.spend.judge),
		TODOS_STATUS.workers(workersFor(config), chain.spend.workers),
	].join("\n");
}

/** Runs `/todos <args>` (a subcommand and what follows it): the command's run, which todos-command.ts loads on first use. */
export function runTodos(
	pi: ExtensionAPI,
	engine: Engine,
	config: TilDoneConfig,
	args: string,
	ctx: ExtensionCommandContext,
) {
	const trimmed = args.trim();
	const sub = trimmed.split(/\s+/)[0] ?? "";
	const rest = trimmed.slice(sub.length).trim();
	return runTodosCommand({ pi, engine, config, ctx, rest, sub });
}

interface Subcommand {
	/** How it is written, after `/todos `. */
	usage: string;
	/** What it does, in one line. */
	help: string;
	run: (call: TodosCall) => void | Promise<void>;
}

/** Refuses what a subcommand did not understand: why, then its usage; nothing changes. */
function refuse(call: TodosCall, why: string): void {
	const usage = SUBCOMMANDS[call.sub]?.usage ?? call.sub;
	refuseCommand(call.engine, call.ctx, TODOS_ANSWERS.refused(call.sub, why, usage));
}

/** Runs `apply` with what `parsed` holds, or refuses with its error. */
function withParsed<T>(
	call: TodosCall,
	parsed: Parsed<T>,
	apply: (value: T) => void | Promise<void>,
): void | Promise<void> {
	return "error" in parsed ? refuse(call, parsed.error) : apply(parsed.value);
}

/** A change of the list by the user: stored, shown, and (for the ones that go on) carried on from. */
async function changed(call: TodosCall, answer: string, goOn: boolean): Promise<void> {
	commitUserList(call.pi);
	tell(call.ctx, answer);
	if (goOn) await call.engine.resume(call.ctx);
}

const list = (): string => formatTodoListText(getTodos());

/**
 * Every `/todos` subcommand with its usage and help (TODOS_HELP's) and what runs it, in the order `/todos help` lists
 * them ("" is `/todos` alone: the list).
 */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
	"": { ...TODOS_HELP[""], run: showList },
	help: { ...TODOS_HELP.help, run: showHelp },
	add: { ...TODOS_HELP.add, run: addItem },
	edit: { ...TODOS_HELP.edit, run: editText },
	remove: { ...TODOS_HELP.remove, run: removeItems },
	move: { ...TODOS_HELP.move, run: moveItem },
	start: { ...TODOS_HELP.start, run: setStatus("start") },
	done: { ...TODOS_HELP.done, run: setStatus("done") },
	abandon: { ...TODOS_HELP.abandon, run: setStatus("abandon") },
	review: { ...TODOS_HELP.review, run: setReview(true) },
	unreview: { ...TODOS_HELP.unreview, run: setReview(false) },
	approve: { ...TODOS_HELP.approve, run: setStatus("approve") },
	check: { ...TODOS_HELP.check, run: setDoneCheck },
	clear: { ...TODOS_HELP.clear, run: clearList },
	export: {
		...TODOS_HELP.export,
		run: (call) =>
			withParsed(call, parseFile(call.rest, call.config.planFile ?? DEFAULT_PLAN_FILE), async (file) => {
				const { exportPlan } = await import("./plan-file.ts");
				exportPlan(call.ctx, file, (text) => refuseCommand(call.engine, call.ctx, text));
			}),
	},
	import: {
		...TODOS_HELP.import,
		run: (call) =>
			withParsed(call, parseFile(call.rest), async (file) => {
				const { importPlan } = await import("./plan-file.ts");
				const answer = await importPlan(call.ctx, file, (text) => refuseCommand(call.engine, call.ctx, text));
				if (answer !== undefined) await changed(call, answer, false);
			}),
	},
	pause: { ...TODOS_HELP.pause, run: pause },
	resume: { ...TODOS_HELP.resume, run: resume },
	status: { ...TODOS_HELP.status, run: showStatus },
	why: { ...TODOS_HELP.why, run: showWhy },
	panel: { ...TODOS_HELP.panel, run: switchPanel },
	diff: { ...TODOS_HELP.diff, run: checkpoint("showDiff") },
	revert: { ...TODOS_HELP.revert, run: checkpoint("revertItem") },
	checkpoints: { ...TODOS_HELP.checkpoints, run: checkpoint("showCheckpoints") },
	workers: {
		...TODOS_HELP.workers,
		run: (call) =>
			withParsed(
				call,
				parseWorkersAsk(call.rest, MAX_WORKERS, itemsWorkedOn(getWorkers(), getEndedWorkers())),
				async (ask) => {
					const commands = await import("./workers.ts");
					if (ask === undefined) return commands.showWorkers(call.ctx, workersFor(call.config));
					if (ask === "clean") return void (await commands.cleanWorkers(call.ctx, (why) => refuse(call, why)));
					if ("item" in ask) return commands.showWorkerAnswer(call.ctx, ask.item);
					const asked = { count: ask.count, remote: sharedRemote(call.config.remote) };
					if (await commands.setWorkers(call.ctx, asked, (why) => refuse(call, why)))
						await call.engine.resume(call.ctx);
				},
			),
	},
	remote: {
		...TODOS_HELP.remote,
		run: (call) =>
			withParsed(call, parseRemoteAsk(call.rest, getTodos().length), async (ask) => {
				const commands = await import("./remote.ts");
				const refuseWith = (why: string) => refuse(call, why);
				if (ask === undefined) return commands.showTeam(call.ctx, call.config, refuseWith);
				const waiting = getDecisions().at(-1)?.code === "held-elsewhere";
				if (ask === "off") commands.workAlone(call.ctx);
				else if ("release" in ask) await commands.releaseByHand(call.ctx, call.config, ask.release, refuseWith);
				else if (!(await commands.joinRemote(call.ctx, call.config, ask.join, refuseWith))) return;
				// A session waiting on others decides again at once: where it claims, or what it may take, changed.
				if (waiting) await call.engine.resume(call.ctx);
			}),
	},
};

/** A checkpoint subcommand of edges/commands/checkpoints.ts (loaded on first use) with this call's refusal. */
function checkpoint(name: "showDiff" | "revertItem" | "showCheckpoints"): Subcommand["run"] {
	return async (call) => {
		const commands = await import("./checkpoints.ts");
		const checkpointCall: CheckpointCall = {
			ctx: call.ctx,
			rest: call.rest,
			refuseArgs: (why) => refuse(call, why),
			refuse: (text) => refuseCommand(call.engine, call.ctx, text),
		};
		await commands[name](checkpointCall);
	};
}

/** Subcommands of `/todos`, with the help text argument completion shows. */
export const TODOS_SUBCOMMANDS: readonly { name: string; description: string }[] = Object.entries(SUBCOMMANDS)
	.filter(([name]) => name !== "")
	.map(([name, { usage, help }]) => ({ name, description: TODOS_ANSWERS.subcommand(usage, help) }));

async function runTodosCommand(call: TodosCall): Promise<void> {
	const subcommand = Object.hasOwn(SUBCOMMANDS, call.sub) ? SUBCOMMANDS[call.sub] : undefined;
	if (subcommand) return subcommand.run(call);
	refuseCommand(call.engine, call.ctx, TODOS_ANSWERS.unknown(quoted(call.sub), helpText()));
}

/** One line per subcommand: how it is written, and what it does. */
function helpText(): string {
	return TODOS_ANSWERS.help(TODOS_SUBCOMMANDS.map((sub) => sub.description));
}

/** Every setting with its flag, its variable and its value in this session. */
function settingsText(config: TilDoneConfig): string {
	const settings = [...NUMERIC_SETTINGS, ...TEXT_SETTINGS, ...BOOLEAN_SETTINGS];
	return TODOS_ANSWERS.settings(settings.map((setting) => [setting.flag, setting.env, config[setting.key]]));
}

function showHelp(call: TodosCall): void {
	const [word, extra] = wordsOf(call.rest);
	const sub = word !== undefined && Object.hasOwn(SUBCOMMANDS, word) && word !== "" ? SUBCOMMANDS[word] : undefined;
	if (word === undefined) tell(call.ctx, `${helpText()}\n${settingsText(call.config)}`);
	else if (!sub || extra !== undefined) refuse(call, TODO_ARG_REFUSALS.notASubcommand(quoted(call.rest)));
	else tell(call.ctx, TODOS_ANSWERS.usage(sub.usage, sub.help));
}

/** The view in the TUI; elsewhere (RPC, print, JSON) the list as text. */
function showList(call: TodosCall): void | Promise<void> {
	if (call.ctx.mode === "tui") return openListView(call);
	tell(call.ctx, formatTodoListText(getTodos()));
}

/**
 * The interactive list until the user closes it. Its keys make the changes of `/todos approve|done|start`, each stored
 * at once; the chain goes on once the view is closed, so that the view's own keys never interrupt a countdown.
 */
async function openListView(call: TodosCall): Promise<void> {
	const { ListView } = await import("../../core/views/list-view.ts");
	let goOn = false;
	await call.ctx.ui.custom<void>(
		(tui, theme, _keybindings, done) =>
			// The view's keys arrive from the TUI, outside the session: its callbacks are bound to it.
			new ListView({
				todos: bindToSession(getTodos),
				change: bindToSession((word: StatusWord, index: number) => {
					applyStatus(word, [index]);
					commitUserList(call.pi);
					goOn ||= STATUS_WORDS[word].goOn;
				}),
				close: () => done(),
				style: theme,
				rows: () => tui.terminal.rows,
			}),
	);
	if (goOn) await call.engine.resume(call.ctx);
}

function addItem(call: TodosCall): void | Promise<void> {
	const room = roomFor(getTodos().length);
	if ("error" in room) return refuse(call, room.error);
	return withParsed(call, parseText(call.rest), (text) => {
		appendTodos([{ text, status: INITIAL_STATUS }]);
		return changed(call, TODOS_ANSWERS.added(getTodos().length - 1, text), true);
	});
}

function editText(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseIndexAndText(call.rest, getTodos().length), ({ index, text }) => {
		setTodos(getTodos().map((todo, at) => (at === index ? { ...todo, text } : todo)));
		return changed(call, list(), false);
	});
}

function removeItems(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
		setTodos(withRemoved(getTodos(), indices));
		return changed(call, list(), false);
	});
}

function moveItem(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseMove(call.rest, getTodos().length), ({ from, to }) => {
		setTodos(withMoved(getTodos(), from, to));
		return changed(call, list(), false);
	});
}

/** What each status subcommand sets, and whether the chain goes on after it. */
const STATUS_WORDS: Readonly<Record<StatusWord, { status: TodoStatus; goOn: boolean }>> = {
	start: { status: "in_progress", goOn: true },
	done: { status: "completed", goOn: true },
	abandon: { status: "abandoned", goOn: false },
	approve: { status: "completed", goOn: true },
};

/** The user's word sets the status of the items at `indices`; no check needs to pass. */
function applyStatus(word: StatusWord, indices: readonly number[]): void {
	const { status } = STATUS_WORDS[word];
	// The user's word closes a parent whose last open subtask it finishes, review mark or not.
	setTodos(withStatus(getTodos(), indices, status, parentsCompletedBy(getTodos(), indices, status)));
}

/** start, done, abandon, approve: the status of every item given, where the rules let it change. */
function setStatus(word: StatusWord): Subcommand["run"] {
	return (call) =>
		withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
			const refused = statusRefusal(getTodos(), word, indices);
			if (refused !== undefined) return refuse(call, refused);
			applyStatus(word, indices);
			return changed(call, list(), STATUS_WORDS[word].goOn);
		});
}

/** review and unreview: only the user marks an item theirs to close, or takes the mark off. */
function setReview(review: boolean): Subcommand["run"] {
	return (call) =>
		withParsed(call, parseIndices(call.rest, getTodos().length), (indices) => {
			setTodos(
				getTodos().map((todo, index) => {
					if (!indices.includes(index)) return todo;
					const { review: _, ...rest } = todo;
					return review ? { ...rest, review: true } : rest;
				}),
			);
			return changed(call, list(), false);
		});
}

function clearList(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), () => {
		setTodos([]);
		return changed(call, TODOS_ANSWERS.cleared, false);
	});
}

function pause({ pi, engine, ctx, rest }: TodosCall): void {
	engine.pause(ctx);
	pauseAutoContinue("user", rest || undefined);
	pi.appendEntry(PAUSE_ENTRY_TYPE, rest ? { paused: true, reason: rest } : { paused: true });
	tell(ctx, TODOS_ANSWERS.paused);
}

function resume(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), async () => {
		resumeAutoContinue();
		call.pi.appendEntry(PAUSE_ENTRY_TYPE, { paused: false });
		resetChain();
		tell(call.ctx, TODOS_ANSWERS.resumed);
		await call.engine.resume(call.ctx);
	});
}

function showStatus(call: TodosCall): void | Promise<void> {
	const { pi, ctx, config } = call;
	return withParsed(call, parseNothing(call.rest), () =>
		tell(
			ctx,
			formatStatusReport(config, {
				activeTools: pi.getActiveTools(),
				inputPrice: modelInputPrice(ctx),
				priced: modelPriced(ctx),
				inRun: call.engine.actsBeforeSettle,
				listDone: stepNow(currentInput({ pi, ctx, config })).code === "all-done",
			}),
		),
	);
}

function showWhy(call: TodosCall): void | Promise<void> {
	return withParsed(call, parseNothing(call.rest), () => tell(call.ctx, formatWhy(getDecisions())));
}

function switchPanel(call: TodosCall): void {
	const word = call.rest.trim();
	const enabled = word === "" ? !isPanelEnabled() : parseSwitch(word);
	if (enabled === undefined) {
		refuse(call, TODO_ARG_REFUSALS.neitherOnNorOff(quoted(word)));
		return;
	}
	setPanelEnabled(enabled);
	tell(call.ctx, TODOS_ANSWERS.panel(enabled));
}

/** `/todos check [<command>|off]`: shows, sets or turns off the done-check, stored on the branch. */
function setDoneCheck(call: TodosCall): void {
	const { pi, ctx, config, rest } = call;
	if (rest === "") {
		const command = effectiveDoneCheck(config.doneCheck);
		tell(ctx, command === undefined ? TODOS_ANSWERS.noDoneCheck : TODOS_STATUS.doneCheck(command));
		return;
	}
	const command = rest === "off" ? null : rest;
	if (command !== null && !isValidCheck(command)) {
		refuse(call, TODO_ARG_REFUSALS.commandTooLong);
		return;
	}
	pi.appendEntry(DONE_CHECK_ENTRY_TYPE, { command });
	setBranchDoneCheck(command);
	tell(ctx, command === null ? TODOS_ANSWERS.doneCheckOff : TODOS_ANSWERS.doneCheckSet(command));
}
