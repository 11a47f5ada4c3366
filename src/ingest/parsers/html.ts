import { compile, HtmlToTextOptions } from 'html-to-text';
import { Parser } from 'htmlparser2';
import { LimitError, ParseLimits } from '../limits';
import { headingMark, sectionedPages, stripMarks } from '../sections';
import type { PageSource } from '../types';
import { decodeText } from './text';
import { BOILERPLATE, HtmlNode, isLinkDense, isLinkList, isMenuBar, siblingElement } from './html-furniture';
import { isLayoutTable, oneLine, tableRows } from './html-tables';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  format: 'sectionHeading',
  options: { leadingLineBreaks: 2, trailingLineBreaks: 2 },
}));

/** An ordered list's item number as its `type` writes it (1, a, A, i, I), as html-to-text does. */
function itemNumber(n: number, type: string | undefined): string {
  if (type === 'a' || type === 'A') {
    let out = '';
    for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) out = String.fromCharCode(((k - 1) % 26) + 97) + out;
    return type === 'A' ? out.toUpperCase() : out;
  }
  if (type === 'i' || type === 'I') {
    const digits: Array<[number, string]> = [
      [1000, 'M'],
      [900, 'CM'],
      [500, 'D'],
      [400, 'CD'],
      [100, 'C'],
      [90, 'XC'],
      [50, 'L'],
      [40, 'XL'],
      [10, 'X'],
      [9, 'IX'],
      [5, 'V'],
      [4, 'IV'],
      [1, 'I'],
    ];
    let out = '';
    let k = n;
    for (const [v, r] of digits) for (; k >= v; k -= v) out += r;
    return type === 'i' ? out.toLowerCase() : out;
  }
  return String(n);
}

/** Whether the conversion under way has passed the page's first heading (a conversion is synchronous: one at a time). */
let pastFirstHeading = false;

/** The level of a definition list's term as a heading: under every h1–h6. */
const DEFINITION_TERM_LEVEL = 7;

const FORMATTERS: HtmlToTextOptions['formatters'] = {
  // A table is read row by row, as Markdown tables are (markdown.ts): each row one paragraph of
  // its cells joined by " | ". (html-to-text's grid wraps a long cell onto several lines with the
  // other columns' text between them, so its sentences and phrases were cut apart.)
  rowTable: (elem, walk, builder, options) => {
    const rows = tableRows(elem);
    if (isLayoutTable(rows)) {
      builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks ?? 2 });
      for (const tr of rows) walk((tr.children ?? []) as never, builder);
      builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks ?? 2 });
      return;
    }
    builder.openTable();
    for (const tr of rows) {
      builder.openTableRow();
      for (const cell of tr.children ?? []) {
        if (cell.name !== 'td' && cell.name !== 'th') continue;
        builder.openTableCell();
        walk((cell.children ?? []) as never, builder);
        builder.closeTableCell();
      }
      builder.closeTableRow();
    }
    builder.closeTable({
      tableToString: (rows) =>
        rows
          .map((cells) =>
            cells
              .map((c) => oneLine(c.text))
              .filter(Boolean)
              .join(' | '),
          )
          .filter(Boolean)
          .join('\n\n'),
      leadingLineBreaks: options.leadingLineBreaks ?? 2,
      trailingLineBreaks: options.trailingLineBreaks ?? 2,
    });
  },
  // a list made only of links (a site's menu, a page's table of contents) is skipped; any other
  // list is laid out as html-to-text's own list formatters lay it out
  list: (elem, walk, builder, options) => {
    const node = elem as unknown as HtmlNode & { parent?: HtmlNode; attribs?: Record<string, string> };
    if (options.skipLinkLists && isLinkList(node)) return;
    const nested = node.parent?.name === 'li';
    let n = Number(node.attribs?.start ?? '1');
    const prefix = (): string => (node.name === 'ol' ? ` ${itemNumber(n++, node.attribs?.type)}. ` : ' * ');
    const items = (node.children ?? []).filter((c) => c.type !== 'text' || /\S/.test(c.data ?? ''));
    if (!items.length) return;
    const prefixes = items.map((c) => (c.name === 'li' ? (nested ? prefix().trimStart() : prefix()) : ''));
    builder.openList({
      interRowLineBreaks: 1,
      leadingLineBreaks: nested ? 1 : (options.leadingLineBreaks ?? 2),
      maxPrefixLength: Math.max(0, ...prefixes.map((p) => p.length)),
      prefixAlign: 'left',
    });
    items.forEach((c, i) => {
      builder.openListItem({ prefix: prefixes[i] });
      walk([c as never], builder);
      builder.closeListItem();
    });
    builder.closeList({ trailingLineBreaks: nested ? 1 : (options.trailingLineBreaks ?? 2) });
  },
  // A definition list's term is the heading its description is indexed under, below any h1–h6
  // (DocBook's option lists, Sphinx's function signatures and options are `dl`s), as a man
  // page's option is (an entry, paragraphs.ts); the description starts on the next line.
  definitionTerm: (elem, walk, builder) => {
    const node = elem as unknown as HtmlNode;
    // terms in a row share one description (`-t number`, `--tries=number`): one heading, in the first
    if (siblingElement(node, 'prev')?.name === 'dt') return;
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(headingMark(DEFINITION_TERM_LEVEL));
    walk(elem.children, builder);
    for (let n = siblingElement(node, 'next'); n?.name === 'dt'; n = siblingElement(n, 'next')) {
      builder.addInline(', ');
      walk((n.children ?? []) as never, builder);
    }
    builder.closeBlock({ trailingLineBreaks: 1 });
  },
  definitionDescription: (elem, walk, builder) => {
    const children = (elem.children ?? []) as unknown as HtmlNode[];
    const first = children.findIndex((c) => c.type !== 'text' || /\S/.test(c.data ?? ''));
    builder.openBlock({ leadingLineBreaks: 1 });
    if (first >= 0 && children[first].name === 'p') {
      // its first paragraph follows the term on the next line; the rest are paragraphs as usual
      walk((children[first].children ?? []) as never, builder);
      walk(children.slice(first + 1) as never, builder);
    } else walk(children as never, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  },
  // a block: skipped when it is a menu (see isLinkDense, isMenuBar)
  leadBlock: (elem, walk, builder, options) => {
    const node = elem as unknown as HtmlNode;
    if (options.skipLeadingMenus && ((!pastFirstHeading && isLinkDense(node)) || isMenuBar(node))) return;
    builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks ?? 1 });
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks ?? 1 });
  },
  // a heading is a block whose text starts with the heading mark (see withSections)
  sectionHeading: (elem, walk, builder, options) => {
    pastFirstHeading = true;
    builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks ?? 2 });
    builder.addLiteral(headingMark(Number((elem as unknown as HtmlNode).name?.slice(1)) || 0));
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks ?? 2 });
  },
};

