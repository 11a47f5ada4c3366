import { type Kept, rewritten } from './boxes';
import { pagesOf } from './paginate';
import type { PageSource, ParsedPage } from './types';

/**
 * Marks the start of a heading in converted text: a control character, which decodeText removes
 * from input and stripMarks from converters' output before marks are added (one byte, so text
 * with many headings stays a one-byte string). Converters put it before a heading's text;
 * withSections() turns the marks into each page's `sections` after the page rule has
 * settled every offset.
 */
export const HEADING_MARK = '\u0001';

/**
 * The mark converters put before a heading's text: HEADING_MARK and the heading's level as one
 * digit (1 outermost; 0 where the format does not tell).
 */
export function headingMark(level = 0): string {
  return HEADING_MARK + String(Math.max(0, Math.min(9, Math.trunc(level))));
}

/** Removes any heading marks a file itself contains, so only ours are taken as headings. */
export function stripMarks(text: string): string {
  return text.includes(HEADING_MARK) ? text.split(HEADING_MARK).join('') : text;
}

/**
 * A page whose text holds heading marks, with the marks turned into `sections` ({offset, title}):
 * the title is the rest of the heading's line. A page without marks is returned as it is.
 */
export function withSections(page: ParsedPage): ParsedPage {
  if (!page.text.includes(HEADING_MARK)) return page;
  const parts = page.text.split(HEADING_MARK);
  let out = parts[0];
  const sections: NonNullable<ParsedPage['sections']> = [];
  // the pieces of the text kept between the marks, so boxes move with their characters
  const pieces: Kept[] = [{ from: 0, to: parts[0].length, at: 0 }];
  let from = parts[0].length;
  for (let i = 1; i < parts.length; i++) {
    // every mark is headingMark()'s: the level digit follows it
    const digit = /^\d/.test(parts[i]);
    const level = digit ? Number(parts[i][0]) : 0;
    const part = digit ? parts[i].slice(1) : parts[i];
    const end = part.indexOf('\n');
    const title = (end < 0 ? part : part.slice(0, end)).trim().slice(0, 500);
    if (title) sections.push({ offset: out.length, title, ...(level ? { level } : {}) });
    const skip = 1 + (digit ? 1 : 0);
    pieces.push({ from: from + skip, to: from + skip + part.length, at: out.length });
    from += skip + part.length;
    out += part;
  }
  const next = rewritten(page, out, pieces);
  return sections.length ? { ...next, sections } : next;
}

/** pagesOf(), then each page's heading marks become `sections` (see withSections). One page at a time. */
export function* pagesWithSections(text: string): Generator<ParsedPage> {
  for (const page of pagesOf(text)) yield withSections(page);
}

/** The pages of converted text with their sections, as a PageSource. */
export const sectionedPages =
  (text: string): PageSource =>
  () =>
    pagesWithSections(text);

/** At most this many characters of a heading trail (outer titles are dropped first). */
const TRAIL_CHARS = 300;

/**
 * Gives each heading the titles of the sections it lies in, across a document's pages in order:
 * under `2 Setup` › `2.3 Networking`, the heading `2.3.1 Proxies` becomes the title
 * "2 Setup\n2.3 Networking\n2.3.1 Proxies", indexed with the passages under it, so a passage is
 * found by its chapter's words as well as its own section's. A heading of unknown level (a PDF's)
 * starts a new trail.
 */
export class HeadingTrail {
  private open: Array<{ level: number; title: string }> = [];

  apply(page: ParsedPage): ParsedPage {
    if (!page.sections?.length) return page;
    const sections = [...page.sections]
      .sort((a, b) => a.offset - b.offset)
      .map((s) => {
        const title = s.title.replace(/\s+/g, ' ').trim();
        if (!s.level) {
          this.open = [];
          return s;
        }
        while (this.open.length && this.open[this.open.length - 1].level >= s.level) this.open.pop();
        this.open.push({ level: s.level, title });
        const trail = this.open.map((o) => o.title);
        while (trail.length > 1 && trail.join('\n').length > TRAIL_CHARS) trail.shift();
        return { ...s, title: trail.join('\n') };
      });
    return { ...page, sections };
  }
}
