import { composeKept, type Kept, rewritten, trimmed } from './boxes';
import { HEADING_MARK } from './sections';
import type { ParsedPage } from './types';

/**
 * Running headers, footers and page numbers: the lines a printed document repeats at the top or
 * bottom of its pages ("SSH_CONFIG(5) BSD File Formats Manual SSH_CONFIG(5)", "BSD January 13,
 * 2023 7", "CHAPTER 3. THE DEBIAN PACKAGE MANAGEMENT TOOLS …", "12"). Left in, they are glued into
 * chunks, count as words of every page's text, and cut paragraphs that run across a page break.
 *
 * A line is running when, with its digits blanked, it is among the first or last EDGE_LINES lines
 * of a good share of the pages (whole line, or its first two words: a chapter header's words change with
 * the chapter). A line of only a page number (`7`, `- 7 -`, `Page 7`, `7 of 20`) at an edge is
 * always one. The first decision is taken on the first SAMPLE_PAGES pages (they are held back
 * until then); later pages keep counting, so headers that only start after a long front matter
 * (title pages, a table of contents) are recognised from there on.
 *
 * A chapter's own header ("Appendix B: Invoking R 93", "Functions and Operators") is on too few of
 * a book's pages for that. An outermost line is also running when it recurs (digits aside) at the
 * same edge of at least two pages at most NEARBY pages away; of one such page, when it carries a
 * page number at its start or end and three words; and of none, when it carries a page number and
 * repeats a heading of its own page or of the NEARBY pages before it (a short appendix's header
 * repeats its title). A line with a page number also recurs when a page NEARBY has the same words
 * with a page number at the same edge, wherever the number stands (two-sided books print it on the
 * outer edge: `208 Extremes`, `Extremes 209`). And once the headers found agree on how printed
 * page numbers relate to pages (OFFSET_PAGES of them), a line carrying its own page's printed
 * number at an edge is one too. Pages are therefore handed on NEARBY pages late.
 */
const EDGE_LINES = 2;
const SAMPLE_PAGES = 24;
/**
 * Share of pages a running line must be found on. Books alternate headers between odd and even
 * pages and leave them off chapter openings, so a header is on fewer than half of the pages.
 */
const RECURRING_SHARE = 0.3;
/** How far apart (in pages) a chapter's header recurs: books put it on every other page. */
const NEARBY = 4;
/** Headers on this many pages must agree on the printed page numbers' offset before it is used. */
const OFFSET_PAGES = 3;
/** A line that starts or ends with a page number (and holds a word). */
const NUMBERED_EDGE = /^(?:[0-9]{1,6}\s+\S.*\p{L}.*|.*\p{L}.*\S\s+[0-9]{1,6})$/u;
/** A running header is a short line. */
const MAX_RUNNING_CHARS = 160;
const PAGE_NUMBER = /^(?:(?:page|p\.)\s*)?(?:[-–—]\s*)?[0-9]{1,6}(?:\s*[-–—])?(?:\s*(?:of|\/)\s*[0-9]{1,6})?$/i;
/** Lower-case roman page numbers of front matter (i … xxxix). */
const ROMAN_PAGE = /^x{0,3}(?:ix|iv|v?i{0,3})$/;

const normalise = (line: string): string =>
  line
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/[0-9]+/g, '#');
const firstWords = (norm: string): string => norm.split(' ').slice(0, 2).join(' ');

interface Edge {
  index: number;
  line: string;
  /** 0 for the outermost line of its side, 1 for the one inside it. */
  depth: number;
  side: 'top' | 'bottom';
}

/** The non-empty lines at the top and at the bottom of a page, outermost first on each side. */
function edges(lines: string[]): Edge[] {
  const filled = lines.map((line, index) => ({ index, line: line.trim() })).filter((l) => l.line);
  const top = filled.slice(0, EDGE_LINES).map((l, depth) => ({ ...l, depth, side: 'top' as const }));
  const bottom = filled
    .slice(Math.max(0, filled.length - EDGE_LINES))
    .reverse()
    .map((l, depth) => ({ ...l, depth, side: 'bottom' as const }));
  return [...top, ...bottom];
}

/** A heading's or header's words, without numbers or punctuation: `appendixcthecommandlineeditor`. */
const lettersOf = (line: string): string => line.toLowerCase().replace(/[^\p{L}]+/gu, '');

/** What the chapter-header rule knows of an outermost edge line. */
interface EdgeLine {
  /** Whether a page number starts or ends it (NUMBERED_EDGE), and that number. */
  numbered: boolean;
  printed?: number;
  words: number;
  letters: string;
}

