import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { detectFormat } from '../../../src/ingest/detect';
import { LimitError } from '../../../src/ingest/limits';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { DocumentKind, IngestError, ParsedPage } from '../../../src/ingest/types';
import { imagePdf, manyPageScan, pixelFloodPng } from '../../support/hostile-ocr';

jest.setTimeout(180_000);

/**
 * Scanned PDFs and images are recognised in the parser pool (Tesseract in the parser thread):
 * each page holds its words, says it was OCR'd with its confidence, and carries the boxes of its
 * words; a mixed PDF reads each page by the method it needs. Fixtures: test/fixtures/formats/scans.
 */
const DIR = path.resolve(__dirname, '../../fixtures/formats/scans');
const fixture = (name: string) => readFileSync(path.join(DIR, name));
const env = { JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test', PARSER_THREADS: '1' };
const config = loadConfig(env);
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

const FIXTURES: Array<[string, string, DocumentKind]> = [
  ['scanned-contract.pdf', 'application/pdf', 'pdf'],
  ['mixed.pdf', 'application/pdf', 'pdf'],
  ['notice.png', 'image/png', 'png'],
  ['visitor-policy.tiff', 'image/tiff', 'tiff'],
  ['parking.jpg', 'image/jpeg', 'jpeg'],
  ['fire-drill.webp', 'image/webp', 'webp'],
  ['library-hours.gif', 'image/gif', 'gif'],
];

/** Words of a page's text, lower-cased, punctuation dropped. */
const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Each box names a word of the text and lies on the page (fractions of its width and height). */
function expectBoxesCoverWords(page: ParsedPage) {
  const boxes = page.boxes!;
  expect(boxes.length).toBe(page.text.split(/\s+/).filter(Boolean).length);
  for (const b of boxes) {
    expect(page.text.slice(b.start, b.end).trim()).toBe(page.text.slice(b.start, b.end));
    expect(b.end).toBeGreaterThan(b.start);
    for (const v of [b.x, b.y, b.w, b.h]) expect(v).toBeGreaterThanOrEqual(0);
    expect(b.x + b.w).toBeLessThanOrEqual(1);
    expect(b.y + b.h).toBeLessThanOrEqual(1);
  }
  // the boxes are in reading order, and together cover every word of the text
  const covered = boxes.map((b) => page.text.slice(b.start, b.end)).join(' ');
  expect(covered).toBe(page.text.split(/\s+/).filter(Boolean).join(' '));
}

describe('OCR fixtures are detected by their content', () => {
  it.each(FIXTURES)('%s is %s (%s)', async (name, mime, kind) => {
    const buf = fixture(name);
    // the extension and type are hints: a misnamed upload is detected the same
    expect((await detectFormat(name, mime, buf.subarray(0, 4096), { buffer: buf })).kind).toBe(kind);
    expect((await detectFormat('upload.bin', 'application/octet-stream', buf.subarray(0, 4096), { buffer: buf })).kind).toBe(kind);
  });
});

describe('OCR through the parser pool', () => {
  it('reads every page of the scanned contract by OCR, with the words of each page, its confidence and boxes', async () => {
    const pages = await pool.parse('pdf', fixture('scanned-contract.pdf'));
    expect(pages.map((p) => [p.pageNumber, p.method])).toEqual([
      [1, 'ocr'],
      [2, 'ocr'],
      [3, 'ocr'],
    ]);
    expect(words(pages[0].text)).toEqual(expect.arrayContaining(['halvorsen', 'ergonomic', 'chairs', 'lyon', '61', '200', 'euros']));
    expect(words(pages[1].text)).toEqual(expect.arrayContaining(['warranty', 'seven', 'years', 'termination', 'ninety']));
    expect(words(pages[2].text)).toEqual(expect.arrayContaining(['norway', 'oslo', 'district', 'court', 'okafor']));
    // each page has its own text: the warranty is on page 2 only
    expect(pages[0].text).not.toMatch(/warranty/i);
    // paragraphs stay paragraphs
    expect(pages[0].text).toMatch(/^Supply Agreement\n\nThis Supply Agreement/);
    for (const p of pages) {
      expect(p.confidence).toBeGreaterThan(80);
      expect(p.confidence).toBeLessThanOrEqual(100);
      expectBoxesCoverWords(p);
    }
    // the title's box: near the top of the page, left of its middle
    const title = pages[0].boxes![0];
    expect(pages[0].text.slice(title.start, title.end)).toBe('Supply');
    expect(title.y).toBeLessThan(0.2);
    expect(title.x).toBeLessThan(0.5);
  });

  it('reads a mixed PDF page by page: the text page from its text layer, the scanned page by OCR', async () => {
    const pages = await pool.parse('pdf', fixture('mixed.pdf'));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toMatchObject({ pageNumber: 1 });
    expect(pages[0].method ?? 'text').toBe('text');
    expect(pages[0].confidence).toBeUndefined();
    expect(pages[0].text).toContain('Revenue in the third quarter rose to 4.2 million euros');
    expect(pages[1]).toMatchObject({ pageNumber: 2, method: 'ocr' });
    expect(pages[1].confidence).toBeGreaterThan(80);
    expect(pages[1].text).toContain('The company operates nineteen electric delivery vans.');
    expectBoxesCoverWords(pages[1]);
  });

  it.each([
    ['notice.png', 'png', ['canteen', 'renovation', 'marigold', 'meeting', '11', '30']],
    ['parking.jpg', 'jpeg', ['parking', 'permits', 'renewed', 'january', 'barrier', 'quarterly']],
    ['fire-drill.webp', 'webp', ['fire', 'drill', 'thursday', 'flagpole']],
    ['library-hours.gif', 'gif', ['library', 'reading', 'room', 'eight', 'thirty']],
  ] as const)('recognises %s as one OCR page', async (name, kind, expected) => {
    const pages = await pool.parse(kind, fixture(name));
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ pageNumber: 1, method: 'ocr' });
    expect(words(pages[0].text)).toEqual(expect.arrayContaining([...expected]));
    expect(pages[0].confidence).toBeGreaterThan(80);
    expectBoxesCoverWords(pages[0]);
  });

  it('turns a JPEG upright by its EXIF orientation (stored sideways, read as lines of words)', async () => {
    const [page] = await pool.parse('jpeg', fixture('parking.jpg'));
    expect(page.text.split('\n')[0]).toBe('Parking Permit Rules');
    // upright, the lines run across the image: the first word's box is wider than tall
    expect(page.boxes![0].w).toBeGreaterThan(page.boxes![0].h);
  });

  it('reads every page of a TIFF as a page', async () => {
    const pages = await pool.parse('tiff', fixture('visitor-policy.tiff'));
    expect(pages.map((p) => [p.pageNumber, p.method])).toEqual([
      [1, 'ocr'],
      [2, 'ocr'],
    ]);
    expect(pages[0].text).toContain('yellow badge');
    expect(pages[1].text).toContain('server room');
    expect(pages[1].text).not.toContain('yellow badge');
  });
});

