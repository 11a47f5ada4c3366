import type { OfficeContentNode, OfficeParserAST } from 'officeparser';
import { withSections } from '../sections';
import type { PageSource, ParsedPage } from '../types';
import { slideText } from './office-text';
import { readParts, relationships, relId, xmlElements } from './office-parts';

/** A slide part's number (`ppt/slides/slide12.xml` → 12), as officeparser numbers slides and notes. */
const partNumber = (path: string): number | null => {
  const m = /(?:^|\/)(?:notesSlide|slide)(\d+)\.xml$/.exec(path);
  return m ? Number(m[1]) : null;
};

/** A PPTX's slides in the presentation's order, each with the notes page its relationships name. */
export interface DeckOrder {
  /** Slide part numbers in presentation order. */
  slides: number[];
  /** Notes page part number by slide part number. */
  notesOf: Map<number, number>;
}

/**
 * Reads a PPTX's slide order (`ppt/presentation.xml`'s slide list) and which notes page belongs to
 * which slide (each slide's relationships). officeparser attaches `notesSlideN.xml` to `slideN.xml`,
 * but the numbers need not match: a deck whose first slide has no notes has its second slide's
 * notes in `notesSlide1.xml` (pandoc writes such decks; PowerPoint does after slides are deleted).
 */
export async function readDeckOrder(buf: Buffer): Promise<DeckOrder | null> {
  const parts = await readParts(
    buf,
    (n) => n === 'ppt/presentation.xml' || n === 'ppt/_rels/presentation.xml.rels' || /^ppt\/slides\/_rels\/slide\d+\.xml\.rels$/.test(n),
    'PPTX',
  );
  const rels = relationships(parts.get('ppt/_rels/presentation.xml.rels'), 'ppt');
  const slides: number[] = [];
  for (const id of xmlElements(parts.get('ppt/presentation.xml'), 'sldId')) {
    const target = rels.get(relId(id) ?? '');
    const n = target ? partNumber(target.path) : null;
    if (n !== null) slides.push(n);
  }
  if (!slides.length) return null;
  const notesOf = new Map<number, number>();
  for (const [name, xml] of parts) {
    const slide = /^ppt\/slides\/_rels\/slide(\d+)\.xml\.rels$/.exec(name);
    if (!slide) continue;
    for (const rel of relationships(xml, 'ppt/slides').values()) {
      const notes = /notesSlide$/.test(rel.type) ? partNumber(rel.path) : null;
      if (notes !== null) notesOf.set(Number(slide[1]), notes);
    }
  }
  return { slides, notesOf };
}

const slideNumberOf = (n: OfficeContentNode): number => (n.metadata as { slideNumber?: number } | undefined)?.slideNumber ?? 0;

/**
 * The pages of a slide deck (PPTX, ODP): one per slide, numbered in the deck's order from 1 (a
 * citation's "page" is its slide); see slideText for a page's text. With a PPTX's `order`, slides
 * are taken in the presentation's order with the notes their relationships name.
 */
export function slidePages(ast: OfficeParserAST, order: DeckOrder | null): PageSource {
  const slides = ast.content.filter((n) => n.type === 'slide');
  let deck: Array<{ slide: OfficeContentNode; notes: OfficeContentNode[] }>;
  if (order) {
    const byNumber = new Map(slides.map((s) => [slideNumberOf(s), s]));
    // every notes page by its own part number, whichever slide officeparser hung it on
    const notesPages = new Map<number, OfficeContentNode[]>();
    for (const s of slides)
      for (const note of s.notes ?? []) notesPages.set(slideNumberOf(note), [...(notesPages.get(slideNumberOf(note)) ?? []), note]);
    deck = order.slides.map((n) => {
      const notes = order.notesOf.get(n);
      return { slide: byNumber.get(n) ?? { type: 'slide', children: [] }, notes: notes === undefined ? [] : (notesPages.get(notes) ?? []) };
    });
  } else deck = slides.sort((a, b) => slideNumberOf(a) - slideNumberOf(b)).map((slide) => ({ slide, notes: slide.notes ?? [] }));
  return function* (): Generator<ParsedPage> {
    for (const [i, { slide, notes }] of deck.entries()) yield withSections({ pageNumber: i + 1, text: slideText(slide, notes) });
  };
}
