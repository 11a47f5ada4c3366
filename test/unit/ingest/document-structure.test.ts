import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { paginate } from '../../../src/ingest/paginate';
import { htmlToText } from '../../../src/ingest/parsers/html';
import { dropContentsBlocks } from '../../../src/ingest/contents-pages';
import { layoutPage, PdfTextItem } from '../../../src/ingest/parsers/pdf';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { HEADING_MARK, headingMark } from '../../../src/ingest/sections';
import { EVAL_DOCS_DIR } from '../../support/eval/corpus';

/**
 * A document's structure as users see it: a PDF's headings (larger type) become sections, and the
 * navigation and sidebars of generated HTML manuals are not indexed as text.
 */
const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const pool = new ParserPool(config.parseLimits, config.parserPool);
afterAll(() => pool.destroy());

describe('PDF headings', () => {
  const item = (str: string, y: number, height = 10): PdfTextItem => ({ str, x: 0, y, width: str.length * 5, height, hasEOL: true });
  const body = (y: number) => item('Body text of the section, set in the ordinary type size.', y);

  it('marks lines set clearly larger than the body text as headings, and joins a heading wrapped onto two lines', () => {
    const text = layoutPage([
      item('2.1 Installing the', 700, 14),
      item('package', 684, 14),
      body(660),
      body(648),
      body(636),
      item('2.2 Next', 600, 14),
      body(580),
    ]);
    expect(text.split('\n\n')).toEqual([
      `${headingMark(2)}2.1 Installing the package`,
      [body(0).str, body(0).str, body(0).str].join('\n'),
      `${headingMark(2)}2.2 Next`,
      body(0).str,
    ]);
  });

  it('takes nothing as a heading on a page with too little body text to tell, nor a long line or one without letters', () => {
    expect(layoutPage([item('Title', 700, 24), body(650), body(638)])).not.toContain(HEADING_MARK);
    const text = layoutPage([item('x'.repeat(200), 700, 14), item('42', 680, 14), body(660), body(648), body(636)]);
    expect(text).not.toContain(HEADING_MARK);
  });

  it('a real manual (the Debian FAQ): its numbered headings are sections on their pages; man pages set in one size have none', async () => {
    const faq = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, 'debian-faq.pdf')));
    const titles = (n: number) => (faq[n - 1].sections ?? []).map((s) => s.title);
    expect(titles(9)).toEqual(['Chapter 1', 'Definitions and overview', '1.1 What is this FAQ?', '1.2 What is Debian GNU/Linux?']);
    expect(titles(10)).toContain(
      '1.5 What is the difference between Debian GNU/Linux and other Linux distributions? Why should I choose Debian over some other distribution?',
    );
    expect(titles(40)).toEqual(['7.12 How do I put a package on hold?', '7.13 How do I install a source package?']);
    // levels by type size: the chapter's label and title 1, sections 2, subsections 3
    expect(faq[8].sections?.map((s) => s.level)).toEqual([1, 1, 2, 2]);
    expect(faq[14].sections?.map((s) => [s.title.slice(0, 5), s.level])).toEqual([
      ['Chapt', 1],
      ['Choos', 1],
      ['3.1 W', 2],
      ['3.1.1', 3],
    ]);
    // each section's offset is where its title starts in the page's text, and no mark is left behind
    for (const page of faq) {
      expect(page.text).not.toContain(HEADING_MARK);
      for (const s of page.sections ?? []) expect(page.text.slice(s.offset, s.offset + s.title.length).replace(/\s+/g, ' ')).toBe(s.title);
    }
    const logind = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, 'logind.conf.pdf')));
    expect(logind.flatMap((p) => p.sections ?? [])).toEqual([]);
  });
});

