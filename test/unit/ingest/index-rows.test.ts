import { loadConfig } from '../../../src/config';
import { chunkPages } from '../../../src/ingest/chunker';
import type { StagedRow } from '../../../src/ingest/index-rows';
import { LimitError } from '../../../src/ingest/limits';
import { parseInThread } from '../../../src/ingest/parsers/index';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { IngestError } from '../../../src/ingest/types';
import { textBook } from '../../support/heavy';

/**
 * Issue 24: chunking, sectioning, language detection and the analysis of index rows run in the
 * parser pool; the server receives bounded batches of rows. Every format has page, text and chunk
 * limits, each failing the document with a LimitError (not retried) that names it.
 */
const config = loadConfig({
  JWT_SECRET: 'unit-secret-unit-secret',
  NODE_ENV: 'test',
  PDF_MAX_PAGES: '1000',
  PARSER_MAX_EXPANDED_MB: '1',
  MAX_CHUNKS_PER_DOCUMENT: '300',
});
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

async function index(kind: 'text' | 'markdown', content: Buffer, statedLanguage: string | null = null) {
  const events: string[] = [];
  const rows: StagedRow[] = [];
  const batches: number[] = [];
  const result = await pool.parseAndIndex(
    kind,
    content,
    { title: 'Handbook', statedLanguage },
    {
      onAnalysis: (language) => Promise.resolve(void events.push(`analysis:${language}`)),
      onRows: async (batch) => {
        events.push('rows');
        const parsed = JSON.parse(batch.json) as StagedRow[];
        expect(parsed).toHaveLength(batch.count);
        batches.push(batch.json.length);
        rows.push(...parsed);
        await new Promise((r) => setTimeout(r, 5)); // a slow database: the worker waits for acknowledgements
      },
    },
  );
  return { result, events, rows, batches };
}

it('rows arrive in bounded batches after the language, and are the chunks of the whole document', async () => {
  const text = textBook(0.2).toString();
  const { result, events, rows, batches } = await index('text', Buffer.from(text));
  expect(events[0]).toBe('analysis:en');
  expect(events.slice(1).every((e) => e === 'rows')).toBe(true);
  expect(result.chunks).toBe(rows.length);
  expect(rows.map((r) => r.o)).toEqual(rows.map((_, i) => i));
  expect(Math.max(...batches)).toBeLessThan(1.1 * 1024 * 1024);
  const pages: Parameters<typeof chunkPages>[0] = [];
  await parseInThread('text', Buffer.from(text), config.parseLimits, { onTotal: () => undefined, onPage: (p) => pages.push(p) });
  expect(result.pages).toBe(pages.length);
  expect(rows.map((r) => r.t)).toEqual(chunkPages(pages).map((c) => c.text));
  // the header (title) is analysed in the worker too
  expect(rows[0]).toMatchObject({ h: 'Handbook', ha: true, hk: null, a: true });
});

it('a stated language is used as it is; Markdown headings become each chunk’s section header', async () => {
  const md = Buffer.from('# Leave\n\nStaff get 25 days of leave every year.\n\n# Travel\n\nTrains are booked by the office.\n');
  const { events, rows } = await index('markdown', md, 'de');
  expect(events[0]).toBe('analysis:de');
  expect(rows.map((r) => r.h)).toEqual(['Handbook\nLeave\nTravel']);
});

describe.each([
  ['text', (n: number) => Buffer.from('x\f'.repeat(n))],
  ['markdown', (n: number) => Buffer.from('# x\n\f'.repeat(n))],
] as const)('%s: page, text and chunk limits', (kind, pagesOf) => {
  const fails = async (content: Buffer, message: string) => {
    const error = await index(kind, content).then(
      () => null,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(LimitError);
    expect(error).toBeInstanceOf(IngestError); // not retried
    expect(error?.message).toContain(message);
  };
  it('pages (PDF_MAX_PAGES)', () => fails(pagesOf(1001), 'more than the limit of 1000'));
  // one paragraph of 1.2 MB is one page: only the text limit applies
  it('text (PARSER_MAX_EXPANDED_MB)', () => fails(Buffer.from(textBook(1.2).toString().replace(/\n\n/g, ' ')), 'more than 1 MB of text'));
  it('chunks (MAX_CHUNKS_PER_DOCUMENT)', () => fails(textBook(0.5), 'more than 300 chunks (the limit of chunks per document)'));
});