/** What the chapter-header rule needs of a page: its outermost edge lines and its headings. */
interface PageEdges {
  /** Outermost top and bottom lines with a word, normalised with their side (`top:appendix b: invoking r #`). */
  lines: Map<string, EdgeLine>;
  /** The words of the page's headings (see lettersOf). */
  headings: Set<string>;
  /** The words of its outermost lines that carry a page number, with their side (`top:extremes`). */
  numberedLetters: Set<string>;
}

function pageEdges(page: ParsedPage): PageEdges {
  const all = page.text.split('\n');
  const lines = new Map<string, EdgeLine>();
  const numberedLetters = new Set<string>();
  for (const { line, depth, side } of edges(all)) {
    // (a heading of the page is not its header)
    if (depth > 0 || line.length > MAX_RUNNING_CHARS || line.startsWith(HEADING_MARK) || !/\p{L}/u.test(line)) continue;
    const norm = normalise(line);
    const numbered = NUMBERED_EDGE.test(line);
    const letters = lettersOf(line);
    const printed = numbered ? Number(/^(\d{1,6})\s|\s(\d{1,6})$/.exec(line)?.slice(1).find(Boolean)) : undefined;
    lines.set(`${side}:${norm}`, { numbered, words: norm.split(' ').length, letters, printed });
    if (numbered && letters.length >= 3) numberedLetters.add(`${side}:${letters}`);
  }
  const headings = new Set(all.filter((l) => l.startsWith(HEADING_MARK)).map(lettersOf));
  return { lines, headings, numberedLetters };
}

/**
 * `lines` without the `drop` ones, joined, with runs of blank lines made one and the ends trimmed;
 * and the pieces of the old text it keeps (see Kept).
 */
function withoutLines(lines: string[], drop: Set<number>): { text: string; pieces: Kept[] } {
  let joined = '';
  const kept: Kept[] = [];
  let from = 0;
  lines.forEach((line, i) => {
    if (!drop.has(i)) {
      if (kept.length) joined += '\n';
      kept.push({ from, to: from + line.length, at: joined.length });
      joined += line;
    }
    from += line.length + 1;
  });
  // blank-line runs collapse to one blank line: each run keeps its first and last newline
  const collapsed: Kept[] = [];
  let text = '';
  let last = 0;
  for (const m of joined.matchAll(/\n[ \t]*\n(?:[ \t]*\n)+/g)) {
    collapsed.push({ from: last, to: m.index + 1, at: text.length });
    text += joined.slice(last, m.index + 1) + '\n';
    last = m.index + m[0].length;
  }
  collapsed.push({ from: last, to: joined.length, at: text.length });
  text += joined.slice(last);
  const trim = trimmed(text);
  return { text: trim.text, pieces: composeKept(composeKept(kept, collapsed), trim.pieces) };
}

export class RunningLineFilter {
  private readonly sample: ParsedPage[] = [];
  private whole = new Set<string>();
  private prefixes = new Set<string>();
  private decided = false;
  private readonly wholeCount = new Map<string, number>();
  private readonly prefixCount = new Map<string, number>();
  private counted = 0;
  /** Pages counted but not yet handed on (at most NEARBY once decided), and the last NEARBY handed on. */
  private readonly ahead: ParsedPage[] = [];
  private readonly behind: ParsedPage[] = [];
  /** The edges and headings of the pages held and of the last NEARBY handed on. */
  private readonly chapterEdges = new Map<ParsedPage, PageEdges>();

  /** How often each difference between a page's number and the number printed in its header was seen. */
  private readonly offsets = new Map<number, number>();

  /** The difference between page numbers and printed ones, once headers on OFFSET_PAGES pages agree on it. */
  private pageOffset(): number | undefined {
    let best: [number, number] | undefined;
    for (const [offset, n] of this.offsets) if (!best || n > best[1]) best = [offset, n];
    return best && best[1] >= OFFSET_PAGES ? best[0] : undefined;
  }

  /** @param emit receives every page, in order, with its running lines removed. */
  constructor(private readonly emit: (page: ParsedPage) => void) {}

  push(page: ParsedPage): void {
    this.chapterEdges.set(page, pageEdges(page));
    if (this.decided) {
      this.count(page);
      this.update();
      this.ahead.push(page);
      if (this.ahead.length > NEARBY) this.handOn();
      return;
    }
    this.sample.push(page);
    if (this.sample.length >= SAMPLE_PAGES) this.decide();
  }

  /** Emits what is still held back (call once, after the last page). */
  finish(): void {
    if (!this.decided) this.decide();
    while (this.ahead.length) this.handOn();
  }

