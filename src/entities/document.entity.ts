import { BigIntType, Entity, Enum, Index, ManyToOne, Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { CreatedEntity, TimestampedEntity } from './columns';
import { DOCUMENT_STATUSES, DocumentStatus } from './base';
import { Project } from './project.entity';
import { User } from './user.entity';

@Entity({ tableName: 'documents' })
// re-uploading identical content to the same project is reported, not duplicated
@Unique({ name: 'documents_project_sha256_unique', properties: ['project', 'sha256'] })
// a question reads its project's languages from this index, a few probes whatever the documents (search/analysis.ts projectLanguages)
@Index({ name: 'documents_project_language_index', properties: ['project', 'language'] })
export class Document extends TimestampedEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  mimeType!: string;

  /** The format detected from the content (a DocumentKind); null for a file no reader takes. */
  @Property({ type: 'text', nullable: true })
  format?: string | null;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ type: 'text' })
  sha256!: string;

  @Enum({ items: () => DOCUMENT_STATUSES as unknown as string[], type: 'text' })
  status: DocumentStatus & Opt = 'queued';

  @Property({ type: 'integer' })
  pagesDone: number & Opt = 0;

  @Property({ type: 'integer' })
  pagesTotal: number & Opt = 0;

  @Property({ type: 'integer' })
  pageCount: number & Opt = 0;

  @Property({ type: 'integer' })
  chunkCount: number & Opt = 0;

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'integer' })
  attempts: number & Opt = 0;

  /** ISO 639-1 code: stated on upload, else detected at ingestion; null while unknown. */
  @Property({ type: 'text', nullable: true })
  language?: string | null;

  /** True when the client stated the language (re-analysis then keeps it instead of re-detecting). */
  @Property({ type: 'boolean' })
  languageStated: boolean & Opt = false;

  /**
   * Which version of the text analysis (chunking, language, CJK bigrams, contextual headers) the
   * document's chunks were indexed with; older ones are re-analysed in the background.
   */
  @Property({ type: 'integer' })
  analysisVersion: number & Opt = 0;

  /**
   * How the pages' text was obtained, as runs (see PageRun): the file's own text, or OCR with its
   * mean word confidence. Null until the document is read.
   */
  @Property({ type: 'json', nullable: true })
  pageMethods?: Array<{ from: number; to: number; method: 'text' | 'ocr'; confidence: number | null }> | null;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  uploadedBy?: User | null;

  /**
   * The original file as a PostgreSQL large object (see docs/decisions/0008): written from the
   * upload in slices inside the upload's transaction, read back in slices by the parser thread,
   * unlinked with the document. Null only for documents stored before it existed (`content`).
   */
  @Property({ columnType: 'oid', type: 'number', nullable: true })
  contentOid?: number | null;

  /** The original of documents uploaded before large objects (read in slices); new documents leave it null. */
  @Property({ type: 'blob', lazy: true, nullable: true })
  content?: Buffer | null;

  /** Embedding progress, filled in by the service that reads the document (never stored here). */
  @Property({ persist: false })
  embeddings?: DocumentEmbeddings | null;
}

/** How many of a document's chunks have a vector of the project's current embedding model. */
export interface DocumentEmbeddings {
  model: string;
  chunksEmbedded: number;
  chunksTotal: number;
}

@Entity({ tableName: 'chunks' })
@Index({ name: 'chunks_document_ordinal_idx', properties: ['document', 'ordinal'] })
@Index({ name: 'chunks_project_idx', properties: ['project'] })
@Index({ name: 'chunks_tsv_gin', expression: 'create index "chunks_tsv_gin" on "chunks" using gin ("tsv")' })
export class Chunk extends CreatedEntity {
  @ManyToOne(() => Document, { deleteRule: 'cascade' })
  document!: Document;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @Property({ type: 'integer' })
  ordinal!: number;

  /** Page the chunk starts on (1-based). */
  @Property({ type: 'integer' })
  pageNumber!: number;

