import { type ChunkLocation, locationsOf } from './chunk-locations';
import { closesParagraphs, Paragraph, paragraphsOf } from './paragraphs';
import type { ParsedPage } from './types';

export { closesParagraphs };

/** A chunk ready to be indexed. */
export interface ChunkDraft {
  ordinal: number;
  /** Page the chunk starts on. */
  pageNumber: number;
  /** Page it ends on; larger than pageNumber only for a paragraph that runs across a page break. */
  pageEnd: number;
  text: string;
  /** When pageEnd > pageNumber: where pages pageNumber + 1 … pageEnd start in `text` (character offsets). */
  pageStarts?: number[];
  /** The surrounding paragraph(s), for the citation source view. */
  context: string;
  /** Where the chunk lies in the original, page by page (see ChunkLocation). */
  locations?: ChunkLocation[];
  /**
   * The heading of the section the chunk starts in, and those of sections starting inside it
   * (one per line; indexed with it as a contextual header).
   */
  section?: string;
}

export interface ChunkOptions {
  /** A chunk is closed once it reaches this length (at the next sentence boundary). */
  targetChars: number;
  /** Hard upper bound on a chunk's length. */
  maxChars: number;
  /** Past this length a chunk is closed at the next paragraph boundary. */
  minChars: number;
  /** Up to this many characters of whole trailing sentences are repeated at the start of the next chunk. */
  overlapChars: number;
  /** Upper bound on `context`. */
  contextChars: number;
}

/**
 * Chosen by measurement on the evaluation corpus (test/fixtures/eval, 280 questions, lexical only;
 * target/max/min/overlap scaled together): target 500 → recall@5 0.475, 800 → 0.504,
 * 1000 → 0.529, 1500 → 0.571 (recall@1 0.239 / 0.25 / 0.243 / 0.271). Paraphrased questions
 * need the surrounding sentences that larger chunks bring along.
 */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = {
  targetChars: 1500,
  maxChars: 1800,
  minChars: 1200,
  overlapChars: 300,
  contextChars: 2400,
};

