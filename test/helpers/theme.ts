/** Theme stubs for unit tests: one that leaves text alone, one that tags every style so it can be asserted. */

import type { Theme } from "@earendil-works/pi-coding-agent";
import type { Component } from "@earendil-works/pi-tui";

function makeTheme(fg: (color: string, text: string) => string, bold: Style, strikethrough: Style): Theme {
	const same: Style = (text) => text;
	const stub = {
		name: "test",
		fg,
		bg: (_color: string, text: string) => text,
		bold,
		italic: same,
		underline: same,
		inverse: same,
		strikethrough,
		getFgAnsi: () => "",
		getBgAnsi: () => "",
		getColorMode: () => "truecolor",
		getThinkingBorderColor: () => same,
		getBashModeBorderColor: () => same,
	};
	return stub as unknown as Theme;
}

type Style = (text: string) => string;

/** Every style returns the text unchanged. */
export const plainTheme: Theme = makeTheme(
	(_color, text) => text,
	(text) => text,
	(text) => text,
);

/** `fg(color, t)` → `<color>t</color>`, `bold(t)` → `<b>t</b>`, `strikethrough(t)` → `<s>t</s>`. */
export const taggingTheme: Theme = makeTheme(
	(color, text) => `<${color}>${text}</${color}>`,
	(text) => `<b>${text}</b>`,
	(text) => `<s>${text}</s>`,
);

/** The raw string a pi-tui `Text` component was built with (before wrapping and padding). */
export function textOf(component: Component): string {
	return (component as unknown as { text: string }).text;
}
