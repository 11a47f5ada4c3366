import { readFileSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { loadConfig } from '../../../src/config';
import { detectFormat } from '../../../src/ingest/detect';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { DocumentKind, ParsedPage } from '../../../src/ingest/types';

// every parse goes through the worker pool, as ingestion runs it
const ENV = { JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' };
const config = loadConfig(ENV);
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

const DIR = path.join(__dirname, '../../fixtures/formats/office');
const fixture = (name: string) => readFileSync(path.join(DIR, name));
const paragraphs = (page: ParsedPage) => page.text.split('\n\n');
const titles = (page: ParsedPage) => (page.sections ?? []).map((s) => s.title);

/** Each fixture, the type a browser sends with it, and the format it must be read as. */
const FILES: Array<[string, string, DocumentKind]> = [
  ['budget.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['budget.ods', 'application/vnd.oasis.opendocument.spreadsheet', 'ods'],
  ['contacts.csv', 'text/csv', 'csv'],
  ['sales.tsv', 'text/tab-separated-values', 'tsv'],
  ['slides.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
  ['slides.odp', 'application/vnd.oasis.opendocument.presentation', 'odp'],
  ['policy.odt', 'application/vnd.oasis.opendocument.text', 'odt'],
  ['book.epub', 'application/epub+zip', 'epub'],
  ['canteen.rtf', 'application/rtf', 'rtf'],
];

describe('office formats: detection', () => {
  it.each(FILES)(
    '%s is detected as its format, by content (with the browser type, and with neither name nor type)',
    async (name, mime, kind) => {
      const buf = fixture(name);
      expect(await detectFormat(name, mime, buf.subarray(0, 8192), { buffer: buf })).toEqual({ kind });
      // the binary formats need no hint at all
      if (!['csv', 'tsv'].includes(kind))
        expect(await detectFormat('upload', undefined, buf.subarray(0, 8192), { buffer: buf })).toEqual({ kind });
    },
  );
});

describe('spreadsheets: a page per sheet, each row read with its column headers', () => {
  it.each(['budget.xlsx', 'budget.ods'])('%s: sheets are pages 1 and 2, named by headings; cells read as displayed', async (name) => {
    const pages = await pool.parse(name.endsWith('xlsx') ? 'xlsx' : 'ods', fixture(name));
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2]);
    expect(pages.map(titles)).toEqual([['Budget 2025'], ['Travel']]);
    expect(pages[0].sections).toEqual([{ offset: 0, title: 'Budget 2025', level: 1 }]);
    expect(paragraphs(pages[0])).toEqual([
      'Budget 2025',
      // the date is the date, not its serial number (45730); the share is the formula's result as a percentage
      'Item: Cloud hosting | Owner: Platform team | Amount EUR: 126500 | Approved on: 14 Mar 2025 | Share: 70.0%',
      'Item: Security audit | Owner: Compliance office | Amount EUR: 31200 | Approved on: 02 May 2025 | Share: 20.0%',
      'Item: Laptop refresh | Owner: Facilities | Amount EUR: 18000 | Approved on: 30 Sep 2025 | Share: 10.0%',
      // the empty row is skipped; the SUM formula's cached result is read
      'Item: Total | Amount EUR: 175700',
    ]);
    expect(paragraphs(pages[1])).toEqual([
      'Travel',
      'Trip: Kubernetes conference in Valencia | Traveller: Ines Moreau | Departure: 18 Nov 2025 | Cost: €2,340.50',
      'Trip: Customer visit in Oslo | Traveller: Tomas Berg | Departure: 03 Jun 2025 | Cost: €1,185.00',
    ]);
  });

  it('CSV (quoted cells) and TSV: one page without a heading, a paragraph per row under the header row', async () => {
    const csv = await pool.parse('csv', fixture('contacts.csv'));
    expect(csv).toHaveLength(1);
    expect(csv[0].pageNumber).toBe(1);
    expect(csv[0].sections).toBeUndefined();
    expect(paragraphs(csv[0])).toEqual([
      'Name: Hannah Lindqvist | Department: Payroll | Phone extension: 4417 | Office: B2.14',
      'Name: Okafor, Chidi | Department: Legal | Phone extension: 4502 | Office: C1.03',
      'Name: Sofia Marchetti | Department: Procurement | Phone extension: 4630 | Office: B3.21',
      'Name: Rui Tanaka | Department: IT service desk | Phone extension: 4100 | Office: A0.05',
    ]);
    const tsv = await pool.parse('tsv', fixture('sales.tsv'));
    expect(paragraphs(tsv[0])).toContain('Region: Iberia | Quarter: Q1 2025 | Revenue EUR: 187250 | New customers: 17');
  });

  it('finds the header row under a title row, skips empty columns, reads a semicolon CSV, and keeps cells with line breaks in their row', async () => {
    const csv = 'Quarterly figures;;;\n;;;\nRegion;;Units;Note\nNorth;;12;"two\nlines"\nSouth;;7;\n';
    const [page] = await pool.parse('csv', Buffer.from(csv));
    expect(paragraphs(page)).toEqual(['Quarterly figures', 'Region: North | Units: 12 | Note: two lines', 'Region: South | Units: 7']);
  });

  it('a sheet of numbers only has no header row: its rows are read as they are', async () => {
    const [page] = await pool.parse('csv', Buffer.from('1,2,3\n4,5,6\n'));
    expect(paragraphs(page)).toEqual(['1 | 2 | 3', '4 | 5 | 6']);
  });

  it('an XLSX whose sheets are stored out of order is read in its tabs’ order, and its booleans and 1904 dates as displayed', async () => {
    const zip = await JSZip.loadAsync(fixture('budget.xlsx'));
    // swap the two sheets' parts: the workbook still lists "Budget 2025" first, now in sheet2.xml
    const [one, two] = await Promise.all(['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml'].map((p) => zip.file(p)!.async('string')));
    zip.file('xl/worksheets/sheet1.xml', two).file('xl/worksheets/sheet2.xml', one);
    const rels = await zip.file('xl/_rels/workbook.xml.rels')!.async('string');
    zip.file(
      'xl/_rels/workbook.xml.rels',
      rels.replace('sheet1.xml', 'sheetX.xml').replace('sheet2.xml', 'sheet1.xml').replace('sheetX.xml', 'sheet2.xml'),
    );
    const workbook = await zip.file('xl/workbook.xml')!.async('string');
    zip.file('xl/workbook.xml', workbook.replace('<workbookPr ', '<workbookPr date1904="true" '));
    const sheet = two.replace(/<c r="D2"[^>]*>[\s\S]*?<\/c>/, '<c r="D2" t="b"><v>1</v></c>');
    zip.file('xl/worksheets/sheet1.xml', sheet);
    const pages = await pool.parse('xlsx', await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
    expect(pages.map(titles)).toEqual([['Budget 2025'], ['Travel']]);
    // 1904 date system: the same serial number is four years and a day later
    expect(paragraphs(pages[0])[1]).toBe(
      'Item: Cloud hosting | Owner: Platform team | Amount EUR: 126500 | Approved on: 15 Mar 2029 | Share: 70.0%',
    );
    expect(paragraphs(pages[1])[1]).toBe(
      'Trip: Kubernetes conference in Valencia | Traveller: Ines Moreau | Departure: 19 Nov 2029 | Cost: TRUE',
    );
  });
});

describe('slides: a page per slide (title, text, tables, speaker notes)', () => {
  it.each(['slides.pptx', 'slides.odp'])('%s', async (name) => {
    const pages = await pool.parse(name.endsWith('pptx') ? 'pptx' : 'odp', fixture(name));
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4]);
    expect(pages.map(titles)).toEqual([['Office move 2025'], ['Why we move'], ['Moving schedule'], ['Questions']]);
    expect(pages[0].text).not.toContain('Notes:');
    // each slide's notes stay with it (the title slide has none)
    expect(paragraphs(pages[1])).toEqual(
      expect.arrayContaining(['Notes: Remind everyone that the Harbour Street lease cannot be extended past June 30.']),
    );
    expect(pages[1].text).toContain('The new building in Linden Park has room for 140 desks');
    expect(paragraphs(pages[2])).toEqual([
      'Moving schedule',
      'Team | Moving day | Floor',
      'Finance | 12 May | 3',
      'Engineering | 19 May | 4',
      'Support | 26 May | 2',
      'Notes: The removal company Krane & Sons needs the final crate count by 28 April.',
    ]);
    expect(paragraphs(pages[3])).toEqual(['Questions', 'Send questions about parking permits to the facilities desk.']);
  });
});

describe('documents: ODT, EPUB and RTF as DOCX is read', () => {
  it('ODT: headings with their levels, lists, and a table with its header row', async () => {
    const [page, ...more] = await pool.parse('odt', fixture('policy.odt'));
    expect(more).toEqual([]);
    expect(page.sections?.map((s) => [s.title, s.level])).toEqual([
      ['Remote work policy', 1],
      ['Scope', 1],
      ['Equipment', 1],
      ['What the company provides', 2],
      ['Returning equipment', 2],
      ['Allowances', 1],
    ]);
    expect(paragraphs(page)).toEqual(
      expect.arrayContaining([
        '* a laptop with a docking station\n * an ergonomic chair, up to 350 euros\n * a second monitor on request',
        'Allowance | Amount | Paid',
        'Internet | 30 euros | monthly',
        '1. Fill in the expense form in the HR portal.\n 2. Attach the invoice.\n 3. Your manager approves it within five working days.',
      ]),
    );
  });

  it('EPUB: chapters in spine order, their headings as sections; the table of contents is not read', async () => {
    const pages = await pool.parse('epub', fixture('book.epub'));
    const text = pages.map((p) => p.text).join('\n\n');
    expect(pages.flatMap(titles)).toEqual([
      'The Lighthouse Keeper’s Almanac',
      // the navigation page's own title (its list of links is not read)
      'The Lighthouse Keeper’s Almanac',
      'The Northern Light',
      'The first keeper',
      'Storms and Signals',
      'Signal flags',
    ]);
    expect(text.split('The Northern Light')).toHaveLength(2);
    expect(text).not.toMatch(/Title Page|Table of Contents/);
    expect(text.indexOf('Anders Holm')).toBeLessThan(text.indexOf('great storm of 1903'));
    expect(text).toContain('The keeper’s daughter, Elin, wound the clockwork that turned the lens every two hours.');
  });

  it('RTF: text with its headings and list items, no control words', async () => {
    const [page] = await pool.parse('rtf', fixture('canteen.rtf'));
    expect(page.sections?.map((s) => [s.title, s.level])).toEqual([
      ['Canteen notice', 2],
      ['During the renovation', 3],
      ['After the renovation', 3],
    ]);
    expect(paragraphs(page)).toEqual(
      expect.arrayContaining([
        'The staff canteen on the ground floor closes for renovation from 3 March to 21 March.',
        'Lunch is served in meeting room Birch on the second floor.',
      ]),
    );
    expect(page.text).not.toMatch(/\\[a-z]+\d*|[{}]/);
  });
});

describe('office formats: failures name the format and the limit', () => {
  const small = new ParserPool({ ...config.parseLimits, maxSheets: 1, maxCells: 20 }, config.parserPool);
  afterAll(() => small.destroy());

  it('more sheets than SPREADSHEET_MAX_SHEETS, or more cells than SPREADSHEET_MAX_CELLS, fail with the limit named', async () => {
    await expect(small.parse('xlsx', fixture('budget.xlsx'))).rejects.toMatchObject({
      name: 'LimitError',
      message: 'the spreadsheet has 2 sheets, more than the limit of 1 (SPREADSHEET_MAX_SHEETS)',
    });
    await expect(small.parse('ods', fixture('budget.ods'))).rejects.toThrow(/SPREADSHEET_MAX_SHEETS/);
    const rows = Array.from({ length: 8 }, (_, i) => `name ${i},${i},x`).join('\n');
    await expect(small.parse('csv', Buffer.from(`a,b,c\n${rows}`))).rejects.toMatchObject({
      name: 'LimitError',
      message: 'the spreadsheet has more than 20 non-empty cells (SPREADSHEET_MAX_CELLS)',
    });
  });

  it('an XLSX is held to SPREADSHEET_MAX_CELLS before its sheets are read, counting every value exactly', async () => {
    const zip = await JSZip.loadAsync(fixture('budget.xlsx'));
    // 3,000 rows of 6 numbers: the sheet inflates in many stream chunks, and a value split between two is counted once
    const rows = Array.from(
      { length: 3000 },
      (_, r) =>
        `<row r="${r + 2}">${'ABCDEF'
          .split('')
          .map((c, i) => `<c r="${c}${r + 2}" t="n"><v>${r * 6 + i}</v></c>`)
          .join('')}</row>`,
    );
    const sheet = await zip.file('xl/worksheets/sheet2.xml')!.async('string');
    zip.file('xl/worksheets/sheet2.xml', sheet.replace(/<sheetData>[\s\S]*<\/sheetData>/, `<sheetData>${rows.join('')}</sheetData>`));
    const big = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    // sheet 1 holds 22 values (its empty cells have none)
    const cells = 22 + 18_000;
    const at = new ParserPool({ ...config.parseLimits, maxCells: cells }, config.parserPool);
    const under = new ParserPool({ ...config.parseLimits, maxCells: cells - 1 }, config.parserPool);
    try {
      expect((await at.parse('xlsx', big)).map((p) => p.pageNumber)).toEqual([1, 2]);
      await expect(under.parse('xlsx', big)).rejects.toMatchObject({
        name: 'LimitError',
        message: `the spreadsheet has more than ${cells - 1} non-empty cells (SPREADSHEET_MAX_CELLS)`,
      });
    } finally {
      await Promise.all([at.destroy(), under.destroy()]);
    }
  });

  it.each<[DocumentKind, string]>([
    ['xlsx', 'XLSX'],
    ['pptx', 'PPTX'],
    ['odt', 'ODT'],
    ['epub', 'EPUB'],
  ])('a damaged %s fails as "not a valid %s file"', async (kind, name) => {
    const buf = fixture(FILES.find((f) => f[2] === kind)![0]);
    await expect(pool.parse(kind, buf.subarray(0, buf.length >> 1))).rejects.toMatchObject({
      name: 'IngestError',
      message: expect.stringMatching(new RegExp(`^not a valid ${name} file \\(`)),
    });
  });

  it('an RTF nested 200,000 groups deep fails as "not a valid RTF file", the thread intact', async () => {
    const deep = Buffer.from(`{\\rtf1 ${'{'.repeat(200_000)}x${'}'.repeat(200_000)}}`);
    await expect(pool.parse('rtf', deep)).rejects.toMatchObject({
      name: 'IngestError',
      message: expect.stringMatching(/^not a valid RTF file \(/),
    });
    expect((await pool.parse('rtf', fixture('canteen.rtf')))[0].text).toContain('Canteen notice');
  });

  it('a zip that lacks the format’s main part fails naming the format', async () => {
    const zip = new JSZip().file('mimetype', 'application/vnd.oasis.opendocument.text').file('readme.txt', 'hello');
    await expect(pool.parse('odt', await zip.generateAsync({ type: 'nodebuffer' }))).rejects.toThrow(/^not a valid ODT file/);
  });
});
