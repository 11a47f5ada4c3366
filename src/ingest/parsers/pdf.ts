import { pathToFileURL } from 'node:url';
import { LimitError, ParseLimits } from '../limits';
import { isFinderPage } from '../contents-pages';
import { spoilThread } from './thread-health';
import { RunningLineFilter } from '../running-lines';
import { withSections } from '../sections';
import { IngestError, PageSink, ParsedPage } from '../types';
import { OrderedPages } from './ocr-spread';
import { checkScannedPages, drawPdfPage, looksScanned, PdfDoc } from './pdf-ocr';
import { boxOnPage, layoutPageBoxes, type PdfTextItem } from './pdf-layout';

export { layoutPage, layoutPageBoxes, type PdfTextItem } from './pdf-layout';

/*
 * pdf.js 5 ships only as ES modules: it is loaded with a real dynamic import() (TypeScript keeps
 * it under node16), which works in the parser pool's worker threads (plain Node realms, also
 * under jest). readPdf() runs there; layout into lines and paragraphs happens in the same thread,
 * one page at a time, so page numbers are exactly pdf.js's page indexes.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- false positive: the import attributes of a type-only import() are not a value (tsc resolves the type)
type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs', { with: { 'resolution-mode': 'import' } });
let pdfjs: Promise<PdfJs> | null = null;
const loadPdfjs = (): Promise<PdfJs> =>
  (pdfjs ??= import(pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href) as Promise<PdfJs>);

/** Why pdf.js refused a file, in words a user can act on. */
function describePdfError(name: string, message: string): string {
  if (name === 'PasswordException') return 'the PDF is password-protected';
  if (name === 'InvalidPDFException') return `not a valid PDF file (${message})`;
  return `the PDF could not be read (${message})`;
}

/** A page without its boxes (its text is not indexed). */
function withoutBoxes(page: ParsedPage): ParsedPage {
  const { boxes: _boxes, ...rest } = page;
  return rest;
}

/** How long a document's destruction is awaited before its thread is given up (see spoilThread). */
const DESTROY_WAIT_MS = 5_000;

/**
 * Reads a PDF one page at a time in the calling thread (a parser pool worker): `onTotal` gets the
 * page count before any page is read, `onPage` each laid-out page in order. Fails with a
 * LimitError beyond `pdfMaxPages` pages or `pdfMaxPageChars` characters on a page, with an
 * IngestError for unreadable files.
 */
