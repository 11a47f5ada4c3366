/**
 * Hostile documents, built at run time (nothing large is committed), and a /healthz probe. Used by
 * test/e2e/hostile-documents.test.ts and bench/hostile.ts. No test framework imports here.
 */
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { makeDocx } from './docx';
import { makePdf } from './pdf';

export interface HostileCase {
  /** What the case is, in words. */
  label: string;
  name: string;
  content: Buffer;
  /** The document's expected final state. */
  status: 'ready' | 'failed';
  /** For `failed`: the error it must show. */
  error?: RegExp;
  /** Refused when uploaded (its bytes are no format read): it fails without any ingestion attempt. */
  atUpload?: true;
}

interface ZipEntry {
  name: string;
  /** The entry's bytes, as pieces (a generator can describe a bomb without holding it). */
  parts: () => Iterable<Buffer>;
}

/** Deflates pieces as a stream; returns the compressed bytes, the CRC-32 and the inflated size. */
async function deflatePieces(parts: Iterable<Buffer>): Promise<{ compressed: Buffer; crc: number; size: number }> {
  let crc = 0;
  let size = 0;
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  for (const part of parts) {
    crc = zlib.crc32(part, crc);
    size += part.length;
    if (!deflate.write(part)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await ended;
  return { compressed: Buffer.concat(out), crc, size };
}

/** A minimal zip writer (deflate, CRC-32, central directory) that writes a bomb without holding it inflated. */
export async function makeZip(entries: ZipEntry[]): Promise<Buffer> {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const { compressed, crc, size } = await deflatePieces(e.parts());
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(compressed.length, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    parts.push(local, name, compressed);
    offset += local.length + name.length + compressed.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}

/** A valid DOCX whose word/document.xml inflates to about `mb` megabytes of paragraphs. */
export function makeDocxBomb(mb: number): Promise<Buffer> {
  const para = '<w:p><w:r><w:t>boom boom boom boom boom boom boom boom</w:t></w:r></w:p>';
  const chunk = Buffer.from(para.repeat(Math.floor((1024 * 1024) / para.length)));
  const head = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
  );
  const tail = Buffer.from('</w:body></w:document>');
  return makeZip([
    {
      name: '[Content_Types].xml',
      parts: () => [
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        ),
      ],
    },
    {
      name: '_rels/.rels',
      parts: () => [
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        ),
      ],
    },
    {
      name: 'word/document.xml',
      parts: function* () {
        yield head;
        for (let i = 0; i < mb; i++) yield chunk;
        yield tail;
      },
    },
  ]);
}

/**
 * A text layer of `lines` × 90 characters drawn over and over at the same spot of the page (so it
 * stays inside the page, where pdf.js extracts it).
 */
function overprintedText(lines: number): string {
  const line =
    '(' + 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut'.slice(0, 90) + ') Tj 0 0 Td';
  return `BT /F1 11 Tf 56 700 Td\n${Array.from({ length: lines }, () => line).join('\n')}\nET`;
}

