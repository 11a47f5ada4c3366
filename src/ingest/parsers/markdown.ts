import MarkdownIt from 'markdown-it';
import { headingMark, sectionedPages, stripMarks } from '../sections';
import type { PageSource } from '../types';
import { markdownPieces, referenceDefinitions } from './markdown-segments';
import { decodeText } from './text';
import { htmlFragmentToText } from './html';

// CommonMark + GFM tables and strikethrough; raw HTML is recognised so its tags can be dropped
const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
type Token = ReturnType<MarkdownIt['parse']>[number];

/** Words of an inline run: link targets, emphasis markers and inline HTML go, text and code stay. */
function inlineText(children: Token[] | null): string {
  let out = '';
  for (const t of children ?? []) {
    if (t.type === 'text' || t.type === 'code_inline') out += t.content;
    else if (t.type === 'softbreak' || t.type === 'hardbreak') out += '\n';
    else if (t.type === 'image') out += inlineText(t.children);
  }
  return out;
}

/** Finished blocks are joined into one string this many at a time. */
const JOIN_BLOCKS = 1024;

/** The file is parsed in pieces of whole blocks, each about this many characters or more. */
export const MARKDOWN_WINDOW_CHARS = 256 * 1024;

/**
 * Markdown to plain paragraphs with `markdown-it` (a CommonMark parser without backtracking
 * regular expressions): block structure decides the paragraphs, inline markup is dropped and the
 * words kept. Headings start a section (see withSections); each table row becomes a paragraph of
 * `cell | cell` (as in HTML, html.ts); code keeps its text. A large file is parsed a piece of whole blocks at a
 * time (markdown-segments.ts), each piece knowing every link reference the file defines.
 */
export function markdownToText(source: string, windowChars = MARKDOWN_WINDOW_CHARS): string {
  const text = stripMarks(source).replace(/\r\n?/g, '\n');
  const env: Record<string, unknown> = {};
  if (text.length > windowChars) md.parse(referenceDefinitions(text), env);
  // finished blocks are joined a run at a time: a file of many short blocks (100,000 headings)
  // is not held as that many separate strings as well as their text
  const done: string[] = [];
  let blocks: string[] = [];
  /** A block; `tight` joins it to the previous one with a line break (tight list items, table rows). */
  const emit = (t: string, tight = false) => {
    // not /\n+$/: an end-anchored run rescans every run of newlines (quadratic on a code block of blank lines)
    let end = t.length;
    while (end > 0 && t.charCodeAt(end - 1) === 10) end--;
    const block = t.slice(0, end);
    if (!block.trim()) return;
    if (tight && blocks.length) blocks[blocks.length - 1] += '\n' + block;
    else {
      if (blocks.length >= JOIN_BLOCKS) {
        const last = blocks.pop()!; // the last one may still be added to
        done.push(blocks.join('\n\n'));
        blocks = [last];
      }
      blocks.push(block);
    }
  };
  const read = blockReader(emit);
  for (const piece of markdownPieces(text, windowChars)) read(md.parse(piece, env));
  if (blocks.length) done.push(blocks.join('\n\n'));
  return done.join('\n\n');
}

/**
 * A reader of token lists that emits their blocks; it is given each piece's tokens in turn and
 * keeps its state between them, so the pieces read exactly as the whole file would.
 */
function blockReader(emit: (text: string, tight?: boolean) => void): (tokens: Token[]) => void {
  let cells: string[] = [];
  let inTable = false;
  let tableRows: string[] = [];
  /** The level of the heading being read (h1 → 1); false outside headings. */
  let heading: number | false = false;
  /** Open lists: bullet or next number, and whether the list is tight (items joined by line breaks). */
  const lists: Array<{ bullet: string | null; next: number; tight: boolean; items: number }> = [];
  /** The marker owed to the next block of the current list item ('- ', '3. '). */
  let marker = '';
  let itemStart = false;
  return (tokens) => {
    for (const t of tokens) {
      switch (t.type) {
        case 'heading_open':
          heading = Number(t.tag.slice(1)) || 0;
          break;
        case 'heading_close':
          heading = false;
          break;
        case 'inline': {
          const text = inlineText(t.children);
          if (inTable) cells.push(text.trim());
          else if (heading !== false) emit(headingMark(heading) + text.replace(/\n/g, ' '));
          else {
            const list = lists[lists.length - 1];
            const indent = '  '.repeat(Math.max(0, lists.length - 1));
            emit((itemStart ? indent + marker : list ? indent + '  ' : '') + text, !!list && list.tight && itemStart && list.items > 1);
            itemStart = false;
          }
          break;
        }
        case 'bullet_list_open':
        case 'ordered_list_open':
          lists.push({ bullet: t.type === 'bullet_list_open' ? '-' : null, next: Number(t.attrGet('start') ?? 1), tight: false, items: 0 });
          break;
        case 'bullet_list_close':
        case 'ordered_list_close':
          lists.pop();
          break;
        case 'list_item_open': {
          const list = lists[lists.length - 1];
          marker = list.bullet ? `${list.bullet} ` : `${list.next++}. `;
          list.items++;
          itemStart = true;
          break;
        }
        case 'paragraph_open':
          // markdown-it hides the paragraphs of tight list items
          if (lists.length) lists[lists.length - 1].tight = t.hidden;
          break;
        case 'fence':
        case 'code_block':
          emit(t.content);
          break;
        case 'html_block':
          // a raw HTML block is read as an HTML page is: its headings, tables and furniture alike
          emit(htmlFragmentToText(t.content));
          break;
        case 'table_open':
          inTable = true;
          tableRows = [];
          break;
        case 'tr_close':
          tableRows.push(cells.join(' | '));
          cells = [];
          break;
        case 'table_close':
          inTable = false;
          emit(tableRows.join('\n\n'));
          break;
      }
    }
  };
}

/** Markdown: converted to text (headings as sections), then the form-feed / 3,000-character page rule. */
export function parseMarkdown(buf: Buffer): PageSource {
  return sectionedPages(markdownToText(decodeText(buf)));
}