export async function readPdf(
  buf: Buffer,
  limits: Pick<ParseLimits, 'pdfMaxPages' | 'pdfMaxPageChars'> & Partial<Pick<ParseLimits, 'ocr'>>,
  { onTotal, onPage, pace = () => Promise.resolve() }: PageSink,
): Promise<number> {
  const lib = await loadPdfjs();
  let doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
  try {
    doc = await lib.getDocument({
      data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength),
      verbosity: 0,
      disableFontFace: true,
      isEvalSupported: false,
      useSystemFonts: false,
      stopAtErrors: false,
      // an image larger than a page may be rendered is not decoded (a pixel flood in a scanned page)
      ...(limits.ocr ? { maxImageSize: limits.ocr.maxPixels } : {}),
    }).promise;
  } catch (e) {
    throw new IngestError(describePdfError((e as Error)?.name ?? 'Error', String((e as Error)?.message ?? e)));
  }
  try {
    if (doc.numPages > limits.pdfMaxPages)
      throw new LimitError(`the PDF has ${doc.numPages} pages, more than the limit of ${limits.pdfMaxPages}`);
    onTotal(doc.numPages);
    // pages are requested a few ahead (pdf.js overlaps their work) and handed on strictly in order
    const AHEAD = 4;
    const inflight = new Map<number, Promise<PdfTextItem[]>>();
    const read = async (n: number): Promise<PdfTextItem[]> => {
      const page = await doc.getPage(n);
      const box = boxOnPage(page.getViewport({ scale: 1 }));
      // streamed in chunks, so a page over the text limit keeps no more than the limit of its text
      const reader = page.streamTextContent().getReader();
      const items: PdfTextItem[] = [];
      let chars = 0;
      let over = false;
      try {
        for (;;) {
          // pdf.js types the streamed chunks as any: this is the part of a text content chunk read here
          const { value, done } = (await reader.read()) as
            | { done: true; value?: undefined }
            | {
                done: false;
                value: { items: Array<{ str?: unknown; transform: number[]; width: number; height: number; hasEOL?: boolean }> };
              };
          if (done) break;
          // past the limit the rest of the page is read and dropped: pdf.js's extraction waits for
          // each chunk to be taken, and a task left waiting keeps its document from being destroyed
          if (over) continue;
          for (const it of value.items) {
            if (!('str' in it) || typeof it.str !== 'string') continue;
            chars += it.str.length;
            if (chars > limits.pdfMaxPageChars) {
              over = true;
              items.length = 0;
              break;
            }
            items.push({
              str: it.str,
              x: it.transform[4],
              y: it.transform[5],
              width: it.width,
              height: it.height || Math.abs(it.transform[3]) || 0,
              hasEOL: !!it.hasEOL,
              box: box(it.transform, it.width, it.height || Math.abs(it.transform[3]) || 0),
            });
          }
        }
      } finally {
        // not reader.cancel(): pdf.js would still enqueue into the cancelled stream and throw
        // outside any promise; doc.destroy() below ends the page's work instead
        reader.releaseLock();
        page.cleanup();
      }
      if (over) throw new LimitError(`page ${n} of the PDF has more than ${limits.pdfMaxPageChars} characters of text`);
      return items;
    };
    // running headers, footers and page numbers are removed (decided on the first pages), and a
    // table of contents or a back-of-book index is not indexed
    const running = new RunningLineFilter((page) =>
      onPage(isFinderPage(page.text) ? { ...withoutBoxes(page), text: '' } : withSections(page)),
    );
    let next = 1;
    // a page with too little text for its area is rendered and recognised (OCR); the pages that
    // need it are counted against OCR_MAX_PAGES when the first is met, before any is recognised.
    // Scanned pages may be recognised by other threads of the pool meanwhile (ocr-spread.ts).
    const { ocr } = limits;
    let scansChecked = false;
    const out = new OrderedPages(ocr ?? null, (page) => running.push(page), pace);
    for (let n = 1; n <= doc.numPages; n++) {
      for (; next <= doc.numPages && next < n + AHEAD; next++) {
        const p = read(next);
        p.catch(() => undefined); // awaited below in order; this only keeps an early failure from being "unhandled"
        inflight.set(next, p);
      }
      const items = await inflight.get(n)!;
      inflight.delete(n);
      if (
        ocr &&
        (await looksScanned(
          await doc.getPage(n),
          items.map((it) => it.str),
          lib.OPS,
        ))
      ) {
        if (!scansChecked) await checkScannedPages(doc as unknown as PdfDoc, n, ocr);
        scansChecked = true;
        await out.scan(n, () => drawPdfPage(doc as unknown as PdfDoc, n, ocr, lib.OPS));
      } else {
        const { text, boxes } = layoutPageBoxes(items);
        await out.page({ pageNumber: n, text, ...(boxes.length ? { boxes } : {}) });
      }
    }
    await out.finish();
    running.finish();
    return doc.numPages;
  } catch (e) {
    if (e instanceof IngestError) throw e;
    throw new IngestError(describePdfError((e as Error)?.name ?? 'Error', String((e as Error)?.message ?? e)));
  } finally {
    // a failed read may leave pdf.js work behind (the pages read ahead): the failure is reported
    // without waiting long for it, and a thread whose document will not go is ended (see spoilThread)
    const destroyed = doc.destroy().then(
      () => true,
      () => true,
    );
    const gone = await Promise.race([destroyed, new Promise<boolean>((r) => setTimeout(() => r(false), DESTROY_WAIT_MS).unref())]);
    if (!gone) spoilThread();
  }
}
