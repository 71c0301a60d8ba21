/**
 * The store, a module-scoped singleton: the todo list, the continuation chain, the `/loop` in progress, the checks
 * and the decisions. Every write goes through one setter that tells the subscribers (the session's painter,
 * edges/host/painter.ts, among them); it never touches the UI itself. It is rebuilt from the session branch.
 *
 * The seed's face of the store: its writers and readers live in `store/`, grouped by what they change (the list, the
 * chain, the workers, the verification, the session, the rebuild), around its ground (`store/scope.ts`: each
 * session's part, and the one setter, which no module outside the folder reaches).
 */

export type { Verification } from "./core/rules/verdict.ts";
export type { RunningCheck, UiView } from "./core/views/status-entries.ts";
export {
	getChain,
	getChainStart,
	getDecisions,
	getGoal,
	getLoop,
	holdEndedRun,
	MAX_DECISIONS,
	markReviewAnnounced,
	markStopped,
	pauseAutoContinue,
	recordChainStart,
	recordDecision,
	recordGoalVerdict,
	recordJudgeUsage,
	recordRun,
	recordSend,
	recordUsage,
	resetChain,
	resumeAutoContinue,
	setGoal,
	setLoop,
	takeEndedRun,
} from "./store/chain.ts";
export {
	appendTodos,
	completeWorkerItem,
	getTodos,
	insertTodos,
	isCompletionAnnounced,
	markCompletionAnnounced,
	setTodos,
	updateTodoStatus,
} from "./store/list.ts";
export { reconstructState } from "./store/rebuild.ts";
export {
	allowStoreOutsideSessions,
	bindToSession,
	getState,
	inSession,
	resetState,
	type SessionScope,
	type StoreState,
	scopeEverySession,
	sessionOf,
	subscribe,
} from "./store/scope.ts";
export {
	beginSession,
	chooseRemote,
	getConfig,
	getRole,
	isPanelEnabled,
	isRunRefused,
	markRunRefused,
	planFileHash,
	planFileText,
	rememberPlanFile,
	setPanelEnabled,
	sharedRemote,
	takeUnreported,
} from "./store/session.ts";
export {
	effectiveDoneCheck,
	getBranchDoneCheck,
	getVerification,
	isJudged,
	isVerified,
	judgeIsOn,
	recordVerdict,
	setBranchDoneCheck,
	setChecking,
} from "./store/verification.ts";
export {
	addWorker,
	allowWorkers,
	forgetClaimedElsewhere,
	getClaimedElsewhere,
	getClaimsMalformed,
	getEndedWorkers,
	getLookAgainMs,
	getWorkers,
	hasJoined,
	listSharedSince,
	markClaimedElsewhere,
	markJoined,
	markLanding,
	markListShared,
	markRemoteAnswered,
	markRemoteSilent,
	markWorkersRefused,
	markWorkersUnable,
	noteWorker,
	placeWorker,
	recordWorkerAnswer,
	recordWorkerEnd,
	recordWorkerStreaming,
	recordWorkerUsage,
	remoteSilentSince,
	removeWorker,
	workerNote,
	workersAllowed,
	workersFor,
} from "./store/workers.ts";
