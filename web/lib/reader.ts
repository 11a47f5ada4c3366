import type { TextPage } from './types';

/** A piece of a page's text: plain, a heading, or cited (marked). */
export interface Piece {
  text: string;
  kind: 'text' | 'heading' | 'mark';
  level?: number | null;
}

/**
 * A page's text cut at its headings and at the cited ranges ([start, end), page characters): the
 * cited ranges become marks; a heading becomes one unless it lies inside a cited range.
 */
export function piecesOf(page: TextPage, marks: Array<{ start: number; end: number }>): Piece[] {
  const text = page.text;
  const ranges = marks.map((m) => ({ start: Math.max(0, m.start), end: Math.min(text.length, m.end) })).filter((m) => m.end > m.start);
  const inMark = (i: number) => ranges.some((m) => i >= m.start && i < m.end);
  const headings = page.sections
    .filter((s) => text.startsWith(s.title, s.offset) && s.title && !inMark(s.offset) && !inMark(s.offset + s.title.length - 1))
    .map((s) => ({ start: s.offset, end: s.offset + s.title.length, level: s.level }));
  const cuts = [
    ...new Set([0, text.length, ...ranges.flatMap((m) => [m.start, m.end]), ...headings.flatMap((h) => [h.start, h.end])]),
  ].sort((a, b) => a - b);
  const out: Piece[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [a, b] = [cuts[i], cuts[i + 1]];
    const heading = headings.find((h) => h.start === a && h.end === b);
    const kind = inMark(a) ? 'mark' : heading ? 'heading' : 'text';
    const last = out[out.length - 1];
    if (last && last.kind === kind && kind !== 'heading') last.text += text.slice(a, b);
    else out.push({ text: text.slice(a, b), kind, level: heading?.level });
  }
  return out;
}
