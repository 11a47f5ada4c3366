import { pagesOf } from '../paginate';
import { dropContentsBlocks } from '../contents-pages';
import { headingMark, stripMarks, withSections } from '../sections';
import { IngestError, PageSource } from '../types';

/**
 * Decodes a text file: a UTF-8 or UTF-16 byte-order mark wins; otherwise strict UTF-8, falling back
 * to Windows-1252 (the usual encoding of legacy text files) when the bytes are not valid UTF-8.
 */
// eslint-disable-next-line no-control-regex -- control characters other than tab, newline, carriage return and form feed
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f]/;

/**
 * Whether decoded text is binary data: more than one character in a thousand is a control
 * character other than tab, newline, carriage return, form feed and the unit separator that starts
 * each node of an Info manual.
 */
export function looksBinary(sample: string): boolean {
  // eslint-disable-next-line no-control-regex -- counts control characters on purpose to detect binary content
  const controls = sample.match(/[\u0000-\u0008\u000e-\u001e]/g)?.length ?? 0;
  return controls > 0 && controls / Math.max(1, sample.length) > 0.001;
}

export function decodeText(buf: Buffer): string {
  let text: string;
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) text = new TextDecoder('utf-8').decode(buf.subarray(3));
  else if (buf[0] === 0xff && buf[1] === 0xfe) text = new TextDecoder('utf-16le').decode(buf.subarray(2));
  else if (buf[0] === 0xfe && buf[1] === 0xff) text = new TextDecoder('utf-16be').decode(buf.subarray(2));
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      text = new TextDecoder('windows-1252').decode(buf);
    }
  }
  if (looksBinary(text.slice(0, 65536))) throw new IngestError('the file is not readable text (binary content)');
  // no copy when there are none
  return CONTROL.test(text) ? text.replace(new RegExp(CONTROL.source, 'g'), '') : text;
}

/** A numbered section heading: `4.2. History`, `3.2.5 Pipelines`, `A.1 Options`, `Chapter 7. Hooks`. */
const NUMBERED_HEADING =
  /^(?:(?:\d{1,3}|[A-Z])(?:\.\d{1,3})+\.?|(?:Chapter|Appendix|Part)\s+(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])\.?:?)\s+[\p{L}\p{N}"'`<(]/u;
/** A line that underlines the one above it (`=====`, `-----`, `~~~~~`, box drawing). */
const UNDERLINE = /^([=\-~^*#+_.─━═])\1{2,}$/;
/**
 * A heading's level from its underline, outermost first: `*` (texinfo's chapters; or `#`, `═`,
 * `━`) 1, `=` 2, `-` (or `─`) 3, others (texinfo's `.`, `~`, `^`) 4. Only their order matters.
 */
const underlineLevel = (underline: string): number =>
  '*#═━'.includes(underline[0]) ? 1 : underline[0] === '=' ? 2 : '-─'.includes(underline[0]) ? 3 : 4;
/** A numbered heading's level: Chapter/Appendix/Part 1, `4.2.` 2, `3.2.5` 3. */
const numberedLevel = (line: string): number =>
  /^(?:Chapter|Appendix|Part)\b/.test(line) ? 1 : (line.split(/\s/)[0].match(/\d+|^[A-Z]/g)?.length ?? 0);
/** An AsciiDoc section title: `== Configuration` (its level the number of `=`). */
const ASCIIDOC_HEADING = /^(={1,6}) +[\p{L}\p{N}"'`(]/u;
/** Longer lines are prose, not headings. */
const HEADING_CHARS = 100;

/**
 * Plain-text headings, marked for withSections: a line underlined by a run of one character about
 * its length (reStructuredText, texinfo's Info and plain-text forms), a numbered heading (two
 * levels at least, or Chapter/Appendix/Part N) standing as a paragraph of its own, or an AsciiDoc
 * title (`== Name`) starting a paragraph. Man pages' section names are entry terms (see
 * paragraphs.ts).
 */
export function markTextHeadings(text: string): string {
  const lines = text.split('\n');
  let marked = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    // (a run of spaces is a man page's header or footer line, or a table, not a title)
    if (!line || line.length > HEADING_CHARS || !/\p{L}/u.test(line) || /\s{3}/.test(line)) continue;
    const next = (lines[i + 1] ?? '').trim();
    const underlined = UNDERLINE.test(next) && Math.abs(next.length - line.length) <= Math.max(3, line.length * 0.3);
    const alone = (i === 0 || !lines[i - 1].trim()) && (!next || underlined);
    const asciidoc = (i === 0 || !lines[i - 1].trim()) && ASCIIDOC_HEADING.exec(line);
    if (underlined || (alone && NUMBERED_HEADING.test(line) && !/[.,;:]$/.test(line.replace(/^\S+\s+/, '')))) {
      lines[i] = headingMark(underlined ? underlineLevel(next) : numberedLevel(line)) + lines[i];
      marked = true;
    } else if (asciidoc) {
      lines[i] = headingMark(asciidoc[1].length) + lines[i];
      marked = true;
    }
  }
  return marked ? lines.join('\n') : text;
}

/**
 * Plain text: decoded, paginated by the form-feed / 3,000-character rule (on the text as it is, so
 * pages do not move when heading rules change); then its tables of contents are emptied and its
 * headings become sections.
 */
export function parseText(buf: Buffer): PageSource {
  const text = stripMarks(decodeText(buf));
  return function* () {
    for (const page of pagesOf(text)) yield withSections({ ...page, text: markTextHeadings(dropContentsBlocks(page.text)) });
  };
}
