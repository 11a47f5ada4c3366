import { analyseText, cjkVectorLiteral, detectLanguage } from '../search/analysis';
import { ChunkDraft, chunkPages, closesParagraphs } from './chunker';
import { LimitError } from './limits';
import { HeadingTrail } from './sections';
import type { ParsedPage } from './types';

/**
 * Everything of indexing that is not SQL, done in the parser pool's worker threads: chunking
 * (with the section headings carried across pages), language detection and the analysis of each
 * chunk's text and header (see analysis.ts). The server's event loop only receives finished,
 * bounded batches of rows as JSON text and hands them to PostgreSQL (stageRows in index-writer.ts).
 */

/** What the worker needs to index a document besides its bytes. */
export interface IndexTask {
  /** The document's title (file name without extension), indexed with every chunk. */
  title: string;
  /** The language the client stated (ISO 639-1); null: detected from the first pages. */
  statedLanguage: string | null;
}

/** A batch of index rows: a JSON array of StagedRow, at most ROWS_PER_BATCH rows or about BATCH_BYTES. */
export interface RowBatch {
  json: string;
  count: number;
}

/** One chunk as the staging statement reads it (short keys: it travels as JSON). */
export interface StagedRow {
  o: number;
  p: number;
  e: number;
  s: number[] | null;
  t: string;
  c: string;
  /** Where the chunk lies in the original (ChunkDraft.locations). */
  l: ChunkDraft['locations'] | null;
  /** Body: plain (non-CJK, identifiers expanded) text (null: the same as `t`), whether it is ASCII, CJK bigram vector literal. */
  x: string | null;
  a: boolean;
  k: string | null;
  /** Header (title and section), analysed the same way. */
  h: string;
  ha: boolean;
  hk: string | null;
}

const ROWS_PER_BATCH = 500;
const BATCH_BYTES = 1024 * 1024;
/** Pages chunked together (a run ends on a page that closes its paragraphs, see closesParagraphs). */
const BATCH_PAGES = 16;

// eslint-disable-next-line no-control-regex -- the ASCII range deliberately includes the control characters
const ASCII = /^[\x00-\x7f]*$/;

/** One text's analysis for the staging statement: plain text, whether it is ASCII, CJK bigrams. */
function analysed(text: string): { x: string; a: boolean; k: string | null } {
  const { plain, bigrams } = analyseText(text);
  return { x: plain, a: ASCII.test(plain), k: cjkVectorLiteral(bigrams) };
}

let lastHeader: { text: string; analysis: ReturnType<typeof analysed> } | null = null;

/** A chunk's row: its text and context, the analysed text, and its analysed contextual header. */
export function stagedRow(c: ChunkDraft, title: string | undefined): StagedRow {
  const header = [title, c.section].filter(Boolean).join('\n');
  // consecutive chunks mostly share their header (title and section): analysed once
  if (lastHeader?.text !== header) lastHeader = { text: header, analysis: analysed(header) };
  const head = lastHeader.analysis;
  const body = analysed(c.text);
  return {
    o: c.ordinal,
    p: c.pageNumber,
    e: c.pageEnd,
    s: c.pageStarts ?? null,
    t: c.text,
    c: c.context,
    l: c.locations ?? null,
    ...body,
    x: body.x === c.text ? null : body.x, // most chunks: no need to send the text twice
    h: head.x,
    ha: head.a,
    hk: head.k,
  };
}

/**
 * Takes pages in order and sends index rows as they are ready: pages are chunked in runs of at
 * least BATCH_PAGES that end on a page closing its paragraphs (which chunk exactly as the whole
 * document would), the language is decided once from the first run's text (unless stated) and
 * sent before any row, and rows go out in bounded batches.
 */
export class RowBuilder {
  private pending: ParsedPage[] = [];
  /** Each heading gets the titles of the sections it lies in (see HeadingTrail). */
  private readonly trail = new HeadingTrail();
  private nextOrdinal = 0;
  private section: string | undefined;
  private decided = false;
  private rows: string[] = [];
  private bytes = 0;
  /** Chunks produced so far. */
  chunkCount = 0;

  constructor(
    private readonly task: IndexTask,
    /** A document with more chunks than this fails (MAX_CHUNKS_PER_DOCUMENT). */
    private readonly maxChunks: number,
    private readonly send: (m: { type: 'analysis'; language: string | null } | ({ type: 'rows' } & RowBatch)) => void,
  ) {}

  push(page: ParsedPage): void {
    page = this.trail.apply(page);
    this.pending.push(page);
    if (this.pending.length >= BATCH_PAGES && closesParagraphs(page)) this.flush();
  }

  /** Chunks and sends whatever is left (call once, after the last page). */
  finish(): void {
    this.flush();
    this.sendRows();
  }

  private flush(): void {
    if (!this.pending.length) return;
    const pages = this.pending;
    this.pending = [];
    // the previous run's last heading still governs the top of this one
    if (this.section && !pages[0].sections?.some((s) => s.offset === 0))
      pages[0] = { ...pages[0], sections: [{ offset: 0, title: this.section }, ...(pages[0].sections ?? [])] };
    for (const p of pages) {
      const last = [...(p.sections ?? [])].sort((a, b) => a.offset - b.offset).pop();
      if (last) this.section = last.title;
    }
    const chunks = chunkPages(pages, {}, this.nextOrdinal);
    this.nextOrdinal += chunks.length;
    this.chunkCount += chunks.length;
    if (this.chunkCount > this.maxChunks)
      throw new LimitError(`the document has more than ${this.maxChunks} chunks (the limit of chunks per document)`);
    if (!chunks.length) return;
    if (!this.decided) {
      this.decided = true;
      const sample = chunks
        .map((c) => c.text)
        .join('\n\n')
        .slice(0, 8000);
      this.send({ type: 'analysis', language: this.task.statedLanguage ?? detectLanguage(sample) });
    }
    for (const c of chunks) {
      const json = JSON.stringify(stagedRow(c, this.task.title));
      this.rows.push(json);
      this.bytes += json.length;
      if (this.rows.length >= ROWS_PER_BATCH || this.bytes >= BATCH_BYTES) this.sendRows();
    }
  }

  private sendRows(): void {
    if (!this.rows.length) return;
    this.send({ type: 'rows', json: `[${this.rows.join(',')}]`, count: this.rows.length });
    this.rows = [];
    this.bytes = 0;
  }
}
