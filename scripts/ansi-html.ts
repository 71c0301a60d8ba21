/**
 * Turns a terminal capture with SGR escape sequences (`tmux capture-pane -p -e`) into a standalone HTML page that
 * looks like a terminal window: 16/256/truecolor foreground and background, bold, dim, italic, underline,
 * strikethrough and inverse. Every non-ASCII character gets a cell of its own (two for wide ones such as emoji), so
 * columns line up whatever fallback font the browser picks. Used by scripts/screenshot.ts.
 */

type Rgb = readonly [number, number, number];

interface Style {
	fg?: Rgb;
	bg?: Rgb;
	bold: boolean;
	dim: boolean;
	italic: boolean;
	underline: boolean;
	strike: boolean;
	inverse: boolean;
}

export interface PageOptions {
	/** Terminal size in cells: the page is cut to it. */
	cols: number;
	rows: number;
	title?: string;
	/** Font size in CSS pixels (default 15). */
	fontSize?: number;
}

export interface Page {
	html: string;
	/** The exact page size in CSS pixels, for the browser window. */
	width: number;
	height: number;
}

const DEFAULT_FG: Rgb = [215, 218, 224];
const DEFAULT_BG: Rgb = [24, 26, 31];
const TITLE_BAR_PX = 32;
const PADDING_PX = 14;
/** Advance width of DejaVu Sans Mono (1233/2048 em); other monospace fonts are within a few percent. */
const CELL_EM = 0.602;
const LINE_HEIGHT = 1.3;

/** xterm-like palette for SGR 30-37 / 90-97 and 256-colour indices 0-15. */
const BASE16: readonly Rgb[] = [
	[0, 0, 0],
	[205, 49, 49],
	[13, 188, 121],
	[229, 229, 16],
	[36, 114, 200],
	[188, 63, 188],
	[17, 168, 205],
	[229, 229, 229],
	[102, 102, 102],
	[241, 76, 76],
	[35, 209, 139],
	[245, 245, 67],
	[59, 142, 234],
	[214, 112, 214],
	[41, 184, 219],
	[255, 255, 255],
];

export function color256(index: number): Rgb {
	if (index < 16) return BASE16[index];
	if (index < 232) {
		const levels = [0, 95, 135, 175, 215, 255];
		const n = index - 16;
		return [levels[Math.floor(n / 36)], levels[Math.floor(n / 6) % 6], levels[n % 6]];
	}
	const gray = 8 + (index - 232) * 10;
	return [gray, gray, gray];
}

function plain(): Style {
	return { bold: false, dim: false, italic: false, underline: false, strike: false, inverse: false };
}

/** Reads an extended colour (`38;5;n` or `38;2;r;g;b`) starting after the 38/48; returns it and the params used. */
function extendedColor(params: number[], at: number): { color?: Rgb; used: number } {
	if (params[at] === 5 && params.length > at + 1) return { color: color256(params[at + 1] & 255), used: 2 };
	if (params[at] === 2 && params.length > at + 3) {
		const [r, g, b] = params.slice(at + 1, at + 4).map((v) => Math.max(0, Math.min(255, v)));
		return { color: [r, g, b], used: 4 };
	}
	return { used: params.length - at };
}

/** Applies one SGR sequence's parameters (already split) to `style`. */
export function applySgr(style: Style, params: number[]): Style {
	let next = { ...style };
	if (params.length === 0) return plain();
	for (let i = 0; i < params.length; i++) {
		const p = params[i];
		if (p === 0) next = plain();
		else if (p === 1) next.bold = true;
		else if (p === 2) next.dim = true;
		else if (p === 3) next.italic = true;
		else if (p === 4) next.underline = true;
		else if (p === 7) next.inverse = true;
		else if (p === 9) next.strike = true;
		else if (p === 21 || p === 22) {
			next.bold = false;
			next.dim = false;
		} else if (p === 23) next.italic = false;
		else if (p === 24) next.underline = false;
		else if (p === 27) next.inverse = false;
		else if (p === 29) next.strike = false;
		else if (p >= 30 && p <= 37) next.fg = BASE16[p - 30];
		else if (p >= 90 && p <= 97) next.fg = BASE16[p - 90 + 8];
		else if (p === 39) next.fg = undefined;
		else if (p >= 40 && p <= 47) next.bg = BASE16[p - 40];
		else if (p >= 100 && p <= 107) next.bg = BASE16[p - 100 + 8];
		else if (p === 49) next.bg = undefined;
		else if (p === 38 || p === 48) {
			const { color, used } = extendedColor(params, i + 1);
			if (color) {
				if (p === 38) next.fg = color;
				else next.bg = color;
			}
			i += used;
		}
	}
	return next;
}