describe("one document's pages spread over the pool's threads", () => {
  it('recognises a multi-page scan in more than one thread, pages in order, as one thread reads them', async () => {
    const two = loadConfig({ ...env, PARSER_THREADS: '2' });
    const spread = new ParserPool(two.parseLimits, two.parserPool);
    try {
      // both threads started, with their engines loaded: the second is free when the scan comes
      await Promise.all([spread.parse('gif', fixture('library-hours.gif')), spread.parse('webp', fixture('fire-drill.webp'))]);
      let threads = 0;
      const pages = await spread.parse('pdf', fixture('scanned-contract.pdf'), { onResult: (r) => (threads = r.ocrThreads) });
      expect(threads).toBe(2);
      let one = 0;
      const alone = await pool.parse('pdf', fixture('scanned-contract.pdf'), { onResult: (r) => (one = r.ocrThreads) });
      expect(one).toBe(1);
      expect(pages.map((p) => [p.pageNumber, p.method])).toEqual(alone.map((p) => [p.pageNumber, 'ocr']));
      // the same words, confidences and boxes whichever thread read a page
      expect(pages).toEqual(alone);
    } finally {
      await spread.destroy();
    }
  });

  it('fails the document on a page over OCR_PAGE_TIMEOUT_SECONDS wherever it is recognised, and the pool reads the next one', async () => {
    const limited = loadConfig({ ...env, PARSER_THREADS: '2', OCR_PAGE_TIMEOUT_SECONDS: '1' });
    const spread = new ParserPool(limited.parseLimits, { ...limited.parserPool, nice: 0 });
    const sharp = (await import('sharp')).default;
    const gray = async (img: ReturnType<typeof sharp>) => {
      const { data, info } = await img.toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, pixels: data, dpi: 150 };
    };
    const text = await gray(sharp(fixture('notice.png')).flatten({ background: '#ffffff' }));
    // 2,500² pixels of noise: Tesseract looks for text in it for many seconds
    const noise = await gray(
      sharp({
        create: { width: 2500, height: 2500, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 80 } },
      }),
    );
    try {
      await Promise.all([spread.parse('gif', fixture('library-hours.gif')), spread.parse('webp', fixture('fire-drill.webp'))]);
      // the later pages are offered to the other thread (the document's thread keeps the first), which
      // recognises them unless the document's thread takes one back first: the page's limit holds either way
      const err = await spread.parse('pdf', imagePdf([text, text, noise])).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as Error).message).toMatch(
        /^recognising page 3 (used more than 1 s of processor time|took longer than 10 s) \(OCR_PAGE_TIMEOUT_SECONDS\)$/,
      );
      // the threads were ended and fresh ones read the next document
      const pages = await spread.parse('pdf', imagePdf([text, text, text]));
      expect(pages.map((p) => [p.pageNumber, p.text.includes('renovation')])).toEqual([
        [1, true],
        [2, true],
        [3, true],
      ]);
    } finally {
      await spread.destroy();
    }
  });
});

