import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import pg from 'pg';
import { createOrm, migrate } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { VectorStore } from '../../src/search/vector-store';
import { createTestDatabase } from '../support/test-db';

/**
 * VectorStore on both paths, over the same data: the portable one (the embedded PostgreSQL has no
 * pgvector) and pgvector + HNSW on a real server given by PGVECTOR_TEST_URL (an admin URL of a
 * PostgreSQL with the extension installed; a scratch database is created and dropped there).
 */
const logger = createLogger('silent');
const DIMS = 16;

/** Deterministic pseudo-random vectors. */
function vectors(n: number, seed: number, dims = DIMS): Float32Array[] {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return Array.from({ length: n }, () => Float32Array.from({ length: dims }, next));
}

async function seed(orm: MikroORM, chunks = 300): Promise<{ projectId: string; chunkIds: string[] }> {
  const x = (sql: string, p: unknown[] = []) => orm.em.fork().getConnection().execute<any[]>(sql, p);
  const [project] = await x(`insert into projects (name) values ('vectors') returning id`);
  const [doc] = await x(
    `insert into documents (project_id, name, mime_type, size, sha256, content, status) values (?, 'v.txt', 'text/plain', 1, ?, '\\x00', 'ready') returning id`,
    [project.id, randomBytes(16).toString('hex')],
  );
  const rows = await x(
    `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context)
     select ?, ?, g, 1, 1, 'chunk ' || g, '' from generate_series(1, ?) g returning id`,
    [doc.id, project.id, chunks],
  );
  return { projectId: project.id, chunkIds: rows.map((r) => r.id) };
}