describe("a PDF's chapter headers", () => {
  it("a real two-sided book (R's reference manual): headers with the page number on the outer edge are gone, a one-page topic's too", async () => {
    const pages = await pool.parse('pdf', readFileSync(path.join(__dirname, '../../fixtures/pdf/R-refman-headers-excerpt.pdf')));
    // printed pages 201–212: `Extract 201`, `202 Extract`, …, `210 extSoftVersion`, `factor 211`, `212 factor`
    const header = /^(?:\S+ 2[01]\d|2[01]\d \S+)$/;
    expect(pages.filter((p) => p.text.split('\n').some((l) => header.test(l))).map((p) => p.pageNumber)).toEqual([]);
    expect(pages[9].text.startsWith('x <- sort(rnorm(100)); cH <- 1.35')).toBe(true);
    expect(pages[7].text.startsWith('Extremes Maxima and Minima')).toBe(true);
  });

  it('a real texinfo manual (An Introduction to R): the header naming the chapter and the page number is gone from every page, the body stays', async () => {
    const pages = await pool.parse('pdf', readFileSync(path.join(EVAL_DOCS_DIR, 'R-intro.pdf')));
    const header = /^(?:Chapter \d+|Appendix [A-Z]): .* \d+$/;
    // (the appendices' headers are on a few pages only: they recur on nearby pages)
    expect(pages.filter((p) => p.text.split('\n').some((l) => header.test(l))).map((p) => p.pageNumber)).toEqual([]);
    expect(pages[98].text.startsWith('R accepts the following command-line options.')).toBe(true);
    expect(pages[14].sections?.[0]).toEqual({ offset: 0, title: '2.2 Vector arithmetic', level: 2 });
    expect(pages[7].sections?.map((s) => s.level)).toEqual([1, 2, 2, 2]); // "1 Introduction and preliminaries", 1.1–1.3
  });
});

describe('HTML page furniture', () => {
  it('a real DocBook page (Linux-PAM guide): the navigation naming the neighbouring pages is dropped, the text and headings stay', () => {
    const text = htmlToText(readFileSync(path.join(__dirname, '../../fixtures/html/sag-pam_unix.html'), 'utf8'));
    // (DocBook puts a no-break space after a section's number)
    expect(text).toMatch(new RegExp(`${headingMark(3)}6\\.34\\.1\\.\\sDESCRIPTION`));
    expect(text).toContain('This is the standard Unix authentication module.');
    expect(text).not.toMatch(/pam_umask|pam_userdb|\bPrev\b|\bNext\b|\bHome\b/);
  });

  it('Sphinx-style bars, sidebars, footers and ¶ links, and navigation by role, are dropped', () => {
    const html = `<body><div class="related" role="navigation"><a href="a.html">previous</a> | <a href="c.html">next</a></div>
      <div class="document"><div class="body"><h1>Logging<a class="headerlink" href="#l">¶</a></h1><p>Use <a href="h.html">handlers</a> to route records.</p></div></div>
      <div class="sphinxsidebar"><h3>Table of Contents</h3><p>Previous topic</p></div><div role="search"><form><input name="q"><button>Go</button></form></div>
      <div class="footer">© Copyright the authors.</div></body>`;
    expect(htmlToText(html)).toBe(`${headingMark(1)}Logging\n\nUse handlers to route records.`);
  });

  it("a real page's site menu (Exim's documentation) is dropped: a list of nothing but links", () => {
    const text = htmlToText(readFileSync(path.join(EVAL_DOCS_DIR, 'exim-acl.html'), 'utf8'));
    expect(text).not.toMatch(/\* Home\n \* Download/);
    expect(text).toContain('Access Control Lists (ACLs) are defined in a separate section of the runtime configuration file');
  });

  it("a real page's menu bar and breadcrumbs above its title (Apache httpd's manual) are dropped; link-dense text below the title stays", () => {
    const text = htmlToText(readFileSync(path.join(EVAL_DOCS_DIR, 'apache-mod_ssl.html'), 'utf8'));
    expect(text).not.toMatch(/Glossary|Sitemap|Report a bug|HTTP Server > Documentation/);
    expect(text).toMatch(new RegExp(`^Apache HTTP Server Version 2\\.4\\n+${headingMark(1)}Apache Module mod_ssl`));
    const html =
      '<div><a href="a">Home</a> | <a href="b">Docs</a> | <a href="c">Download</a></div><h1>Title</h1><p>Text.</p><p><a href="x">see-a(1)</a>, <a href="y">see-b(1)</a>, <a href="z">see-c(5)</a></p>';
    expect(htmlToText(html)).toBe(`${headingMark(1)}Title\n\nText.\n\nsee-a(1), see-b(1), see-c(5)`);
  });

  it('other lists keep their items, bullets and numbering (1, a, A, i, I)', () => {
    const html = `<ul><li>Use <a href="#x">tls</a> for mail.</li><li>Plain</li><li><a href="#y">Only a link</a></li></ul>
      <ol start="3" type="I"><li>Third</li><li>Fourth</li></ol><ol type="a"><li>first</li><li>second</li></ol>
      <ul><li><a href="a">A</a></li><li><a href="b">B</a></li></ul>`;
    expect(htmlToText(html)).toBe(
      ' * Use tls for mail.\n * Plain\n * Only a link\n\n III. Third\n IV.  Fourth\n\n a. first\n b. second\n\n * A\n * B',
    );
  });

  it('a page whose every word sits in what looks like furniture is read whole rather than lost', () => {
    expect(htmlToText('<body><div class="toc"><p>The whole guide lives in here.</p></div></body>')).toBe('The whole guide lives in here.');
  });
});

