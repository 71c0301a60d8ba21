/** The four model-facing tools. Each re-checks its parameters (defence in depth) before touching the store. */

import type { Theme, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { type Static, Type } from "typebox";
import { withAppended, withInserted } from "./core/list/changes.ts";
import { cloneTodos, isTooLong } from "./core/list/items.ts";
import { linkProblem } from "./core/list/links.ts";
import { changeResult, errorResult, formatListPage, textResult } from "./core/list/list-text.ts";
import {
	EDIT_ACTIONS,
	INITIAL_STATUS,
	MAX_INDICES,
	MAX_PAUSE_REASON_LENGTH,
	MAX_TODO_TEXT_LENGTH,
	MAX_TODOS,
	type TodoDetails,
	type TodoItem,
	WRITE_MODES,
	type WriteMode,
} from "./core/model/types.ts";
import { rewriteReviewError } from "./core/rules/edit-gates.ts";
import { checkEditParams, checkWriteParams } from "./core/rules/tool-params.ts";
import type { ParamError } from "./core/texts/model.ts";
import {
	linkError,
	PARAM_DESCRIPTIONS,
	PROMPT_GUIDELINES,
	PROMPT_SNIPPET,
	RESULT_HEADERS,
	TOOL_DESCRIPTIONS,
	TOOL_ERRORS,
} from "./core/texts/model.ts";
import { NOTICES, TOOL_DISPLAY } from "./core/texts/user.ts";
import { type ListDetails, renderToolResult } from "./core/views/themed-list.ts";
import { noticeDropped, rewritePlanError, runEdit } from "./edges/checks/checked-edit.ts";
import { type CheckEnv, modelChecksBlocked } from "./edges/checks/item-checks.ts";
import { tell } from "./edges/host/tell.ts";
import { getTodos, pauseAutoContinue, setTodos } from "./state.ts";

/**
 * A string enum as pi-ai's `StringEnum` writes it (`{ type: "string", enum }`, which providers without anyOf or const
 * take), made here: under pi's unbundled loader (the SDK's) an import of pi-ai loads all of pi-ai again for the
 * extension, about 0.65 s on every start.
 */
function stringEnum<T extends readonly string[]>(values: T, description: string) {
	return Type.Unsafe<T[number]>({ type: "string", enum: values, description });
}

export const WriteTodosParams = Type.Object({
	mode: stringEnum(WRITE_MODES, PARAM_DESCRIPTIONS.mode),
	index: Type.Optional(
		Type.Integer({
			description: PARAM_DESCRIPTIONS.index,
		}),
	),
	todos: Type.Array(
		Type.Object({
			text: Type.String({ description: PARAM_DESCRIPTIONS.text, maxLength: MAX_TODO_TEXT_LENGTH }),
			// Limits without a schema bound are checked in `execute`, which says what is wrong in this extension's words.
			check: Type.Optional(Type.String({ description: PARAM_DESCRIPTIONS.check })),
			review: Type.Optional(Type.Boolean({ description: PARAM_DESCRIPTIONS.review })),
			// Bare: every model call carries the schema; what they mean and when to use them is in the skill.
			blockedBy: Type.Optional(Type.Array(Type.Integer())),
			parent: Type.Optional(Type.Integer()),
		}),
		{ description: PARAM_DESCRIPTIONS.todos, maxItems: MAX_TODOS },
	),
});

export const ListTodosParams = Type.Object({
	offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const EditTodosParams = Type.Object({
	action: stringEnum(EDIT_ACTIONS, PARAM_DESCRIPTIONS.action),
	indices: Type.Array(Type.Integer(), {
		description: PARAM_DESCRIPTIONS.indices,
		minItems: 1,
		maxItems: MAX_INDICES,
	}),
	reason: Type.Optional(Type.String()),
});

/** What the tools need beyond the store: running the model's checks. Without it, no check can run. */
const NO_CHECKS: CheckEnv = {
	exec: async () => ({ stdout: "", stderr: "", code: 1, killed: false }),
	getConfig: () => ({ modelChecks: false }) as ReturnType<CheckEnv["getConfig"]>,
	activeTools: () => [],
};

/** An item as the model writes it. */
type WrittenItem = { text: string; check?: string; review?: boolean; blockedBy?: number[]; parent?: number };

/** New items as the store keeps them: the check, the review mark and the links only when given. */
function newItems(todos: readonly WrittenItem[]): TodoItem[] {
	return todos.map((todo) => {
		const item: TodoItem = { text: todo.text, status: INITIAL_STATUS };
		if (todo.check !== undefined) item.check = todo.check.trim();
		if (todo.review) item.review = true;
		if (todo.blockedBy !== undefined && todo.blockedBy.length > 0) item.blockedBy = [...todo.blockedBy];
		if (todo.parent !== undefined) item.parent = todo.parent;
		return item;
	});
}

/** The list a write leaves: new items' links are indices of this list, and the items an insert moves keep theirs. */
function listAfterWrite(mode: WriteMode, index: number | undefined, items: readonly TodoItem[]): TodoItem[] {
	if (mode === "replace") return [...items];
	if (mode === "append") return withAppended(getTodos(), items);
	return withInserted(getTodos(), index ?? 0, items);
}

/** An item with a check may be written only where the model's checks can run. */
function checksNotAllowed(todos: readonly { check?: string }[], env: CheckEnv): ParamError | null {
	const first = todos.findIndex((todo) => todo.check !== undefined);
	const why = first === -1 ? undefined : modelChecksBlocked(env);
	if (!why) return null;
	return TOOL_ERRORS.checksNotAllowed(first, why);
}

function toolTitle(name: string, theme: Theme): string {
	return theme.fg("toolTitle", theme.bold(name));
}

/** What the three list tools declare alike: the shared prompt snippet, and one call at a time (they share one list). */
function listTool<P>(name: string, label: string, description: string, parameters: P) {
	return { name, label, description, promptSnippet: PROMPT_SNIPPET, parameters, executionMode: "sequential" as const };
}

export function createWriteTodosTool(env: CheckEnv = NO_CHECKS): ToolDefinition<typeof WriteTodosParams, TodoDetails> {
	return {
		...listTool("write_todos", TOOL_DISPLAY.labels.write, TOOL_DESCRIPTIONS.write, WriteTodosParams),
		promptGuidelines: [...PROMPT_GUIDELINES],
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const error = checkWriteParams(params, getTodos().length) ?? checksNotAllowed(params.todos, env);
			if (error) return errorResult("write", error);
			const items = newItems(params.todos);
			const next = listAfterWrite(params.mode, params.index, items);
			const problem = linkProblem(next);
			if (problem) return errorResult("write", linkError(problem, next.length));
			const before = getTodos();
			if (params.mode === "replace") {
				const lost =
					rewriteReviewError(before, items) ?? rewritePlanError(ctx, env.getConfig().planFile, before, items);
				if (lost) return errorResult("write", lost);
			}
			setTodos(next);
			if (params.mode === "replace") {
				noticeDropped(ctx, before);
				return changeResult("write", RESULT_HEADERS.wrote(items.length), getTodos());
			}
			if (params.mode === "append") return changeResult("write", RESULT_HEADERS.appended(items.length), getTodos());
			return changeResult("write", RESULT_HEADERS.inserted(items.length, params.index as number), getTodos());
		},
		renderCall(args, theme) {
			const count = Array.isArray(args?.todos) ? args.todos.length : 0;
			const at = args?.mode === "insert" ? String(args.index) : undefined;
			const text = `${toolTitle("write_todos", theme)} ${theme.fg("warning", String(args?.mode ?? ""))} ${theme.fg("muted", TOOL_DISPLAY.written(count, at))}`;
			return new Text(text, 0, 0);
		},
		renderResult: (result, options, theme, context) => renderToolResult(result, options, theme, context),
	};
}

export function createListTodosTool(): ToolDefinition<typeof ListTodosParams, ListDetails> {
	return {
		...listTool("list_todos", TOOL_DISPLAY.labels.list, TOOL_DESCRIPTIONS.list, ListTodosParams),
		async execute(_toolCallId, params) {
			const todos = getTodos();
			const offset = params?.offset;
			if (offset !== undefined && (!Number.isSafeInteger(offset) || offset < 0 || offset > todos.length)) {
				const error = TOOL_ERRORS.offsetOutOfRange(String(offset), todos.length);
				return textResult(error.message, { action: "list", todos: [], error: error.detail });
			}
			// `todos` stays empty so a list result is never replayed; `view` lets the TUI show what was listed.
			return textResult(formatListPage(todos, offset ?? 0), { action: "list", todos: [], view: cloneTodos(todos) });
		},
		renderCall: (_args, theme) => new Text(toolTitle("list_todos", theme), 0, 0),
		renderResult: (result, options, theme, context) => renderToolResult(result, options, theme, context),
	};
}

export function createEditTodosTool(env: CheckEnv = NO_CHECKS): ToolDefinition<typeof EditTodosParams, TodoDetails> {
	return {
		...listTool("edit_todos", TOOL_DISPLAY.labels.edit, TOOL_DESCRIPTIONS.edit, EditTodosParams),
		async execute(_toolCallId, params, signal, onUpdate, ctx) {
			const error = checkEditParams(params, getTodos().length);
			if (error) return errorResult("edit", error);
			const progress = (text: string) =>
				onUpdate?.({ content: [{ type: "text", text }], details: { action: "edit", todos: [] } });
			return runEdit({ ...params, ctx, signal, onUpdate: progress }, env);
		},
		renderCall(args, theme) {
			const indices = Array.isArray(args?.indices) ? args.indices.join(", ") : "";
			const text = `${toolTitle("edit_todos", theme)} ${theme.fg("warning", String(args?.action ?? ""))} ${theme.fg("accent", `[${indices}]`)}`;
			return new Text(text, 0, 0);
		},
		renderResult: (result, options, theme, context) => renderToolResult(result, options, theme, context),
	};
}

export const PauseTodosParams = Type.Object({
	reason: Type.String(),
});

export interface PauseDetails {
	action: "pause";
	reason: string;
	error?: string;
}

/** Lets the model stop the auto-continue honestly when it is blocked or needs the user; the user's next prompt resumes it. */
export function createPauseTodosTool(): ToolDefinition<typeof PauseTodosParams, PauseDetails> {
	return {
		name: "pause_todos",
		label: TOOL_DISPLAY.labels.pause,
		description: TOOL_DESCRIPTIONS.pause,
		parameters: PauseTodosParams,
		executionMode: "sequential",
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const reason = typeof params?.reason === "string" ? params.reason.trim() : "";
			if (reason.length === 0 || isTooLong(reason, MAX_PAUSE_REASON_LENGTH)) {
				const error = TOOL_ERRORS.pauseReason;
				return textResult(error.message, { action: "pause", reason: "", error: error.detail });
			}
			pauseAutoContinue("model", reason);
			tell(ctx, NOTICES.pausedByModel(reason), "warning");
			return textResult(RESULT_HEADERS.paused, { action: "pause", reason });
		},
		renderCall: (args, theme) =>
			new Text(`${toolTitle("pause_todos", theme)} ${theme.fg("muted", String(args?.reason ?? ""))}`, 0, 0),
		renderResult(result, _options, theme, context) {
			const details = result.details as PauseDetails | undefined;
			if (details?.error) return new Text(theme.fg("error", TOOL_DISPLAY.error(details.error)), 0, 0);
			if (typeof details?.reason !== "string") return renderToolResult(result, _options, theme, context);
			return new Text(`${theme.fg("warning", "⏸")} ${theme.fg("text", details?.reason ?? "")}`, 0, 0);
		},
	};
}

export type WriteTodosInput = Static<typeof WriteTodosParams>;
export type EditTodosInput = Static<typeof EditTodosParams>;
