import path from 'node:path';
import { looksBinary } from './parsers/text';
import type { DocumentKind } from './types';

/** The mime type recorded for each format we read. */
export const MIME_BY_KIND: Record<DocumentKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  markdown: 'text/markdown',
  text: 'text/plain',
  html: 'text/html',
};

const KIND_BY_EXTENSION: Record<string, DocumentKind> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.log': 'text',
  '.csv': 'text',
  '.json': 'text',
  // manuals' plain-text sources and forms: texinfo's Info, reStructuredText, AsciiDoc
  '.info': 'text',
  '.rst': 'text',
  '.adoc': 'text',
  '.asciidoc': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
};

/** The file name extensions read (the web app's file picker offers these). */
export const KNOWN_EXTENSIONS = Object.keys(KIND_BY_EXTENSION);

const KIND_BY_MIME: Record<string, DocumentKind> = {
  'application/pdf': 'pdf',
  [MIME_BY_KIND.docx]: 'docx',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/csv': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

/** A format the first bytes prove: PDF and zip (DOCX) signatures, an HTML document's start. */
function sniff(head: Buffer): DocumentKind | null {
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'docx';
  const start = head.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
  return null;
}

/** Whether the first bytes read as text: UTF-8 (a character cut at the end aside), no NUL, not binary (looksBinary). */
function looksLikeText(head: Buffer): boolean {
  if (!head.length || head.includes(0)) return false;
  try {
    return !looksBinary(new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true }));
  } catch {
    return false;
  }
}

/** Declared types that say nothing about the content: then text-looking bytes are read as text. */
const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

/**
 * Decides how to read an upload: the file name's extension first (browsers and curl often send
 * `application/octet-stream`), then the declared mime type, then the first bytes — except that
 * bytes proving a binary format (a PDF or zip signature) win over a name that says otherwise, and
 * a .pdf/.docx whose bytes are an HTML page is read as HTML: an extension that lies is not
 * followed into the wrong parser. A file that neither name nor type places, with no type or a text
 * one, is plain text when its first bytes read as text. Null means unsupported; the document then fails with a
 * readable error rather than being refused, so one bad file in a multi-file upload does not
 * reject the others.
 */
export function detectKind(name: string, declaredMime: string | undefined, head: Buffer): DocumentKind | null {
  const sniffed = sniff(head);
  if (sniffed === 'pdf' || sniffed === 'docx') return sniffed;
  const byExt = KIND_BY_EXTENSION[path.extname(name).toLowerCase()];
  if (byExt) return (byExt === 'pdf' || byExt === 'docx') && sniffed ? sniffed : byExt;
  const mime = (declaredMime ?? '').split(';')[0].trim().toLowerCase();
  if (KIND_BY_MIME[mime]) return KIND_BY_MIME[mime];
  // a README, a man page's source (`sshd_config.5`), an unknown extension: plain text if it reads as text
  if (!sniffed && (UNTYPED.has(mime) || mime.startsWith('text/')) && looksLikeText(head)) return 'text';
  return sniffed;
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
