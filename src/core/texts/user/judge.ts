/**
 * What the user reads of the judge: how its verdict failed a list, and why it gave none. Loaded with the judge's
 * verdicts and goals.
 */

import { oneLine, prefix } from "../sanitize.ts";
import { failedCheck, formatCost, formatTokens } from "../user.ts";

/** Characters of the judge's reason the status bar and `/todos why` repeat; the whole reason goes to the model. */
export const JUDGE_REASON_SHOWN = 120;

/** What the user reads of the judge: how its verdict failed a list, and why it gave none. */
export const JUDGE_TEXTS = {
	name: "the judge",
	itemFailed: (index: number, verdict: string, reason: string) =>
		failedCheck("the judge", `[${index}] ${verdict}: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`),
	goalFailed: ({ verdict, reason }: { verdict: string; reason: string }) =>
		failedCheck("the judge", `goal ${verdict}: ${prefix(oneLine(reason), JUDGE_REASON_SHOWN)}`),
	notJudged: (why: string) => failedCheck("the judge", `not judged: ${why}`),
	/** Said once, when a call of the judge gives no verdict. */
	notJudgedNotice: (why: string) => `pi-til-done: the judge gave no verdict (${why}): the list is not verified.`,
	unknownModel: (name: string) => `pi knows no model ${name}`,
	noModel: "the session has no model",
	noAuth: (name: string) => `pi has no credentials for ${name}`,
	overTokens: (forecast: number, budget: number) =>
		`its call would bring the chain to ${formatTokens(forecast)} tokens, over the budget of ${formatTokens(budget)}`,
	overCost: (forecast: number, budget: number) =>
		`its call would bring the chain's cost to ${formatCost(forecast)}, over the budget of ${formatCost(budget)}`,
	timedOut: (seconds: number) => `no answer within ${seconds} s`,
	failed: (message: string) => `the call failed: ${prefix(oneLine(message), JUDGE_REASON_SHOWN)}`,
	/** The check status while the judge is asked. */
	asking: (model: string) => ({ what: "the judge", command: model }),
} as const;
