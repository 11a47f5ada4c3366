import type { Document } from '../entities';
import type { PageRun } from '../ingest/types';
import type { DocumentProgress } from '../ingest/progress';
import type { ChunkSourceDto, DocumentDto, DocumentTextDto, UploadResultDto } from './dto.generated';

/** One file of an upload: the document, and whether identical content already existed in the project. */
export interface UploadResult {
  document: Document;
  duplicate: boolean;
}

/** GET /chat/chunks/:chunkId/source. */
export interface ChunkSource {
  documentId: string;
  documentName: string;
  pageNumber: number;
  chunkId: string;
  snippet: string;
  context: string;
  /** Where the chunk lies in the original (see ChunkLocation); null before the document was analysed for it. */
  locations: ChunkLocation[] | null;
}

/** Where a chunk lies on one page: characters [start, end) of the page's converted text, and the boxes it is drawn in. */
export interface ChunkLocation {
  page: number;
  start: number;
  end: number;
  /** The part of the chunk's text on this page. */
  text: string;
  boxes?: Array<{ x: number; y: number; w: number; h: number }>;
}

/** A document as every transport shows it (the stored file itself never goes on the wire). */
export function presentDocument(d: Document): DocumentDto {
  return {
    id: d.id,
    projectId: d.project.id,
    name: d.name,
    mimeType: d.mimeType,
    size: d.size,
    sha256: d.sha256,
    status: d.status,
    progress: { pagesDone: d.pagesDone, pagesTotal: d.pagesTotal },
    pageCount: d.pageCount,
    chunkCount: d.chunkCount,
    /** Chunks with a vector of the project's current embedding model; null without an embedding source. */
    embeddings: d.embeddings
      ? { model: d.embeddings.model, chunksEmbedded: d.embeddings.chunksEmbedded, chunksTotal: d.embeddings.chunksTotal }
      : null,
    error: d.error ?? null,
    language: d.language ?? null,
    format: d.format ?? null,
    extraction: d.pageMethods ? presentExtraction(d.pageMethods) : null,
    uploadedBy: d.uploadedBy ? d.uploadedBy.id : null,
    createdAt: new Date(d.createdAt).toISOString(),
    updatedAt: new Date(d.updatedAt).toISOString(),
    originalUrl: `/api/documents/${d.id}/original`,
  };
}

/** How a document's pages were read: the method overall, the OCR pages and their mean confidence, the runs. */
function presentExtraction(runs: PageRun[]): NonNullable<DocumentDto['extraction']> {
  let ocrPages = 0;
  let textPages = 0;
  let confidence = 0;
  for (const r of runs) {
    const n = r.to - r.from + 1;
    if (r.method === 'ocr') {
      ocrPages += n;
      confidence += (r.confidence ?? 0) * n;
    } else textPages += n;
  }
  return {
    method: ocrPages && textPages ? 'mixed' : ocrPages ? 'ocr' : 'text',
    ocrPages,
    ocrConfidence: ocrPages ? Math.round((confidence / ocrPages) * 10) / 10 : null,
    pages: runs.map((r) => ({ from: r.from, to: r.to, method: r.method, confidence: r.confidence })),
  };
}

/** One entry of an upload's answer: the document, and whether it already existed in the project. */
export function presentUploadResult(r: UploadResult): UploadResultDto {
  return { ...presentDocument(r.document), duplicate: r.duplicate };
}

/** GET /chat/chunks/:chunkId/source: the spec's fields, and `locations` (issue 35). */
export function presentChunkSource(s: ChunkSource): ChunkSourceDto {
  return {
    documentId: s.documentId,
    documentName: s.documentName,
    pageNumber: s.pageNumber,
    chunkId: s.chunkId,
    snippet: s.snippet,
    context: s.context,
    locations: s.locations,
  };
}

/** One page of a document's converted text: its headings start at character `offset` of `text`. */
export interface TextPage {
  pageNumber: number;
  text: string;
  sections: Array<{ offset: number; title: string; level: number | null }>;
}

/** GET /documents/:id/text: pages `from` … of the converted text, within 200,000 characters. */
export interface DocumentText {
  documentId: string;
  documentName: string;
  pageCount: number;
  pages: TextPage[];
  /** The first page not in this answer (ask again with `from` set to it); null at the end. */
  nextPage: number | null;
}

/** GET /documents/:id/text. */
export function presentDocumentText(t: DocumentText): DocumentTextDto {
  return {
    documentId: t.documentId,
    documentName: t.documentName,
    pageCount: t.pageCount,
    pages: t.pages.map((p) => ({ pageNumber: p.pageNumber, text: p.text, sections: p.sections })),
    nextPage: t.nextPage,
  };
}

/** A document's progress as pushed to subscribers. */
export interface DocumentProgressDto {
  documentId: string;
  projectId: string;
  status: DocumentDto['status'];
  progress: DocumentDto['progress'];
  pageCount: number;
  chunkCount: number;
  error: string | null;
}

/** The graph's DocumentProgress: the event with its page counts also at the top level. */
export type GraphDocumentProgressDto = DocumentProgressDto & { pagesDone: number; pagesTotal: number };

/** A progress event (GraphQL subscription, or any other push channel). */
export function presentDocumentProgress(p: DocumentProgress): DocumentProgressDto {
  return {
    documentId: p.documentId,
    projectId: p.projectId,
    status: p.status,
    progress: { pagesDone: p.pagesDone, pagesTotal: p.pagesTotal },
    pageCount: p.pageCount,
    chunkCount: p.chunkCount,
    error: p.error,
  };
}
