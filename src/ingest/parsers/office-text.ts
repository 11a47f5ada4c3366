import type { OfficeContentNode } from 'officeparser';
import { headingMark, stripMarks } from '../sections';
import { nodeText } from './spreadsheet';

/** A block's text: marks a file holds removed, blank lines inside it closed up (a paragraph stays one paragraph). */
const blockText = (text: string): string =>
  stripMarks(text)
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]*\n[\s]*\n\s*/g, '\n')
    .replace(/^[ \t]+/gm, '')
    .trim();

/** A table's rows, each one paragraph of its cells joined by " | " (as html.ts reads an HTML table). */
function tableParagraphs(table: OfficeContentNode): string[] {
  const rows: string[] = [];
  for (const row of table.children ?? []) {
    if (row.type !== 'row') continue;
    const cells = (row.children ?? []).map((c) => nodeText(c).replace(/\s+/g, ' ').trim()).filter(Boolean);
    if (cells.length) rows.push(stripMarks(cells.join(' | ')));
  }
  return rows;
}

interface ListMeta {
  listType?: 'ordered' | 'unordered';
  indentation?: number;
  itemIndex?: number;
  listId?: string;
}

/** A list item's line: its marker (` * `, ` 2. `) indented by its level, as html.ts lays out lists. */
function listLine(item: OfficeContentNode): string {
  const meta = (item.metadata ?? {}) as ListMeta;
  const marker = meta.listType === 'ordered' ? `${(meta.itemIndex ?? 0) + 1}.` : '*';
  return `${'  '.repeat(Math.max(0, meta.indentation ?? 0))} ${marker} ${nodeText(item).replace(/\s+/g, ' ').trim()}`;
}

/** Whether every piece of a node's text is a link's (an item of a table of contents, a site's menu). */
function onlyLinks(node: OfficeContentNode): boolean {
  if (node.type === 'text') return !node.text?.trim() || Boolean(node.metadata?.link);
  return (node.children ?? []).every(onlyLinks);
}

/** Options of blocksOf: how headings are levelled. */
interface BlockOptions {
  /** The level given to a heading (a slide's title is 1, its other headings 2). */
  level?: (node: OfficeContentNode) => number;
  /** False: a heading is read as a paragraph (a heading in speaker notes). */
  headings?: boolean;
}

/**
 * Converted text of a run of officeparser's block nodes, as DOCX is converted: a heading is a line
 * starting with its heading mark, a paragraph is a paragraph, a list's items are lines of one
 * paragraph, a table's rows are paragraphs of cells joined by " | ". Notes attached to a node
 * (footnotes) are gathered in `notes`.
 */
export function blocksOf(nodes: OfficeContentNode[], notes: string[], options: BlockOptions = {}): string[] {
  const out: string[] = [];
  let list: string[] = [];
  let linksOnly = true;
  // a list made only of links (an e-book's table of contents, its navigation page) names the
  // sections without holding them, and would be cited instead of them: it is not read, as html.ts does
  const closeList = () => {
    if (list.length && !linksOnly) out.push(list.join('\n'));
    list = [];
    linksOnly = true;
  };
  for (const node of nodes) {
    for (const note of node.notes ?? []) notes.push(blockText(nodeText(note)));
    if (node.type === 'list') {
      const text = nodeText(node).trim();
      if (text) {
        list.push(listLine(node));
        linksOnly &&= onlyLinks(node);
      }
      continue;
    }
    closeList();
    if (node.type === 'heading') {
      const title = nodeText(node).replace(/\s+/g, ' ').trim();
      const level = options.level?.(node) ?? (node.metadata as { level?: number } | undefined)?.level ?? 1;
      if (title) out.push((options.headings === false ? '' : headingMark(level)) + stripMarks(title));
    } else if (node.type === 'table') out.push(...tableParagraphs(node));
    else if (node.type === 'break' || node.type === 'image' || node.type === 'chart' || node.type === 'note' || node.type === 'comment') {
      const text = node.type === 'image' || node.type === 'chart' ? blockText(nodeText(node)) : '';
      if (text) out.push(text);
    } else if (node.type === 'paragraph' || node.type === 'text' || !node.children?.some((c) => c.type !== 'text')) {
      const text = blockText(nodeText(node));
      if (text) out.push(text);
    } else out.push(...blocksOf(node.children ?? [], notes, options));
  }
  closeList();
  return out;
}

/** A document's converted text (ODT, EPUB, RTF): its blocks, then its footnotes. */
export function documentText(content: OfficeContentNode[]): string {
  const notes: string[] = [];
  const blocks = blocksOf(content, notes);
  return [...blocks, ...notes.filter(Boolean)].join('\n\n');
}

/** A slide number placeholder left in a notes page (`2`, `<number>`). */
const SLIDE_NUMBER = /^(\d+|<number>)$/;

/**
 * A slide's page text: its title (the first heading) as a heading, then its text and tables, then
 * its speaker notes, the first paragraph of them starting "Notes:".
 */
export function slideText(slide: OfficeContentNode, notes: OfficeContentNode[]): string {
  let titled = false;
  const level = () => (titled ? 2 : ((titled = true), 1));
  const footnotes: string[] = [];
  const blocks = blocksOf(slide.children ?? [], footnotes, { level });
  const spoken = notes.flatMap((n) => blocksOf(n.children ?? [], footnotes, { headings: false })).filter((p) => !SLIDE_NUMBER.test(p));
  if (spoken.length) spoken[0] = `Notes: ${spoken[0]}`;
  return [...blocks, ...spoken, ...footnotes.filter(Boolean)].join('\n\n');
}
