import pg from 'pg';
import type { OriginalRef } from '../originals';
import { SLICE_BYTES } from '../originals';
import { IngestError } from '../types';

/**
 * Reads a document's original from PostgreSQL in a parser thread, a slice at a time, into the one
 * buffer the parser reads (the server's event loop never sees the bytes). Its own short-lived
 * connection; large objects are read with lo_get, originals stored before them with substring().
 */
export async function readOriginal(url: string, ref: OriginalRef): Promise<Buffer> {
  const client = new pg.Client({ connectionString: url, application_name: 'docqa-parser' });
  await client.connect();
  try {
    const out = Buffer.allocUnsafe(ref.size);
    let offset = 0;
    while (offset < ref.size) {
      const length = Math.min(SLICE_BYTES, ref.size - offset);
      const { rows } = await (ref.oid !== null
        ? client.query<{ b: Buffer | null }>('select lo_get($1::oid, $2, $3) as b', [ref.oid, offset, length])
        : client.query<{ b: Buffer | null }>('select substring(content from $2 for $3) as b from documents where id = $1', [
            ref.documentId,
            offset + 1,
            length,
          ]));
      const slice = rows[0]?.b;
      if (!slice) throw new Error('the original is gone (the document was deleted)');
      if (!slice.length) throw new IngestError('the stored original is shorter than its recorded size');
      slice.copy(out, offset);
      offset += slice.length;
    }
    return out;
  } finally {
    await client.end().catch(() => undefined);
  }
}
