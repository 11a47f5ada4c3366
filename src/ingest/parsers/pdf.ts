import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { IngestError, ParsedPage, ParseOptions } from '../types';

/** One positioned piece of text as pdf.js reports it (transform[4], transform[5] = x, y). */
export interface PdfTextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
  hasEOL: boolean;
}

type WorkerMessage =
  | { type: 'meta'; numPages: number }
  | { type: 'page'; pageNumber: number; items: PdfTextItem[] }
  | { type: 'done' }
  | { type: 'error'; name: string; message: string };

/*
 * pdf.js 5 ships only as ES modules. It is loaded with a real dynamic import() inside a worker
 * thread, which (1) keeps its CPU-heavy parsing off the event loop that serves HTTP when workers
 * run in-process, (2) works under jest (whose VM cannot import ESM without a Node flag; a worker
 * thread is a plain Node realm), and (3) lets us terminate a runaway parse. The thread only reads
 * pages and posts their positioned text items; layout into lines and paragraphs happens here in
 * layoutPage(), one page at a time, so page numbers are exactly pdf.js's page indexes.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const post = (m) => parentPort.postMessage(m);
(async () => {
  const pdfjs = await import(workerData.pdfjsUrl);
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(workerData.data),
    verbosity: 0,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    stopAtErrors: false,
  }).promise;
  post({ type: 'meta', numPages: doc.numPages });
  // pages are requested a few ahead (pdf.js overlaps their work) and posted strictly in order
  const AHEAD = 4;
  const inflight = new Map();
  const read = async (n) => {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    page.cleanup();
    const items = [];
    for (const it of content.items) {
      if (typeof it.str !== 'string') continue;
      items.push({ str: it.str, x: it.transform[4], y: it.transform[5], width: it.width, height: it.height || Math.abs(it.transform[3]) || 0, hasEOL: !!it.hasEOL });
    }
    return items;
  };
  let next = 1;
  for (let n = 1; n <= doc.numPages; n++) {
    for (; next <= doc.numPages && next < n + AHEAD; next++) {
      const p = read(next);
      p.catch(() => {}); // awaited below in order; this only keeps an early failure from being "unhandled"
      inflight.set(next, p);
    }
    const items = await inflight.get(n);
    inflight.delete(n);
    post({ type: 'page', pageNumber: n, items });
  }
  await doc.destroy();
  post({ type: 'done' });
})().catch((e) => post({ type: 'error', name: (e && e.name) || 'Error', message: String((e && e.message) || e) }));
`;

let pdfjsUrl: string | null = null;
const resolvePdfjs = (): string => (pdfjsUrl ??= pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href);

/**
 * Lays out one page's text items: items on the same baseline are joined (with a space when there
 * is a visible gap), a new baseline starts a new line, and a vertical gap clearly larger than the
 * line height starts a new paragraph (blank line). Words hyphenated across lines are rejoined.
 */
export function layoutPage(items: PdfTextItem[]): string {
  const lines: Array<{ text: string; y: number; height: number }> = [];
  let line: { text: string; y: number; height: number; endX: number } | null = null;
  for (const it of items) {
    const height = it.height > 0 ? it.height : 10;
    if (line && Math.abs(it.y - line.y) <= height * 0.4) {
      if (it.str) {
        const gap = it.x - line.endX;
        const needsSpace = gap > height * 0.15 && !/\s$/.test(line.text) && !/^\s/.test(it.str);
        line.text += (needsSpace ? ' ' : '') + it.str;
        line.endX = it.x + it.width;
      }
    } else if (it.str.trim() || !line) {
      if (line) lines.push(line);
      line = { text: it.str, y: it.y, height, endX: it.x + it.width };
    }
    if (it.hasEOL && line) {
      lines.push(line);
      line = null;
    }
  }
  if (line) lines.push(line);

  let out = '';
  let prev: { text: string; y: number; height: number } | null = null;
  for (const l of lines) {
    const text = l.text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (prev) {
      const gap = Math.abs(prev.y - l.y);
      const paragraphBreak = gap > Math.max(prev.height, l.height) * 1.8;
      if (paragraphBreak) out += '\n\n';
      else if (/[A-Za-z]-$/.test(out) && /^[a-z]/.test(text)) out = out.slice(0, -1); // re-join "docu-" + "ment"
      else out += '\n';
    }
    out += text;
    prev = l;
  }
  return out;
}

/** Why pdf.js refused a file, in words a user can act on. */
function describePdfError(name: string, message: string): string {
  if (name === 'PasswordException') return 'the PDF is password-protected';
  if (name === 'InvalidPDFException') return `not a valid PDF file (${message})`;
  return `the PDF could not be read (${message})`;
}

/**
 * Reads a PDF one page at a time in a worker thread; `onPage` gets each page in order and
 * `onProgress` is called after each page with the exact page count known from the start.
 * Rejects with IngestError for unreadable files.
 */
export async function parsePdf(buf: Buffer, opts: ParseOptions = {}): Promise<ParsedPage[]> {
  const { onProgress, onPage, signal } = opts;
  const data = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { pdfjsUrl: resolvePdfjs(), data },
    transferList: [data],
    // a hostile file should not take the whole process's memory with it
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume(); // pdf.js may print warnings; they are not ours to show
  worker.stderr.resume();
  const pages: ParsedPage[] = [];
  let total = 0;
  let progress: Promise<void> = Promise.resolve();
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error('PDF parsing aborted'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'meta') total = m.numPages;
        else if (m.type === 'page') {
          const page = { pageNumber: m.pageNumber, text: layoutPage(m.items) };
          pages.push(page);
          onPage?.(page);
          const done = pages.length;
          // progress writes are chained so they land in order and their errors surface below
          if (onProgress) progress = progress.then(() => onProgress(done, total));
        } else if (m.type === 'done') resolve();
        else if (m.type === 'error') reject(new IngestError(describePdfError(m.name, m.message)));
      });
      worker.on('error', (e) => reject(new IngestError(`the PDF could not be read (${e.message})`)));
      worker.on('exit', (code) => reject(new IngestError(`the PDF reader stopped unexpectedly (exit code ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
  await progress;
  return pages;
}
