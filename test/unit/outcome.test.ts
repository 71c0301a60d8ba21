import { describe, expect, it } from "vitest";
import { lastAssistantText, lastStopReason, runOutcome, type StopReason } from "../../src/core/rules/outcome.ts";

describe("lastStopReason reads the last assistant message of the run", () => {
	const assistant = (stopReason: unknown, errorMessage?: string) => ({ role: "assistant", stopReason, errorMessage });

	it("returns the stop reason of the last assistant message, skipping later tool results", () => {
		const messages = [assistant("toolUse"), { role: "toolResult" }, assistant("stop"), { role: "toolResult" }];
		expect(lastStopReason(messages)).toBe("stop");
	});

	it.each<StopReason>(["stop", "toolUse", "length", "error", "aborted"])("passes %s through", (reason) => {
		expect(lastStopReason([assistant(reason)])).toBe(reason);
	});

	it.each(["Request was aborted", "Operation aborted by user", "ABORT"])(
		"treats an error that says %j as aborted",
		(errorMessage) => {
			expect(lastStopReason([assistant("error", errorMessage)])).toBe("aborted");
		},
	);

	it("keeps other errors as error", () => {
		expect(lastStopReason([assistant("error", "rate limit exceeded")])).toBe("error");
		expect(lastStopReason([assistant("error", "abortion clinic search failed")])).toBe("error");
	});

	it("is undefined without an assistant message", () => {
		expect(lastStopReason([])).toBeUndefined();
		expect(lastStopReason([{ role: "user" }, null, { role: "toolResult" }])).toBeUndefined();
	});

	it("is undefined when the stop reason is not a string", () => {
		expect(lastStopReason([assistant(undefined)])).toBeUndefined();
		expect(lastStopReason([assistant(3)])).toBeUndefined();
	});
});

describe("lastAssistantText joins the text blocks of the last assistant message", () => {
	it("joins text blocks with a line break and ignores other blocks", () => {
		const messages = [
			{ role: "assistant", content: [{ type: "text", text: "old" }] },
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "hmm" },
					{ type: "text", text: "First." },
					{ type: "toolCall", name: "x" },
					{ type: "text", text: "Shall I go on?" },
					null,
					{ type: "text", text: 5 },
				],
			},
			{ role: "toolResult", content: [{ type: "text", text: "tool output" }] },
		];
		expect(lastAssistantText(messages)).toBe("First.\nShall I go on?");
	});

	it("returns string content as is", () => {
		expect(lastAssistantText([{ role: "assistant", content: "plain" }])).toBe("plain");
	});

	it("returns an empty text without an assistant message or with odd content", () => {
		expect(lastAssistantText([{ role: "user", content: "hi" }])).toBe("");
		expect(lastAssistantText([{ role: "assistant", content: 42 }])).toBe("");
		expect(lastAssistantText([])).toBe("");
	});
});

describe("runOutcome: what a run tells the planner", () => {
	const messages = [{ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "All done?" }] }];

	it("takes the stop reason and the answer from the last assistant message", () => {
		expect(runOutcome(messages)).toEqual({ stopReason: "stop", answer: "All done?" });
	});

	it("says aborted when pi says the run was aborted, whatever the messages say", () => {
		expect(runOutcome(messages, true)).toEqual({ stopReason: "aborted", answer: "All done?" });
	});
});
