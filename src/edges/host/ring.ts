/**
 * A chain's end, rung on the user's terminal: a bell and a desktop notification through the terminal's own escape
 * sequences (OSC 99 for kitty, OSC 777 for Ghostty, iTerm2, WezTerm and rxvt), as pi's notify example does. The TUI
 * owns the terminal, so only the TUI rings; nothing else is written.
 */

/** Longest notification body: a desktop notification shows a line or two. */
export const RING_BODY_CHARS = 160;

/** Text as an escape sequence may carry it: no control characters (which would end or forge a sequence), one line. */
function inert(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
	const flat = text.replace(/[\u0000-\u001f\u007f-\u009f;]+/g, " ").trim();
	return flat.length > RING_BODY_CHARS ? `${flat.slice(0, RING_BODY_CHARS - 1)}…` : flat;
}

/** The bytes that ring the terminal and raise a notification with `title` and `body`, for the terminal in `env`. */
export function ringSequence(title: string, body: string, env: NodeJS.ProcessEnv = process.env): string {
	const [head, text] = [inert(title), inert(body)];
	const notice = env.KITTY_WINDOW_ID
		? `\x1b]99;i=1:d=0;${head}\x1b\\\x1b]99;i=1:p=body;${text}\x1b\\`
		: `\x1b]777;notify;${head};${text}\x07`;
	return `\x07${notice}`;
}

/** Rings the terminal pi draws on. */
export function ringTerminal(title: string, body: string): void {
	process.stdout.write(ringSequence(title, body));
}
