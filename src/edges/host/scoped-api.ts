/**
 * pi's API as one instance of the extension uses it: every handler, tool, command and renderer registered through it
 * runs in that instance's session scope (state.ts), so a session that pi runs beside ours in the same process (a
 * nested guest loads the extension again) never reads or changes our list, and we never change its.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { inSession, type SessionScope } from "../../state.ts";

// biome-ignore lint/suspicious/noExplicitAny: the host's callbacks come in many shapes; each is passed on unchanged.
type Callback = (...args: any[]) => any;

/** `callback`, run in `session` whatever context the host calls it from. */
function scoped<F extends Callback>(session: SessionScope, callback: F): F {
	return ((...args: Parameters<F>) => inSession(session, () => callback(...args))) as F;
}

/** A definition (a tool, a command, a shortcut) whose every function runs in `session`. */
function scopedFields<T extends object>(session: SessionScope, definition: T): T {
	const entries = Object.entries(definition).map(([key, value]) => [
		key,
		typeof value === "function" ? scoped(session, value as Callback) : value,
	]);
	return Object.fromEntries(entries) as T;
}

/** `pi`, with everything registered through it bound to `session`; every other member is pi's own. */
export function scopedApi(pi: ExtensionAPI, session: SessionScope): ExtensionAPI {
	const events: ExtensionAPI["events"] = {
		emit: (channel, data) => pi.events.emit(channel, data),
		on: (channel, handler) => pi.events.on(channel, scoped(session, handler)),
	};
	const bound: Partial<ExtensionAPI> = {
		on: ((event: string, handler: Callback) =>
			(pi.on as Callback)(event, scoped(session, handler))) as ExtensionAPI["on"],
		registerTool: (tool) => pi.registerTool(scopedFields(session, tool)),
		registerCommand: (name, options) => pi.registerCommand(name, scopedFields(session, options)),
		registerShortcut: (shortcut, options) => pi.registerShortcut(shortcut, scopedFields(session, options)),
		registerMessageRenderer: (customType, renderer) =>
			pi.registerMessageRenderer(customType, scoped(session, renderer)),
		registerEntryRenderer: (customType, renderer) => pi.registerEntryRenderer(customType, scoped(session, renderer)),
		events,
	};
	return new Proxy(pi, {
		get: (target, key) => (Object.hasOwn(bound, key) ? bound[key as keyof ExtensionAPI] : Reflect.get(target, key)),
	});
}
