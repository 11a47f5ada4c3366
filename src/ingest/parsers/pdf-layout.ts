import { collapseSpaces, type TextBox } from '../boxes';
import { HEADING_MARK, headingMark } from '../sections';

/*
 * A PDF page's text items laid out into lines and paragraphs, with where each item is drawn
 * (see TextBox): run in the parser thread that reads the PDF (pdf.ts), one page at a time.
 */

/** One positioned piece of text as pdf.js reports it (transform[4], transform[5] = x, y). */
export interface PdfTextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
  hasEOL: boolean;
  /** Where it is drawn, as fractions of the page's size from its top-left corner (see TextBox). */
  box?: { x: number; y: number; w: number; h: number };
}

const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0xfeff ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x3000 ||
  c === 0x1680 ||
  c === 0x202f ||
  c === 0x205f;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Lays out one page's text items: items on the same baseline are joined (with a space when there
 * is a visible gap), a new baseline starts a new line, and a vertical gap clearly larger than the
 * line height starts a new paragraph (blank line). Words hyphenated across lines are rejoined.
 */
export function layoutPage(items: PdfTextItem[]): string {
  return layoutPageBoxes(items).text;
}

/** One item's characters [start, end) of its line's text, and where it is drawn. */
type LineRun = { start: number; end: number; box: NonNullable<PdfTextItem['box']> };

/**
 * layoutPage(), and where each item's text is drawn: `boxes` gives, for the items that carry a
 * `box`, the characters of the laid-out text they hold.
 */
