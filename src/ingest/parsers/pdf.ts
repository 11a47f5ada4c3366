import { pathToFileURL } from 'node:url';
import { LimitError, ParseLimits } from '../limits';
import { isFinderPage } from '../contents-pages';
import { spoilThread } from './thread-health';
import { RunningLineFilter } from '../running-lines';
import { headingMark, stripMarks, withSections } from '../sections';
import { IngestError, ParsedPage } from '../types';
import { checkScannedPages, looksScanned, PdfDoc, recognisePdfPage } from './pdf-ocr';

/** One positioned piece of text as pdf.js reports it (transform[4], transform[5] = x, y). */
export interface PdfTextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
  hasEOL: boolean;
}

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

const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0xfeff ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x3000 ||
  c === 0x1680 ||
  c === 0x202f ||
  c === 0x205f;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Lays out one page's text items: items on the same baseline are joined (with a space when there
 * is a visible gap), a new baseline starts a new line, and a vertical gap clearly larger than the
 * line height starts a new paragraph (blank line). Words hyphenated across lines are rejoined.
 */
export function layoutPage(items: PdfTextItem[]): string {
  const lines: Array<{ text: string; y: number; height: number }> = [];
  // `last` is the line's last character: neither /\s$/ nor charCodeAt on the growing string (an
  // end-anchored regex rescans it, and reading a concatenated string flattens it — both quadratic)
  let line: { text: string; y: number; height: number; endX: number; last: number } | null = null;
  for (const it of items) {
    const height = it.height > 0 ? it.height : 10;
    if (line && Math.abs(it.y - line.y) <= height * 0.4) {
      if (it.str) {
        const gap = it.x - line.endX;
        const needsSpace = gap > height * 0.15 && !isSpace(line.last) && !isSpace(it.str.charCodeAt(0));
        line.text += (needsSpace ? ' ' : '') + it.str;
        line.last = it.str.charCodeAt(it.str.length - 1);
        line.endX = it.x + it.width;
      }
    } else if (it.str.trim() || !line) {
      if (line) lines.push(line);
      line = { text: it.str, y: it.y, height, endX: it.x + it.width, last: it.str.charCodeAt(it.str.length - 1) };
    }
    if (it.hasEOL && line) {
      lines.push(line);
      line = null;
    }
  }
  if (line) lines.push(line);

  const heading = headingLines(lines);
  // pieces joined once at the end (slicing a growing string would copy it every time)
  const out: string[] = [];
  let prev: { text: string; y: number; height: number } | null = null;
  let prevHeading = 0;
  lines.forEach((l, i) => {
    const text = stripMarks(l.text).replace(/\s+/g, ' ').trim();
    if (!text) return;
    let continuesHeading = false;
    if (prev) {
      const gap = Math.abs(prev.y - l.y);
      const paragraphBreak = gap > Math.max(prev.height, l.height) * 1.8;
      const before = out[out.length - 1];
      // a heading is a paragraph of its own; its lines are one heading
      continuesHeading = prevHeading > 0 && heading[i] > 0 && !paragraphBreak;
      if (continuesHeading) out.push(' ');
      else if (paragraphBreak || prevHeading > 0 || heading[i] > 0) out.push('\n\n');
      else if (before.length > 1 && before.endsWith('-') && isLetter(before.charCodeAt(before.length - 2)) && /^[a-z]/.test(text))
        out[out.length - 1] = before.slice(0, -1); // re-join "docu-" + "ment"
      else out.push('\n');
    }
    out.push(heading[i] > 0 && !continuesHeading ? headingMark(heading[i]) + text : text);
    prev = l;
    prevHeading = heading[i];
  });
  return out.join('');
}

/** A heading's type is at least this much larger than the page's body text. */
const HEADING_SIZE = 1.15;
/**
 * A heading's level from its type size against the body's: chapter titles are set far larger than
 * sections' (LaTeX and dblatex 2.07 and 1.44 of the body, texinfo 1.58 and 1.32; subsections 1.2).
 */
const headingLevel = (ratio: number): number => (ratio >= 1.5 ? 1 : ratio >= 1.27 ? 2 : 3);
/** Longer lines are text set large, not headings. */
const HEADING_CHARS = 150;
/** A page needs this many lines of body text before its larger lines are taken as headings. */
const BODY_LINES = 3;

/**
 * Which lines are headings: set in type clearly larger than the page's body text (the height
 * that carries the most characters), short, and holding a letter.
 */
function headingLines(lines: Array<{ text: string; height: number }>): number[] {
  const chars = new Map<number, number>();
  const count = new Map<number, number>();
  for (const l of lines) {
    const h = Math.round(l.height * 10) / 10;
    chars.set(h, (chars.get(h) ?? 0) + l.text.length);
    count.set(h, (count.get(h) ?? 0) + 1);
  }
  let body = 0;
  for (const [h, n] of chars) if (n > (chars.get(body) ?? 0)) body = h;
  if ((count.get(body) ?? 0) < BODY_LINES) return lines.map(() => 0);
  return lines.map((l) =>
    l.height >= body * HEADING_SIZE && l.text.trim().length <= HEADING_CHARS && /\p{L}/u.test(l.text) ? headingLevel(l.height / body) : 0,
  );
}

/** Why pdf.js refused a file, in words a user can act on. */
function describePdfError(name: string, message: string): string {
  if (name === 'PasswordException') return 'the PDF is password-protected';
  if (name === 'InvalidPDFException') return `not a valid PDF file (${message})`;
  return `the PDF could not be read (${message})`;
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
  onTotal: (n: number) => void,
  onPage: (page: ParsedPage) => void,
  pace: () => Promise<void> = () => Promise.resolve(),
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
    const running = new RunningLineFilter((page) => onPage(isFinderPage(page.text) ? { ...page, text: '' } : withSections(page)));
    let next = 1;
    // a page with too little text for its area is rendered and recognised (OCR); the pages that
    // need it are counted against OCR_MAX_PAGES when the first is met, before any is recognised
    const { ocr } = limits;
    let scansChecked = false;
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
        running.push(await recognisePdfPage(doc as unknown as PdfDoc, n, ocr, lib.OPS));
      } else running.push({ pageNumber: n, text: layoutPage(items) });
      await pace();
    }
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
