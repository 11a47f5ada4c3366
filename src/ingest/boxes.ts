import type { ParsedPage } from './types';

/**
 * Where a page's text is drawn (ParsedPage.boxes): characters [start, end) of `text` lie in the box
 * x, y, w, h (fractions of the page's size from its top-left corner). A page's text is rewritten
 * after it is read (heading marks taken out, running lines removed, whitespace collapsed); each
 * rewrite says which pieces of the old text it kept and where they went (Kept), and remapBoxes
 * moves the boxes with them, so a box always points at the characters it was drawn for.
 */
export type TextBox = NonNullable<ParsedPage['boxes']>[number];

/** Old text [from, to) is new text [at, at + to - from). Pieces are in order and do not overlap. */
export interface Kept {
  from: number;
  to: number;
  at: number;
}

/** The first piece whose end is past `offset` (binary search; pieces.length when none). */
function pieceAfter(pieces: Kept[], offset: number): number {
  let lo = 0;
  let hi = pieces.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pieces[mid].to <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The boxes of a rewritten text: each box keeps the characters of it that were kept (its start
 * moves to the first kept character at or after it, its end to just after the last kept
 * character before it); a box whose characters all went is dropped.
 */
export function remapBoxes(boxes: TextBox[] | undefined, pieces: Kept[]): TextBox[] | undefined {
  if (!boxes) return undefined;
  const out: TextBox[] = [];
  for (const b of boxes) {
    const i = pieceAfter(pieces, b.start);
    if (i >= pieces.length) continue;
    const first = pieces[i];
    const start = first.at + Math.max(0, b.start - first.from);
    const j = pieceAfter(pieces, b.end - 1);
    // the last piece that starts before the box's end
    const k = j < pieces.length && pieces[j].from < b.end ? j : j - 1;
    if (k < 0) continue;
    const last = pieces[k];
    const end = last.at + Math.min(last.to, b.end) - last.from;
    if (end > start) out.push({ ...b, start, end });
  }
  return out;
}

/** A page with new text, its boxes moved with the kept pieces (a page without boxes only gets the text). */
export function rewritten(page: ParsedPage, text: string, pieces: Kept[]): ParsedPage {
  return page.boxes ? { ...page, text, boxes: remapBoxes(page.boxes, pieces) } : { ...page, text };
}

/** The pieces `text.trim()` keeps. */
export function trimmed(text: string): { text: string; pieces: Kept[] } {
  const out = text.trim();
  const from = out ? text.indexOf(out[0]) : 0;
  return { text: out, pieces: [{ from, to: from + out.length, at: 0 }] };
}

/** Applies one rewrite after another: the pieces of the second are in the first's output. */
export function composeKept(first: Kept[], second: Kept[]): Kept[] {
  const out: Kept[] = [];
  for (const s of second) {
    // the old pieces that cover s's part of the intermediate text
    for (const f of first) {
      const lo = Math.max(f.at, s.from);
      const hi = Math.min(f.at + f.to - f.from, s.to);
      if (hi > lo) out.push({ from: f.from + lo - f.at, to: f.from + hi - f.at, at: s.at + lo - s.from });
    }
  }
  return out;
}

const SPACE = /\s/;

/**
 * `text.replace(/\s+/g, ' ').trim()` (with the `drop` characters, heading marks, removed first),
 * and for each character of the result where it was in `text` (toOld[i]; toOld[result.length] is
 * just past the last kept character; null when every character is where it was).
 */
export function collapseSpaces(text: string, drop?: string): { text: string; toOld: Int32Array | null } {
  const dropped = drop !== undefined && text.includes(drop);
  const out = (dropped ? text.split(drop).join('') : text).replace(/\s+/g, ' ').trim();
  // many lines and paragraphs are already collapsed: each character is where it was (null)
  if (!dropped && out.length === text.length) return { text: out, toOld: null };
  const toOld = new Int32Array(out.length + 1);
  let n = 0;
  let pendingSpace = -1;
  for (let i = 0; i < text.length && n < out.length; i++) {
    const c = text[i];
    if (dropped && c === drop) continue;
    if (SPACE.test(c)) {
      if (pendingSpace < 0) pendingSpace = i;
      continue;
    }
    if (pendingSpace >= 0 && n > 0) toOld[n++] = pendingSpace;
    pendingSpace = -1;
    toOld[n++] = i;
  }
  toOld[out.length] = out.length ? toOld[out.length - 1] + 1 : 0;
  return { text: out, toOld };
}

/**
 * Boxes of the characters [start, end) of a page: each box they touch, narrowed to the part of it
 * they cover (characters are taken as equally wide), and boxes on one line joined.
 */
export function boxesOfRange(
  boxes: TextBox[] | undefined,
  start: number,
  end: number,
): Array<{ x: number; y: number; w: number; h: number }> | undefined {
  if (!boxes) return undefined;
  const out: Array<{ x: number; y: number; w: number; h: number }> = [];
  for (const b of boxes) {
    if (b.end <= start || b.start >= end || b.end <= b.start) continue;
    const n = b.end - b.start;
    const a = (Math.max(start, b.start) - b.start) / n;
    const z = (Math.min(end, b.end) - b.start) / n;
    const box = { x: b.x + b.w * a, y: b.y, w: b.w * (z - a), h: b.h };
    const prev = out[out.length - 1];
    // the same line: joined into one box
    if (prev && Math.abs(prev.y - box.y) < Math.min(prev.h, box.h) * 0.5 && box.x >= prev.x) {
      const right = Math.max(prev.x + prev.w, box.x + box.w);
      const top = Math.min(prev.y, box.y);
      prev.h = Math.max(prev.y + prev.h, box.y + box.h) - top;
      prev.y = top;
      prev.w = right - prev.x;
    } else out.push(box);
  }
  const round = (v: number) => Math.round(v * 10000) / 10000;
  return out.map((b) => ({ x: round(b.x), y: round(b.y), w: round(b.w), h: round(b.h) }));
}
