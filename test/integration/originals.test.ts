import { spawn } from 'node:child_process';
import { Actor } from '../../src/access/actor';
import type { Project, User } from '../../src/entities';
import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { api } from '../support/http';
import { textBook } from '../support/heavy';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 24: originals are large objects, written in slices in the upload's transaction, read back
 * in slices by the parser thread, unlinked with their document; a crash loses nothing and leaves
 * nothing behind (docs/decisions/0008).
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;

const sql = async <T = any>(text: string, params: unknown[] = []): Promise<T[]> =>
  await t.orm.em.fork().getConnection().execute<T[]>(text, params);
const largeObjects = async () =>
  (await sql<{ oid: number }>('select oid::int8 as oid from pg_largeobject_metadata order by oid')).map((r) => Number(r.oid));

beforeAll(async () => {
  t = await createTestApp({ workers: true, env: { MAX_UPLOAD_MB: '8' } });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
}, 60_000);
afterAll(async () => t?.close());

it('an upload of several slices is stored as a large object (no bytea), indexed from it, reindexed from it, and unlinked on delete', async () => {
  const book = textBook(2.5); // three slices of 1 MB
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'book.txt', content: book, type: 'text/plain' }]);
  expect(res.status).toBe(202);
  const id = res.body.documents[0].id;
  const [row] = await sql<{ content: Buffer | null; oid: string; size: number }>(
    'select content, content_oid::int8 as oid, size from documents where id = ?',
    [id],
  );
  expect(row.content).toBeNull();
  expect(row.size).toBe(book.length);
  const [stored] = await sql<{ same: boolean }>('select lo_get(?::oid) = ? as same', [Number(row.oid), book]);
  expect(stored.same).toBe(true);
  const first = await waitForDocument(t.baseUrl, owner.token, id, 60_000);
  expect(first).toMatchObject({ status: 'ready' });
  expect(first.chunkCount).toBeGreaterThan(100);

  const again = await api(t.baseUrl, 'POST', `/api/documents/${id}/reindex`, { token: owner.token });
  expect(again.status).toBe(202);
  expect(await waitForDocument(t.baseUrl, owner.token, id, 60_000)).toMatchObject({ status: 'ready', chunkCount: first.chunkCount });

  expect(await largeObjects()).toContain(Number(row.oid));
  expect((await api(t.baseUrl, 'DELETE', `/api/documents/${id}`, { token: owner.token })).status).toBe(200);
  expect(await largeObjects()).not.toContain(Number(row.oid));
});

it('documents stored before large objects (bytea) are still read, in slices', async () => {
  const text = 'The warranty lasts thirty-six months from the date of delivery.';
  const [doc] = await sql<{ id: string }>(
    `insert into documents (project_id, name, mime_type, size, sha256, content, status) values (?, 'old.txt', 'text/plain', ?, md5(random()::text), ?, 'ready') returning id`,
    [project.id, Buffer.byteLength(text), Buffer.from(text)],
  );
  expect((await api(t.baseUrl, 'POST', `/api/documents/${doc.id}/reindex`, { token: owner.token })).status).toBe(202);
  expect(await waitForDocument(t.baseUrl, owner.token, doc.id)).toMatchObject({ status: 'ready', chunkCount: 1 });
});

it('originals of documents that went with their project are unlinked by the sweep', async () => {
  const doomed = await f.makeProject({ owner });
  const res = await uploadFiles(t.baseUrl, owner.token, doomed.id, [
    { name: 'a.txt', content: 'Doomed project notes.', type: 'text/plain' },
  ]);
  const id = res.body.documents[0].id;
  await waitForDocument(t.baseUrl, owner.token, id);
  const [{ oid }] = await sql<{ oid: string }>('select content_oid::int8 as oid from documents where id = ?', [id]);
  await t.services.projects.delete(Actor.system(), doomed.id);
  expect(await largeObjects()).toContain(Number(oid));
  expect(await t.services.documents.pipeline.sweepOriginals()).toBeGreaterThanOrEqual(1);
  expect(await largeObjects()).not.toContain(Number(oid));
});

it('a process killed in the middle of storing an original leaves no large object and no document', async () => {
  const before = await largeObjects();
  const [{ n: docsBefore }] = await sql<{ n: number }>('select count(*)::int as n from documents');
  // what an upload does, killed between its slices: the transaction never commits
  const script = `
    const pg = require('pg');
    (async () => {
      const c = new pg.Client({ connectionString: process.env.DB_URL });
      await c.connect();
      await c.query('begin');
      const { rows: [{ oid }] } = await c.query('select lo_create(0) as oid');
      await c.query('select lo_put($1, 0, $2)', [oid, Buffer.alloc(1024 * 1024, 1)]);
      await c.query("insert into documents (project_id, name, mime_type, size, sha256, status, content_oid) values ($1, 'half.txt', 'text/plain', 2097152, 'half', 'queued', $2)", [process.env.PROJECT, oid]);
      process.stdout.write('HALFWAY\\n');
      setInterval(() => {}, 1000);
    })().catch((e) => { process.stderr.write(String(e)); process.exit(2); });
  `;
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, DB_URL: t.dbUrl, PROJECT: project.id },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('HALFWAY') && resolve());
    child.on('exit', (code) => reject(new Error(`exited early (${code}): ${err}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  // the server notices the dropped connection and rolls its transaction back
  for (let i = 0; i < 50 && (await sql(`select 1 from pg_stat_activity where state like 'idle in transaction%'`)).length; i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(await largeObjects()).toEqual(before);
  expect((await sql<{ n: number }>('select count(*)::int as n from documents'))[0].n).toBe(docsBefore);
  expect(await t.services.documents.pipeline.sweepOriginals()).toBe(0);
});
