import { DocumentKind, IngestError, ParsedPage, ProgressFn } from '../types';
import { parseDocx } from './docx';
import { parseHtml } from './html';
import { parseMarkdown } from './markdown';
import { parsePdf } from './pdf';
import { parseText } from './text';

/**
 * Extracts the pages of a file. PDFs report progress page by page; the other formats are read in
 * one step and report once at the end. Throws IngestError for files that cannot be read.
 */
export async function parseDocument(kind: DocumentKind, buf: Buffer, onProgress?: ProgressFn, signal?: AbortSignal): Promise<ParsedPage[]> {
  if (buf.length === 0) throw new IngestError('the file is empty');
  let pages: ParsedPage[];
  switch (kind) {
    case 'pdf':
      return parsePdf(buf, onProgress, signal);
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
  await onProgress?.(pages.length, pages.length);
  return pages;
}
