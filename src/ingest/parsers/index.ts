import type { ParseLimits } from '../limits';
import { LimitError, TextBudget } from '../limits';
import { DocumentKind, IngestError, isImageKind, PageSink, PageSource, ParsedPage } from '../types';
import { parseDocx } from './docx';
import { parseHtml } from './html';
import { readImage } from './image';
import { parseMail } from './mail';
import { parseMarkdown } from './markdown';
import { parseOffice } from './office';
import { readPdf } from './pdf';
import { parseDelimited } from './sheets';
import { parseText } from './text';

/** What a reader may tell besides its pages. */
export interface ReadHooks {
  /** The file turned out to be another format than detected (an OLE2 file that is an Outlook message). */
  onFormat?: (kind: DocumentKind) => void;
}

/** Reads pages as they come (PDFs and images: `onTotal` first, then each page, awaiting `pace` between them). */
type StreamingReader = (buf: Buffer, limits: ParseLimits, sink: PageSink) => Promise<number>;

/** The streaming reader of a format, if it has one. */
function streamingReader(kind: DocumentKind): StreamingReader | null {
  if (kind === 'pdf') return readPdf;
  if (isImageKind(kind)) return (buf, limits, sink) => readImage(kind, buf, limits, sink);
  return null;
}

/** Converts a whole file to its pages (every format but the streaming ones). */
async function convert(kind: DocumentKind, buf: Buffer, limits: ParseLimits, hooks: ReadHooks): Promise<PageSource> {
  switch (kind) {
    case 'docx':
      return parseDocx(buf, limits);
    case 'markdown':
      return parseMarkdown(buf);
    case 'html':
      return parseHtml(buf, limits);
    case 'text':
      return parseText(buf);
    case 'csv':
    case 'tsv':
      return parseDelimited(kind, buf, limits);
    case 'xlsx':
    case 'ods':
    case 'pptx':
    case 'odp':
    case 'odt':
    case 'epub':
    case 'rtf':
      return parseOffice(kind, buf, limits);
    case 'eml':
    case 'mbox':
    case 'msg':
    case 'ole2':
      return parseMail(kind, buf, limits, { onFormat: hooks.onFormat, readAttachment: (k, b) => readWhole(k, b, limits) });
    default:
      throw new IngestError(`unsupported file type (${kind})`);
  }
}

/**
 * A file's pages, all read (an e-mail's attachments are read into the message this way). Pages
 * are kept in memory: attachments are bounded by the upload size and the text budget.
 */
export async function readWhole(kind: DocumentKind, buf: Buffer, limits: ParseLimits): Promise<ParsedPage[]> {
  const pages: ParsedPage[] = [];
  await parseInThread(kind, buf, limits, { onTotal: () => undefined, onPage: (p) => pages.push(p) });
  return pages;
}

/**
 * Extracts the pages of a file in the calling thread — the parser pool's workers call this (see
 * parse-worker.ts); the server only ever parses through the pool. PDFs and images hand on each
 * page as it is read (`onTotal` first); the other formats are read in one step. The text handed on
 * is counted against `maxExpandedBytes`. Throws IngestError (LimitError for limits) for files
 * that cannot be read.
 */
const EMPTY = Buffer.alloc(0);

export async function parseInThread(
  kind: DocumentKind,
  buf: Buffer,
  limits: ParseLimits,
  sink: PageSink,
  hooks: ReadHooks = {},
): Promise<number> {
  if (buf.length === 0) throw new IngestError('the file is empty');
  const budget = new TextBudget(limits.maxExpandedBytes);
  const emit = (page: ParsedPage) => {
    budget.add(page.text.length);
    sink.onPage(page);
  };
  const streaming = streamingReader(kind);
  if (streaming) return streaming(buf, limits, { ...sink, onPage: emit });
  const pages = await convert(kind, buf, limits, hooks);
  // the file is converted: its bytes can go while the pages are read (the caller keeps no reference)
  // eslint-disable-next-line no-useless-assignment -- releases the buffer, it is not read again
  buf = EMPTY;
  // the page limit holds for every format: a text of form feeds is as many pages as a PDF
  let total = 0;
  for (const page of pages()) if (page) total++;
  if (total > limits.pdfMaxPages) throw new LimitError(`the document has ${total} pages, more than the limit of ${limits.pdfMaxPages}`);
  sink.onTotal(total);
  for (const page of pages()) {
    emit(page);
    await sink.pace?.();
  }
  return total;
}
