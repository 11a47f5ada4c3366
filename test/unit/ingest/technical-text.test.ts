import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { expandIdentifiers, identifierParts } from '../../../src/search/analysis';
import { chunkPages } from '../../../src/ingest/chunker';
import { RowBuilder, StagedRow } from '../../../src/ingest/index-rows';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { RunningLineFilter } from '../../../src/ingest/running-lines';
import { htmlToText } from '../../../src/ingest/parsers/html';
import { HeadingTrail, headingMark } from '../../../src/ingest/sections';
import { EVAL_DOCS_DIR } from '../../support/eval/corpus';
import type { DocumentKind, ParsedPage } from '../../../src/ingest/types';

const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

describe('identifiers are indexed whole and by their parts', () => {
  it.each([
    ['HandleLidSwitch=', ['Handle', 'Lid', 'Switch']],
    ['MaxAuthTries', ['Max', 'Auth', 'Tries']],
    ['X11Forwarding', ['X11', 'Forwarding']],
    ['HTTPServer', ['HTTP', 'Server']],
    ['os.path.join', ['os', 'path', 'join']],
    ['/etc/ssh/ssh_config', ['etc', 'ssh', 'ssh', 'config']],
    ['getElementById()', ['get', 'Element', 'By', 'Id']],
  ])('%s → %j', (token, parts) => {
    expect(identifierParts(token)).toEqual(parts);
  });

  it('leaves plain words, numbers and short forms alone (PostgreSQL already splits hyphens and underscores)', () => {
    for (const token of ['switch', 'IPv6', '3.14', 'e.g.', '--no-clobber', 'max_auth_tries', 'x86_64'])
      expect(identifierParts(token)).toEqual([]);
  });

  it('puts the parts right after the whole token, so phrases stay together', () => {
    expect(expandIdentifiers('Set MaxAuthTries to 3.')).toBe('Set MaxAuthTries Max Auth Tries to 3.');
  });
});

describe('running headers, footers and page numbers', () => {
  const page = (n: number, body: string): ParsedPage => ({
    pageNumber: n,
    text: `SSH_CONFIG (5) BSD File Formats Manual SSH_CONFIG (5)\n\n${body}\n\nBSD January 13, 2023 ${n}`,
  });
  const run = (pages: ParsedPage[]): ParsedPage[] => {
    const out: ParsedPage[] = [];
    const filter = new RunningLineFilter((p) => out.push(p));
    pages.forEach((p) => filter.push(p));
    filter.finish();
    return out;
  };

  it('removes a header and a footer that recur with changing page numbers, and keeps the text and page order', () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const body = (n: number) => `${words[n % 8]} starts page ${n}.\nThen ${words[(n * 3) % 8]} ${words[(n * 5) % 8]} ends it.`;
    const pages = Array.from({ length: 30 }, (_, i) => page(i + 1, body(i + 1)));
    const out = run(pages);
    expect(out.map((p) => p.pageNumber)).toEqual(pages.map((p) => p.pageNumber));
    expect(out.map((p) => p.text)).toEqual(pages.map((p) => body(p.pageNumber)));
  });

  it('removes bare page numbers but keeps body lines that merely recur, and a short document as it is', () => {
    const pages = Array.from({ length: 5 }, (_, i) => ({ pageNumber: i + 1, text: `Text ${'x'.repeat(i)} here.\n- ${i + 1} -` }));
    expect(run(pages).map((p) => p.text)).toEqual(pages.map((_, i) => `Text ${'x'.repeat(i)} here.`));
    const two = [page(1, 'One.'), page(2, 'Two.')];
    expect(run(two)).toEqual(two);
  });
});

describe('chunks that cross a page break', () => {
  it('record where the next page starts, inside the sentence that runs across the break', () => {
    const [chunk] = chunkPages([
      { pageNumber: 4, text: 'The archive keeps old logs. Its retention period is set by the' },
      { pageNumber: 5, text: 'operator and defaults to ninety days.' },
    ]);
    expect(chunk).toMatchObject({ pageNumber: 4, pageEnd: 5 });
    expect(chunk.text.slice(chunk.pageStarts![0])).toBe('operator and defaults to ninety days.');
  });

  it('a chunk on one page records none', () => {
    const [chunk] = chunkPages([{ pageNumber: 1, text: 'Short. Text.' }]);
    expect(chunk.pageStarts).toBeUndefined();
  });
});

describe('reference entries are headings', () => {
  it('option and directive lines followed by their description become the chunk headings', () => {
    const text = [
      'OPTIONS',
      'All options are configured in the [Login] section:',
      'NAutoVTs=',
      'Takes a positive integer.',
      'see the',
      'CanonicalizeHostname',
      'option for details.',
      '-o, --output=FILE',
      'Write output to FILE.',
    ].join('\n');
    const [chunk] = chunkPages([{ pageNumber: 1, text }]);
    // a term inside a wrapped sentence (followed by lower case) is not an entry
    expect(chunk.section?.split('\n')).toEqual(['OPTIONS', 'NAutoVTs=', '-o, --output=FILE']);
  });
});

/** A real file's index rows, as the parser thread builds them (parsed, chunked, analysed). */
async function indexRows(kind: DocumentKind, file: string, title: string): Promise<StagedRow[]> {
  const pages = await pool.parse(kind, readFileSync(file));
  const rows: StagedRow[] = [];
  const builder = new RowBuilder({ title, statedLanguage: 'en' }, 10_000, (m) => {
    if (m.type === 'rows') rows.push(...(JSON.parse(m.json) as StagedRow[]));
  });
  pages.forEach((p) => builder.push(p));
  builder.finish();
  return rows;
}

