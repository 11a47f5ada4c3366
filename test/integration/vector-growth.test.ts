import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { createOrm } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { VectorStore } from '../../src/search/vector-store';
import { createTestDatabase } from '../support/test-db';

/**
 * Issue 36: "the first question after 10,000 new vectors costs no more than the tenth". The cost
 * that grew with the project was loading: the question after growth read the new rows from
 * PostgreSQL (and, before, copied the whole matrix). Here the index is kept current as vectors are
 * written, so every question after growth, the first included, reads no row; and the new rows are
 * found at once (scored exactly until the index thread has moved them into the HNSW graph).
 */
const DIMS = 64;
const BEFORE = 10_000;
const ADDED = 10_000;

function vectors(n: number, seed: number): Float32Array[] {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, next));
}

describe('a project growing by 10,000 vectors (portable path, HNSW past 5,000 rows)', () => {
  let orm: MikroORM;
  let drop: () => Promise<void>;
  let store: VectorStore;
  let other: VectorStore;
  let projectId: string;
  let chunkIds: string[];
  const all = vectors(BEFORE + ADDED, 5);

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    orm = await createOrm(db.url, { poolMax: 4 });
    const x = (sql: string, p: unknown[] = []) => orm.em.fork().getConnection().execute<any[]>(sql, p);
    const [project] = await x(`insert into projects (name) values ('growth') returning id`);
    const [doc] = await x(
      `insert into documents (project_id, name, mime_type, size, sha256, content, status) values (?, 'g.txt', 'text/plain', 1, ?, '\\x00', 'ready') returning id`,
      [project.id, randomBytes(16).toString('hex')],
    );
    const rows = await x(
      `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context)
       select ?, ?, g, 1, 1, 'chunk ' || g, '' from generate_series(1, ?) g order by g returning id, ordinal`,
      [doc.id, project.id, BEFORE + ADDED],
    );
    projectId = project.id;
    chunkIds = rows.sort((a, b) => a.ordinal - b.ordinal).map((r) => r.id);
    store = new VectorStore(256 * 1024 * 1024, createLogger('silent'), { exactBelow: 5000 });
    other = new VectorStore(256 * 1024 * 1024, createLogger('silent'), { exactBelow: 5000 });
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await orm?.close(true);
    await drop?.();
  });

  const write = async (from: number, to: number) => {
    for (let i = from; i < to; i += 1000)
      await store.write(
        orm.em.fork(),
        projectId,
        'm1',
        chunkIds.slice(i, Math.min(to, i + 1000)).map((id, j) => ({ chunkId: id, vector: all[i + j] })),
      );
  };
  /** Rows the question read from PostgreSQL into the index, and its neighbours. */
  const ask = async (s: VectorStore, q: Float32Array) => {
    const before = s.stats().rowsLoaded;
    const found = await s.neighbours(orm.em.fork(), projectId, 'm1', q, 10);
    return { loaded: s.stats().rowsLoaded - before, found };
  };

  it('reads no row on the first question after growth, as on the tenth, and finds the new vectors at once', async () => {
    await write(0, BEFORE);
    const questions = vectors(20, 77);
    for (const q of questions.slice(0, 10)) await ask(store, q);
    expect((await store.indexStats()).rows).toBe(BEFORE);

    await write(BEFORE, BEFORE + ADDED);
    const after = [];
    for (const q of questions.slice(10)) after.push(await ask(store, q));
    expect(after[0].loaded).toBe(0);
    expect(after[0].loaded).toBeLessThanOrEqual(after[9].loaded);
    expect(after.every((a) => a.found.length === 10)).toBe(true);
    // a new vector is its own nearest neighbour, whether in the graph yet or not
    for (const row of [BEFORE, BEFORE + 4321, BEFORE + ADDED - 1]) expect((await ask(store, all[row])).found[0].id).toBe(chunkIds[row]);
    expect((await store.indexStats()).rows).toBe(BEFORE + ADDED);

    // the counter counts: a process that did not write reads every row on its first question, then none
    expect((await ask(other, questions[0])).loaded).toBe(BEFORE + ADDED);
    expect((await ask(other, questions[1])).loaded).toBe(0);
  });
});
