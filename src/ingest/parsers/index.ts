import type { ParseLimits } from '../limits';
import { LimitError, TextBudget } from '../limits';
import { DocumentKind, IngestError, PageSource, ParsedPage } from '../types';
import { parseDocx } from './docx';
import { parseHtml } from './html';
import { parseMarkdown } from './markdown';
import { readPdf } from './pdf';
import { parseText } from './text';

/**
 * Extracts the pages of a file in the calling thread — the parser pool's workers call this (see
 * parse-worker.ts); the server only ever parses through the pool. PDFs hand on each page as it is
 * read (`onTotal` first); the other formats are read in one step. The text handed on is counted
 * against `maxExpandedBytes`. Throws IngestError (LimitError for limits) for files that cannot be
 * read.
 */
const EMPTY = Buffer.alloc(0);

export async function parseInThread(
  kind: DocumentKind,
  buf: Buffer,
  limits: ParseLimits,
  onTotal: (pagesTotal: number) => void,
  onPage: (page: ParsedPage) => void,
  /** Awaited between pages: lets the consumer hold reading back until it has caught up. */
  pace: () => Promise<void> = () => Promise.resolve(),
): Promise<number> {
  if (buf.length === 0) throw new IngestError('the file is empty');
  const budget = new TextBudget(limits.maxExpandedBytes);
  const emit = (page: ParsedPage) => {
    budget.add(page.text.length);
    onPage(page);
  };
  if (kind === 'pdf') return readPdf(buf, limits, onTotal, emit, pace);
  let pages: PageSource;
  switch (kind) {
    case 'docx':
      pages = await parseDocx(buf, limits);
      break;
    case 'markdown':
      pages = parseMarkdown(buf);
      break;
    case 'html':
      pages = parseHtml(buf, limits);
      break;
    case 'text':
      pages = parseText(buf);
      break;
  }
  // the file is converted: its bytes can go while the pages are read (the caller keeps no reference)
  // eslint-disable-next-line no-useless-assignment -- releases the buffer, it is not read again
  buf = EMPTY;
  // the page limit holds for every format: a text of form feeds is as many pages as a PDF
  let total = 0;
  for (const page of pages()) if (page) total++;
  if (total > limits.pdfMaxPages) throw new LimitError(`the document has ${total} pages, more than the limit of ${limits.pdfMaxPages}`);
  onTotal(total);
  for (const page of pages()) {
    emit(page);
    await pace();
  }
  return total;
}
