import path from 'node:path';
import { looksBinary } from './parsers/text';
import { sniffContainer, type ContainerSource, type Detection } from './detect-container';
import type { DocumentKind } from './types';

/** The mime type recorded for each format we read (the document's `mimeType`; reindex reads it back). */
export const MIME_BY_KIND: Record<DocumentKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  markdown: 'text/markdown',
  text: 'text/plain',
  html: 'text/html',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odp: 'application/vnd.oasis.opendocument.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  epub: 'application/epub+zip',
  rtf: 'application/rtf',
  eml: 'message/rfc822',
  mbox: 'application/mbox',
  msg: 'application/vnd.ms-outlook',
  ole2: 'application/x-ole-storage',
  png: 'image/png',
  jpeg: 'image/jpeg',
  tiff: 'image/tiff',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** What a file name's extension suggests (a hint: the content decides where it can). */
const KIND_BY_EXTENSION: Record<string, DocumentKind> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.log': 'text',
  '.json': 'text',
  // manuals' plain-text sources and forms: texinfo's Info, reStructuredText, AsciiDoc
  '.info': 'text',
  '.rst': 'text',
  '.adoc': 'text',
  '.asciidoc': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.xlsx': 'xlsx',
  '.ods': 'ods',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.pptx': 'pptx',
  '.odp': 'odp',
  '.odt': 'odt',
  '.epub': 'epub',
  '.rtf': 'rtf',
  '.eml': 'eml',
  '.mbox': 'mbox',
  '.msg': 'msg',
  // Office 97–2003 compound files: read when they are Outlook messages, otherwise refused with what to do
  '.doc': 'ole2',
  '.xls': 'ole2',
  '.ppt': 'ole2',
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.tif': 'tiff',
  '.tiff': 'tiff',
  '.webp': 'webp',
  '.gif': 'gif',
};

/** The file name extensions read (the web app's file picker offers these). */
export const KNOWN_EXTENSIONS = Object.keys(KIND_BY_EXTENSION);

/** Declared types we read, beyond MIME_BY_KIND's own (browsers send several names for some formats). */
const KIND_BY_MIME: Record<string, DocumentKind> = {
  ...(Object.fromEntries(Object.entries(MIME_BY_KIND).map(([kind, mime]) => [mime, kind])) as Record<string, DocumentKind>),
  'text/x-markdown': 'markdown',
  'application/xhtml+xml': 'html',
  'text/rtf': 'rtf',
  'application/x-rtf': 'rtf',
  'application/mbox': 'mbox',
  'application/x-mbox': 'mbox',
  'image/jpg': 'jpeg',
  'image/pjpeg': 'jpeg',
  'image/tif': 'tiff',
  'application/vnd.ms-outlook': 'msg',
};

/** Formats whose files are plain text: an extension or type may choose among them, the content cannot. */
const TEXT_KINDS = new Set<DocumentKind>(['markdown', 'text', 'html', 'csv', 'tsv', 'eml', 'mbox']);

/** A format's name as a person knows it, for messages. */
const FORMAT_NAMES: Partial<Record<DocumentKind, string>> = {
  pdf: 'PDF',
  docx: 'Word (DOCX)',
  xlsx: 'Excel (XLSX)',
  pptx: 'PowerPoint (PPTX)',
  odt: 'OpenDocument text (ODT)',
  ods: 'OpenDocument spreadsheet (ODS)',
  odp: 'OpenDocument presentation (ODP)',
  epub: 'EPUB',
  rtf: 'RTF',
  msg: 'Outlook message (MSG)',
  ole2: 'Office 97–2003 or Outlook',
  png: 'PNG',
  jpeg: 'JPEG',
  tiff: 'TIFF',
  webp: 'WebP',
  gif: 'GIF',
};

/** Signatures that prove a format from the first bytes. */
function sniffSignature(head: Buffer): DocumentKind | 'zip' | null {
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  if (ascii(0, 5) === '%PDF-') return 'pdf';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return 'ole2';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return 'tiff';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(0, 5) === '{\\rtf') return 'rtf';
  return null;
}

