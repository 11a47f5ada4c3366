import type { EntityManager } from '@mikro-orm/postgresql';
import { createReadStream } from 'node:fs';
import { bulk, query } from '../db/sql';

/**
 * Originals are PostgreSQL large objects (docs/decisions/0008-originals-as-large-objects.md): one
 * database to back up, written and read in slices so no process holds a whole file for it, and
 * created and unlinked inside the transactions that create and delete their documents, so a crash
 * at any point loses nothing and leaves nothing behind.
 */

/** Bytes per write or read of an original. */
export const SLICE_BYTES = 1024 * 1024;

/** Where a parser thread reads a document's original from (see readOriginal). */
export interface OriginalRef {
  documentId: string;
  /** The large object; null for a document stored before large objects (its `content` column is read in slices). */
  oid: number | null;
  size: number;
}

/**
 * Writes an original into a new large object inside the transaction `tx` belongs to (it exists
 * once that commits) and returns its oid. A file on disk (a streamed upload) is read a slice at a
 * time; a buffer (a GraphQL upload, already in memory) is written in slices too.
 */
export async function storeOriginal(tx: EntityManager, source: { path: string } | Buffer): Promise<number> {
  const [{ oid }] = await query<{ oid: number }>(tx, 'select lo_create(0)::int8 as oid');
  const id = Number(oid);
  let offset = 0;
  const put = async (slice: Buffer) => {
    await bulk(tx, 'select lo_put(?::oid, ?, ?)', [id, offset, slice]);
    offset += slice.length;
  };
  if (Buffer.isBuffer(source)) {
    for (let i = 0; i < source.length; i += SLICE_BYTES) await put(source.subarray(i, i + SLICE_BYTES));
  } else {
    for await (const slice of createReadStream(source.path, { highWaterMark: SLICE_BYTES })) await put(slice as Buffer);
  }
  return id;
}

/** Unlinks a document's original inside the transaction deleting it. */
export async function removeOriginal(tx: EntityManager, documentId: string): Promise<void> {
  await query(tx, 'select lo_unlink(content_oid) from documents where id = ? and content_oid is not null', [documentId]);
}

/**
 * Unlinks large objects no document refers to any more: those of documents that went with their
 * project (a cascading delete cannot unlink them). An upload's large object is invisible here
 * until its transaction commits together with its document, so an upload in flight is never
 * taken. Returns the number unlinked.
 */
export async function sweepOrphanOriginals(em: EntityManager): Promise<number> {
  const [row] = await query<{ n: number }>(
    em,
    `select count(lo_unlink(m.oid))::int as n from pg_largeobject_metadata m
      where not exists (select 1 from documents d where d.content_oid = m.oid)`,
  );
  return row.n;
}

/**
 * Bytes [start, end) of a stored original, one slice at a time (`sliceBytes`, SLICE_BYTES unless
 * told): the server never holds more than one slice of it. Large objects are read with lo_get, originals stored before
 * them with substring(). Throws when the document goes while it is being read.
 */
export async function* originalSlices(
  em: EntityManager,
  ref: OriginalRef,
  start: number,
  end: number,
  sliceBytes = SLICE_BYTES,
): AsyncGenerator<Buffer> {
  for (let offset = start; offset < end;) {
    const length = Math.min(sliceBytes, end - offset);
    const [row] = await (ref.oid !== null
      ? query<{ b: Buffer | null }>(em, 'select lo_get(?::oid, ?, ?) as b', [ref.oid, offset, length])
      : query<{ b: Buffer | null }>(em, 'select substring(content from ? for ?) as b from documents where id = ?', [
          offset + 1,
          length,
          ref.documentId,
        ]));
    if (!row?.b?.length) throw new Error('the original is gone or shorter than its recorded size');
    yield row.b;
    offset += row.b.length;
  }
}