export function layoutPageBoxes(items: PdfTextItem[]): { text: string; boxes: TextBox[] } {
  type Line = { text: string; y: number; height: number; runs: LineRun[] };
  const lines: Line[] = [];
  // `last` is the line's last character: neither /\s$/ nor charCodeAt on the growing string (an
  // end-anchored regex rescans it, and reading a concatenated string flattens it — both quadratic)
  let line: (Line & { endX: number; last: number; length: number }) | null = null;
  for (const it of items) {
    const height = it.height > 0 ? it.height : 10;
    if (line && Math.abs(it.y - line.y) <= height * 0.4) {
      if (it.str) {
        const gap = it.x - line.endX;
        const needsSpace = gap > height * 0.15 && !isSpace(line.last) && !isSpace(it.str.charCodeAt(0));
        line.text += (needsSpace ? ' ' : '') + it.str;
        const start = line.length + (needsSpace ? 1 : 0);
        line.length = start + it.str.length;
        if (it.box) line.runs.push({ start, end: line.length, box: it.box });
        line.last = it.str.charCodeAt(it.str.length - 1);
        line.endX = it.x + it.width;
      }
    } else if (it.str.trim() || !line) {
      if (line) lines.push(line);
      line = {
        text: it.str,
        y: it.y,
        height,
        endX: it.x + it.width,
        last: it.str.charCodeAt(it.str.length - 1),
        length: it.str.length,
        runs: it.box ? [{ start: 0, end: it.str.length, box: it.box }] : [],
      };
    }
    if (it.hasEOL && line) {
      lines.push(line);
      line = null;
    }
  }
  if (line) lines.push(line);

  const heading = headingLines(lines);
  // pieces joined once at the end (slicing a growing string would copy it every time)
  const out: string[] = [];
  const boxes: TextBox[] = [];
  let length = 0;
  let prev: Line | null = null;
  let prevHeading = 0;
  lines.forEach((l, i) => {
    // = stripMarks(l.text).replace(/\s+/g, ' ').trim(), knowing where each character came from
    const { text, toOld } = collapseSpaces(l.text, HEADING_MARK);
    if (!text) return;
    let continuesHeading = false;
    if (prev) {
      const gap = Math.abs(prev.y - l.y);
      const paragraphBreak = gap > Math.max(prev.height, l.height) * 1.8;
      const before = out[out.length - 1];
      // a heading is a paragraph of its own; its lines are one heading
      continuesHeading = prevHeading > 0 && heading[i] > 0 && !paragraphBreak;
      const push = (sep: string) => {
        out.push(sep);
        length += sep.length;
      };
      if (continuesHeading) push(' ');
      else if (paragraphBreak || prevHeading > 0 || heading[i] > 0) push('\n\n');
      else if (before.length > 1 && before.endsWith('-') && isLetter(before.charCodeAt(before.length - 2)) && /^[a-z]/.test(text)) {
        out[out.length - 1] = before.slice(0, -1); // re-join "docu-" + "ment"
        length--;
        for (const b of boxes) b.end = Math.min(b.end, length);
      } else push('\n');
    }
    const mark = heading[i] > 0 && !continuesHeading ? headingMark(heading[i]) : '';
    const at = length + mark.length;
    out.push(mark + text);
    length += mark.length + text.length;
    // each run's characters, where they are after the line's spaces were collapsed
    const newOffset = (old: number): number => {
      if (!toOld) return Math.min(old, text.length);
      let lo = 0;
      let hi = toOld.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (toOld[mid] < old) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    for (const r of l.runs) {
      const start = newOffset(r.start);
      const end = newOffset(r.end);
      if (end > start) boxes.push({ start: at + start, end: at + end, ...r.box });
    }
    prev = l;
    prevHeading = heading[i];
  });
  return { text: out.join(''), boxes: boxes.filter((b) => b.end > b.start) };
}

/** A heading's type is at least this much larger than the page's body text. */
const HEADING_SIZE = 1.15;
/**
 * A heading's level from its type size against the body's: chapter titles are set far larger than
 * sections' (LaTeX and dblatex 2.07 and 1.44 of the body, texinfo 1.58 and 1.32; subsections 1.2).
 */
const headingLevel = (ratio: number): number => (ratio >= 1.5 ? 1 : ratio >= 1.27 ? 2 : 3);
/** Longer lines are text set large, not headings. */
const HEADING_CHARS = 150;
/** A page needs this many lines of body text before its larger lines are taken as headings. */
const BODY_LINES = 3;

/**
 * Which lines are headings: set in type clearly larger than the page's body text (the height
 * that carries the most characters), short, and holding a letter.
 */
function headingLines(lines: Array<{ text: string; height: number }>): number[] {
  const chars = new Map<number, number>();
  const count = new Map<number, number>();
  for (const l of lines) {
    const h = Math.round(l.height * 10) / 10;
    chars.set(h, (chars.get(h) ?? 0) + l.text.length);
    count.set(h, (count.get(h) ?? 0) + 1);
  }
  let body = 0;
  for (const [h, n] of chars) if (n > (chars.get(body) ?? 0)) body = h;
  if ((count.get(body) ?? 0) < BODY_LINES) return lines.map(() => 0);
  return lines.map((l) =>
    l.height >= body * HEADING_SIZE && l.text.trim().length <= HEADING_CHARS && /\p{L}/u.test(l.text) ? headingLevel(l.height / body) : 0,
  );
}

/** Below and above its baseline, the share of a text item's height its glyphs take (descenders, ascenders). */
const DESCENT = 0.22;
const ASCENT = 0.9;

/**
 * Where a text item is drawn on its page, as fractions of the page's size from its top-left
 * corner (the page's rotation and crop applied by its viewport); undefined for an empty one.
 */
export function boxOnPage(viewport: {
  width: number;
  height: number;
  convertToViewportRectangle(rect: number[]): number[];
}): (transform: number[], width: number, height: number) => PdfTextItem['box'] {
  return (t, width, height) => {
    if (!(width > 0) || !(height > 0) || !(viewport.width > 0) || !(viewport.height > 0)) return undefined;
    const [x1, y1, x2, y2] = viewport.convertToViewportRectangle([t[4], t[5] - height * DESCENT, t[4] + width, t[5] + height * ASCENT]);
    const clamp = (v: number) => Math.min(1, Math.max(0, v));
    const x = clamp(Math.min(x1, x2) / viewport.width);
    const y = clamp(Math.min(y1, y2) / viewport.height);
    return { x, y, w: clamp(Math.max(x1, x2) / viewport.width) - x, h: clamp(Math.max(y1, y2) / viewport.height) - y };
  };
}