/** Exact cosine top-k, computed here independently of VectorStore. */
function exactTop(all: Float32Array[], ids: string[], q: Float32Array, k: number): string[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return all
    .map((v, i) => ({ id: ids[i], s: v.reduce((a, x, d) => a + x * q[d], 0) / (norm(v) * norm(q)) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((r) => r.id);
}

async function exercise(orm: MikroORM, store: VectorStore): Promise<void> {
  const { projectId, chunkIds } = await seed(orm);
  const vs = vectors(chunkIds.length, 7);
  const em = () => orm.em.fork();
  // two writes (the second appends to a cached matrix) and a second model that must never mix in
  expect(
    await store.write(
      em(),
      projectId,
      'm1',
      chunkIds.slice(0, 200).map((id, i) => ({ chunkId: id, vector: vs[i] })),
    ),
  ).toBe(200);
  const q = vectors(1, 99)[0];
  expect((await store.neighbours(em(), projectId, 'm1', q, 10)).map((n) => n.id)).toEqual(
    exactTop(vs.slice(0, 200), chunkIds.slice(0, 200), q, 10),
  );
  expect(
    await store.write(
      em(),
      projectId,
      'm1',
      chunkIds.slice(200).map((id, i) => ({ chunkId: id, vector: vs[200 + i] })),
    ),
  ).toBe(100);
  await store.write(
    em(),
    projectId,
    'm2',
    chunkIds.map((id) => ({ chunkId: id, vector: q })),
  );
  const top = await store.neighbours(em(), projectId, 'm1', q, 10);
  expect(top.map((n) => n.id)).toEqual(exactTop(vs, chunkIds, q, 10));
  // a vector already stored is kept (idempotent jobs)
  expect(await store.write(em(), projectId, 'm1', [{ chunkId: chunkIds[0], vector: q }])).toBe(0);
  // deleting chunks deletes their vectors (cascade)
  await em()
    .getConnection()
    .execute(`delete from chunks where id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`, [
      JSON.stringify(top.slice(0, 3).map((n) => n.id)),
    ]);
  const [{ n }] = await em()
    .getConnection()
    .execute<any[]>('select count(*)::int as n from chunk_embeddings where model = ? and project_id = ?', ['m1', projectId]);
  expect(n).toBe(297);
  // the portable cache learns of the deletion from retrieval (forget); pgvector never sees them
  store.forget(
    projectId,
    'm1',
    top.slice(0, 3).map((x) => x.id),
  );
  const after = await store.neighbours(em(), projectId, 'm1', q, 7);
  expect(after.map((x) => x.id)).toEqual(top.slice(3, 10).map((x) => x.id));
}

/** Stores `vs` (one per chunk) under model m1. */
async function writeAll(orm: MikroORM, store: VectorStore, projectId: string, chunkIds: string[], vs: Float32Array[]): Promise<void> {
  for (let i = 0; i < chunkIds.length; i += 1000)
    await store.write(
      orm.em.fork(),
      projectId,
      'm1',
      chunkIds.slice(i, i + 1000).map((id, j) => ({ chunkId: id, vector: vs[i + j] })),
    );
}

describe('portable path (the embedded PostgreSQL)', () => {
  let orm: MikroORM;
  let drop: () => Promise<void>;
  const stores: VectorStore[] = [];
  /** A store closed after the suite (its scoring threads). */
  const open = (cacheBytes: number, exactBelow = 20_000) => {
    const s = new VectorStore(cacheBytes, logger, { exactBelow, slice: 64 });
    stores.push(s);
    return s;
  };
  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    orm = await createOrm(db.url, { poolMax: 4 });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await orm?.close(true);
    await drop?.();
  });

  it('has no pgvector, so detect() chooses exact scoring in the process', async () => {
    const store = open(64 * 1024 * 1024);
    expect(await store.detect(orm.em.fork())).toBe(false);
  });

  it('finds the exact cosine neighbours, per model, and drops deleted chunks', async () => {
    const store = open(64 * 1024 * 1024);
    await exercise(orm, store);
    // searched in the index thread, never on the event loop's thread
    const { indexRequests, indexThreadId, matrices } = store.stats();
    expect(indexRequests).toBeGreaterThan(0);
    expect(indexThreadId).toBeGreaterThan(0);
    expect(indexThreadId).not.toBe(threadId);
    expect(matrices).toBe(1);
  });

  it('finds the same neighbours through the HNSW graph past the exact threshold (the graph built while searching)', async () => {
    const store = open(64 * 1024 * 1024, 100);
    await exercise(orm, store);
    const { graphRows, rows } = await store.indexStats();
    expect(rows).toBeGreaterThan(100);
    expect(graphRows).toBeGreaterThan(0);
  });

  it('scores exactly by streaming from the database when a matrix exceeds the cache', async () => {
    const store = open(1024);
    await exercise(orm, store);
    // nothing was cached, and the streamed pages were scored in the index thread too
    expect(store.stats()).toMatchObject({ cachedBytes: 0, matrices: 0 });
    expect(store.stats().indexRequests).toBeGreaterThan(0);
    expect(store.stats().indexThreadId).not.toBe(threadId);
    expect((await store.indexStats()).indexes).toBe(0);
  });

  it('loads several pages (in seq order) into one exact index; streaming agrees', async () => {
    const dims = 256;
    // more rows than one load page (5,000; paged in seq order)
    const { projectId, chunkIds } = await seed(orm, 5200);
    const vs = vectors(chunkIds.length, 11, dims);
    const cached = open(64 * 1024 * 1024);
    await writeAll(orm, cached, projectId, chunkIds, vs);
    const streamed = open(64 * 1024);
    for (const seedNo of [1, 2, 3]) {
      const q = vectors(1, seedNo, dims)[0];
      const want = exactTop(vs, chunkIds, q, 50);
      expect((await cached.neighbours(orm.em.fork(), projectId, 'm1', q, 50)).map((n) => n.id)).toEqual(want);
      expect((await streamed.neighbours(orm.em.fork(), projectId, 'm1', q, 50)).map((n) => n.id)).toEqual(want);
    }
    expect(cached.stats().rowsLoaded).toBe(5200);
    expect(streamed.stats().matrices).toBe(0);
  });

  it('keeps the cache within its budget: least recently used matrices are evicted, ids included', async () => {
    const a = await seed(orm);
    const b = await seed(orm);
    const va = vectors(300, 21);
    const vb = vectors(300, 22);
    // room for one 300 × 16 matrix with its ids (300 × (64 + 24) bytes), not two
    const store = open(40 * 1024);
    await writeAll(orm, store, a.projectId, a.chunkIds, va);
    await writeAll(orm, store, b.projectId, b.chunkIds, vb);
    const q = vectors(1, 5)[0];
    for (const [p, vs] of [
      [a, va],
      [b, vb],
      [a, va],
    ] as const) {
      expect((await store.neighbours(orm.em.fork(), p.projectId, 'm1', q, 10)).map((n) => n.id)).toEqual(exactTop(vs, p.chunkIds, q, 10));
      const s = store.stats();
      expect(s.matrices).toBe(1);
      expect(s.cachedBytes).toBeGreaterThanOrEqual(300 * 16 * 4);
      expect(s.cachedBytes).toBeLessThanOrEqual(s.limitBytes);
    }
  });

  it('takes the query as a promise (the question still being embedded): same neighbours; a failed embedding rejects the search', async () => {
    const { projectId, chunkIds } = await seed(orm);
    const vs = vectors(300, 31);
    const store = open(64 * 1024 * 1024);
    await writeAll(orm, store, projectId, chunkIds, vs);
    const q = vectors(1, 32)[0];
    // the matrix's freshness check runs while the query is on its way
    let deliver!: (v: Float32Array) => void;
    const pending = store.neighbours(orm.em.fork(), projectId, 'm1', new Promise<Float32Array>((r) => (deliver = r)), 10);
    deliver(q);
    expect((await pending).map((n) => n.id)).toEqual(exactTop(vs, chunkIds, q, 10));
    await expect(store.neighbours(orm.em.fork(), projectId, 'm1', Promise.reject(new Error('embedder down')), 10)).rejects.toThrow(
      'embedder down',
    );
  });

  it('a reload while a load is in flight leaves the index whole: later vectors are found (once it stayed broken for good)', async () => {
    const { projectId, chunkIds } = await seed(orm, 1200);
    const vs = vectors(1200, 41);
    const store = open(64 * 1024 * 1024);
    const q = vectors(1, 42)[0];
    let n = 100;
    await writeAll(orm, store, projectId, chunkIds.slice(0, n), vs.slice(0, n));
    for (let delay = 0; delay < 40; delay += 4) {
      await store.neighbours(orm.em.fork(), projectId, 'm1', q, 10);
      // new vectors are appended to the cached index (an incremental load) while reindex reloads it
      const writing = writeAll(orm, store, projectId, chunkIds.slice(n, n + 100), vs.slice(n, n + 100));
      await new Promise((r) => setTimeout(r, delay));
      await store.reload(projectId, 'm1');
      await writing;
      n += 100;
      await writeAll(orm, store, projectId, chunkIds.slice(n, n + 10), vs.slice(n, n + 10));
      n += 10;
      const found = await store.neighbours(orm.em.fork(), projectId, 'm1', q, 10);
      expect(found.map((f) => f.id)).toEqual(exactTop(vs.slice(0, n), chunkIds.slice(0, n), q, 10));
    }
  });

  it("a project's first vectors committed while its empty index loads are found (once they were skipped for good)", async () => {
    const { projectId, chunkIds } = await seed(orm);
    const vs = vectors(300, 61);
    const store = open(64 * 1024 * 1024);
    const q = vectors(1, 62)[0];
    // a question arrives while the project's first document is embedded: its load counts no rows
    // (so no dimensions yet), and the embedding job commits them right after that count
    const real = orm.em.fork();
    let committed = false;
    const racing = {
      getTransactionContext: () => undefined,
      getConnection: () => ({
        execute: async (sql: string, params: unknown[], method: 'all', ctx: unknown) => {
          const res = await real.getConnection().execute(sql, params, method, ctx);
          if (!committed && sql.includes('max(dims)')) {
            committed = true;
            await writeAll(orm, store, projectId, chunkIds, vs);
          }
          return res;
        },
      }),
    };
    const first = await store.neighbours(racing as never, projectId, 'm1', q, 10);
    expect(committed).toBe(true);
    expect(first.map((f) => f.id)).toEqual(exactTop(vs, chunkIds, q, 10));
    expect((await store.neighbours(orm.em.fork(), projectId, 'm1', q, 10)).map((f) => f.id)).toEqual(exactTop(vs, chunkIds, q, 10));
  });

  it('a failed append does not leave the index broken: the next load starts again from PostgreSQL', async () => {
    const { projectId, chunkIds } = await seed(orm);
    const vs = vectors(300, 51);
    const store = open(64 * 1024 * 1024);
    await writeAll(orm, store, projectId, chunkIds.slice(0, 100), vs.slice(0, 100));
    const q = vectors(1, 52)[0];
    await store.neighbours(orm.em.fork(), projectId, 'm1', q, 10);
    // the index thread loses the rows behind the cache's back (as a drop racing a load did)
    const thread = (store as unknown as { index: { drop(k: string): Promise<void> } }).index;
    await thread.drop(`${projectId}\u0000m1`);
    // the write's append of the new rows fails (out of order): the write stands, the index is read anew
    await writeAll(orm, store, projectId, chunkIds.slice(100, 200), vs.slice(100, 200));
    const found = await store.neighbours(orm.em.fork(), projectId, 'm1', q, 10);
    expect(found.map((f) => f.id)).toEqual(exactTop(vs.slice(0, 200), chunkIds.slice(0, 200), q, 10));
  });

  it('stops its threads on close; a search afterwards fails instead of starting new ones', async () => {
    const { projectId, chunkIds } = await seed(orm);
    const store = new VectorStore(64 * 1024 * 1024, logger);
    await writeAll(orm, store, projectId, chunkIds, vectors(300, 3));
    await store.neighbours(orm.em.fork(), projectId, 'm1', vectors(1, 4)[0], 5);
    await store.close();
    await expect(store.neighbours(orm.em.fork(), projectId, 'm1', vectors(1, 4)[0], 5)).rejects.toThrow(/closed/);
  });
});

const PGVECTOR_URL = process.env.PGVECTOR_TEST_URL;
if (!PGVECTOR_URL) {
  // never silently: say what was not tested and how to test it
  process.stdout.write(
    'vector-store.test: SKIPPING the pgvector path: set PGVECTOR_TEST_URL to an admin URL of a PostgreSQL with the pgvector extension installed (none is available on this machine)\n',
  );
}

(PGVECTOR_URL ? describe : describe.skip)('pgvector path (PGVECTOR_TEST_URL)', () => {
  let orm: MikroORM;
  let name: string;
  beforeAll(async () => {
    name = `docqa_pgv_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: PGVECTOR_URL });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const u = new URL(PGVECTOR_URL!);
    u.pathname = `/${name}`;
    orm = await createOrm(u.toString(), { poolMax: 4 });
    await migrate(orm);
  });
  afterAll(async () => {
    await orm?.close(true);
    const c = new pg.Client({ connectionString: PGVECTOR_URL });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });

  it('detects pgvector, adds the column and answers the same neighbours through HNSW', async () => {
    const store = new VectorStore(64 * 1024 * 1024, logger);
    expect(await store.detect(orm.em.fork())).toBe(true);
    await exercise(orm, store);
    await store.close();
    const idx = await orm.em
      .fork()
      .getConnection()
      .execute<any[]>(`select indexdef from pg_indexes where tablename = 'chunk_embeddings' and indexdef like '%hnsw%'`);
    expect(idx.length).toBeGreaterThanOrEqual(2); // one per (model, dims)
  });
});
