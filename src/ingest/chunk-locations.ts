import { boxesOfRange, type TextBox } from './boxes';
import type { Paragraph } from './paragraphs';

/**
 * Where a chunk lies in its document, page by page: characters [start, end) of the page's text
 * (the converted text, as the chunker read it), and on pages that carry boxes (PDF text layers,
 * OCR) the boxes that text is drawn in. A chunk spanning a page break has one entry per page.
 */
export interface ChunkLocation {
  page: number;
  start: number;
  end: number;
  boxes?: Array<{ x: number; y: number; w: number; h: number }>;
}

/** A piece of a chunk: characters [start, end) of paragraph `para`'s (whitespace-collapsed) text. */
export interface ChunkPiece {
  para: number;
  start: number;
  end: number;
}

/** The locations of a chunk made of `pieces` (in text order), with the boxes of its pages. */
export function locationsOf(pieces: ChunkPiece[], paras: Paragraph[], boxesOf: (page: number) => TextBox[] | undefined): ChunkLocation[] {
  const byPage = new Map<number, { start: number; end: number }>();
  for (const piece of pieces) {
    const p = paras[piece.para];
    // the parts the piece touches, from the last one starting at or before it (binary search: a
    // paragraph may run across thousands of pages)
    let lo = 0;
    let hi = p.pageStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (p.pageStarts[mid].offset <= piece.start) lo = mid;
      else hi = mid - 1;
    }
    for (let j = lo; j < p.pageStarts.length && p.pageStarts[j].offset < piece.end; j++) {
      const { offset, page } = p.pageStarts[j];
      // a joined paragraph's parts are separated by one space (at the next part's offset - 1)
      const partEnd = j + 1 < p.pageStarts.length ? p.pageStarts[j + 1].offset - 1 : p.text.length;
      const from = Math.max(piece.start, offset);
      const to = Math.min(piece.end, partEnd);
      if (to <= from) continue;
      const { at, toOld } = p.origins[j];
      const start = at + (toOld ? toOld[from - offset] : from - offset);
      const end = at + (toOld ? toOld[to - 1 - offset] : to - 1 - offset) + 1;
      const seen = byPage.get(page);
      if (seen) [seen.start, seen.end] = [Math.min(seen.start, start), Math.max(seen.end, end)];
      else byPage.set(page, { start, end });
    }
  }
  return [...byPage]
    .sort((a, b) => a[0] - b[0])
    .map(([page, { start, end }]) => {
      const boxes = boxesOfRange(boxesOf(page), start, end);
      return { page, start, end, ...(boxes ? { boxes } : {}) };
    });
}

/**
 * A chunk's stored locations, each with the part of the chunk's text on its page (`pageStarts`:
 * where pages pageNumber + 1 … start in `text`), so a viewer can mark the words on each page.
 */
export function locationsWithText(
  locations: ChunkLocation[],
  text: string,
  pageNumber: number,
  pageStarts: number[] | null,
): Array<ChunkLocation & { text: string }> {
  return locations.map((l) => {
    const k = l.page - pageNumber;
    const from = k <= 0 ? 0 : (pageStarts?.[k - 1] ?? text.length);
    const to = pageStarts?.[k] ?? text.length;
    return { ...l, text: text.slice(from, to).trim() };
  });
}
