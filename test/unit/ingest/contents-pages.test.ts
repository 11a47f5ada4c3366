import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { isContentsLine, isContentsPage, isIndexPage } from '../../../src/ingest/contents-pages';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { EVAL_DOCS_DIR } from '../../support/eval/corpus';

/** A printed table of contents is not indexed (it would be cited instead of the page it points to). */
const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

describe('contents lines and pages', () => {
  it.each([
    ['1.1 What is this FAQ? . . . . . . . . . . . . . . . . 1', true],
    ['Index Types .................... 372', true],
    ['Preface . . . . . . . . xiii', true],
    ['12.2.3 Wiki . . . . . . . . . . . . . . . . 84   ', true],
    ['2 Getting and installing Debian GNU/Linux 5', false],
    ['for i in 1...10', false],
    ['Wait for it. . . and then go.', false],
    ['See section 3.1.4.', false],
  ])('%j → %s', (line, expected) => {
    expect(isContentsLine(line)).toBe(expected);
  });

  it('a page is a contents page when enough of its lines are entries; a page that quotes a few is not', () => {
    const entries = Array.from({ length: 8 }, (_, i) => `${i + 1}.1 Section ${i + 1} . . . . . . . . ${i * 3 + 1}`);
    expect(isContentsPage(['Contents', '', '1 Overview 1', ...entries].join('\n'))).toBe(true);
    const prose = Array.from({ length: 12 }, (_, i) => `Body text line ${i} explaining the configuration.`);
    expect(isContentsPage([...prose, ...entries.slice(0, 4)].join('\n'))).toBe(false);
    expect(isContentsPage(entries.slice(0, 4).join('\n'))).toBe(false); // too few to tell
  });

  it('examines only the end of a line: a line of a million dots costs no more than a short one', () => {
    const page = `${'.'.repeat(1_000_000)}z\n`.repeat(5);
    const t0 = performance.now();
    expect(isContentsPage(page)).toBe(false);
    // the bound of the other regular expressions on user input (linear-regex.test.ts)
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('back-of-book index pages without dot leaders', () => {
  const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));

  it.each([
    // LaTeX (makeindex), with a wrapped page list and keyword groups
    [
      'Index\n\n! (Logic), 348\ngrid.edit, 1091, 1118, 1131, 1146, 1150,\n1199\n∗ algebra\n' +
        lines(8, (i) => `term${i}, ${i + 10}`).join('\n'),
      true,
    ],
    // DocBook with FOP: ranges, and sub-entries indented
    ['P\n' + lines(10, (i) => `pg_dump${i}, 2345–23${50 + i}\n  backup, ${600 + i}`).join('\n'), true],
    // Sphinx: "(module)" and roman front-matter pages
    [lines(9, (i) => `os.path${i} (module), ${i + 1}, xii`).join('\n'), true],
  ])('an index page is recognised (%#)', (page, expected) => {
    expect(isIndexPage(page)).toBe(expected);
  });

  it('prose, a numbered list, a page quoting a few entries, and too few entries are not index pages', () => {
    const prose = lines(12, (i) => `The option number ${i} sets how long the server waits, in seconds.`);
    expect(isIndexPage(prose.join('\n'))).toBe(false);
    expect(isIndexPage(lines(10, (i) => `${i + 1}. Step ${i + 1} of the installation`).join('\n'))).toBe(false);
    expect(isIndexPage([...prose, ...lines(6, (i) => `term${i}, ${i + 10}`)].join('\n'))).toBe(false);
    expect(isIndexPage(lines(7, (i) => `term${i}, ${i + 10}`).join('\n'))).toBe(false);
  });

  it('examines only the end of a line: a page of million-character lines is decided quickly', () => {
    const page = `${'a, 1'.repeat(250_000)}x\n`.repeat(5);
    const t0 = performance.now();
    expect(isIndexPage(page)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it("R's reference manual (LaTeX, makeindex): its index pages become empty pages; the reference pages before them stay", async () => {
    const pages = await pool.parse('pdf', readFileSync(path.join(__dirname, '../../fixtures/pdf/R-refman-index-excerpt.pdf')));
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4]);
    expect(pages[0].text).toMatch(/write\.csv uses "\." for the decimal point/);
    expect(pages[1].text).toMatch(/zip/);
    expect([pages[2].text, pages[3].text]).toEqual(['', '']);
  });

  it("the Debian FAQ's one-page index (dblatex) is not indexed; its last body page is", async () => {
    const pages = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, 'debian-faq.pdf')));
    expect(pages).toHaveLength(73);
    expect(pages[72].text).toBe('');
    expect(pages[71].text.trim()).not.toBe('');
  });
});

describe('on a real document', () => {
  it('the Debian FAQ’s 4 contents pages become empty pages, and the pages after them keep their numbers and text', async () => {
    const pages = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, 'debian-faq.pdf')));
    // the pages after the contents keep their numbers
    expect(pages.map((p) => p.pageNumber)).toEqual(pages.map((_, i) => i + 1));
    expect([3, 4, 5, 6].map((n) => pages[n - 1].text)).toEqual(['', '', '', '']);
    expect(pages[6].text).toMatch(/^Abstract\nThis document answers questions frequently asked about Debian/);
    expect(pages[8].text).toMatch(/^Chapter 1\n/);
    // the FAQ's body quotes no contents line
    expect(pages.filter((p) => p.text.split('\n').some(isContentsLine)).map((p) => p.pageNumber)).toEqual([]);
  });

  it.each(['logind.conf.pdf', 'rsync.pdf', 'ssh_config.pdf', 'logrotate.pdf'])(
    'a man page without contents (%s) loses no page',
    async (name) => {
      const pages = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, name)));
      expect(pages.filter((p) => !p.text.trim()).map((p) => p.pageNumber)).toEqual([]);
    },
  );
});