/**
 * What a conversion does with each element. Without `furniture`, page furniture is skipped as well
 * (BOILERPLATE, link lists, menus: html-furniture.ts).
 */
const selectors = (furniture: boolean): NonNullable<HtmlToTextOptions['selectors']> => [
  ...(furniture ? [] : BOILERPLATE),
  { selector: 'a', options: { ignoreHref: true } },
  { selector: 'img', format: 'skip' },
  { selector: 'script', format: 'skip' },
  { selector: 'style', format: 'skip' },
  { selector: 'nav', format: 'skip' },
  { selector: 'table', format: 'rowTable' },
  { selector: 'td', format: 'block' },
  { selector: 'dt', format: 'definitionTerm' },
  { selector: 'dd', format: 'definitionDescription' },
  { selector: 'th', format: 'block' },
  { selector: 'p', format: 'leadBlock', options: { leadingLineBreaks: 2, trailingLineBreaks: 2, skipLeadingMenus: !furniture } },
  { selector: 'div', format: 'leadBlock', options: { leadingLineBreaks: 1, trailingLineBreaks: 1, skipLeadingMenus: !furniture } },
  { selector: 'ul', format: 'list', options: { skipLinkLists: !furniture } },
  { selector: 'ol', format: 'list', options: { skipLinkLists: !furniture } },
  ...HEADINGS,
];

/** The two conversions, compiled once (html-to-text's convert() compiles its options on every call). */
const toText = compile({ wordwrap: false, formatters: FORMATTERS, selectors: selectors(false) });
const toTextWithFurniture = compile({ wordwrap: false, formatters: FORMATTERS, selectors: selectors(true) });

/**
 * Counts the nodes and nesting depth of an HTML document with a streaming tokenizer (nothing is
 * built), and stops at the first limit exceeded, before html-to-text builds a tree of it.
 */
export function checkHtmlShape(html: string, limits: Pick<ParseLimits, 'htmlMaxNodes' | 'htmlMaxDepth'>): void {
  let nodes = 0;
  let depth = 0;
  const parser = new Parser(
    {
      onopentag: () => {
        if (++nodes > limits.htmlMaxNodes) throw new LimitError(`the HTML has more than ${limits.htmlMaxNodes} elements`);
        if (++depth > limits.htmlMaxDepth) throw new LimitError(`the HTML nests deeper than ${limits.htmlMaxDepth} levels`);
      },
      onclosetag: () => void depth--,
      ontext: () => {
        if (++nodes > limits.htmlMaxNodes) throw new LimitError(`the HTML has more than ${limits.htmlMaxNodes} elements`);
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
}

/** HTML to text with paragraphs separated by blank lines and heading marks (used for HTML files and DOCX). */
export function htmlToText(html: string, limits?: Pick<ParseLimits, 'htmlMaxNodes' | 'htmlMaxDepth'>): string {
  if (limits) checkHtmlShape(html, limits);
  pastFirstHeading = false;
  const text = toText(html);
  // a page whose every word sits in what looks like furniture is read whole rather than lost
  return /[\p{L}\p{N}]/u.test(text) ? text : toTextWithFurniture(html);
}

/**
 * A fragment of HTML inside another document (a Markdown file's raw HTML block), read with the same
 * rules as a page: headings, tables, lists and furniture alike. A fragment that is all furniture
 * (a README's badge row or link menu) gives no text.
 */
export function htmlFragmentToText(html: string): string {
  pastFirstHeading = true; // inside a document: only menu bars and link lists are furniture
  return toText(html).trim();
}

/** HTML: shape checked, converted to text with `html-to-text` (headings as sections), then the page rule. */
export function parseHtml(buf: Buffer, limits?: ParseLimits): PageSource {
  return sectionedPages(htmlToText(stripMarks(decodeText(buf)), limits));
}