/** A sentence (or a piece of an over-long sentence) of one paragraph. */
interface Unit {
  text: string;
  para: number;
  /** Where the unit starts in its paragraph's text. */
  start: number;
  page: number;
  pageEnd: number;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Splits text longer than `max` at whitespace into pieces of at most `max` characters. */
function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) cut = max; // one enormous "word": cut it
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Sentences of a paragraph, each knowing which page(s) it lies on. */
function unitsOf(p: Paragraph, maxChars: number): Unit[] {
  // for a paragraph joined across a page break, offsets past the break belong to the next page
  // (binary search: a paragraph may run across thousands of pages)
  const pageAt = (offset: number): number => {
    let lo = 0;
    let hi = p.pageStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (p.pageStarts[mid].offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return p.pageStarts[lo].page;
  };
  const units: Unit[] = [];
  for (const seg of segmenter.segment(p.text)) {
    const sentence = seg.segment.trim();
    if (!sentence) continue;
    let offset = seg.index + seg.segment.indexOf(sentence);
    for (const piece of splitLong(sentence, maxChars)) {
      const start = p.text.indexOf(piece, offset);
      const end = start + piece.length;
      offset = end;
      units.push({ text: piece, para: p.index, start, page: pageAt(start), pageEnd: pageAt(end - 1) });
    }
  }
  return units;
}

function joinUnits(units: Unit[]): string {
  let out = '';
  units.forEach((u, i) => {
    if (i > 0) out += u.para === units[i - 1].para ? ' ' : '\n\n';
    out += u.text;
  });
  return out;
}

/**
 * Where each page after the first starts in the joined text of `units` (see joinUnits): at the
 * first unit on that page, or inside a sentence that runs across the page break.
 */
function pageStartsOf(units: Unit[], paras: Paragraph[], first: number, last: number): number[] {
  const starts: number[] = [];
  let offset = 0;
  let page = first + 1;
  units.forEach((u, i) => {
    if (i > 0) offset += u.para === units[i - 1].para ? 1 : 2;
    for (; page <= last && page <= u.pageEnd; page++) {
      // a joined paragraph's pages are consecutive: page p starts at pageStarts[p - first page]
      const inside = paras[u.para].pageStarts[page - paras[u.para].page] as { offset: number; page: number } | undefined;
      starts.push(u.page >= page || !inside ? offset : offset + Math.max(0, Math.min(u.text.length, inside.offset - u.start)));
    }
    offset += u.text.length;
  });
  return starts;
}

/** Cuts `text` to at most `max` characters around [from, to), at word boundaries, marking cuts with "…". */
function windowAround(text: string, from: number, to: number, max: number): string {
  if (text.length <= max) return text;
  const slack = Math.max(0, max - (to - from));
  let start = Math.max(0, from - Math.floor(slack / 2));
  let end = Math.min(text.length, start + max);
  start = Math.max(0, end - max);
  if (start > 0) {
    const sp = text.indexOf(' ', start);
    if (sp !== -1 && sp < from) start = sp + 1;
  }
  if (end < text.length) {
    const sp = text.lastIndexOf(' ', end);
    if (sp > to) end = sp;
  }
  return (start > 0 ? '…' : '') + text.slice(start, end).trim() + (end < text.length ? '…' : '');
}

/** The paragraphs a chunk touches, widened by a neighbouring paragraph on each side when it fits. */
function contextFor(units: Unit[], text: string, paras: Paragraph[], max: number): string {
  let first = units[0].para;
  let last = units[units.length - 1].para;
  const length = (a: number, b: number) => paras.slice(a, b + 1).reduce((n, p) => n + p.text.length + 2, -2);
  const page = paras[first].page;
  const pageEnd = paras[last].pageEnd;
  // neighbours only from the chunk's own pages, so the source view shows what the page shows
  if (first > 0 && paras[first - 1].pageEnd >= page && length(first - 1, last) <= max) first -= 1;
  if (last < paras.length - 1 && paras[last + 1].page <= pageEnd && length(first, last + 1) <= max) last += 1;
  const joined = paras
    .slice(first, last + 1)
    .map((p) => p.text)
    .join('\n\n');
  const at = joined.indexOf(text);
  return windowAround(joined, Math.max(0, at), at >= 0 ? at + text.length : text.length, max);
}

/** Headings indexed with a chunk, at most this many characters together. */
const SECTION_CHARS = 300;

/** The headings in force in a chunk: the one it starts under, then every one starting inside it. */
function sectionsOf(units: Unit[], text: string, paras: Paragraph[]): { section?: string } {
  const titles: string[] = [];
  let length = 0;
  const add = (title: string | undefined): void => {
    if (!title || titles.includes(title) || length + title.length > SECTION_CHARS) return;
    titles.push(title);
    length += title.length + 1;
  };
  // a section's title may hold its trail (see HeadingTrail): a title shared by several is indexed once
  const addAll = (section: string | undefined): void => section?.split('\n').forEach(add);
  addAll(paras[units[0].para].section);
  for (const para of new Set(units.map((u) => u.para))) {
    if (para !== units[0].para) addAll(paras[para].section);
    for (const entry of paras[para].entries) if (text.includes(entry.replace(/\s+/g, ' '))) add(entry);
  }
  return titles.length ? { section: titles.join('\n') } : {};
}

/**
 * Cuts pages into chunks for retrieval: paragraph- and sentence-aware, bounded in size, with a
 * small overlap of whole sentences between neighbouring chunks of the same page. A chunk never
 * spans a page break, except inside a paragraph that itself runs across the break; then it
 * records both pages (pageNumber .. pageEnd), so a citation is never silently off by a page.
 */
export function chunkPages(pages: ParsedPage[], options: Partial<ChunkOptions> = {}, firstOrdinal = 0): ChunkDraft[] {
  const o = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  const paras = paragraphsOf(pages);
  const boxes = pages.some((p) => p.boxes) ? new Map(pages.map((p) => [p.pageNumber, p.boxes])) : null;
  const chunks: ChunkDraft[] = [];
  let cur: Unit[] = [];
  let curLen = 0;

  const emit = (): void => {
    const text = joinUnits(cur);
    const pageNumber = Math.min(...cur.map((u) => u.page));
    const pageEnd = Math.max(...cur.map((u) => u.pageEnd));
    chunks.push({
      ordinal: firstOrdinal + chunks.length,
      pageNumber,
      pageEnd,
      text,
      ...(pageEnd > pageNumber ? { pageStarts: pageStartsOf(cur, paras, pageNumber, pageEnd) } : {}),
      context: contextFor(cur, text, paras, o.contextChars),
      locations: locationsOf(
        cur.map((u) => ({ para: u.para, start: u.start, end: u.start + u.text.length })),
        paras,
        (page) => boxes?.get(page),
      ),
      ...sectionsOf(cur, text, paras),
    });
  };
  /** Closes the current chunk; the next starts with its last sentences when `overlap`. */
  const close = (overlap: boolean): void => {
    emit();
    const keep: Unit[] = [];
    let kept = 0;
    if (overlap) {
      for (let i = cur.length - 1; i > 0; i--) {
        if (kept + cur[i].text.length > o.overlapChars) break;
        keep.unshift(cur[i]);
        kept += cur[i].text.length + 1;
      }
    }
    cur = keep;
    curLen = keep.length ? joinUnits(keep).length : 0;
  };

  for (const p of paras) {
    for (const u of unitsOf(p, o.targetChars)) {
      if (cur.length) {
        const prev = cur[cur.length - 1];
        const newPara = u.para !== prev.para;
        const crossesPage = newPara && u.page > prev.pageEnd;
        const sep = newPara ? 2 : 1;
        if (crossesPage) close(false);
        else if (curLen + sep + u.text.length > o.maxChars || curLen >= o.targetChars || (newPara && curLen >= o.minChars)) {
          close(true);
          // the overlap must leave room for the new sentence
          if (cur.length && curLen + 2 + u.text.length > o.maxChars) {
            cur = [];
            curLen = 0;
          }
        }
      }
      const sep = cur.length ? (u.para !== cur[cur.length - 1].para ? 2 : 1) : 0;
      cur.push(u);
      curLen += sep + u.text.length;
    }
  }
  // close() runs only just before a new sentence is added, so `cur` always holds new text here
  if (cur.length) emit();
  return chunks;
}
