/**
 * One copy of the extension per pi. pi loads every copy it finds (an installed package, and a development copy given
 * with `-e`) and keeps them all: two stores, two countdowns, and pi's conflict lines for every tool and flag. The
 * copy pi loads first answers later ones on the event bus pi gives the extensions of one session, which pi clears on a
 * reload; a later copy registers nothing but a warning.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { NOTICES } from "../../core/texts/user.ts";
import { tellWithoutSession } from "./tell.ts";

/** The event-bus channel on which the copy pi loaded first answers later copies. */
export const LOADED_CHANNEL = "pi-til-done:loaded";

/** A later copy's question on the channel: the first copy writes in where it was loaded from. */
interface Roll {
	first?: string;
}

/** Where the copy loaded before this one lives; undefined when this copy is the first (it then answers later ones). */
export function earlierCopy(pi: ExtensionAPI, here: string): string | undefined {
	const roll: Roll = {};
	pi.events.emit(LOADED_CHANNEL, roll);
	if (roll.first !== undefined) return roll.first;
	pi.events.on(LOADED_CHANNEL, (data) => {
		(data as Roll).first ??= here;
	});
	return undefined;
}

/** A later copy does nothing but say so when a session starts. */
export function standAside(pi: ExtensionAPI, first: string, here: string): void {
	pi.on("session_start", (_event, ctx) => tellWithoutSession(ctx, NOTICES.secondCopy(first, here), "warning"));
}