  /** Page the chunk ends on; differs from pageNumber only when a chunk crosses a page break. */
  @Property({ type: 'integer' })
  pageEnd!: number;

  @Property({ type: 'text' })
  text!: string;

  /**
   * For a chunk that crosses page breaks: where each later page starts in `text` (character
   * offsets, for pageNumber + 1, + 2, …), so a citation can name the page of the matching text.
   */
  @Property({ columnType: 'int[]', type: 'unknown', nullable: true })
  pageStarts?: number[];

  /** The surrounding paragraph, for the citation source view. */
  @Property({ type: 'text' })
  context!: string;

  /**
   * Where the chunk lies in the original, page by page (ChunkLocation: characters of the page's
   * converted text, and boxes on PDF and OCR pages); null for chunks indexed before they were recorded.
   */
  @Property({ type: 'json', columnType: 'jsonb', nullable: true, lazy: true })
  locations?: unknown;

  /** Number of indexed terms (BM25 document length). */
  @Property({ type: 'integer' })
  termCount: number & Opt = 0;

  @Property({ columnType: 'tsvector', type: 'unknown', lazy: true, nullable: true })
  tsv?: unknown;
}

/** Per-project document frequency of each indexed term (BM25 idf), kept current at ingest and delete. */
@Entity({ tableName: 'term_stats' })
export class TermStat {
  @PrimaryKey({ type: 'uuid' })
  projectId!: string;

  @PrimaryKey({ type: 'text' })
  term!: string;

  @Property({ type: 'integer' })
  df!: number;
}

/**
 * BM25 postings: for one document and one indexed term, the document's chunks containing it, with
 * the term's header-weighted frequency in each (BM25F, see HEADER_WEIGHT) and each chunk's length
 * (term_count), in parallel arrays. Ranking scores from these without reading any chunk's vector
 * (rankBm25). One row per (document, term) rather than per (chunk, term): 3.5 times fewer rows at
 * 100k synthetic chunks (decision 4); a row lists POSTINGS_PART chunks at most (`part` numbers
 * the slices). Questions read them from term_postings_cover alone (an index-only scan), where a
 * term's rows lie together: the table holds them in the order documents were written, one page
 * each, scattered over gigabytes at a million chunks. Written with the chunks (commitStagedChunks),
 * removed with them (removeDocumentChunks) and with their document.
 */
@Entity({ tableName: 'term_postings' })
@Index({ name: 'term_postings_document_idx', properties: ['document'] })
@Index({
  name: 'term_postings_cover',
  expression:
    'create unique index "term_postings_cover" on "term_postings" ("project_id", "term", "document_id", "part") include ("chunk_ids", "tfs", "lens")',
})
export class TermPosting {
  @PrimaryKey({ type: 'uuid' })
  projectId!: string;

  @PrimaryKey({ type: 'text' })
  term!: string;

  @ManyToOne(() => Document, { primary: true, deleteRule: 'cascade' })
  document!: Document;

  /** Which slice of the document's chunks containing the term (POSTINGS_PART chunks a row at most). */
  @PrimaryKey({ type: 'smallint', default: 0 })
  part!: number;

  @Property({ columnType: 'uuid[]', type: 'unknown' })
  chunkIds!: string[];

  /** Header-weighted term frequency in each chunk. */
  @Property({ columnType: 'real[]', type: 'unknown' })
  tfs!: number[];

  /** Each chunk's term_count (BM25 document length). */
  @Property({ columnType: 'int[]', type: 'unknown' })
  lens!: number[];
}

/** Per-project chunk count and total term count (BM25 average length). */
@Entity({ tableName: 'project_index_stats' })
export class ProjectIndexStats {
  @PrimaryKey({ type: 'uuid' })
  projectId!: string;

  @Property({ type: 'integer' })
  chunkCount: number & Opt = 0;

  @Property({ type: new BigIntType('number') })
  totalTerms: number & Opt = 0;
}
