import type { ParsedPage } from './types';

/** A page closes at the first paragraph boundary at or after this many characters. */
export const PAGE_CHARS = 3000;

/** Splits text into paragraphs at blank lines, trimming each and dropping empty ones. */
export function splitParagraphs(text: string): string[] {
  return text
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/**
 * Pages for formats that have none (plain text, Markdown, HTML, DOCX) — a stable rule, so page
 * numbers in citations do not change between reindexes:
 * 1. if the text contains form feeds (U+000C, what `pdftotext` and many printers emit between
 *    pages, and what we put at explicit DOCX page breaks), every form feed starts a new page;
 *    trailing empty pages are dropped, interior empty pages keep their number;
 * 2. otherwise a page is closed at the first paragraph boundary (blank line) at or after
 *    PAGE_CHARS (3,000) characters; a single paragraph longer than that is one page.
 */
export function paginate(text: string): ParsedPage[] {
  const normalized = text.replace(/\r\n?/g, '\n');
  if (normalized.includes('\f')) {
    const parts = normalized.split('\f').map((p) => splitParagraphs(p).join('\n\n'));
    while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    return parts.map((t, i) => ({ pageNumber: i + 1, text: t }));
  }
  const pages: ParsedPage[] = [];
  let current: string[] = [];
  let length = 0;
  for (const paragraph of splitParagraphs(normalized)) {
    current.push(paragraph);
    length += paragraph.length + 2;
    if (length >= PAGE_CHARS) {
      pages.push({ pageNumber: pages.length + 1, text: current.join('\n\n') });
      current = [];
      length = 0;
    }
  }
  if (current.length || pages.length === 0) pages.push({ pageNumber: pages.length + 1, text: current.join('\n\n') });
  return pages;
}
