/**
 * What a UI shows, as every recorder keeps it: the fake `ctx` of the unit tests (fake-ctx.ts), the recording UI of
 * the in-process SDK tests (ui-recorder.ts) and the RPC client (rpc.ts) each turn the calls they receive into a
 * {@link UiCall} and fold it into a {@link UiState} with {@link applyUiCall}. Pure: a call never changes the state it
 * is given, it returns the next one.
 */

export type Placement = "aboveEditor" | "belowEditor";
export type NoticeType = "info" | "warning" | "error";

/** A widget on screen: its lines (empty for a component, which has no lines to record) and where it stands. */
export interface Widget {
	lines: string[];
	placement: Placement | undefined;
}

export interface Notification {
	message: string;
	type: NoticeType | undefined;
}

export interface UiState {
	/** Status texts by key; a cleared key is absent. */
	readonly statuses: ReadonlyMap<string, string>;
	/** Widgets by key; a cleared widget is absent. */
	readonly widgets: ReadonlyMap<string, Widget>;
	/** Every notice, in order. */
	readonly notifications: readonly Notification[];
	/** The terminal title, once set. */
	readonly title: string | undefined;
}

/** One call to the UI that changes what it shows. `text` or `lines` undefined clears the key. */
export type UiCall =
	| { method: "setStatus"; key: string; text: string | undefined }
	| { method: "setWidget"; key: string; lines: readonly string[] | undefined; placement?: Placement }
	| { method: "notify"; message: string; type?: NoticeType }
	| { method: "setTitle"; title: string };

/** Nothing shown yet. */
export const EMPTY_UI: UiState = { statuses: new Map(), widgets: new Map(), notifications: [], title: undefined };

/** `map` with `key` set to `value`, or without `key` when `value` is undefined. */
function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V | undefined): ReadonlyMap<string, V> {
	const next = new Map(map);
	if (value === undefined) next.delete(key);
	else next.set(key, value);
	return next;
}

/** The state after `call`. */
export function applyUiCall(state: UiState, call: UiCall): UiState {
	switch (call.method) {
		case "setStatus":
			return { ...state, statuses: withEntry(state.statuses, call.key, call.text) };
		case "setWidget": {
			const widget = call.lines && { lines: [...call.lines], placement: call.placement };
			return { ...state, widgets: withEntry(state.widgets, call.key, widget) };
		}
		case "notify":
			return { ...state, notifications: [...state.notifications, { message: call.message, type: call.type }] };
		case "setTitle":
			return { ...state, title: call.title };
	}
}

/**
 * The call pi's `setWidget(key, content, options)` makes, whatever the content: lines are copied, undefined clears
 * the widget, and a component (a factory function) shows with no lines to record.
 */
export function widgetCall(key: string, content: unknown, options?: { placement?: Placement }): UiCall {
	const lines = Array.isArray(content) ? (content as string[]) : content === undefined ? undefined : [];
	return { method: "setWidget", key, lines, placement: options?.placement };
}
