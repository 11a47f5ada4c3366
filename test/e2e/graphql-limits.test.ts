import { getIntrospectionQuery } from 'graphql';
import { factories } from '../support/factories';
import { codes, gql, wsClient, wsCollect } from '../support/graphql';
import { createTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let f: ReturnType<typeof factories>;

// a production-like configuration: no introspection or playground, tight limits
beforeAll(async () => {
  t = await createTestApp({
    env: { GRAPHQL_INTROSPECTION: 'false', GRAPHQL_PLAYGROUND: 'false', GRAPHQL_MAX_DEPTH: '1', GRAPHQL_MAX_COST: '1' },
  });
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

describe('graphql limits', () => {
  it('rejects a query deeper than GRAPHQL_MAX_DEPTH with query_too_deep', async () => {
    const u = await f.makeUser();
    expect((await gql(t.baseUrl, '{ me { id } }', { token: u.token })).errors).toBeUndefined();
    const deep = await gql(t.baseUrl, '{ me { department { id } } }', { token: u.token });
    // a request error: 200 under plain application/json (GraphQL over HTTP), 400 under graphql-response+json
    expect(deep.status).toBe(200);
    expect(codes(deep)).toEqual(['query_too_deep']);
    expect(deep.errors![0].extensions).toMatchObject({ limit: 1, actual: 2 });
  });

  it('counts depth through fragments', async () => {
    const u = await f.makeUser();
    const r = await gql(t.baseUrl, 'fragment D on User { department { id } } { me { ...D } }', { token: u.token });
    expect(codes(r)).toEqual(['query_too_deep']);
  });

  it('rejects a query costlier than GRAPHQL_MAX_COST with query_too_costly', async () => {
    const u = await f.makeUser();
    // two objects (me twice under aliases) cost 2 > 1
    const r = await gql(t.baseUrl, '{ a: me { id } b: me { id } }', { token: u.token });
    expect(r.status).toBe(200);
    expect(codes(r)).toEqual(['query_too_costly']);
  });

  it('applies the same limits over WebSocket', async () => {
    const u = await f.makeUser();
    const c = wsClient(t.baseUrl, u.token);
    try {
      expect(codes((await wsCollect(c, '{ me { department { id } } }'))[0])).toContain('query_too_deep');
      expect(codes((await wsCollect(c, '{ a: me { id } b: me { id } }'))[0])).toEqual(['query_too_costly']);
      const introspection = (await wsCollect(c, '{ __schema { queryType { name } } }'))[0];
      // introspection also meets the depth and cost limits now
      expect(codes(introspection)).toContain('validation_failed');
      expect(introspection.errors!.find((e) => e.extensions?.code === 'validation_failed')!.message).toMatch(/introspection/i);
    } finally {
      await c.dispose();
    }
  });

  it('introspection can be turned off', async () => {
    const r = await gql(t.baseUrl, getIntrospectionQuery());
    expect(r.data).toBeUndefined();
    expect(codes(r)).toContain('validation_failed');
    expect(r.errors!.find((e) => e.extensions?.code === 'validation_failed')!.message).toMatch(/introspection/i);
  });

  it('the playground can be turned off', async () => {
    const res = await fetch(`${t.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
  });
});
