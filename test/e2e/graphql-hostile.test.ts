import WebSocket from 'ws';
import { getIntrospectionQuery } from 'graphql';
import { api } from '../support/http';
import { factories } from '../support/factories';
import { codes, gql } from '../support/graphql';
import { createTestApp, TestApp } from '../support/test-app';

/** The hostile operations of issue 14, each against the default limits (GraphQL answers 200 + code under application/json). */
let t: TestApp;
let f: ReturnType<typeof factories>;
beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const aliases = (n: number, field: string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

describe('limits that hold', () => {
  it('4,000 aliases of a top-level field are refused (query_too_complex), as is a wide operation', async () => {
    const u = await f.makeUser();
    // 4,000 (40,000 tokens) stops at the parser's token limit
    const r = await gql(t.baseUrl, aliases(4000, 'projects(limit: 1) { total }'), { token: u.token });
    expect(codes(r)).toEqual(['validation_failed']);
    expect(r.errors![0].message).toMatch(/more th\w+ 10000 tokens/);
    expect(r.data).toBeUndefined();
    // 900 (9,000 tokens) parse, and meet the alias cap before validation
    const r900 = await gql(t.baseUrl, aliases(900, 'projects(limit: 1) { total }'), { token: u.token });
    expect(codes(r900)).toEqual(['query_too_complex']);
    expect(r900.errors![0].extensions).toMatchObject({ limit: 30, actual: 900 });
    // under the alias cap but over the root-field cap
    const wide = await gql(t.baseUrl, aliases(25, 'me { id }'), { token: u.token });
    expect(codes(wide)).toEqual(['query_too_complex']);
    expect(wide.errors![0].extensions).toMatchObject({ limit: 20, actual: 25 });
    // the strict media type gets the 400
    const strict = await api(t.baseUrl, 'POST', '/graphql', {
      token: u.token,
      body: { query: aliases(4000, 'me { id }') },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(strict.status).toBe(400);
    expect(await gql(t.baseUrl, aliases(10, 'projects(limit: 1) { total }'), { token: u.token })).toMatchObject({
      status: 200,
      errors: undefined,
    });
  });

  it('a field repeated 700 times in one selection set is refused before graphql-js validation (quadratic) runs', async () => {
    const u = await f.makeUser();
    const started = Date.now();
    const r = await gql(t.baseUrl, `{ me { ${'department { id } '.repeat(700)} } }`, { token: u.token });
    expect(codes(r)).toEqual(['query_too_complex']);
    expect(r.errors![0].extensions).toMatchObject({ limit: 20, actual: 700 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a variable default counts at its value', async () => {
    const u = await f.makeUser();
    const r = await gql(t.baseUrl, 'query($n: Int! = 100000) { projects(limit: $n) { items { id } } }', { token: u.token });
    expect(codes(r)).toEqual(['query_too_costly']);
  });

  it("introspection obeys depth and cost; GraphiQL's own introspection query still works", async () => {
    // anonymous, as in the report: nesting fields/type past the depth limit
    const deep = `{ __schema { types { ${'fields { type { '.repeat(5)}name${' } }'.repeat(5)} } } }`;
    expect(codes(await gql(t.baseUrl, deep))).toContain('query_too_deep');
    // 4 aliases per level: refused before anything is resolved
    let level = 'name';
    for (let i = 0; i < 4; i += 1) level = ['a', 'b', 'c', 'd'].map((a) => `${a}: fields { ${a}t: type { ${level} } }`).join(' ');
    const wide = await gql(t.baseUrl, `{ __type(name: "Query") { ${level} } }`);
    expect(codes(wide)).toEqual(expect.arrayContaining(['query_too_complex']));
    const ok = await gql(t.baseUrl, getIntrospectionQuery({ inputValueDeprecation: true, schemaDescription: true }));
    expect(ok.errors).toBeUndefined();
    expect(ok.data.__schema.types.length).toBeGreaterThan(20);
  });

  it('POST /graphql is bounded by MAX_BODY_KB for every caller (413 payload_too_large)', async () => {
    const u = await f.makeUser();
    const big = 'x'.repeat(1100 * 1024);
    const r = await api(t.baseUrl, 'POST', '/graphql', { token: u.token, body: { query: '{ me { id } }', variables: { pad: big } } });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('graphql-ws: a frame over GRAPHQL_WS_INIT_MAX_KB before connection_init is accepted closes the socket (1009), unparsed', async () => {
    const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer x', pad: 'y'.repeat(64 * 1024) } }));
    expect(await closed).toBe(1009);
  });

  it('graphql-ws: after a valid connection_init frames up to MAX_BODY_KB pass, larger ones close the socket (1009)', async () => {
    const u = await f.makeUser();
    const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: Array<{ type: string; id?: string; payload?: unknown }> = [];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- text frames arrive as a Buffer, whose String() is the UTF-8 text
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${u.token}` } }));
    const waitFor = async (pred: () => boolean) => {
      for (let i = 0; i < 200 && !pred(); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(pred()).toBe(true);
    };
    await waitFor(() => messages.some((m) => m.type === 'connection_ack'));
    ws.send(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ me { id } }', variables: { pad: 'z'.repeat(200 * 1024) } } }),
    );
    await waitFor(() => messages.some((m) => m.type === 'complete' && m.id === '1'));
    expect(messages.find((m) => m.type === 'next')).toMatchObject({ payload: { data: { me: { id: u.id } } } });
    ws.send(
      JSON.stringify({ id: '2', type: 'subscribe', payload: { query: '{ me { id } }', variables: { pad: 'z'.repeat(1100 * 1024) } } }),
    );
    expect(await closed).toBe(1009);
  });
});
