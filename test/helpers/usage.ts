/**
 * What a run's model calls cost, read back from what pi recorded on its assistant messages: the oracle the
 * end-to-end tests hold the extension's figures against (tokens = input + output + cache read + cache write).
 */

export interface UsageTotals {
	tokens: number;
	cost: number;
	calls: number;
	/** What each call sent as input (input + cache read + cache write), in order. */
	contexts: number[];
	/** Tokens of each call, in order. */
	perCall: number[];
}

interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: { total: number };
}

/** Sums the usage of every assistant message among `messages` (session entries' messages, or event messages). */
export function usageOf(messages: readonly unknown[]): UsageTotals {
	const totals: UsageTotals = { tokens: 0, cost: 0, calls: 0, contexts: [], perCall: [] };
	for (const message of messages) {
		const record = message as { role?: string; usage?: Usage } | undefined;
		if (record?.role !== "assistant" || !record.usage) continue;
		const { input, output, cacheRead, cacheWrite, cost } = record.usage;
		const context = input + cacheRead + cacheWrite;
		totals.tokens += context + output;
		totals.cost += cost.total;
		totals.calls += 1;
		totals.contexts.push(context);
		totals.perCall.push(context + output);
	}
	return totals;
}
