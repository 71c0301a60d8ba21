/** What a finished run says about itself, read from the messages pi hands over. Pure. */

import { textOfContent } from "../texts/data.ts";
import type { RunOutcome, StopReason } from "./planner.ts";

const ABORTED_ERROR = /\babort(ed)?\b/i;

interface MessageLike {
	role?: unknown;
	stopReason?: unknown;
	errorMessage?: unknown;
	content?: unknown;
}

function lastAssistant(messages: readonly unknown[]): MessageLike | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as MessageLike | null;
		if (message?.role === "assistant") return message;
	}
	return undefined;
}

/** The stop reason of the last assistant message among a run's messages. */
export function lastStopReason(messages: readonly unknown[]): StopReason | undefined {
	const message = lastAssistant(messages);
	if (!message) return undefined;
	// Esc during a tool that ignores the signal ends the run as an "error" that says it was aborted.
	if (message.stopReason === "error" && ABORTED_ERROR.test(String(message.errorMessage ?? ""))) return "aborted";
	return typeof message.stopReason === "string" ? (message.stopReason as StopReason) : undefined;
}

/** Text of the last assistant message among a run's messages (text blocks joined). */
export function lastAssistantText(messages: readonly unknown[]): string {
	return textOfContent(lastAssistant(messages)?.content);
}

/** The outcome of a run from its messages; `aborted` when pi says so itself (print mode's settle boundary). */
export function runOutcome(messages: readonly unknown[], aborted = false): RunOutcome {
	return { stopReason: aborted ? "aborted" : lastStopReason(messages), answer: lastAssistantText(messages) };
}
