import { dropContentsBlocks, isIndexPage } from '../../../src/ingest/contents-pages';
import { detectFormat, mimeTypeFor } from '../../../src/ingest/detect';
import { htmlToText } from '../../../src/ingest/parsers/html';
import { markTextHeadings } from '../../../src/ingest/parsers/text';
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

  it('texinfo menus and Info lines: a block of long lines shaped like menu entries, node and tag lines', () => {
    const long = (head: string, fill: string) => head + fill.repeat(200_000);
    const block = [long('* ', 'a'), long('* x:', ' '), long('Node: x1', ' '), long('* Menu:', ' '), ' '.repeat(400_000) + '\u0000'].join(
      '\n',
    );
    expect(timed(() => dropContentsBlocks(`${block}\n\n${block}`))).toBeLessThan(2000);
  });

  it('index pages and text headings: 5,000 lines of commas and numbers, 100,000 lines of `= ` headings', () => {
    expect(timed(() => isIndexPage(Array.from({ length: 5000 }, () => `a${', 1'.repeat(200)}x`).join('\n')))).toBeLessThan(2000);
    expect(timed(() => markTextHeadings(Array.from({ length: 100_000 }, (_, i) => `\n= Title ${i}`).join('\n')))).toBeLessThan(2000);
  });

  it('HTML: 200 tables nested in one another, and 20,000 links in one menu', () => {
    const nested = '<table><tr><td>'.repeat(200) + 'x' + '</td></tr></table>'.repeat(200);
    expect(timed(() => htmlToText(nested))).toBeLessThan(2000);
    const menu = `<div>${'<a href="x">Home</a> | '.repeat(20_000)}</div><h1>T</h1><p>Body.</p>`;
    expect(timed(() => expect(htmlToText(menu)).toBe('\u00011T\n\nBody.'))).toBeLessThan(2000);
  });

  it('upload sniffing: a head of 1 KB of control characters, and 4 KB of header-like lines', async () => {
    const controls = Buffer.alloc(1024, 1);
    const started = Date.now();
    expect((await detectFormat('README', undefined, controls, { buffer: controls })).kind).toBeNull();
    const headers = Buffer.from('X-A: b\n'.repeat(600) + 'From: a\n');
    expect((await detectFormat('mail', undefined, headers, { buffer: headers })).kind).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('declared mime types: 1 MB of type characters without a slash', () => {
    expect(timed(() => expect(mimeTypeFor(null, 'a'.repeat(1_000_000) + '!')).toBe('application/octet-stream'))).toBeLessThan(2000);
  });
});