/** Header names that open an e-mail message (RFC 5322 and the transport headers before them). */
const MAIL_HEADERS =
  /^(from|to|cc|subject|date|message-id|mime-version|received|return-path|delivered-to|content-type|reply-to|x-[\w-]+):/i;

/**
 * A text file's format from its first lines: an HTML document's start, an MBOX's `From ` line, or
 * a message's header block (at least three known headers, From among them, before the first
 * blank line).
 */
function sniffText(head: Buffer): DocumentKind | null {
  const start = head
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const lower = start.trimStart().toLowerCase();
  if (lower.startsWith('<!doctype html') || lower.startsWith('<html')) return 'html';
  if (/^From \S+ +\S.*\d{4}\s*\r?\n[\w-]+:/.test(start)) return 'mbox';
  const headerBlock = start.split(/\r?\n\r?\n/)[0].split(/\r?\n/);
  const known = headerBlock.filter((line) => MAIL_HEADERS.test(line));
  if (known.length >= 3 && known.some((l) => /^from:/i.test(l)) && headerBlock.every((l) => /^([\w-]+:|[ \t])/.test(l))) return 'eml';
  return null;
}

/** Whether the first bytes read as text: UTF-8 (a character cut at the end aside), no NUL, not binary (looksBinary). */
function looksLikeText(head: Buffer): boolean {
  if (!head.length || head.includes(0)) return false;
  try {
    return !looksBinary(new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true }));
  } catch {
    // a legacy 8-bit text (Windows-1252) is text too, when it holds no control characters
    return !looksBinary(head.toString('latin1'));
  }
}

export type { Detection } from './detect-container';

/** The reason given for a file no rule places. */
export const UNSUPPORTED = 'unsupported file type';

/**
 * Decides how to read an upload from its content; the name's extension and the declared type are
 * hints only, used where the content cannot decide (among the text formats):
 * 1. a signature decides: PDF, images, RTF, an OLE2 compound file; a zip by what it holds
 *    (`[Content_Types].xml`'s main part: DOCX, XLSX, PPTX; the `mimetype` entry: ODT, ODS, ODP,
 *    EPUB) — a zip that is none of them is refused as an archive;
 * 2. a text file: the extension or type when they name a text format (CSV, TSV, Markdown, HTML,
 *    mail, plain text), else an HTML start, an MBOX `From ` line or a message's headers, else
 *    plain text;
 * 3. a name or type that claims a binary format the bytes do not have is not followed into that
 *    format's reader: the error never names a format the file is not.
 */
export async function detectFormat(
  name: string,
  declaredMime: string | undefined,
  head: Buffer,
  container: ContainerSource,
): Promise<Detection> {
  const byExt = KIND_BY_EXTENSION[path.extname(name).toLowerCase()];
  const mime = (declaredMime ?? '').split(';')[0].trim().toLowerCase();
  const byMime = KIND_BY_MIME[mime];
  const signature = sniffSignature(head);
  if (signature === 'zip') return sniffContainer(container);
  if (signature) return { kind: signature };
  const hint = byExt ?? byMime;
  // a text format's reader judges its bytes itself (legacy encodings; "not readable text" otherwise)
  if (hint && TEXT_KINDS.has(hint)) return { kind: hint };
  if (!looksLikeText(head)) {
    if (hint) return { kind: null, reason: `the file is not a ${FORMAT_NAMES[hint] ?? hint} file: its content does not start as one does` };
    return { kind: null, reason: UNSUPPORTED };
  }
  const sniffed = sniffText(head);
  if (sniffed) return { kind: sniffed };
  // a README, a man page's source (`sshd_config.5`), a .pdf that is really text: plain text
  return { kind: 'text' };
}

/** The mime type stored for a document: ours for known formats, the client's otherwise. */
export function mimeTypeFor(kind: DocumentKind | null, declaredMime: string | undefined): string {
  if (kind) return MIME_BY_KIND[kind];
  const mime = (declaredMime ?? '').split(';')[0].trim().toLowerCase();
  return /^[\w.+-]+\/[\w.+-]+$/.test(mime) ? mime : 'application/octet-stream';
}

/** Maps a stored mime type back to the reader (reindex reads the stored file again). */
export function kindOfMime(mime: string): DocumentKind | null {
  return KIND_BY_MIME[mime] ?? null;
}
