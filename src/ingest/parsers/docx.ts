import mammoth from 'mammoth';
import { ParseLimits } from '../limits';
import { sectionedPages, stripMarks } from '../sections';
import { IngestError, PageSource } from '../types';
import { htmlToText } from './html';
import { checkZip } from './zip-check';

/** Stand-in text for an explicit page break; it survives HTML conversion and becomes a form feed. */
const PAGE_BREAK = '\uE000';

interface MammothElement {
  type: string;
  breakType?: string;
  value?: string;
  children?: MammothElement[];
}

/** Replaces explicit page breaks (`<w:br w:type="page"/>`) with the stand-in text. */
function markPageBreaks(element: MammothElement): MammothElement {
  if (element.type === 'break' && element.breakType === 'page') return { type: 'text', value: PAGE_BREAK };
  if (element.children) element.children = element.children.map(markPageBreaks);
  return element;
}

/**
 * Styles read beyond mammoth's defaults (which map Word's headings to h1–h6): the document's title
 * is a heading, a definition list's terms and definitions are read as HTML's `dt` and `dd` (html.ts:
 * each term a heading of its definition), and a table of contents (Word's `toc 1`…, `TOC Heading`; LibreOffice's `Contents 1`…,
 * `Contents Heading`) is not read: it names the sections without holding them, and would be cited
 * instead of them.
 */
const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name^='toc '] => !",
  "p[style-name='TOC Heading'] => !",
  "p[style-name^='Contents '] => !",
  // a definition list (pandoc's Definition Term / Definition styles) reads as HTML's dl does
  "p[style-name='Definition Term'] => dt:fresh",
  "p[style-name='Definition'] => dd:fresh",
];

/**
 * DOCX via `mammoth` (to HTML, so headings, lists and tables keep their structure, then to text).
 * A .docx file has no fixed pages (layout happens when Word renders it): explicit page breaks
 * start a new page; without any, the 3,000-character rule applies (see paginate()). Headings
 * (Word's heading styles, which mammoth maps to h1–h6) become sections. With `limits`, the zip
 * is checked before mammoth expands it, and the HTML it produces before it is converted.
 */
export async function parseDocx(buf: Buffer, limits?: ParseLimits): Promise<PageSource> {
  if (limits) await checkZip(buf, limits);
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: buf }, { transformDocument: markPageBreaks, styleMap: STYLE_MAP });
    html = stripMarks(result.value);
  } catch (e) {
    throw new IngestError(`not a valid DOCX file (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  const text = htmlToText(html, limits);
  return sectionedPages(text.includes(PAGE_BREAK) ? text.split(PAGE_BREAK).join('\f') : text);
}