describe('OCR limits and settings', () => {
  it('fails a pixel-flood PNG on OCR_MAX_PIXELS from its header, before decoding it', async () => {
    const started = Date.now();
    const err = await pool.parse('png', pixelFloodPng()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitError);
    expect((err as Error).message).toMatch(/50000 × 50000 pixels.*more than OCR_MAX_PIXELS \(40000000\)/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('fails a 5,000-page scan on OCR_MAX_PAGES before recognising any page', async () => {
    const err = await pool.parse('pdf', manyPageScan(5000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitError);
    expect((err as Error).message).toMatch(/^the document has more than 500 pages that need OCR, the limit set by OCR_MAX_PAGES$/);
  });

  it('fails an image with its reason when OCR is off (OCR=false)', async () => {
    const off = loadConfig({ ...env, OCR: 'false' });
    const offPool = new ParserPool(off.parseLimits, off.parserPool);
    try {
      const err = await offPool.parse('png', fixture('notice.png')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IngestError);
      expect((err as Error).message).toBe('PNG images are read by OCR, and OCR is off on this server (OCR=false)');
      // a scanned PDF page then stays without text (the document fails later for having none)
      const pages = await offPool.parse('pdf', fixture('mixed.pdf'));
      expect(pages.map((p) => [p.pageNumber, p.method ?? 'text', p.text === ''])).toEqual([
        [1, 'text', false],
        [2, 'text', true],
      ]);
    } finally {
      await offPool.destroy();
    }
  });

  it('reads a language from OCR_DATA_PATH and fails a missing one with a clear message', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-tessdata-'));
    // any tessdata directory: here, the bundled English under another name, gzipped as it ships
    const bundled = path.join(path.dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int', 'eng.traineddata.gz');
    writeFileSync(path.join(dir, 'enm.traineddata.gz'), readFileSync(bundled));
    const withLang = (languages: string) => loadConfig({ ...env, OCR_LANGUAGES: languages, OCR_DATA_PATH: dir });
    const missing = new ParserPool(withLang('eng+fra').parseLimits, config.parserPool);
    const extra = new ParserPool(withLang('enm').parseLimits, config.parserPool);
    try {
      const err = await missing.parse('png', fixture('notice.png')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IngestError);
      expect((err as Error).message).toBe(
        `OCR language "fra" is not available: OCR_DATA_PATH (${dir}) has no fra.traineddata or fra.traineddata.gz; only eng is bundled`,
      );
      const [page] = await extra.parse('png', fixture('notice.png'));
      expect(page.text).toContain('canteen');
    } finally {
      await Promise.all([missing.destroy(), extra.destroy()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the processor-time limit of a recognised page', () => {
  it('fails the document naming the page and OCR_PAGE_TIMEOUT_SECONDS, beyond the budget of PARSER_TIMEOUT_SECONDS', async () => {
    const limited = loadConfig({ ...env, OCR_PAGE_TIMEOUT_SECONDS: '1', PARSER_TIMEOUT_SECONDS: '60' });
    const strict = new ParserPool(limited.parseLimits, { ...limited.parserPool, nice: 0 });
    // 2,500² pixels of noise: Tesseract looks for text in it for many seconds
    const sharp = (await import('sharp')).default;
    const noise = await sharp({
      create: { width: 2500, height: 2500, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 80 } },
    })
      .png()
      .toBuffer();
    try {
      const err = await strict.parse('png', noise).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as Error).message).toMatch(
        /^recognising page 1 (used more than 1 s of processor time|took longer than 10 s) \(OCR_PAGE_TIMEOUT_SECONDS\)$/,
      );
      // the thread was ended and a fresh one reads the next document
      const [page] = await strict.parse('gif', fixture('library-hours.gif'));
      expect(page.text).toContain('Library Opening Hours');
    } finally {
      await strict.destroy();
    }
  });
});
