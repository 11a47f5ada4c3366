import { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { Document } from '../entities';
import { NotFoundError } from '../errors';
import { originalSlices, type OriginalRef } from '../ingest/originals';
import { isUuid } from '../validation';
import { BaseService } from '../db/service-context';

/** A stored original as GET /documents/:id/original serves it. */
export interface Original {
  name: string;
  /** What the response declares: the sniffed type of an inline file; the stored type otherwise, unless a browser would render it. */
  contentType: string;
  /** Shown in the browser (PDF and raster images, told by their first bytes); everything else is a download. */
  inline: boolean;
  size: number;
  /** A strong validator: the content's sha256 (an original never changes). */
  etag: string;
  lastModified: Date;
  /** Bytes [start, end) of the file, a slice at a time. */
  read(start: number, end: number): AsyncIterable<Buffer>;
}

/** The first bytes of the formats a browser may show inline, and their types. */
const INLINE_SIGNATURES: Array<[string, (b: Buffer) => boolean]> = [
  ['application/pdf', (b) => b.subarray(0, 5).toString('latin1') === '%PDF-'],
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1'))],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
  ['image/bmp', (b) => b.subarray(0, 2).toString('latin1') === 'BM'],
  ['image/tiff', (b) => ['II*\0', 'MM\0*'].includes(b.subarray(0, 4).toString('latin1'))],
];

/** Types a browser renders or runs (markup, script, images it was not told are raster): declared as bytes instead. */
const ACTIVE_TYPE = /html|xml|script|^image\/|^text\/(?!plain$|markdown$|csv$)/;

/**
 * Bytes per read of an original being served: each read's bytea arrives as hex text (twice its size)
 * before it is a Buffer, so smaller slices keep a reader's garbage, and the server's RSS, low.
 */
const SERVE_SLICE_BYTES = 256 * 1024;

/** Bytes read to tell a file's kind before serving it. */
const HEAD_BYTES = 16;

/**
 * Serves documents' originals. Whether a file is shown inline is decided by its bytes, never by
 * its name or the type its uploader declared, so an HTML or SVG file is always a download.
 */
export class OriginalsService extends BaseService {
  /** GET /documents/:id/original (`use` on its project). */
  async get(actor: Actor, id: string): Promise<Original> {
    if (!isUuid(id)) throw new NotFoundError('not_found', 'Document not found');
    const em = this.em();
    const doc = await em.findOne(
      Document,
      { id },
      { fields: ['id', 'project', 'name', 'mimeType', 'size', 'sha256', 'contentOid', 'createdAt'] },
    );
    if (!doc) throw new NotFoundError('not_found', 'Document not found');
    await requireTier(em, actor, doc.project.id, 'use');
    const ref: OriginalRef = { documentId: doc.id, oid: doc.contentOid ?? null, size: doc.size };
    // each read gets a fresh EntityManager: the response outlives the request's
    const read = (start: number, end: number) => originalSlices(this.freshEm(), ref, start, end, SERVE_SLICE_BYTES);
    let head = Buffer.alloc(0);
    for await (const slice of read(0, Math.min(HEAD_BYTES, doc.size))) head = Buffer.concat([head, slice]);
    const sniffed = INLINE_SIGNATURES.find(([, test]) => head.length >= 4 && test(head))?.[0];
    return {
      name: doc.name,
      contentType: sniffed ?? (ACTIVE_TYPE.test(doc.mimeType) ? 'application/octet-stream' : doc.mimeType),
      inline: sniffed !== undefined,
      size: doc.size,
      etag: `"${doc.sha256}"`,
      lastModified: new Date(doc.createdAt),
      read,
    };
  }
}
