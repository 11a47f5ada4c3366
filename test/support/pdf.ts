/**
 * A tiny writer of real, valid PDF files (PDF 1.4, one Helvetica text stream per page), for
 * tests and benchmarks. Pages are given as arrays of paragraphs; lines are wrapped at a fixed
 * width and paragraphs separated by a blank line, so a text extractor sees real paragraphs.
 * No test framework imports here: bench/ingest.ts uses it too.
 */
export interface PdfPageSpec {
  /** Paragraphs of text; an empty array makes a page with no text layer (a "scanned" page). */
  paragraphs: string[];
  /** Draw a filled rectangle (an image stand-in) so text-less pages are not blank. */
  drawBox?: boolean;
  /** Content-stream operators appended as they are (hostile pages). */
  raw?: string;
}

const PAGE_W = 612;
const PAGE_H = 792;
const MARGIN = 56;
const FONT_SIZE = 11;
const LEADING = 14;
const CHARS_PER_LINE = 92;

/** Escapes a string for a PDF literal string; non-Latin-1 characters become '?'. */
function pdfString(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '(' || ch === ')' || ch === '\\') out += '\\' + ch;
    else if (code < 32) out += ' ';
    else if (code < 128) out += ch;
    else if (code < 256) out += '\\' + code.toString(8).padStart(3, '0');
    else out += '?';
  }
  return out;
}

function wrap(paragraph: string, width = CHARS_PER_LINE): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function contentStream(page: PdfPageSpec): string {
  const ops: string[] = [];
  if (page.drawBox) ops.push('0.6 0.6 0.6 rg', `${MARGIN} ${MARGIN} ${PAGE_W - 2 * MARGIN} ${PAGE_H - 2 * MARGIN} re f`);
  if (page.paragraphs.length) {
    ops.push('BT', `/F1 ${FONT_SIZE} Tf`, `${LEADING} TL`, `${MARGIN} ${PAGE_H - MARGIN} Td`);
    page.paragraphs.forEach((p, i) => {
      if (i > 0) ops.push('T*'); // the blank line between paragraphs
      for (const line of wrap(p)) ops.push(`(${pdfString(line)}) Tj`, 'T*');
    });
    ops.push('ET');
  }
  if (page.raw) ops.push(page.raw);
  return ops.join('\n');
}

/** Builds a PDF whose pages hold the given paragraphs; returns the file's bytes. */
export function makePdf(pages: PdfPageSpec[]): Buffer {
  // object numbers: 1 catalog, 2 pages, 3 font, then (page, content) pairs
  const objects: string[] = [];
  const kids: string[] = [];
  pages.forEach((page, i) => {
    const pageObj = 4 + i * 2;
    kids.push(`${pageObj} 0 R`);
    const stream = contentStream(page);
    objects[pageObj] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] ` +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${pageObj + 1} 0 R >>`;
    objects[pageObj + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let n = 1; n < objects.length; n++) {
    offsets[n] = Buffer.byteLength(body, 'latin1');
    body += `${n} 0 obj\n${objects[n]}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objects.length; n++) body += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