describe('tables', () => {
  it("a data table is read row by row: each row one line of its cells, a long cell's sentence whole", () => {
    const description =
      'Computes the absolute value of the argument, which must be of a numeric type; the result has the same type as the argument.';
    const html = `<table><thead><tr><th>Function</th><th>Description</th><th>Example</th></tr></thead><tbody>
      <tr><td><p>abs ( numeric_type )</p></td><td><p>${description}</p></td><td><code>abs(-17.4)</code></td></tr>
      <tr><td>cbrt</td><td>Cube root.</td><td></td></tr></tbody></table><p>After.</p>`;
    expect(htmlToText(html).split('\n\n')).toEqual([
      'Function | Description | Example',
      `abs ( numeric_type ) | ${description} | abs(-17.4)`,
      'cbrt | Cube root.',
      'After.',
    ]);
  });

  it("a real page's table (Exim's ACL options): each option and its use on one line", () => {
    const text = htmlToText(readFileSync(path.join(EVAL_DOCS_DIR, 'exim-acl.html'), 'utf8'));
    expect(text).toContain('\n\nacl_smtp_rcpt | ACL for RCPT\n\n');
    expect(text).toContain('\n\nacl_smtp_data_prdr | ACL for each recipient, after DATA is complete\n\n');
  });

  it('a table used to lay out a page (headings or tables in its cells, or one column) is read as blocks: its headings stay sections', () => {
    const html =
      '<table><tr><td><h2>Install</h2><p>Run the installer.</p></td><td><p>Sidebar note.</p></td></tr></table><table><tr><td>Only</td></tr><tr><td>Column</td></tr></table>';
    expect(htmlToText(html).split('\n\n')).toEqual([`${headingMark(2)}Install`, 'Run the installer.', 'Sidebar note.', 'Only', 'Column']);
  });
});

describe('texinfo manuals in Info form', () => {
  it('a real Info manual (GNU sed): node header lines, menus, the index and the tag table are not indexed; chapters and sections are, with their levels', async () => {
    const pages = await pool.parse('text', readFileSync(path.join(__dirname, '../../fixtures/text/sed-info-excerpt.txt')));
    const text = pages.map((p) => p.text).join('\n');
    // the nodes around each node, the menus and index entries naming other nodes, the tag table
    expect(text).not.toMatch(
      /^File: sed\.info|^\* Menu:|^\* Introduction::|^\* Overview::|Command-Line Options\.\s+\(line|^Node: |\[index\]|INFO-DIR/m,
    );
    // the text stays
    expect(text).toContain('‘sed’ is a stream editor.  A stream editor is used to perform basic text');
    expect(text).toContain('This is a general index of all issues discussed in this manual');
    expect(pages.flatMap((p) => (p.sections ?? []).map((s) => [s.title, s.level]))).toEqual([
      ['GNU ‘sed’', 1],
      ['1 Introduction', 1],
      ['2 Running sed', 1],
      ['2.1 Overview', 2],
      ['Concept Index', 1],
    ]);
    // the index's page keeps its place, empty
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3]);
    expect(pages[2].text.trim()).toBe('');
  });

  it('bullet lists that merely use colons are kept', () => {
    const list = '* Note: back up the file first.\n* Then: run the tool.\n* Finally: check the log.';
    expect(dropContentsBlocks(`Steps:\n\n${list}\n\nDone.`)).toBe(`Steps:\n\n${list}\n\nDone.`);
  });
});