describe('heading trails', () => {
  const page = (pageNumber: number, sections: Array<{ title: string; level?: number }>): ParsedPage => ({
    pageNumber,
    text: sections.map((s) => `${s.title}\n\nBody under ${s.title}.`).join('\n\n'),
    sections: sections.map((s, i) => ({ offset: i * 10, ...s })),
  });

  it('a heading carries the titles of the sections it lies in, across pages; a heading of unknown level starts afresh', () => {
    const trail = new HeadingTrail();
    const titles = [
      page(1, [
        { title: '5 Data Definition', level: 1 },
        { title: '5.4 Constraints', level: 2 },
      ]),
      page(2, [
        { title: '5.4.1 Check Constraints', level: 3 },
        { title: '5.4.2 Not-Null', level: 3 },
        { title: '5.5 Columns', level: 2 },
      ]),
      page(3, [{ title: 'Printed heading' }, { title: 'Appendix', level: 1 }]),
    ].flatMap((p) => (trail.apply(p).sections ?? []).map((s) => s.title));
    expect(titles).toEqual([
      '5 Data Definition',
      '5 Data Definition\n5.4 Constraints',
      '5 Data Definition\n5.4 Constraints\n5.4.1 Check Constraints',
      '5 Data Definition\n5.4 Constraints\n5.4.2 Not-Null',
      '5 Data Definition\n5.5 Columns',
      'Printed heading',
      'Appendix',
    ]);
  });

  it('keeps at most 300 characters of a trail, dropping the outermost titles first', () => {
    const long = 'word '.repeat(50).trim();
    const [, , third] = new HeadingTrail().apply(
      page(1, [
        { title: `A ${long}`, level: 1 },
        { title: `B ${long}`, level: 2 },
        { title: 'C', level: 3 },
      ]),
    ).sections!;
    expect(third.title).toBe(`B ${long}\nC`);
  });

  it('a real DocBook page (Linux-PAM guide): each subsection is indexed under its module section', async () => {
    const rows = await indexRows('html', path.join(__dirname, '../../fixtures/html/sag-pam_unix.html'), 'sag-pam_unix');
    const options = rows.find((r) => r.t.includes('remember=n'))!;
    expect(options.h.split('\n')).toEqual(
      expect.arrayContaining(['sag-pam_unix', '6.34. pam_unix - traditional password authentication', '6.34.2. OPTIONS']),
    );
  });

  it("a real DocBook page's option list (Linux-PAM guide): each option is a heading under OPTIONS, its description on the next line", async () => {
    const pages = await pool.parse('html', readFileSync(path.join(__dirname, '../../fixtures/html/sag-pam_unix.html')));
    const trail = new HeadingTrail();
    const titles = pages.flatMap((p) => (trail.apply(p).sections ?? []).map((s) => s.title.split('\n')));
    expect(titles).toContainEqual(['6.34. pam_unix - traditional password authentication', '6.34.2. OPTIONS', 'nullok']);
    expect(titles).toContainEqual(['6.34. pam_unix - traditional password authentication', '6.34.5. EXAMPLES']);
    expect(pages[0].text).toMatch(
      /\n\s*nullok\nThe default action of this module is to not permit the user access to a service if their official\s+password is blank\./,
    );
  });

  it('a real reference in Word (sshd_config as DOCX): an option set as a paragraph of its own is the entry of its description', async () => {
    const rows = await indexRows('docx', path.join(EVAL_DOCS_DIR, 'sshd_config.docx'), 'sshd_config');
    const row = rows.find((r) => r.t.includes('Specifies the file that contains the public keys used for user authentication'))!;
    // (the header as indexed: identifiers followed by their parts)
    expect(row.h).toMatch(/^AuthorizedKeysFile Authorized Keys File$/m);
  });

  it('a real Word manual with a definition list (wget as DOCX, from pandoc): each option is a heading, terms in a row one heading', async () => {
    const pages = await pool.parse('docx', readFileSync(path.join(EVAL_DOCS_DIR, 'wget.docx')));
    const sections = pages.flatMap((p) => p.sections ?? []);
    expect(sections).toContainEqual(expect.objectContaining({ title: '-t number, --tries=number', level: 7 }));
    expect(sections).toContainEqual(expect.objectContaining({ title: 'Download Options', level: 2 }));
    const html = htmlToText('<dl><dt>-q</dt>\n<dt>--quiet</dt><dd><p>Print less.</p></dd><dt>Term</dt><dd>Plain.</dd></dl>');
    expect(html).toBe(`${headingMark(7)}-q, --quiet\nPrint less.\n\n${headingMark(7)}Term\nPlain.`);
  });

  it('an entry term is in force under the heading it follows', () => {
    const text = 'OPTIONS\n\nNAutoVTs=\nTakes a positive integer.\n\nMore about it.';
    const chunks = chunkPages([{ pageNumber: 1, text, sections: [{ offset: 0, title: 'logind.conf\nOPTIONS', level: 2 }] }]);
    expect(chunks[0].section?.split('\n')).toEqual(['logind.conf', 'OPTIONS', 'NAutoVTs=']);
  });
});
