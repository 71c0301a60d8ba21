/**
 * The `/todos` view's texts in the TUI. Loaded with the view.
 */

import { NO_TODOS } from "../user.ts";

/** What follows a change made in the `/todos` view: the chain goes on once the user is back at the editor. */
const GOES_ON_AFTER_VIEW = "the auto-continue goes on when you close this view";

/** The `/todos` view's texts: its title, its keys, what a key did, and why a key did nothing. */
export const LIST_VIEW = {
	title: (finished: number, total: number) => `Todos ${finished}/${total}`,
	empty: NO_TODOS,
	keys: "↑↓ select · a approve · d done · o open again · esc close",
	above: (count: number) => `↑ ${count} more`,
	below: (count: number) => `↓ ${count} more`,
	approved: (index: number) => `[${index}] approved: ${GOES_ON_AFTER_VIEW}`,
	done: (index: number) => `[${index}] completed: ${GOES_ON_AFTER_VIEW}`,
	reopened: (index: number) => `[${index}] in progress again: ${GOES_ON_AFTER_VIEW}`,
	noItem: "The list is empty: there is no item to change",
	notReview: (index: number) => `[${index}] is not a review item: a approves review items only`,
	completed: (index: number) => `[${index}] is completed already`,
	open: (index: number) => `[${index}] is not finished: o opens a finished item again`,
} as const;
