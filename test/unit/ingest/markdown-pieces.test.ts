import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { prng } from '../../../bench/synthetic-text';
import { markdownToText } from '../../../src/ingest/parsers/markdown';
import { markdownPieces } from '../../../src/ingest/parsers/markdown-segments';
import { pagesOf } from '../../../src/ingest/paginate';
import { headingsMarkdown } from '../../support/heavy';

/** Every Markdown file among the fixtures (the evaluation corpus's READMEs and manuals). */
function markdownFixtures(): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push({ name: path.relative(process.cwd(), p), text: readFileSync(p, 'utf8') });
    }
  };
  walk(path.join(__dirname, '../../fixtures'));
  return out;
}

/** Block kinds whose ends depend on what follows: fences, raw HTML, lists, quotes, tables, setext. */
const SNIPPETS = [
  '# Title one',
  '## Sub heading',
  'Plain paragraph text here.',
  'Another line continues',
  '',
  '',
  '',
  '- item a',
  '- item b',
  '  indented continuation',
  '1. first',
  '2) second',
  '10. tenth',
  '> quoted text',
  '> # quoted heading',
  'lazy line',
  '```',
  '~~~~',
  '```js',
  '# inside maybe fence',
  '    indented code',
  '<!-- comment start',
  'still comment -->',
  '<script>',
  'var x = 1;',
  '</script>',
  '<div>',
  '</div>',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  'Setext title',
  '===',
  '---',
  '* star item',
  'Ünïcode paragraph',
  '<?php echo 1; ?>',
  '<!DOCTYPE html>',
  '<pre>',
  '# pre heading',
  '</pre>',
  '\t# tab heading',
  ' 1.  ',
];

describe('Markdown read a piece of whole blocks at a time', () => {
  it('reads every fixture exactly as one parse of the whole file would, however small the pieces', () => {
    const fixtures = markdownFixtures();
    expect(fixtures.length).toBeGreaterThanOrEqual(5);
    for (const f of fixtures)
      expect({ name: f.name, text: markdownToText(f.text, 1) }).toEqual({ name: f.name, text: markdownToText(f.text, Infinity) });
  });

  it('reads 3,000 random mixes of blocks whose ends depend on what follows exactly as one parse would', () => {
    const rand = prng(7);
    for (let n = 0; n < 3000; n++) {
      const lines = Array.from({ length: 5 + Math.floor(rand() * 40) }, () => SNIPPETS[Math.floor(rand() * SNIPPETS.length)]);
      const source = lines.join('\n');
      expect({ source, text: markdownToText(source, 1) }).toEqual({ source, text: markdownToText(source, Infinity) });
    }
  });

  it('resolves a link reference defined after the piece that uses it', () => {
    const source = `Read the [guide][] first.\n\n${'Filler paragraph.\n\n'.repeat(50)}[guide]:\n  https://example.com/guide "The guide"\n`;
    expect(markdownToText(source, 64)).toBe(markdownToText(source, Infinity));
    expect(markdownToText(source, 64)).toMatch(/^Read the guide first\./);
  });

  it('cuts a file of many headings into bounded pieces that join back to the file', () => {
    const source = headingsMarkdown(20_000).toString('utf8');
    const pieces = Array.from(markdownPieces(source, 4096));
    expect(pieces.join('')).toBe(source);
    expect(pieces.length).toBeGreaterThan(100);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(2 * 4096);
  });

  it('keeps a block longer than the window whole (the window doubles), in linear time', () => {
    const fence = '```\n' + 'code line\n'.repeat(100_000) + '```\n';
    const source = `# Before\n\n${fence}\n# After\n\ntext\n`;
    const t0 = Date.now();
    const pieces = Array.from(markdownPieces(source, 1024));
    expect(pieces.join('')).toBe(source);
    expect(pieces.some((p) => p.includes(fence))).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('pages one at a time', () => {
  const pages = (t: string) => Array.from(pagesOf(t)).map((p) => [p.pageNumber, p.text]);

  it('keeps interior empty pages and drops trailing ones, as they are produced', () => {
    expect(pages('a\f\fb\f\f')).toEqual([
      [1, 'a'],
      [2, ''],
      [3, 'b'],
    ]);
    expect(pages('\f\f')).toEqual([[1, '']]);
    expect(pages('')).toEqual([[1, '']]);
    expect(pages('one\r\ntwo\r\n\r\nthree')).toEqual([[1, 'one\ntwo\n\nthree']]);
  });

  it('closes a page at the first paragraph break after 3,000 characters, lazily', () => {
    const para = 'word '.repeat(250).trim(); // 1,249 characters
    const it = pagesOf(Array.from({ length: 7 }, () => para).join('\n\n'));
    const first = it.next().value!;
    expect(first.text.split('\n\n')).toHaveLength(3);
    expect(Array.from(it).map((p) => p.text.split('\n\n').length)).toEqual([3, 1]);
  });
});
