import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { isContentsLine, isContentsPage } from '../../../src/ingest/contents-pages';
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
