import type { ParsedPage } from './types';

/** A page closes at the first paragraph boundary at or after this many characters. */
export const PAGE_CHARS = 3000;

/** Paragraph breaks: a newline, blanks, and one or more newlines (linear: see linear-regex.test.ts). */
const PARAGRAPH_BREAK = /\n[ \t]*\n+/g;

/** The paragraphs of `text` one at a time: split at blank lines, trimmed, empty ones dropped. */
export function* paragraphsOf(text: string): Generator<string> {
  const breaks = new RegExp(PARAGRAPH_BREAK.source, 'g');
  let from = 0;
  for (;;) {
    const m = breaks.exec(text);
    const to = m ? m.index : text.length;
    const paragraph = text.slice(from, to).trim();
    if (paragraph) yield paragraph;
    if (!m) return;
    from = breaks.lastIndex;
  }
}

/** Splits text into paragraphs at blank lines, trimming each and dropping empty ones. */
export function splitParagraphs(text: string): string[] {
  return Array.from(paragraphsOf(text));
}

/**
 * Pages for formats that have none (plain text, Markdown, HTML, DOCX) — a stable rule, so page
 * numbers in citations do not change between reindexes:
 * 1. if the text contains form feeds (U+000C, what `pdftotext` and many printers emit between
 *    pages, and what we put at explicit DOCX page breaks), every form feed starts a new page;
 *    trailing empty pages are dropped, interior empty pages keep their number;
 * 2. otherwise a page is closed at the first paragraph boundary (blank line) at or after
 *    PAGE_CHARS (3,000) characters; a single paragraph longer than that is one page.
 * The pages come one at a time, so a large text is never held twice over as pages.
 */
export function* pagesOf(text: string): Generator<ParsedPage> {
  const normalized = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  if (normalized.includes('\f')) {
    // trailing empty pages are dropped: an empty page is held back until a later one has text
    let empty = 0;
    let pageNumber = 0;
    for (let from = 0; from <= normalized.length;) {
      const ff = normalized.indexOf('\f', from);
      const to = ff < 0 ? normalized.length : ff;
      const page = Array.from(paragraphsOf(normalized.slice(from, to))).join('\n\n');
      pageNumber++;
      if (page === '' && pageNumber > 1) empty++;
      else {
        for (; empty > 0; empty--) yield { pageNumber: pageNumber - empty, text: '' };
        yield { pageNumber, text: page };
      }
      if (ff < 0) break;
      from = ff + 1;
    }
    return;
  }
  let pageNumber = 0;
  let current: string[] = [];
  let length = 0;
  for (const paragraph of paragraphsOf(normalized)) {
    current.push(paragraph);
    length += paragraph.length + 2;
    if (length >= PAGE_CHARS) {
      yield { pageNumber: ++pageNumber, text: current.join('\n\n') };
      current = [];
      length = 0;
    }
  }
  if (current.length || pageNumber === 0) yield { pageNumber: pageNumber + 1, text: current.join('\n\n') };
}

/** All the pages of `text` at once (see pagesOf). */
export function paginate(text: string): ParsedPage[] {
  return Array.from(pagesOf(text));
}
