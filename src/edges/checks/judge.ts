/**
 * Asking the judge: one model call through pi's model registry with the user's credentials (the session's model, or
 * the one the setting names), no tools, no extensions. Its spend counts in the chain's; a call that would cross a
 * budget is not made. Whatever goes wrong, the result is "not judged", never a pass.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	buildJudgePrompt,
	itemsToJudge,
	JUDGE_MAX_ANSWER_TOKENS,
	type JudgeInput,
	judgeForecastTokens,
	readJudgeAnswer,
} from "../../core/rules/judge.ts";
import { judgeModelOf, type TilDoneConfig } from "../../core/rules/settings.ts";
import { forecastSpend } from "../../core/rules/usage.ts";
import type { JudgeResult } from "../../core/rules/verdict.ts";
import { textOfContent } from "../../core/texts/sanitize.ts";
import { JUDGE_TEXTS } from "../../core/texts/user/judge.ts";
import { getChain, recordJudgeUsage, setChecking } from "../../state.ts";

type Model = NonNullable<ExtensionContext["model"]>;

/**
 * The model that judges: the one the setting names, else the session's; or why pi cannot call it. pi's quick answer
 * on credentials lags an extension's provider registered a moment ago, so a "no" is asked again of the credentials.
 */
async function judgeModel(ctx: ExtensionContext, choice: string): Promise<Model | { why: string }> {
	const named = judgeModelOf(choice);
	const model = named ? ctx.modelRegistry.find(named.provider, named.id) : ctx.model;
	if (!model) return { why: named ? JUDGE_TEXTS.unknownModel(choice) : JUDGE_TEXTS.noModel };
	if (ctx.modelRegistry.hasConfiguredAuth(model)) return model;
	const auth = await ctx.modelRegistry.getProviderAuth(model.provider).catch(() => undefined);
	return auth ? model : { why: JUDGE_TEXTS.noAuth(`${model.provider}/${model.id}`) };
}

/**
 * Why the model a judge setting names cannot be called (pi knows no such model, or has no credentials for it), asked
 * when the session starts. `on` names none: the session's model is pi's to check, and a session may have none yet.
 */
export async function namedJudgeProblem(ctx: ExtensionContext, choice: string): Promise<string | undefined> {
	if (judgeModelOf(choice) === undefined) return undefined;
	const model = await judgeModel(ctx, choice);
	return "why" in model ? model.why : undefined;
}

/** Why the judge's call may not be made within the chain's budgets, by the forecast of its tokens and cost. */
function overBudget(model: Model, promptChars: number, asked: number, config: TilDoneConfig): string | undefined {
	const forecast = forecastSpend(getChain().spend, judgeForecastTokens(promptChars, asked), model.cost.input);
	if (config.budgetTokens > 0 && forecast.tokens > config.budgetTokens) {
		return JUDGE_TEXTS.overTokens(forecast.tokens, config.budgetTokens);
	}
	const { cost } = forecast;
	if (config.budgetCost > 0 && cost > config.budgetCost) return JUDGE_TEXTS.overCost(cost, config.budgetCost);
	return undefined;
}

/** What asking the judge needs: the session, its settings, and the signal that cancels the call. */
export interface JudgeCall {
	ctx: ExtensionContext;
	config: TilDoneConfig;
	signal: AbortSignal;
}

/**
 * Asks the judge about `input` and returns its verdict, or "not judged" with why; undefined when `signal` cancelled
 * the call (the list changed, the user acted): nothing is then concluded.
 */
export async function askJudge(
	input: JudgeInput,
	{ ctx, config, signal }: JudgeCall,
): Promise<JudgeResult | undefined> {
	const model = await judgeModel(ctx, config.judge);
	if ("why" in model) return { judged: false, why: model.why };
	const name = `${model.provider}/${model.id}`;
	const asked = itemsToJudge(input.todos);
	const { system, prompt } = buildJudgePrompt(input);
	const over = overBudget(model, system.length + prompt.length, asked.length, config);
	if (over) return { judged: false, why: over };
	setChecking(JUDGE_TEXTS.asking(name));
	const timeout = AbortSignal.timeout(config.checkTimeoutSeconds * 1000);
	let answer: Awaited<ReturnType<typeof ctx.modelRegistry.complete>>;
	try {
		answer = await ctx.modelRegistry.complete(
			model,
			{
				systemPrompt: system,
				messages: [{ role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() }],
			},
			{ signal: AbortSignal.any([signal, timeout]), maxTokens: JUDGE_MAX_ANSWER_TOKENS },
		);
	} catch (error) {
		if (signal.aborted) return undefined;
		return { judged: false, why: JUDGE_TEXTS.failed(error instanceof Error ? error.message : String(error)) };
	}
	recordJudgeUsage(answer);
	if (signal.aborted) return undefined;
	if (timeout.aborted) return { judged: false, why: JUDGE_TEXTS.timedOut(config.checkTimeoutSeconds) };
	if (answer.stopReason === "error" || answer.stopReason === "aborted") {
		return { judged: false, why: JUDGE_TEXTS.failed(answer.errorMessage ?? answer.stopReason) };
	}
	return readJudgeAnswer(textOfContent(answer.content), asked, input.goal !== undefined);
}
