import { paginate } from './paginate';
import type { ParsedPage } from './types';

/**
 * Marks the start of a heading in converted text (a private-use character, removed from input
 * first). Converters put it before a heading's text; paginateWithSections() turns the marks into
 * each page's `sections` after the page rule has settled every offset.
 */
export const HEADING_MARK = '\uE001';

/** Removes any heading marks a file itself contains, so only ours are taken as headings. */
export function stripMarks(text: string): string {
  return text.includes(HEADING_MARK) ? text.split(HEADING_MARK).join('') : text;
}

/**
 * paginate(), then each page's heading marks become `sections` ({offset, title}): the title is
 * the rest of the heading's line. Pages without headings carry no `sections`.
 */
export function paginateWithSections(text: string): ParsedPage[] {
  return paginate(text).map((page) => {
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
  });
}
