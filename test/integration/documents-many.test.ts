import type { Project, User } from '../../src/entities';
import { chatFactories, factories } from '../support/factories';
import { client } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * documents.listMany: many projects' documents in one read, each project answered as `list` answers
 * it alone (the GraphQL Project.documents loader uses it).
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let c: ReturnType<typeof chatFactories>;
let reader: User & { token: string };
let a: Project;
let b: Project;
let hidden: Project;

const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  c = chatFactories(t.orm, t.services);
  reader = await f.makeUser();
  a = await f.makeProject({ isPrivate: false });
  b = await f.makeProject({ isPrivate: false });
  hidden = await f.makeProject({ isPrivate: true });
  for (const p of [a, a, b, hidden]) await c.makeDocumentChunks({ project: p, chunks: ['some text'] });
});
afterAll(() => t.close());

const actor = () => t.services.tokens.authenticate(reader.token);

it('answers each project as list() does: its documents, or the error a single read gives', async () => {
  const me = await actor();
  const many = await t.services.documents.listMany(me, [a.id, b.id, hidden.id, MISSING, 'not-a-uuid']);
  const ids = (v: unknown) => (v as Array<{ id: string }>).map((d) => d.id);
  expect(ids(many.get(a.id))).toEqual((await t.services.documents.list(me, a.id)).map((d) => d.id));
  expect(ids(many.get(a.id))).toHaveLength(2);
  expect(ids(many.get(b.id))).toHaveLength(1);
  expect(many.get(hidden.id)).toMatchObject({ code: 'forbidden' });
  expect(many.get(MISSING)).toMatchObject({ code: 'not_found' });
  expect(many.get('not-a-uuid')).toMatchObject({ code: 'not_found' });
  await expect(t.services.documents.list(me, hidden.id)).rejects.toMatchObject({ code: 'forbidden' });
});

it('serves the GraphQL Project.documents field for every project of a list', async () => {
  const res = await client(t.baseUrl, reader.token).post('/graphql', {
    query: '{ projects(limit: 100) { items { id documents { id projectId } } } }',
  });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const byId = new Map<string, Array<{ projectId: string }>>(res.body.data.projects.items.map((p: any) => [p.id, p.documents]));
  expect(byId.get(a.id)).toHaveLength(2);
  expect(byId.get(b.id)).toHaveLength(1);
  expect(byId.has(hidden.id)).toBe(false);
  for (const [id, docs] of byId) for (const d of docs) expect(d.projectId).toBe(id);
});
