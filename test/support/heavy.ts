/**
 * Heavy and hostile inputs for the per-input ingestion suite (test/e2e/hostile-documents.test.ts
 * at small sizes, bench/heavy.ts at the sizes), built at run time: nothing large is
 * committed. No test framework imports here.
 */
import { makeDocxBomb } from './hostile';
import { makePdf } from './pdf';
import { prng } from '../../bench/synthetic-text';

export interface HeavyCase {
  label: string;
  name: string;
  content: Buffer;
  /** Pages the document has when it is read (for throughput), if known. */
  pages?: number;
  status: 'ready' | 'failed';
  error?: RegExp;
}

const WORDS = (
  'the of and to a in is for that on with as are be by this it or at from an will must not all may any which have ' +
  'warranty delivery customer office leave policy travel payment contract network device review approval manager ' +
  'river harbour lantern meadow quarrel orchard whisper cathedral voyage merchant letter garden winter captain'
).split(' ');

/** Deterministic prose: sentences of 8–21 words, paragraphs of about `chars` characters. */
export function proseParagraphs(seed: number, count: number, chars = 900): string[] {
  const rand = prng(seed);
  const word = () => WORDS[Math.floor(rand() * rand() * WORDS.length)];
  const sentence = () => {
    const w = Array.from({ length: 8 + Math.floor(rand() * 14) }, word);
    w[0] = w[0][0].toUpperCase() + w[0].slice(1);
    return `${w.join(' ')}.`;
  };
  return Array.from({ length: count }, () => {
    let p = sentence();
    while (p.length < chars) p += ` ${sentence()}`;
    return p;
  });
}

/** A plain-text book of about `mb` megabytes (paragraphs separated by blank lines). */
export function textBook(mb: number): Buffer {
  const paragraphs = proseParagraphs(7, Math.ceil((mb * 1024 * 1024) / 900));
  return Buffer.from(paragraphs.join('\n\n'));
}

/** A text PDF of `pages` pages, each with three paragraphs of prose. */
export function pdfBook(pages: number): Buffer {
  const paragraphs = proseParagraphs(11, pages * 3, 600);
  return makePdf(Array.from({ length: pages }, (_, i) => ({ paragraphs: paragraphs.slice(i * 3, i * 3 + 3) })));
}

/**
 * A PDF of `pages` pages and about `mb` megabytes: one paragraph of text per page, the bulk in
 * each page's content stream as drawing operators (what a scanned or vector-heavy file carries).
 */
export function bulkyPdf(mb: number, pages: number): Buffer {
  const perPage = Math.ceil((mb * 1024 * 1024) / pages);
  const op = '0.5 0.5 0.5 rg 10 10 1 1 re f\n';
  const raw = op.repeat(Math.ceil(perPage / op.length));
  const text = proseParagraphs(13, pages, 500);
  return makePdf(Array.from({ length: pages }, (_, i) => ({ paragraphs: [text[i]], raw })));
}

/** A Markdown file of `count` headings, each with a short paragraph. */
export function headingsMarkdown(count: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`## Section ${i}\n\nItem ${i} applies.\n`);
  return Buffer.from(parts.join('\n'));
}

/**
 * The suite's inputs. `scale` 1 is the sizes (the bench); the e2e suite runs smaller
 * ones. `maxPages` is the server's PDF_MAX_PAGES (the form-feed file is over it at every scale).
 */
export async function heavyCases(opts: {
  scale: number;
  maxPages: number;
  maxExpandedMb: number;
  htmlMaxDepth: number;
}): Promise<HeavyCase[]> {
  const s = opts.scale;
  const formFeeds = Math.max(opts.maxPages + 1, Math.round(300_000 * s));
  const pdfPages = Math.max(10, Math.round(200 * s));
  return [
    {
      label: `form feeds: 'x\\f' × ${formFeeds.toLocaleString('en')}`,
      name: 'form-feeds.txt',
      content: Buffer.from('x\f'.repeat(formFeeds)),
      status: 'failed',
      error: new RegExp(`more than the limit of ${opts.maxPages}`),
    },
    { label: `plain-text book, ${12 * s} MB`, name: 'book.txt', content: textBook(12 * s), status: 'ready' },
    { label: `${pdfPages}-page text PDF`, name: 'book.pdf', content: pdfBook(pdfPages), pages: pdfPages, status: 'ready' },
    { label: `${40 * s} MB PDF, 4 pages`, name: 'bulky.pdf', content: bulkyPdf(40 * s, 4), pages: 4, status: 'ready' },
    {
      label: `Markdown, ${Math.round(100_000 * s).toLocaleString('en')} headings`,
      name: 'headings.md',
      content: headingsMarkdown(Math.round(100_000 * s)),
      status: 'ready',
    },
    {
      label: 'quadratic Markdown: `[a](` × 262,144 (1 MB)',
      name: 'links.md',
      content: Buffer.from('[a]('.repeat(262_144)),
      status: 'ready',
    },
    {
      label: `DOCX zip bomb (${opts.maxExpandedMb + 50} MB inflated)`,
      name: 'bomb.docx',
      content: await makeDocxBomb(opts.maxExpandedMb + 50),
      status: 'failed',
      error: new RegExp(`document expands to more than ${opts.maxExpandedMb} MB`),
    },
    {
      label: 'HTML nested 100,000 deep',
      name: 'nested.html',
      content: Buffer.from('<div>'.repeat(100_000) + 'deep'),
      status: 'failed',
      error: new RegExp(`nests deeper than ${opts.htmlMaxDepth} levels`),
    },
  ];
}
