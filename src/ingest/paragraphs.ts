import { collapseSpaces } from './boxes';
import { splitParagraphs } from './paginate';
import type { ParsedPage } from './types';

/**
 * The chunker's first step: a document's paragraphs across its pages, with the section heading in
 * force at each, the entry terms inside it, and paragraphs cut by a page break joined back.
 */

export interface Paragraph {
  index: number;
  text: string;
  page: number;
  pageEnd: number;
  /** Where each page's part of the text starts (more than one entry only for joined paragraphs). */
  pageStarts: Array<{ offset: number; page: number }>;
  /**
   * For each entry of pageStarts, where its part came from in its page's text: the part's character
   * i (counted from the entry's offset) is the page text's character `at + toOld[i]` (`at + i` when toOld is null).
   */
  origins: Array<{ at: number; toOld: Int32Array | null }>;
  /** The heading in force where the paragraph starts (the last one at or before it, across pages). */
  section?: string;
  /** The entry terms inside the paragraph (see ENTRY_TERM). */
  entries: string[];
  /** Whether the text ends a sentence (a paragraph that does not may continue on the next page). */
  endsSentence: boolean;
}

export const ENDS_SENTENCE = /[.!?:;)"'\]»”’…]$/;

/**
 * The term of a reference entry: a line that is only an option or directive name
 * (`HandleLidSwitch=`, `MaxAuthTries`, `--no-clobber`, `-o, --output=FILE`, `AcceptEnv`) or a
 * manual's section name (`OPTIONS`, `SEE ALSO`), followed by a line that starts its description
 * with a capital letter. Man pages, configuration references and option lists are made of such
 * entries; each one becomes a paragraph whose term is its section heading (BM25F weights it).
 */
const ENTRY_TERM =
  /^(?:-{1,2}[\p{L}\p{N}][\p{L}\p{N}_.-]*(?:[= ]?[\p{L}<[][^\s,]*)?(?:, ?-{1,2}[\p{L}\p{N}][\p{L}\p{N}_.-]*(?:[= ]?[\p{L}<[][^\s,]*)?)*|[\p{L}][\p{L}\p{N}_.]*[\p{Ll}\p{N}][\p{Lu}][\p{L}\p{N}_.]*=?|[\p{L}][\p{L}\p{N}_.]*=|\p{Lu}{3,}(?: \p{Lu}{2,}){0,3})$/u;
const ENTRY_LINE_CHARS = 60;
const STARTS_DESCRIPTION = /^[\p{Lu}"'“(]/u;

/** Whether a (trimmed) line is only an entry term (ENTRY_TERM) and `next` starts its description. */
const isEntryTerm = (line: string, next: string | undefined): boolean =>
  next !== undefined && line.length <= ENTRY_LINE_CHARS && ENTRY_TERM.test(line) && STARTS_DESCRIPTION.test(next.trimStart());

/** The entry terms of a paragraph: lines that are only a term and are followed by a description. */
function entryTerms(paragraph: string): string[] {
  const lines = paragraph.split('\n').map((l) => l.trim());
  return lines.filter((line, i) => isEntryTerm(line, lines[i + 1]));
}

/** Whether a paragraph is only an entry term and the next one starts its description. */
const isTermParagraph = (paragraph: string, next: string | undefined): boolean => {
  const term = paragraph.trim();
  return !term.includes('\n') && isEntryTerm(term, next);
};

/**
 * Paragraphs of all pages, whitespace-normalised. A paragraph cut by a page break (the page's last
 * paragraph does not end a sentence and the next page's first one starts in lower case) is joined
 * back into one paragraph that records both pages.
 */
export function paragraphsOf(pages: ParsedPage[]): Paragraph[] {
  const out: Paragraph[] = [];
  /** The heading in force (with its trail, see HeadingTrail), and the entry term in force under it. */
  let heading: string | undefined;
  let entry: string | undefined;
  for (const page of pages) {
    const raw = splitParagraphs(page.text);
    let cursor = 0;
    let h = 0;
    const headings = [...(page.sections ?? [])].sort((a, b) => a.offset - b.offset);
    const found: number[] = [];
    const sectionOf = raw.map((r, i) => {
      const at = page.text.indexOf(r, cursor);
      found.push(Math.max(0, at));
      cursor = at < 0 ? cursor : at + r.length;
      // a heading counts from the paragraph it starts in (it may not start exactly at a paragraph)
      for (; h < headings.length && headings[h].offset < cursor; h++) {
        const title = headings[h].title.replace(/[^\S\n]+/g, ' ').trim();
        if (title) [heading, entry] = [title, undefined];
      }
      // entry terms inside the paragraph (see ENTRY_TERM) are headings of it; the last one is in
      // force, under the heading, for the paragraphs after it
      const entries = entryTerms(r);
      const inForce = [heading, entry].filter(Boolean).join('\n') || undefined;
      if (entries.length) entry = entries[entries.length - 1];
      // a paragraph that is only a term, followed by its description (a Word or HTML reference sets
      // the term as a paragraph of its own), is the entry of the paragraphs after it
      else if (isTermParagraph(r, raw[i + 1])) entry = r.trim();
      return { inForce, entries };
    });
    const paras = raw
      .map((p, i) => {
        // = p.replace(/\s+/g, ' ').trim(), knowing where each character was on the page
        const { text, toOld } = collapseSpaces(p);
        return { text, origin: { at: found[i], toOld }, section: sectionOf[i].inForce, entries: sectionOf[i].entries };
      })
      .filter((p) => p.text);
    paras.forEach(({ text, origin, section, entries }, i) => {
      const last = out[out.length - 1];
      // `endsSentence` is kept rather than re-testing the joined text: an end-anchored regular
      // expression reads the whole (growing) string, which made joining many pages quadratic
      if (i === 0 && last && last.pageEnd === page.pageNumber - 1 && !last.endsSentence && /^[a-z]/.test(text)) {
        last.pageStarts.push({ offset: last.text.length + 1, page: page.pageNumber });
        last.origins.push(origin);
        last.text = `${last.text} ${text}`;
        last.pageEnd = page.pageNumber;
        last.endsSentence = ENDS_SENTENCE.test(text);
        last.entries.push(...entries);
      } else
        out.push({
          index: out.length,
          text,
          page: page.pageNumber,
          pageEnd: page.pageNumber,
          pageStarts: [{ offset: 0, page: page.pageNumber }],
          origins: [origin],
          endsSentence: ENDS_SENTENCE.test(text),
          section,
          entries,
        });
    });
  }
  return out;
}

/**
 * True when no paragraph can run from this page onto the next (its last paragraph ends a
 * sentence, or it has none). Chunking a document in runs of pages that end on such pages gives
 * exactly the chunks of chunking it whole, because chunks only span pages inside such a paragraph;
 * ingestion uses this to index early pages while later ones are still being read.
 */
export function closesParagraphs(page: ParsedPage): boolean {
  const paras = splitParagraphs(page.text);
  return paras.length === 0 || ENDS_SENTENCE.test(paras[paras.length - 1].replace(/\s+/g, ' ').trim());
}
