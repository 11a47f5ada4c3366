import { loadConfig } from '../../../src/config';
import { chunkPages } from '../../../src/ingest/chunker';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { RunningLineFilter } from '../../../src/ingest/running-lines';
import { headingMark, withSections } from '../../../src/ingest/sections';
import type { ParsedPage } from '../../../src/ingest/types';
import { makePdf } from '../../support/pdf';

/** Issue 35: every chunk records where its text lies in the original (page ranges, and boxes on PDF pages). */
const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

// eslint-disable-next-line no-control-regex -- HEADING_MARK (U+0001) separates a heading mark from its words
const WORD = /[^\s\u0001]+/g;

/** A box for every word of `text`, its x the word's number, so a test can tell which word a box is for. */
function wordBoxes(text: string): NonNullable<ParsedPage['boxes']> {
  return [...text.matchAll(WORD)].map((m, i) => ({ start: m.index, end: m.index + m[0].length, x: i, y: 0, w: 1, h: 1 }));
}
/** The word each box is drawn for, by its x (see wordBoxes), and the text it points at now. */
const boxTexts = (page: ParsedPage) => (page.boxes ?? []).map((b) => [b.x, page.text.slice(b.start, b.end)]);
/** The words wordBoxes() drew, a heading mark's level digit left out. */
const words = (text: string) => [...text.matchAll(WORD)].map((m) => (text[m.index - 1] === '\u0001' ? m[0].slice(1) : m[0]));

describe('boxes stay on their characters while the page text is rewritten', () => {
  it('heading marks are taken out (withSections)', () => {
    const text = `${headingMark(1)}Warranty terms\n\nThe warranty lasts thirty-six months.\n\n${headingMark(2)}Returns\n\nSend it back within 14 days.`;
    const page = withSections({ pageNumber: 1, text, boxes: wordBoxes(text) });
    expect(page.sections?.map((s) => s.title)).toEqual(['Warranty terms', 'Returns']);
    const original = words(text);
    // the mark's level digit is not part of the heading's first word
    expect(boxTexts(page)).toEqual(original.map((w, i) => [i, w]));
  });

  it('running headers, footers and page numbers are removed and blank lines collapsed (RunningLineFilter)', () => {
    const pages: ParsedPage[] = [];
    const filter = new RunningLineFilter((p) => pages.push(p));
    const topics = ['parking', 'lunch', 'holidays', 'travel', 'security', 'training'];
    const body = (i: number) => `Staff read about ${topics[i]} here.\nThe ${topics[i]} rules changed in spring.`;
    const source = Array.from({ length: 6 }, (_, i) => {
      const text = `ACME Employee Handbook\n\n\n\n${body(i)}\n\n\n${i + 1}`;
      return { pageNumber: i + 1, text, boxes: wordBoxes(text) };
    });
    source.forEach((p) => filter.push(p));
    filter.finish();
    expect(pages).toHaveLength(6);
    // (the first pages are handed on before the header is known)
    expect(pages.filter((p) => p.text === body(p.pageNumber - 1)).length).toBeGreaterThanOrEqual(3);
    for (const [i, page] of pages.entries()) {
      const all = words(source[i].text);
      // every box left points at the very word it was drawn for; the header's and footer's are gone
      for (const [x, t] of boxTexts(page)) expect(t).toBe(all[x as number]);
      expect(boxTexts(page).map(([, t]) => t)).toEqual(words(page.text));
    }
  });
});

describe('a PDF read through the parser pool', () => {
  const lead = 'The cafeteria opens at eight and closes at three on weekdays.';
  const before = 'Every appliance sold by the company carries a warranty that covers parts and labour for thirty-six months and it';
  const after = 'also covers the shipping costs in both directions when a repair is needed.';
  const pdf = () =>
    makePdf([
      { paragraphs: ['Parking is free for staff in the north lot.'] },
      { paragraphs: [lead, before] },
      { paragraphs: [after, 'Returns are accepted within fourteen days of delivery.'] },
    ]);

  it("records, for each text item, the characters of the page's text it holds and where it is drawn", async () => {
    const pages = await pool.parse('pdf', pdf());
    for (const page of pages) {
      expect(page.boxes?.length).toBeGreaterThan(0);
      for (const b of page.boxes!) {
        // one item per line in these files: a box holds a whole line of the page's text
        expect(page.text.split('\n')).toContain(page.text.slice(b.start, b.end));
        for (const v of [b.x, b.y, b.x + b.w, b.y + b.h]) expect(v).toBeGreaterThanOrEqual(0);
        for (const v of [b.x + b.w, b.y + b.h]) expect(v).toBeLessThanOrEqual(1);
      }
      // top to bottom
      const ys = page.boxes!.map((b) => b.y);
      expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    }
  });

  it('a chunk spanning pages 2–3 records both pages, each with the part of its text on that page and its boxes', async () => {
    const pages = await pool.parse('pdf', pdf());
    const chunks = chunkPages(pages);
    const spanning = chunks.find((c) => c.text.includes('thirty-six months and it also covers'))!;
    expect(spanning).toMatchObject({ pageNumber: 2, pageEnd: 3 });
    expect(spanning.locations!.map((l) => l.page)).toEqual([2, 3]);
    const [two, three] = spanning.locations!;
    const onPage = (l: typeof two) => pages[l.page - 1].text.slice(l.start, l.end).replace(/\s+/g, ' ');
    expect(spanning.text.replace(/\s+/g, ' ')).toBe(`${onPage(two)} ${onPage(three)}`);
    expect(onPage(two)).toContain(before);
    expect(onPage(three)).toContain(after);
    // the passage's boxes: on page 2 below its first paragraph's, on page 3 at the top
    expect(two.boxes!.length).toBeGreaterThan(0);
    expect(three.boxes!.length).toBeGreaterThan(0);
    const leadBox = pages[1].boxes!.find((b) => pages[1].text.slice(b.start, b.end).startsWith('The cafeteria'))!;
    if (onPage(two).startsWith(lead)) expect(two.boxes![0].y).toBeCloseTo(leadBox.y, 3);
    else expect(two.boxes![0].y).toBeGreaterThan(leadBox.y);
    expect(three.boxes![0].y).toBeLessThan(0.15);
  });

  it('chunks of converted text (no boxes) record character offsets into their page', () => {
    const pages: ParsedPage[] = [{ pageNumber: 1, text: 'First  paragraph\nof   text.\n\nSecond paragraph.' }];
    const [chunk] = chunkPages(pages);
    expect(chunk.locations).toEqual([{ page: 1, start: 0, end: pages[0].text.length }]);
  });
});
