import { createHash } from 'node:crypto';
import { api } from '../support/http';
import { factories } from '../support/factories';
import { codes } from '../support/graphql';
import { createTestApp, TestApp } from '../support/test-app';

/** Apollo automatic persisted queries (sha256 protocol) in a cache bounded by GRAPHQL_APQ_CACHE_SIZE. */
let t: TestApp;
let f: ReturnType<typeof factories>;
beforeAll(async () => {
  t = await createTestApp({ env: { GRAPHQL_APQ_CACHE_SIZE: '2' } });
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const sha = (q: string) => createHash('sha256').update(q).digest('hex');
const ext = (q: string) => ({ persistedQuery: { version: 1, sha256Hash: sha(q) } });

describe('automatic persisted queries', () => {
  it('hash alone → PERSISTED_QUERY_NOT_FOUND; hash + query registers; then the hash alone runs it, by POST and GET', async () => {
    const u = await f.makeUser();
    const q = `{ me { id email } }`;
    const miss = await api<any>(t.baseUrl, 'POST', '/graphql', { token: u.token, body: { extensions: ext(q) } });
    expect(miss.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const reg = await api<any>(t.baseUrl, 'POST', '/graphql', { token: u.token, body: { query: q, extensions: ext(q) } });
    expect(reg.body.data.me).toEqual({ id: u.id, email: u.email });
    const hit = await api<any>(t.baseUrl, 'POST', '/graphql', { token: u.token, body: { extensions: ext(q) } });
    expect(hit.body.data.me).toEqual({ id: u.id, email: u.email });
    const get = await api<any>(t.baseUrl, 'GET', `/graphql?extensions=${encodeURIComponent(JSON.stringify(ext(q)))}`, { token: u.token });
    expect(get.body.data.me.id).toBe(u.id);
  });

  it('a hash that does not match the query is refused', async () => {
    const r = await api<any>(t.baseUrl, 'POST', '/graphql', { body: { query: '{ __typename }', extensions: ext('{ other }') } });
    expect(r.body.errors[0].message).toMatch(/sha does not match/i);
    expect(r.body.data).toBeUndefined();
  });

  it('the cache is bounded: the least recently used entry is evicted', async () => {
    const queries = ['{ a: __typename }', '{ b: __typename }', '{ c: __typename }'];
    for (const q of queries) {
      expect((await api<any>(t.baseUrl, 'POST', '/graphql', { body: { query: q, extensions: ext(q) } })).body.data).toBeDefined();
    }
    const first = await api<any>(t.baseUrl, 'POST', '/graphql', { body: { extensions: ext(queries[0]) } });
    expect(first.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const last = await api<any>(t.baseUrl, 'POST', '/graphql', { body: { extensions: ext(queries[2]) } });
    expect(codes(last.body)).toEqual([]);
    expect(last.body.data).toEqual({ c: 'Query' });
  });
});
