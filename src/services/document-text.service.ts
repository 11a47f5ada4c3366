import { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { Document } from '../entities';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { kindOfMime } from '../ingest/detect';
import type { IngestPipeline } from '../ingest/pipeline';
import { isDocumentKind, isImageKind, type DocumentKind, type ParsedPage } from '../ingest/types';
import type { DocumentText, TextPage } from '../presenters/document.presenter';
import { isUuid } from '../validation';
import { BaseService, ServiceContext } from '../db/service-context';

export type { DocumentText, TextPage };

/** Characters of converted text one answer carries at most (whole pages; at least one page). */
export const TEXT_WINDOW_CHARS = 200_000;
/** Converted documents kept parsed (most recently read first), and the largest text kept. */
const CACHED_DOCUMENTS = 4;
const CACHED_CHARS = 2_000_000;

/**
 * The reader view's text (issue 35: a citation into a DOCX, HTML, Markdown, text, office or mail
 * file opens the document's converted text with the passage marked). The text is what ingestion
 * read: the original parsed again in the parser pool, so chunk locations (character offsets into
 * each page's text) point into it. PDFs and images are read as their pages (GET /documents/:id/original).
 */
export class DocumentTextService extends BaseService {
  private readonly cache = new Map<string, Promise<ParsedPage[]>>();

  constructor(
    ctx: ServiceContext,
    private readonly pipeline: IngestPipeline,
  ) {
    super(ctx);
  }

  /** GET /documents/:id/text?from=N (`use` on its project). */
  async text(actor: Actor, id: string, from = 1): Promise<DocumentText> {
    if (!Number.isInteger(from) || from < 1) throw ValidationError.field('from', 'must be a page number (an integer from 1)');
    if (!isUuid(id)) throw new NotFoundError('not_found', 'Document not found');
    const em = this.em();
    const doc = await em.findOne(
      Document,
      { id },
      { fields: ['id', 'project', 'name', 'mimeType', 'format', 'status', 'size', 'sha256', 'contentOid'] },
    );
    if (!doc) throw new NotFoundError('not_found', 'Document not found');
    await requireTier(em, actor, doc.project.id, 'use');
    const kind: DocumentKind | null = (doc.format && isDocumentKind(doc.format) ? doc.format : null) ?? kindOfMime(doc.mimeType);
    if (!kind || kind === 'pdf' || isImageKind(kind))
      throw new ConflictError('no_converted_text', 'A PDF or an image is read as its pages: GET /documents/:id/original');
    if (doc.status !== 'ready') throw new ConflictError('document_not_ready', `The document is ${doc.status}`);
    const pages = await this.pagesOf(doc, kind);
    const out: TextPage[] = [];
    let chars = 0;
    let i = pages.findIndex((p) => p.pageNumber >= from);
    for (; i >= 0 && i < pages.length; i++) {
      const p = pages[i];
      if (out.length && chars + p.text.length > TEXT_WINDOW_CHARS) break;
      chars += p.text.length;
      out.push({
        pageNumber: p.pageNumber,
        text: p.text,
        sections: (p.sections ?? []).map((s) => ({ offset: s.offset, title: s.title, level: s.level ?? null })),
      });
    }
    return {
      documentId: doc.id,
      documentName: doc.name,
      pageCount: pages.length ? pages[pages.length - 1].pageNumber : 0,
      pages: out,
      nextPage: i >= 0 && i < pages.length ? pages[i].pageNumber : null,
    };
  }

  /** The document's pages, parsed once for a few readers in a row (a small cache keyed by content). */
  private pagesOf(doc: Pick<Document, 'id' | 'sha256' | 'contentOid' | 'size'>, kind: DocumentKind): Promise<ParsedPage[]> {
    const key = `${doc.id}:${doc.sha256}`;
    let pages = this.cache.get(key);
    if (pages) this.cache.delete(key);
    else {
      pages = this.pipeline.convertedPages(kind, { documentId: doc.id, oid: doc.contentOid ?? null, size: doc.size });
      pages.then(
        (ps) => ps.reduce((n, p) => n + p.text.length, 0) > CACHED_CHARS && this.cache.delete(key),
        () => this.cache.delete(key),
      );
    }
    this.cache.set(key, pages);
    while (this.cache.size > CACHED_DOCUMENTS) this.cache.delete(this.cache.keys().next().value!);
    return pages;
  }
}
