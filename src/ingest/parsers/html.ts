import { convert, HtmlToTextOptions } from 'html-to-text';
import { Parser } from 'htmlparser2';
import { LimitError, ParseLimits } from '../limits';
import { HEADING_MARK, sectionedPages, stripMarks } from '../sections';
import type { PageSource } from '../types';
import { decodeText } from './text';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  format: 'sectionHeading',
  options: { leadingLineBreaks: 2, trailingLineBreaks: 2 },
}));

/**
 * Page furniture that is not the document's text: navigation, banners, forms, and the navigation
 * bars, sidebars and tables of contents of the common documentation generators (DocBook's
 * navheader/navfooter/toc, Sphinx's related bars, sidebar, footer and ¶ links, texinfo's node
 * headers). Indexed, it would match questions about the neighbouring pages it names.
 */
const BOILERPLATE = [
  '[role=navigation]',
  '[role=search]',
  '[role=banner]',
  '[role=contentinfo]',
  'form',
  'button',
  'noscript',
  'template',
  'svg',
  'div.navheader',
  'div.navfooter',
  'div.toc',
  'div.related',
  'div.sphinxsidebar',
  'div.footer',
  'a.headerlink',
  'div.nav-panel',
  'div.header',
].map((selector) => ({ selector, format: 'skip' }));

const WITH_FURNITURE: HtmlToTextOptions = {
  wordwrap: false,
  formatters: {
    // a heading is a block whose text starts with the heading mark (see paginateWithSections)
    sectionHeading: (elem, walk, builder, options) => {
      builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks ?? 2 });
      builder.addLiteral(HEADING_MARK);
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks ?? 2 });
    },
  },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'nav', format: 'skip' },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'p', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
    ...HEADINGS,
  ],
};

const OPTIONS: HtmlToTextOptions = { ...WITH_FURNITURE, selectors: [...BOILERPLATE, ...WITH_FURNITURE.selectors!] };

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
  const text = convert(html, OPTIONS);
  // a page whose every word sits in what looks like furniture is read whole rather than lost
  return /[\p{L}\p{N}]/u.test(text) ? text : convert(html, WITH_FURNITURE);
}

/** HTML: shape checked, converted to text with `html-to-text` (headings as sections), then the page rule. */
export function parseHtml(buf: Buffer, limits?: ParseLimits): PageSource {
  return sectionedPages(htmlToText(stripMarks(decodeText(buf)), limits));
}
