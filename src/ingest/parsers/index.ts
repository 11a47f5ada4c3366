import { DocumentKind, IngestError, ParsedPage, ParseOptions } from '../types';
import { parseDocx } from './docx';
import { parseHtml } from './html';
import { parseMarkdown } from './markdown';
import { parsePdf } from './pdf';
import { parseText } from './text';

/**
 * Extracts the pages of a file. PDFs report pages and progress one page at a time; the other
 * formats are read in one step and report at the end. Throws IngestError for unreadable files.
 */
export async function parseDocument(kind: DocumentKind, buf: Buffer, opts: ParseOptions = {}): Promise<ParsedPage[]> {
  if (buf.length === 0) throw new IngestError('the file is empty');
  let pages: ParsedPage[];
  switch (kind) {
    case 'pdf':
      return parsePdf(buf, opts);
    case 'docx':
      pages = await parseDocx(buf);
      break;
    case 'markdown':
      pages = parseMarkdown(buf);
      break;
    case 'html':
      pages = parseHtml(buf);
      break;
    case 'text':
      pages = parseText(buf);
      break;
  }
  opts.signal?.throwIfAborted();
  for (const page of pages) opts.onPage?.(page);
  await opts.onProgress?.(pages.length, pages.length);
  return pages;
}
