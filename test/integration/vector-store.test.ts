import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createOrm, migrate } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { VectorStore } from '../../src/retrieval/vector-store';
import { createTestDatabase } from '../support/test-db';

/**
 * VectorStore on both paths, over the same data: the portable one (the embedded PostgreSQL has no
 * pgvector) and pgvector + HNSW on a real server given by PGVECTOR_TEST_URL (an admin URL of a
 * PostgreSQL with the extension installed; a scratch database is created and dropped there).
 */
const logger = createLogger('silent');
const DIMS = 16;

/** Deterministic pseudo-random vectors. */
function vectors(n: number, seed: number): Float32Array[] {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, next));
}

async function seed(orm: MikroORM): Promise<{ projectId: string; chunkIds: string[] }> {
  const x = (sql: string, p: unknown[] = []) => orm.em.fork().getConnection().execute<any[]>(sql, p);
  const [project] = await x(`insert into projects (name) values ('vectors') returning id`);
  const [doc] = await x(
    `insert into documents (project_id, name, mime_type, size, sha256, content, status) values (?, 'v.txt', 'text/plain', 1, ?, '\\x00', 'ready') returning id`,
    [project.id, randomBytes(16).toString('hex')],
  );
  const rows = await x(
    `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context)
     select ?, ?, g, 1, 1, 'chunk ' || g, '' from generate_series(0, 299) g returning id`,
    [doc.id, project.id],
  );
  return { projectId: project.id, chunkIds: rows.map((r) => r.id) };
}

/** Exact cosine top-k, computed here independently of VectorStore. */
function exactTop(all: Float32Array[], ids: string[], q: Float32Array, k: number): string[] {
  const norm = (v: Float32Array) => Math.hypot(...v);
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

describe('portable path (the embedded PostgreSQL)', () => {
  let orm: MikroORM;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    orm = await createOrm(db.url, { poolMax: 4 });
  });
  afterAll(async () => {
    await orm?.close(true);
    await drop?.();
  });

  it('has no pgvector, so detect() chooses exact scoring in the process', async () => {
    const store = new VectorStore(64 * 1024 * 1024, logger);
    expect(await store.detect(orm.em.fork())).toBe(false);
  });

  it('finds the exact cosine neighbours, per model, and drops deleted chunks', async () => {
    await exercise(orm, new VectorStore(64 * 1024 * 1024, logger));
  });

  it('scores exactly by streaming from the database when a matrix exceeds the cache', async () => {
    await exercise(orm, new VectorStore(1024, logger));
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
    const idx = await orm.em
      .fork()
      .getConnection()
      .execute<any[]>(`select indexdef from pg_indexes where tablename = 'chunk_embeddings' and indexdef like '%hnsw%'`);
    expect(idx.length).toBeGreaterThanOrEqual(2); // one per (model, dims)
  });
});