  /** Hands on the oldest page held, stripped, and keeps it as a neighbour of the pages after it. */
  private handOn(): void {
    const page = this.ahead.shift()!;
    const own = this.chapterEdges.get(page)!;
    const nearby = [...this.behind, ...this.ahead].map((p) => this.chapterEdges.get(p)!);
    const headings = [own, ...this.behind.map((p) => this.chapterEdges.get(p)!)].flatMap((e) => [...e.headings]);
    const chapter = new Set<string>();
    const offset = this.pageOffset();
    for (const [key, { numbered, words, letters, printed }] of own.lines) {
      const recurs = nearby.filter((e) => e.lines.has(key)).length;
      // a two-sided book prints the page number on the outer edge: `208 Extremes`, `Extremes 209`
      const side = key.slice(0, key.indexOf(':'));
      const mirrored = numbered && letters.length >= 3 && nearby.some((e) => e.numberedLetters.has(`${side}:${letters}`));
      // the page's own printed number, known from the headers already found (a one-page topic's `210 extSoftVersion`)
      const ownNumber = printed !== undefined && offset !== undefined && printed === page.pageNumber - offset;
      if (recurs >= 2 || mirrored || ownNumber || (numbered && ((recurs === 1 && words >= 3) || headings.includes(letters)))) {
        chapter.add(key);
        if (printed !== undefined) this.offsets.set(page.pageNumber - printed, (this.offsets.get(page.pageNumber - printed) ?? 0) + 1);
      }
    }
    this.emit(this.counted >= 3 ? this.strip(page, chapter) : page);
    this.behind.push(page);
    if (this.behind.length > NEARBY) this.chapterEdges.delete(this.behind.shift()!);
  }

  /** Counts a page's edge lines (whole, and by their first two words). */
  private count(page: ParsedPage): void {
    if (!page.text.trim()) return;
    this.counted++;
    const seenWhole = new Set<string>();
    const seenPrefix = new Set<string>();
    for (const { line, depth, side } of edges(page.text.split('\n'))) {
      if (line.length > MAX_RUNNING_CHARS) continue;
      const norm = normalise(line);
      seenWhole.add(`${side}:${norm}`);
      // the first two words of the outermost header line, e.g. "chapter #." of "CHAPTER 3. …"
      if (depth === 0 && side === 'top' && norm.split(' ').length >= 3) seenPrefix.add(firstWords(norm));
    }
    for (const n of seenWhole) this.wholeCount.set(n, (this.wholeCount.get(n) ?? 0) + 1);
    for (const n of seenPrefix) this.prefixCount.set(n, (this.prefixCount.get(n) ?? 0) + 1);
  }

  /** A line is running once it recurs on at least 3 pages and on RECURRING_SHARE of the pages counted so far. */
  private update(): void {
    if (this.counted < 3) return;
    const needed = Math.max(3, Math.ceil(this.counted * RECURRING_SHARE));
    for (const [k, n] of this.wholeCount) if (n >= needed) this.whole.add(k);
    for (const [k, n] of this.prefixCount) if (n >= needed && /\p{L}{3}/u.test(k)) this.prefixes.add(k);
  }

  private decide(): void {
    this.decided = true;
    for (const page of this.sample) this.count(page);
    this.update();
    this.ahead.push(...this.sample.splice(0));
    while (this.ahead.length > NEARBY) this.handOn();
  }

  private isRunning({ line, depth, side }: Edge, chapter: Set<string>): boolean {
    if (line.length > MAX_RUNNING_CHARS) return false;
    if (PAGE_NUMBER.test(line) || ROMAN_PAGE.test(line)) return true;
    const norm = normalise(line);
    return (
      this.whole.has(`${side}:${norm}`) ||
      (depth === 0 && chapter.has(`${side}:${norm}`)) ||
      (depth === 0 && side === 'top' && norm.split(' ').length >= 3 && this.prefixes.has(firstWords(norm)))
    );
  }

  /** Removes running lines from the outside in: an inner edge line only goes when the one outside it went. */
  private strip(page: ParsedPage, chapter: Set<string>): ParsedPage {
    const lines = page.text.split('\n');
    const drop = new Set<number>();
    const gone = { top: true, bottom: true };
    for (const e of edges(lines)) {
      if (e.depth === 0) gone[e.side] = true;
      if (!gone[e.side] || drop.has(e.index)) continue;
      if (this.isRunning(e, chapter)) drop.add(e.index);
      else gone[e.side] = false;
    }
    if (!drop.size) return page;
    const { text, pieces } = withoutLines(lines, drop);
    // a page made only of such lines is its own text (a one-line page repeated with a new number)
    return text ? rewritten(page, text, pieces) : page;
  }
}
