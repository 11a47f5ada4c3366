import { mimeTypeFor } from '../../../src/ingest/detect';
import { paginate } from '../../../src/ingest/paginate';
import { markdownToText } from '../../../src/ingest/parsers/markdown';
import { layoutPage, PdfTextItem } from '../../../src/ingest/parsers/pdf';
import { decodeText } from '../../../src/ingest/parsers/text';

/**
 * The regular expressions (and their replacements) that run on uploaded content, each fed a large
 * input shaped to make a backtracking pattern quadratic. Each must finish in well under a second;
 * the quadratic versions took minutes on these inputs.
 */
const timed = (fn: () => unknown): number => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

describe('no regular expression on user input backtracks', () => {
  it('Markdown: a code block of 200,000 blank lines then text (trailing-newline trim)', () => {
    const md = '```\n' + '\n'.repeat(200_000) + 'x\n```\n';
    expect(timed(() => expect(markdownToText(md)).toMatch(/x$/))).toBeLessThan(2000);
  });

  it('PDF layout: 50,000 items on one line and 20,000 lines ending in hyphens', () => {
    const oneLine: PdfTextItem[] = Array.from({ length: 50_000 }, (_, i) => ({
      str: 'ab ',
      x: i * 20,
      y: 100,
      width: 10,
      height: 10,
      hasEOL: false,
    }));
    expect(timed(() => layoutPage(oneLine))).toBeLessThan(2000);
    const hyphens: PdfTextItem[] = Array.from({ length: 20_000 }, (_, i) => ({
      str: 'word-',
      x: 0,
      y: 100_000 - i * 12,
      width: 25,
      height: 10,
      hasEOL: true,
    }));
    expect(timed(() => layoutPage(hyphens))).toBeLessThan(2000);
  });

  it('pages: 1 MB of newlines followed by runs of blanks, and of blanks without a second newline', () => {
    expect(timed(() => paginate('\n \t \t'.repeat(200_000) + 'x'))).toBeLessThan(2000);
    expect(timed(() => paginate(('\n' + ' '.repeat(1000)).repeat(1000) + 'x'))).toBeLessThan(2000);
  });

  it('text decoding: 4 MB with control characters scattered through it', () => {
    const text = Buffer.from('abc\u0007'.repeat(16).padEnd(65_536, ' ') + 'plain text '.repeat(350_000));
    expect(timed(() => decodeText(text))).toBeLessThan(2000);
  });

  it('declared mime types: 1 MB of type characters without a slash', () => {
    expect(timed(() => expect(mimeTypeFor(null, 'a'.repeat(1_000_000) + '!')).toBe('application/octet-stream'))).toBeLessThan(2000);
  });
});
