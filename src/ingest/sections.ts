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
  const sections: Array<{ offset: number; title: string }> = [];
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    const end = part.indexOf('\n');
    const title = (end < 0 ? part : part.slice(0, end)).trim();
    if (title) sections.push({ offset: out.length, title: title.slice(0, 500) });
    out += part;
  }
  return sections.length ? { pageNumber: page.pageNumber, text: out, sections } : { pageNumber: page.pageNumber, text: out };
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
