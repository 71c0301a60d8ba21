/**
 * What the judge costs on the benchmark lists, in the real pi CLI: the model works the whole list in one run (as in
 * bench/context.ts), then the judge (the fake model's second model) finds every item met. Reported: the judge's
 * prompt in characters (its system prompt and its one user message), the bound the prompt cannot exceed whatever the
 * list, and the judge's share of the chain's tokens (pi-ai's faux count, the same for the working model's calls).
 */

import { join } from "node:path";
import { MAX_JUDGE_PROMPT_CHARS } from "../src/core/rules/judge.ts";
import { DEFAULT_HOST, EXTENSION_ENTRY, isolatedEnv, type PiHost, runPrint } from "../test/helpers/cli.ts";
import { fakeJudgeTokens, JUDGE_ARGS, judgeCalls, judgeSays, scriptJudge } from "../test/helpers/judge.ts";
import { sessionEntries } from "../test/helpers/session-file.ts";
import { usageOf } from "../test/helpers/usage.ts";
import { type ContextJob, itemTexts, oneRunScript } from "./context.ts";

export interface JudgeFigures {
	/** Characters of the judge's prompt: its system prompt and its user message. */
	promptChars: number;
	/** The judge's tokens, and the whole chain's (the working model's calls and the judge's). */
	judgeTokens: number;
	chainTokens: number;
	calls: number;
}

/** Runs `job` in one run with the judge on; throws unless the judge was asked once and the list passed. */
export async function measureJudge(job: ContextJob, host: PiHost = DEFAULT_HOST): Promise<JudgeFigures> {
	const iso = isolatedEnv({ TIL_DONE_COUNTDOWN: "0" });
	try {
		iso.writeScript(oneRunScript(job));
		const answer = judgeSays(job.texts.map((_, item): [number, "met", string] => [item, "met", "Done as asked."]));
		scriptJudge(iso, [answer]);
		const sessionDir = join(iso.root, "sessions");
		const result = await runPrint([...JUDGE_ARGS, "-p", "Work through the list."], iso.env, {
			host,
			extensions: [EXTENSION_ENTRY],
			session: { dir: sessionDir },
		});
		const [call, ...more] = judgeCalls(iso);
		if (result.code !== 0 || !call || more.length > 0) {
			throw new Error(`${job.name}: exit ${result.code}, ${judgeCalls(iso).length} judge call(s): ${result.stderr}`);
		}
		const working = usageOf(sessionEntries(sessionDir).map((entry) => entry.message));
		const judgeTokens = fakeJudgeTokens(call, answer.text ?? "");
		return {
			promptChars: call.system.length + call.prompts.join("").length,
			judgeTokens,
			chainTokens: working.tokens + judgeTokens,
			calls: working.calls + 1,
		};
	} finally {
		iso.cleanup();
	}
}

const count = (value: number) => value.toLocaleString("en-US");

/** The section of bench/results.md. */
export async function judgeSection(out: (line?: string) => void, host: PiHost = DEFAULT_HOST): Promise<void> {
	out(`## The judge's prompt and its share of a chain (real pi ${host.version}, scripted fake models)`);
	out();
	out(
		"| Job (one run, the judge finds every item met) | judge's prompt, chars | judge's tokens | chain's tokens | judge's share | model calls |",
	);
	out("|---|---:|---:|---:|---:|---:|");
	const jobs: ContextJob[] = [
		{ name: "10 × 40 chars", texts: itemTexts(10, 40), lazy: false },
		{ name: "100 × 1,000 chars", texts: itemTexts(100, 1000), lazy: false },
	];
	for (const job of jobs) {
		const figures = await measureJudge(job, host);
		const share = `${((100 * figures.judgeTokens) / figures.chainTokens).toFixed(2)}%`;
		out(
			`| ${job.name} | ${count(figures.promptChars)} | ${count(figures.judgeTokens)} | ${count(figures.chainTokens)} | ${share} | ${figures.calls} |`,
		);
	}
	out();
	out(
		`The judge's prompt is bounded whatever the list: at most ${count(MAX_JUDGE_PROMPT_CHARS)} characters (\`MAX_JUDGE_PROMPT_CHARS\`: the requests, the list, the checks, the change of the work tree and the tool calls each cut to a fixed budget, counted as JSON, and a goal of up to 2,000 characters). Tokens: pi-ai's faux count, 4 characters a token, for every call alike.`,
	);
	out();
}
