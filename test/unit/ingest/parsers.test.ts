import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { paginate, PAGE_CHARS } from '../../../src/ingest/paginate';
import { loadConfig } from '../../../src/config';
import { markdownToText } from '../../../src/ingest/parsers/markdown';
import { layoutPage, PdfTextItem } from '../../../src/ingest/parsers/pdf';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { decodeText } from '../../../src/ingest/parsers/text';
import { DocumentKind, IngestError, ParseOptions } from '../../../src/ingest/types';
import { makeDocx } from '../../support/docx';
import { makePdf } from '../../support/pdf';

// every parse goes through the worker pool, as ingestion runs it
const ENV = { JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' };
const config = loadConfig(ENV);
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());
const parsePdf = (buf: Buffer, opts?: ParseOptions) => pool.parse('pdf', buf, opts);
const parseDocument = (kind: DocumentKind, buf: Buffer) => pool.parse(kind, buf);

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} in a few plain words.`;
const longText = (n: number) => Array.from({ length: n }, (_, i) => sentence(i)).join(' ');

describe('PDF (pdf.js in the parser pool)', () => {
  it('reads one page at a time with exact page numbers and reports progress per page', async () => {
    const pdf = makePdf([
      { paragraphs: ['The cafeteria opens at eight.', 'Parking is free for staff.'] },
      { paragraphs: ['The warranty lasts thirty-six months from delivery.'] },
    ]);
    const progress: Array<[number, number]> = [];
    const seen: number[] = [];
    const pages = await parsePdf(pdf, {
      onProgress: (done, total) => {
        progress.push([done, total]);
      },
      onPage: (p) => seen.push(p.pageNumber),
    });
    expect(seen).toEqual([1, 2]);
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2]);
    expect(pages[0].text).toBe('The cafeteria opens at eight.\n\nParking is free for staff.');
    expect(pages[1].text).toBe('The warranty lasts thirty-six months from delivery.');
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('reads many pages in order with their own text (pages are fetched a few ahead)', async () => {
    const pdf = makePdf(Array.from({ length: 30 }, (_, i) => ({ paragraphs: [`This is page ${i + 1}.`] })));
    const order: number[] = [];
    const pages = await parsePdf(pdf, { onPage: (p) => order.push(p.pageNumber) });
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(pages.map((p) => p.text)).toEqual(Array.from({ length: 30 }, (_, i) => `This is page ${i + 1}.`));
  });

  it('keeps wrapped lines in one paragraph and separates paragraphs with a blank line', async () => {
    const [page] = await parsePdf(makePdf([{ paragraphs: [longText(3), 'Café crème: accented text survives.'] }]));
    const [first, second] = page.text.split('\n\n');
    expect(first.replace(/\n/g, ' ')).toBe(longText(3));
    expect(first).toContain('\n'); // it did wrap
    expect(second).toBe('Café crème: accented text survives.');
  });

  it('recognises the pages of a PDF without a text layer (OCR on by default): a drawn box holds no words', async () => {
    const pages = await parsePdf(
      makePdf([
        { paragraphs: [], drawBox: true },
        { paragraphs: [], drawBox: true },
      ]),
    );
    expect(pages).toEqual([
      { pageNumber: 1, text: '', method: 'ocr', confidence: 0, boxes: [] },
      { pageNumber: 2, text: '', method: 'ocr', confidence: 0, boxes: [] },
    ]);
  });

  it('rejects a corrupt PDF with a readable IngestError', async () => {
    const corrupt = Buffer.from('%PDF-1.4\nthis is not really a pdf at all\n%%EOF');
    await expect(parsePdf(corrupt)).rejects.toThrow(IngestError);
    await expect(parsePdf(corrupt)).rejects.toThrow(/PDF/);
  });

  it('rejects a truncated PDF', async () => {
    const pdf = makePdf([{ paragraphs: ['Hello'] }]);
    await expect(parsePdf(pdf.subarray(0, 40))).rejects.toThrow(IngestError);
  });

  it('stops when aborted', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('shutting down'));
    await expect(parsePdf(makePdf([{ paragraphs: ['x'] }]), { signal: ctl.signal })).rejects.toThrow('shutting down');
  });
});

describe('PDF page layout', () => {
  const item = (str: string, x: number, y: number, hasEOL = false): PdfTextItem => ({
    str,
    x,
    y,
    width: str.length * 5,
    height: 10,
    hasEOL,
  });

  it('joins items on one baseline, with a space only where there is a gap', () => {
    expect(layoutPage([item('Hel', 0, 100), item('lo', 15, 100), item('world', 40, 100)])).toBe('Hello world');
  });

  it('starts a paragraph at a large vertical gap and rejoins hyphenated words', () => {
    const text = layoutPage([item('an impor-', 0, 100, true), item('tant line', 0, 88, true), item('New paragraph', 0, 50)]);
    expect(text).toBe('an important line\n\nNew paragraph');
  });
});

describe('DOCX (mammoth)', () => {
  it('extracts paragraphs and headings; explicit page breaks start pages', async () => {
    const docx = await makeDocx([
      { text: 'Travel policy', heading: 1 },
      { text: 'Economy class is required for flights under six hours.', pageBreakAfter: true },
      { text: 'Meals', heading: 2 },
      { text: 'The daily meal allowance is 45 euros.' },
    ]);
    const pages = await parseDocument('docx', docx);
    expect(pages).toEqual([
      {
        pageNumber: 1,
        text: 'Travel policy\n\nEconomy class is required for flights under six hours.',
        sections: [{ offset: 0, title: 'Travel policy', level: 1 }],
      },
      { pageNumber: 2, text: 'Meals\n\nThe daily meal allowance is 45 euros.', sections: [{ offset: 0, title: 'Meals', level: 2 }] },
    ]);
  });

  it("reads the document's title as a heading and leaves out its table of contents (Word's and LibreOffice's styles)", async () => {
    const docx = await makeDocx([
      { text: 'Travel policy', style: 'Title' },
      { text: 'Contents', style: 'TOCHeading' },
      { text: 'Flights\t2', style: 'TOC1' },
      { text: 'Meals\t3', style: 'TOC2' },
      { text: 'Hotels\t4', style: 'Contents1' },
      { text: 'Flights', heading: 1 },
      { text: 'Economy class is required for flights under six hours.' },
    ]);
    const [page] = await parseDocument('docx', docx);
    expect(page.text).toBe('Travel policy\n\nFlights\n\nEconomy class is required for flights under six hours.');
    expect(page.sections?.map((s) => [s.title, s.level])).toEqual([
      ['Travel policy', 1],
      ['Flights', 1],
    ]);
  });

  it('paginates a DOCX without page breaks by the 3,000-character rule', async () => {
    const docx = await makeDocx(Array.from({ length: 12 }, (_, i) => ({ text: longText(8) + ` Paragraph ${i}.` })));
    const pages = await parseDocument('docx', docx);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((p) => p.pageNumber)).toEqual(pages.map((_, i) => i + 1));
  });

  it('rejects a file that is not a DOCX', async () => {
    await expect(parseDocument('docx', Buffer.from('PK not a zip'))).rejects.toThrow(/not a valid DOCX file/);
  });
});

describe('HTML (html-to-text)', () => {
  it('keeps the words and paragraphs, drops scripts, styles and link targets', async () => {
    const html = `<!doctype html><html><head><style>p{color:red}</style><script>var secret = 1;</script></head>
      <body><h1>Returns</h1><p>Items can be returned within <b>30 days</b>.</p><p>See <a href="https://x.example/terms">our terms</a>.</p></body></html>`;
    const [page] = await parseDocument('html', Buffer.from(html));
    expect(page.text).toBe('Returns\n\nItems can be returned within 30 days.\n\nSee our terms.');
  });
});

describe('Markdown', () => {
  it('strips markup but keeps the text and paragraph breaks; headings become sections', async () => {
    const md =
      '# Onboarding\n\nRead the **handbook** and the [security guide](https://x.example/sec).\n\n- item *one*\n- item `two`\n\n## Day two\n\nMeet the team.';
    const [page] = await parseDocument('markdown', Buffer.from(md));
    expect(page.text).toBe(
      'Onboarding\n\nRead the handbook and the security guide.\n\n- item one\n- item two\n\nDay two\n\nMeet the team.',
    );
    expect(page.sections).toEqual([
      { offset: 0, title: 'Onboarding', level: 1 },
      { offset: page.text.indexOf('Day two'), title: 'Day two', level: 2 },
    ]);
  });

  it('keeps table cells, code and the text of raw HTML; drops HTML tags and link targets', () => {
    const md =
      '| Plan | Price |\n|---|---|\n| Basic | 10 |\n\n```\nrun --fast\n```\n\n<div class="x">Hidden <b>not</b></div>\n\n![diagram](d.png) and <span>inline</span> [ref][1]\n\n[1]: https://x.example';
    const text = markdownToText(md);
    expect(text).toBe('Plan | Price\n\nBasic | 10\n\nrun --fast\n\nHidden not\n\ndiagram and inline ref');
  });

  it('reads a raw HTML block as an HTML page is read: its headings are sections, its tables rows, its menus and badges gone', async () => {
    const md = [
      '<p align="center"><a href="a"><img src="badge1.svg"></a> <a href="b"><img src="badge2.svg"></a></p>',
      '<div class="navheader"><a href="prev.html">Prev</a> <a href="next.html">Next</a></div>',
      '# Guide',
      '<h2 id="opts">Options</h2>',
      '<table><tr><th>Name</th><th>Meaning</th></tr><tr><td>limits</td><td>Caps the size of each uploaded file, in bytes.</td></tr></table>',
      '<p><a href="/">Home</a> | <a href="/docs">Docs</a> | <a href="/faq">FAQ</a></p>',
      'The end.',
    ].join('\n\n');
    const [page] = await parseDocument('markdown', Buffer.from(md));
    expect(page.text).toBe('Guide\n\nOptions\n\nName | Meaning\n\nlimits | Caps the size of each uploaded file, in bytes.\n\nThe end.');
    expect(page.sections?.map((s) => [s.title, s.level])).toEqual([
      ['Guide', 1],
      ['Options', 2],
    ]);
  });
});

describe('plain text and the page rule', () => {
  it('splits pages at form feeds, keeping interior empty pages', async () => {
    const pages = await parseDocument('text', Buffer.from('Page one.\fPage two.\f\fPage four.\f'));
    expect(pages).toEqual([
      { pageNumber: 1, text: 'Page one.' },
      { pageNumber: 2, text: 'Page two.' },
      { pageNumber: 3, text: '' },
      { pageNumber: 4, text: 'Page four.' },
    ]);
  });

  it('otherwise closes a page at the first paragraph boundary after 3,000 characters', () => {
    const paragraph = longText(10); // ~700 characters
    const text = Array.from({ length: 10 }, () => paragraph).join('\n\n');
    const pages = paginate(text);
    expect(pages.length).toBe(
      Math.ceil((10 * (paragraph.length + 2)) / (Math.ceil(PAGE_CHARS / (paragraph.length + 2)) * (paragraph.length + 2))),
    );
    for (const p of pages.slice(0, -1)) {
      expect(p.text.length).toBeGreaterThanOrEqual(PAGE_CHARS - 2);
      expect(p.text.length).toBeLessThan(PAGE_CHARS + paragraph.length);
    }
    // no paragraph is cut
    expect(pages.flatMap((p) => p.text.split('\n\n'))).toEqual(Array.from({ length: 10 }, () => paragraph));
  });

  it('decodes UTF-8, UTF-16 with BOM, and falls back to Windows-1252', () => {
    expect(decodeText(Buffer.from('naïve café', 'utf8'))).toBe('naïve café');
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]))).toBe('héllo');
    expect(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe('café');
  });

  it('rejects binary content and empty files', async () => {
    const binary = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 37) % 256));
    await expect(parseDocument('text', binary)).rejects.toThrow(/not readable text/);
    await expect(parseDocument('text', Buffer.alloc(0))).rejects.toThrow(/empty/);
  });
});

describe('the page limit holds for every format', () => {
  it('a text of form feeds with more pages than PDF_MAX_PAGES fails with the limit named', async () => {
    const limit = config.parseLimits.pdfMaxPages;
    await expect(parseDocument('text', Buffer.from('x\f'.repeat(limit + 1)))).rejects.toThrow(
      `the document has ${limit + 1} pages, more than the limit of ${limit}`,
    );
    expect(await parseDocument('text', Buffer.from('x\f'.repeat(limit)))).toHaveLength(limit);
  });
});

describe('parser threads are reused', () => {
  it('one thread parses document after document: a finished parse does not end its thread', async () => {
    const single = new ParserPool(config.parseLimits, { ...config.parserPool, threads: 1 });
    try {
      const threads = new Set<number>();
      for (let i = 0; i < 60; i++) {
        expect(await single.parse('text', Buffer.from(`Document ${i}.`))).toEqual([{ pageNumber: 1, text: `Document ${i}.` }]);
        // piscina's live workers (ended ones leave the list, replacements join it)
        const workers = (single as unknown as { pool: { threads: Array<{ threadId: number }> } }).pool.threads;
        for (const w of workers) threads.add(w.threadId);
      }
      // ending each finished task raced piscina's completion message and replaced threads under load
      expect(threads.size).toBe(1);
    } finally {
      await single.destroy();
    }
  });
});

describe('parser threads give way to the thread that answers requests', () => {
  const ROOT = path.resolve(__dirname, '../../..');
  /** Each test starts a Node process that loads the server's modules: seconds on a loaded machine (the suite runs in parallel). */
  const SPAWN_TIMEOUT_MS = 30_000;
  /**
   * The nice values of a fresh process's threads after it parsed one document through a parser
   * pool configured from `env` (the built pool in dist/, as the server runs it; a process of its
   * own, so no other pool's threads come and go meanwhile). A thread that ends while /proc is read
   * is skipped.
   */
  const nicesAfterParse = (env: Record<string, string>): { text: string; nices: number[]; own: number } => {
    const script = `
      const fs = require('node:fs');
      const { loadConfig } = require(${JSON.stringify(path.join(ROOT, 'dist/src/config'))});
      const { ParserPool } = require(${JSON.stringify(path.join(ROOT, 'dist/src/ingest/parsers/pool'))});
      const config = loadConfig(process.env);
      const pool = new ParserPool(config.parseLimits, config.parserPool);
      const nice = (dir) => { try { return Number(fs.readFileSync(dir + '/stat', 'utf8').split(') ')[1].split(' ')[16]); } catch { return null; } };
      pool.parse('text', Buffer.from('Background work.')).then(async (pages) => {
        const nices = fs.readdirSync('/proc/self/task').map((t) => nice('/proc/self/task/' + t)).filter((n) => n !== null);
        process.stdout.write(JSON.stringify({ text: pages[0].text, nices, own: nice('/proc/thread-self') }));
        await pool.destroy();
      });`;
    const out = execFileSync(process.execPath, ['-e', script], { env: { ...process.env, ...ENV, ...env }, encoding: 'utf8' });
    return JSON.parse(out);
  };

  (process.platform === 'linux' ? it : it.skip)(
    'runs parsing at nice 10 and leaves the thread that answers requests at its own priority',
    () => {
      expect(config.parserPool.nice).toBe(10);
      const r = nicesAfterParse({});
      expect(r.text).toBe('Background work.');
      expect(r.nices).toContain(10);
      expect(r.own).toBe(0);
    },
    SPAWN_TIMEOUT_MS,
  );

  (process.platform === 'linux' ? it : it.skip)(
    'PARSER_NICE=0 (a process that only ingests) leaves the parser threads at normal priority',
    () => {
      const r = nicesAfterParse({ PARSER_NICE: '0' });
      expect(r.text).toBe('Background work.');
      expect(r.nices).not.toContain(10);
      expect(r.nices.every((n) => n === 0)).toBe(true);
    },
    SPAWN_TIMEOUT_MS,
  );
});