/** Every hostile input of the suite, with its expected outcome under the given limits. */
export async function hostileCases(limits: {
  timeoutSeconds: number;
  pdfMaxPages: number;
  pdfMaxPageChars: number;
  maxExpandedMb: number;
  htmlMaxDepth: number;
  emptyPages?: number;
}): Promise<HostileCase[]> {
  const emptyPages = limits.emptyPages ?? 1000;
  const goodPdf = makePdf([{ paragraphs: ['The warranty lasts thirty-six months from the date of delivery.'] }]);
  const goodDocx = await makeDocx([{ text: 'Policy', heading: 1 }, { text: 'Refunds are accepted within thirty days.' }]);
  const elf = Buffer.concat([
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
    Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 131) % 256)),
  ]);
  // different bytes for each, so none is taken as a duplicate of another
  const binary = (seed: number) => Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 37 + seed) % 256));
  return [
    {
      label: 'quadratic Markdown: `[a](` × 262,144 (1 MB)',
      name: 'links.md',
      content: Buffer.from('[a]('.repeat(262_144)),
      status: 'ready',
    },
    {
      label: `DOCX zip bomb (${limits.maxExpandedMb + 50} MB inflated)`,
      name: 'bomb.docx',
      content: await makeDocxBomb(limits.maxExpandedMb + 50),
      status: 'failed',
      error: new RegExp(`document expands to more than ${limits.maxExpandedMb} MB`),
    },
    {
      label: 'HTML nested 100,000 deep',
      name: 'nested.html',
      content: Buffer.from('<div>'.repeat(100_000) + 'deep'),
      status: 'failed',
      error: new RegExp(`nests deeper than ${limits.htmlMaxDepth} levels`),
    },
    {
      label: `${emptyPages} empty PDF pages`,
      name: 'empty-pages.pdf',
      content: makePdf(Array.from({ length: emptyPages }, () => ({ paragraphs: [] }))),
      status: 'failed',
      // pages that draw nothing are not sent to OCR: they are blank, and the error says so
      error: /^no text found: the pages are blank$/,
    },
    {
      label: `PDF over the page limit (${limits.pdfMaxPages + 1} pages)`,
      name: 'too-many-pages.pdf',
      content: makePdf(Array.from({ length: limits.pdfMaxPages + 1 }, () => ({ paragraphs: [] }))),
      status: 'failed',
      error: new RegExp(`more than the limit of ${limits.pdfMaxPages}`),
    },
    {
      label: `text of form feeds over the page limit (${limits.pdfMaxPages + 1} one-letter pages)`,
      name: 'form-feeds.txt',
      content: Buffer.from('x\f'.repeat(limits.pdfMaxPages + 1)),
      status: 'failed',
      error: new RegExp(`the document has ${limits.pdfMaxPages + 1} pages, more than the limit of ${limits.pdfMaxPages}`),
    },
    {
      label: 'PDF with 360,000 characters of text on one page',
      name: 'huge-text.pdf',
      content: makePdf([{ paragraphs: [], raw: overprintedText(4_000) }]),
      status: 'failed',
      error: new RegExp(`page 1 of the PDF has more than ${limits.pdfMaxPageChars} characters`),
    },
    {
      label: 'truncated PDF',
      name: 'truncated.pdf',
      content: goodPdf.subarray(0, Math.floor(goodPdf.length / 2)),
      status: 'failed',
      error: /PDF/,
    },
    {
      label: 'truncated DOCX',
      name: 'truncated.docx',
      content: goodDocx.subarray(0, Math.floor(goodDocx.length / 2)),
      status: 'failed',
      // its central directory is cut off: a zip that cannot be opened, whatever its name says
      error: /^a damaged zip file/,
      atUpload: true,
    },
    { label: 'binary bytes named .html', name: 'corrupt.html', content: binary(1), status: 'failed', error: /not readable text/ },
    { label: 'binary bytes named .md', name: 'corrupt.md', content: binary(2), status: 'failed', error: /not readable text/ },
    { label: 'binary bytes named .txt', name: 'corrupt.txt', content: binary(3), status: 'failed', error: /not readable text/ },
    { label: 'a PDF named .docx (extension lies)', name: 'really-a-pdf.docx', content: goodPdf, status: 'ready' },
    {
      label: 'an executable named .pdf (extension lies)',
      name: 'invoice.pdf',
      content: elf,
      status: 'failed',
      error: /^the file is not a PDF file: its content does not start as one does$/,
      atUpload: true,
    },
  ];
}

export interface ProbeResult {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/** The probe's loop, run in a thread of its own (plain JavaScript: it is evaluated, not compiled). */
const PROBE_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const latencies = [];
let failures = 0;
let running = true;
parentPort.on('message', () => (running = false));
(async () => {
  while (running) {
    const t0 = performance.now();
    try {
      const res = await fetch(workerData.url, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
    } catch {
      failures++;
    }
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, workerData.gapMs));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

/**
 * Requests `url` back to back (one at a time, `gapMs` apart) until stopped; latencies in ms. The
 * requests are made from a worker thread, so what the caller does meanwhile (uploading a 40 MB
 * file, polling) does not delay them: the latencies are the server's.
 */
export function probe(url: string, gapMs = 10): { stop(): Promise<ProbeResult> } {
  const worker = new Worker(PROBE_LOOP, { eval: true, workerData: { url, gapMs } });
  const result = new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const { latencies, failures } = await result;
      await worker.terminate();
      const sorted = [...latencies].sort((a, b) => a - b);
      const q = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : 0);
      const r = (n: number) => Math.round(n * 100) / 100;
      return { count: sorted.length, failures, p50: r(q(0.5)), p99: r(q(0.99)), max: r(sorted[sorted.length - 1] ?? 0) };
    },
  };
}

/** Peak and current resident memory of a process (Linux /proc), in MB. */
export function processMemoryMb(pid: number): { peakRss: number; rss: number } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const status: string = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { peakRss: Math.round(kb('VmHWM') / 1024), rss: Math.round(kb('VmRSS') / 1024) };
}
