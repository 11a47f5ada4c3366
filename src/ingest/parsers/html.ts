import { convert, HtmlToTextOptions } from 'html-to-text';
import { paginate } from '../paginate';
import type { ParsedPage } from '../types';
import { decodeText } from './text';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
  selector,
  options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 },
}));

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
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

/** HTML to text with paragraphs separated by blank lines (used for HTML files and DOCX). */
export function htmlToText(html: string): string {
  return convert(html, OPTIONS);
}

/** HTML: converted to text with `html-to-text`, then the form-feed / 3,000-character page rule. */
export function parseHtml(buf: Buffer): ParsedPage[] {
  return paginate(htmlToText(decodeText(buf)));
}