describe('plain-text headings', () => {
  const fixture = (name: string) => readFileSync(path.join(__dirname, '../../fixtures/text', name));
  const titles = async (buf: Buffer) => (await pool.parse('text', buf)).flatMap((p) => (p.sections ?? []).map((s) => s.title));

  it('AsciiDoc section titles starting a paragraph are sections, their level the number of `=`; a `==` inside a paragraph is not', async () => {
    const adoc = '= Guide\n\n== Install\nRun the installer.\n\n=== From source\n\nBuild it.\nif a == b then\n== not a title here';
    const pages = await pool.parse('text', Buffer.from(adoc));
    expect(pages[0].sections?.map((s) => [s.title, s.level])).toEqual([
      ['= Guide', 1],
      ['== Install', 2],
      ['=== From source', 3],
    ]);
  });

  it('a real README with underlined headings (GCC): each underlined line is a section, a longer rule under a sentence is not', async () => {
    expect(await titles(fixture('gcc-README.Bugs.txt'))).toEqual([
      'Reporting Bugs in the GNU Compiler Collection for Debian',
      'Before reporting a bug, please',
      'Where to report a bug',
      'How to report a bug',
      'Summarized bug reporting instructions',
      'Known Bugs and Non-Bugs',
      "C++ exceptions don't work with C libraries",
      'g++: "undefined reference" to static const array in class',
      'cpp removes blank lines',
    ]);
  });

  it('a real manual in text form (Mutt): numbered headings on lines of their own are sections', async () => {
    expect((await titles(fixture('mutt-manual-excerpt.txt'))).map((t) => t.replace(/\s/g, ' '))).toEqual([
      '4.2. History',
      '5.1. The Message Index',
    ]);
  });

  it("a real text manual's chapter tables of contents (Mutt) are not indexed; the sections they list are", async () => {
    const pages = await pool.parse('text', readFileSync(path.join(EVAL_DOCS_DIR, 'mutt-manual.txt')));
    const text = pages.map((p) => p.text).join('\n');
    expect(text).not.toMatch(/2\.3\.\sFile Browser\n\s*2\.4\.\sSidebar/);
    expect(text).toContain('Table of Contents'); // the block's title is a line of its own, and stays
    const titles = pages.flatMap((p) => (p.sections ?? []).map((s) => s.title.replace(/\s/g, ' ')));
    expect(titles).toEqual(expect.arrayContaining(['2.4. Sidebar', '4.2. History', "Chapter 5. Mutt's MIME Support"]));
    // a short numbered list inside the text stays
    expect(dropContentsBlocks('Steps:\n\n1. Install it\n2. Run it\n3. Stop it')).toBe('Steps:\n\n1. Install it\n2. Run it\n3. Stop it');
  });

  it('numbered list items, sentences, version lines and man page footers are not headings; pages stay where the page rule puts them', async () => {
    const text = [
      '1. Install the package',
      '',
      '3.2 million users were counted.',
      '',
      '3.0.20                            2026-04-07            OPENSSL-S_CLIENT(1SSL)',
      '',
      'See 2.4 Options',
      'for the list.',
      '',
      '2.4 Options',
      '',
      'Chapter 7. Hooks',
      '',
      'Body.',
    ].join('\n');
    const pages = await pool.parse('text', Buffer.from(text));
    expect(pages.flatMap((p) => (p.sections ?? []).map((s) => s.title))).toEqual(['2.4 Options', 'Chapter 7. Hooks']);
    expect(pages.map((p) => p.text).join('')).toBe(text);
    // the page rule runs on the text as it is: the pages of plain pagination, with sections added
    const long = Array.from({ length: 60 }, (_, i) => `${i + 1}.1 Section ${i + 1}\n\n${'Words of the section. '.repeat(5)}`).join('\n\n');
    const parsed = await pool.parse('text', Buffer.from(long));
    expect(parsed.map((p) => p.text)).toEqual(paginate(long).map((p) => p.text));
    expect(parsed.flatMap((p) => p.sections ?? [])).toHaveLength(60);
  });
});
