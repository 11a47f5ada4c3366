import type { EntityManager } from '@mikro-orm/postgresql';
import { kindOfMime, MIME_BY_KIND } from '../detect';
import type { SearchWing } from '../../search';
import { query } from '../../db/sql';
import type { ParserPool } from '../parsers/pool';
import { DocumentKind, IngestError, isDocumentKind, isImageKind, PageRun } from '../types';

/** Why a document that was read yields no chunk. */
function noTextReason(kind: DocumentKind, runs: PageRun[], ocr: boolean): string {
  if (runs.some((r) => r.method === 'ocr')) return 'no text found: OCR recognised no words on any page';
  if (kind === 'pdf' || isImageKind(kind))
    return ocr ? 'no text found: the pages are blank' : 'no extractable text (a scan or an image, and OCR is off: OCR=false)';
  return 'no extractable text';
}

/**
 * Bumped when the text analysis changes (chunking, language handling, contextual headers; 3: a
 * PDF's table of contents is left out; 4: headings found in PDFs by type size and in plain text by
 * underlines and numbering, a chapter's own running header, HTML page furniture and link lists, and
 * text tables of contents left out; 5: a PDF's back-of-book index without dot leaders left out,
 * HTML, DOCX and Markdown tables read row by row, HTML definition terms as headings, headings
 * indexed with the titles of the sections they lie in, texinfo's Info furniture, HTML menus and a
 * Word table of contents left out, Markdown's raw HTML read as HTML; 6: each chunk's locations in
 * the original, for citations that open the cited place): ready documents indexed with an older version are re-analysed by a
 * background job (see reanalysis.ts).
 */
export const ANALYSIS_VERSION = 6;

export const SUPPORTED =
  'PDF, Word (DOCX), OpenDocument (ODT, ODS, ODP), Excel (XLSX), PowerPoint (PPTX), CSV, TSV, EPUB, RTF, e-mail (EML, MBOX, MSG), images (PNG, JPEG, TIFF, WebP, GIF), Markdown, HTML or plain text';

/** Progress is written to the row (and announced) at most this often while pages are read. */
const PROGRESS_EVERY_MS = 200;

/** What indexing needs of the document row. */
export interface IngestRow {
  project_id: string;
  name: string;
  mime_type: string;
  /** The detected format (null for documents stored before formats were recorded: the mime type tells). */
  format: string | null;
  /** The original: a large object (null: stored before them, in `content`), and its size in bytes. */
  content_oid: number | null;
  size: number;
  language: string | null;
  language_stated: boolean;
}

export interface IndexDeps {
  parsers: ParserPool;
  /** The search wing, whose chunk index writer the parsed document is handed to. */
  search: Pick<SearchWing, 'writer'>;
  announce: (em: EntityManager, documentId: string) => Promise<void>;
}

/** The title a document is indexed under: its file name without extension, separators as spaces. */
function titleOf(name: string): string {
  return name
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[_.-]+/g, ' ')
    .trim();
}

/**
 * Reads the stored file and replaces the document's chunks and statistics in one transaction
 * (the old chunks stay searchable until it commits). The status is not touched here: finish()
 * sets it. `quiet` is the background re-analysis of a ready document: no progress, only the
 * index, the page/chunk counts and the language are renewed. Returns null when the document was
 * deleted meanwhile (or, quiet, is no longer ready).
 */
export async function indexDocument(
  deps: IndexDeps,
  em: EntityManager,
  documentId: string,
  doc: IngestRow,
  signal: AbortSignal,
  quiet: boolean,
): Promise<{ pages: number; chunks: number } | null> {
  const kind = (doc.format && isDocumentKind(doc.format) ? doc.format : null) ?? kindOfMime(doc.mime_type);
  if (!kind) throw new IngestError(`unsupported file type; upload ${SUPPORTED}`);
  if (!Number(doc.size)) throw new IngestError('the file is empty');
  let lastWrite = 0;
  // progress goes through `em` (its own pooled connection, committed at once), not the
  // transaction below, so watchers see it while the document is being read
  const onProgress = async (pagesDone: number, pagesTotal: number) => {
    const now = Date.now();
    if (quiet || (pagesDone < pagesTotal && now - lastWrite < PROGRESS_EVERY_MS)) return;
    lastWrite = now;
    await query(em, 'update documents set pages_done = ?, pages_total = ?, updated_at = now() where id = ?', [
      pagesDone,
      pagesTotal,
      documentId,
    ]);
    await deps.announce(em, documentId);
  };
  return em.transactional(async (tx) => {
    // the worker chunks and analyses (language first, unless stated); batches of rows are staged
    // on this transaction while later pages are still read
    let language: string | null = null;
    let config = '';
    const writer = deps.search.writer(tx);
    const read = await deps.parsers.parseAndIndex(
      kind,
      { documentId, oid: doc.content_oid === null ? null : Number(doc.content_oid), size: Number(doc.size) },
      { title: titleOf(doc.name), statedLanguage: doc.language_stated ? doc.language : null },
      {
        onProgress,
        signal,
        onAnalysis: async (detected) => {
          language = detected;
          config = await writer.configFor(detected);
        },
        onRows: (batch) => writer.stage(config, batch.json),
        // the parser knows better (an OLE2 file that is an Outlook message): the stored type follows it.
        // Through `em`, as progress is: on `tx` the row lock it takes would hold every later
        // progress write (on `em`) until this transaction commits, and the parse waits for those
        onFormat: async (found) => {
          await query(em, 'update documents set mime_type = ?, format = ? where id = ?', [MIME_BY_KIND[found], found, documentId]);
        },
      },
    );
    if (!read.chunks) throw new IngestError(noTextReason(kind, read.runs, deps.parsers.ocrEnabled));
    signal.throwIfAborted();
    // the swap: under the project's index lock, old chunks and statistics out, staged ones in
    await writer.lock(doc.project_id);
    // the row lock orders us after a concurrent delete; a deleted document gets no chunks
    const [alive] = await query<{ status: string }>(tx, 'select status from documents where id = ? for update', [documentId]);
    if (!alive || (quiet && alive.status !== 'ready')) return null;
    const chunkCount = await writer.replace(doc.project_id, documentId);
    await query(
      tx,
      `update documents set page_count = ?, chunk_count = ?, language = ?, analysis_version = ?, page_methods = ?::jsonb,
        format = coalesce(format, ?) where id = ?`,
      [read.pages, chunkCount, language, ANALYSIS_VERSION, JSON.stringify(read.runs), kind, documentId],
    );
    return { pages: read.pages, chunks: chunkCount };
  });
}