/** East Asian wide characters and emoji that terminals draw two cells wide. */
const WIDE_RANGES: readonly [number, number][] = [
	[0x1100, 0x115f],
	[0x231a, 0x231b],
	[0x2329, 0x232a],
	[0x23e9, 0x23ec],
	[0x23f0, 0x23f0],
	[0x23f3, 0x23f3],
	[0x25fd, 0x25fe],
	[0x2614, 0x2615],
	[0x2648, 0x2653],
	[0x267f, 0x267f],
	[0x2693, 0x2693],
	[0x26a1, 0x26a1],
	[0x26aa, 0x26ab],
	[0x26bd, 0x26be],
	[0x26c4, 0x26c5],
	[0x26ce, 0x26ce],
	[0x26d4, 0x26d4],
	[0x26ea, 0x26ea],
	[0x26f2, 0x26f3],
	[0x26f5, 0x26f5],
	[0x26fa, 0x26fa],
	[0x26fd, 0x26fd],
	[0x2705, 0x2705],
	[0x270a, 0x270b],
	[0x2728, 0x2728],
	[0x274c, 0x274c],
	[0x274e, 0x274e],
	[0x2753, 0x2755],
	[0x2757, 0x2757],
	[0x2795, 0x2797],
	[0x27b0, 0x27b0],
	[0x27bf, 0x27bf],
	[0x2b1b, 0x2b1c],
	[0x2b50, 0x2b50],
	[0x2b55, 0x2b55],
	[0x2e80, 0x303e],
	[0x3041, 0x33ff],
	[0x3400, 0x4dbf],
	[0x4e00, 0x9fff],
	[0xa000, 0xa4cf],
	[0xac00, 0xd7a3],
	[0xf900, 0xfaff],
	[0xfe30, 0xfe4f],
	[0xff00, 0xff60],
	[0xffe0, 0xffe6],
	[0x1f004, 0x1f004],
	[0x1f0cf, 0x1f0cf],
	[0x1f18e, 0x1f18e],
	[0x1f191, 0x1f19a],
	[0x1f300, 0x1f64f],
	[0x1f680, 0x1f6ff],
	[0x1f7e0, 0x1f7eb],
	[0x1f900, 0x1f9ff],
	[0x1fa70, 0x1faff],
	[0x20000, 0x3fffd],
];

export function cellWidth(grapheme: string): 1 | 2 {
	const code = grapheme.codePointAt(0) ?? 0;
	if (code < 0x1100) return 1;
	if (grapheme.includes("\ufe0f")) return 2;
	return WIDE_RANGES.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
}

function css([r, g, b]: Rgb): string {
	return `rgb(${r},${g},${b})`;
}

function mix(a: Rgb, b: Rgb, amount: number): Rgb {
	return [0, 1, 2].map((i) => Math.round(a[i] * (1 - amount) + b[i] * amount)) as unknown as Rgb;
}

function styleAttr(style: Style): string {
	let fg = style.fg ?? DEFAULT_FG;
	let bg = style.bg;
	if (style.inverse) {
		const swapped = bg ?? DEFAULT_BG;
		bg = fg;
		fg = swapped;
	}
	if (style.dim) fg = mix(fg, bg ?? DEFAULT_BG, 0.45);
	const rules = [`color:${css(fg)}`];
	if (bg) rules.push(`background:${css(bg)}`);
	if (style.bold) rules.push("font-weight:bold");
	if (style.italic) rules.push("font-style:italic");
	const lines = [style.underline ? "underline" : "", style.strike ? "line-through" : ""].filter(Boolean);
	if (lines.length > 0) rules.push(`text-decoration:${lines.join(" ")}`);
	return rules.join(";");
}

