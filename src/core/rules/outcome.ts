/** What a finished run says about itself, read from the messages pi hands over. Pure. */

import { textOfContent } from "../texts/sanitize.ts";

/** How the model's last message of a run ended, as pi reports it. */
export type StopReason = "stop" | "toolUse" | "length" | "error" | "aborted";

/** What a finished run tells the next-step rules. */
export interface RunOutcome {
	stopReason: StopReason | undefined;
	/** Text of the model's last answer in the run. */
	answer: string;
}

/** A run that failed on the provider's side or at the output limit: retried after a back-off, and counted. */
export function isFailedRun(stopReason: StopReason | undefined): boolean {
	return stopReason === "error" || stopReason === "length";
}

/** True when the model's answer ends by asking the user something: continuing would talk over the question. */
export function endsWithQuestion(text: string): boolean {
	const trimmed = text.trimEnd();
	return trimmed.endsWith("?") || trimmed.endsWith("？");
}

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