function escapeHtml(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are made of control characters
const ESCAPE = /\x1b\[([0-?]*)([ -/]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;

/** One line of the capture as HTML spans, cut to `cols` cells. */
export function lineToHtml(line: string, cols: number, start: Style = plain()): { html: string; style: Style } {
	const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
	let style = start;
	let used = 0;
	let html = "";
	let run = "";
	const flush = () => {
		if (run !== "") html += `<span style="${styleAttr(style)}">${escapeHtml(run)}</span>`;
		run = "";
	};
	let last = 0;
	const emitText = (text: string) => {
		for (const { segment } of segmenter.segment(text)) {
			// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters take no cell
			if (/^[\x00-\x1f\x7f]/.test(segment)) continue;
			const width = cellWidth(segment);
			if (used + width > cols) return;
			used += width;
			if (/^[\x20-\x7e]$/.test(segment)) {
				run += segment;
				continue;
			}
			flush();
			html += `<span class="c${width}" style="${styleAttr(style)}">${escapeHtml(segment)}</span>`;
		}
	};
	for (const match of line.matchAll(ESCAPE)) {
		emitText(line.slice(last, match.index));
		last = match.index + match[0].length;
		if (match[3] !== "m" || match[2] !== "") continue;
		flush();
		const params = match[1] === "" ? [] : match[1].split(/[;:]/).map((p) => (p === "" ? 0 : Number(p)));
		style = applySgr(style, params);
	}
	emitText(line.slice(last));
	flush();
	return { html, style };
}

/** A whole capture as a terminal-window page of exactly `cols` x `rows` cells plus a title bar. */
export function captureToPage(capture: string, options: PageOptions): Page {
	const fontSize = options.fontSize ?? 15;
	const lineHeight = Math.round(fontSize * LINE_HEIGHT);
	const lines = capture.replace(/\r/g, "").split("\n").slice(0, options.rows);
	while (lines.length < options.rows) lines.push("");
	let style = plain();
	const body = lines
		.map((line) => {
			const converted = lineToHtml(line, options.cols, style);
			style = converted.style;
			return `<div class="l">${converted.html}</div>`;
		})
		.join("\n");
	const cellPx = CELL_EM * fontSize;
	const width = Math.ceil(options.cols * cellPx) + 2 * PADDING_PX;
	const height = TITLE_BAR_PX + options.rows * lineHeight + 2 * PADDING_PX;
	const title = escapeHtml(options.title ?? "");
	const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title><style>
html, body { margin: 0; padding: 0; background: ${css(DEFAULT_BG)}; overflow: hidden; }
.bar { height: ${TITLE_BAR_PX}px; background: #2b2e36; display: flex; align-items: center; padding: 0 12px;
	font: 13px system-ui, sans-serif; color: #a0a4ad; position: relative; }
.dot { width: 12px; height: 12px; border-radius: 50%; margin-right: 8px; }
.bar .t { position: absolute; left: 0; right: 0; text-align: center; }
.term { padding: ${PADDING_PX}px; width: ${Math.ceil(options.cols * cellPx)}px;
	font-family: "DejaVu Sans Mono", "Menlo", "Consolas", monospace; font-size: ${fontSize}px;
	color: ${css(DEFAULT_FG)}; font-variant-ligatures: none; }
.l { height: ${lineHeight}px; line-height: ${lineHeight}px; white-space: pre; overflow: hidden; }
.l span { display: inline-block; height: ${lineHeight}px; vertical-align: top; }
.l .c1, .l .c2 { text-align: center; overflow: visible; font-family: "DejaVu Sans Mono", "Noto Color Emoji", monospace; }
.l .c1 { width: ${cellPx}px; }
.l .c2 { width: ${2 * cellPx}px; font-size: ${Math.round(fontSize * 0.92)}px; }
</style></head><body>
<div class="bar"><span class="dot" style="background:#ff5f57"></span><span class="dot" style="background:#febc2e"></span><span class="dot" style="background:#28c840"></span><span class="t">${title}</span></div>
<div class="term">
${body}
</div></body></html>
`;
	return { html, width, height };
}
