import { getIntrospectionQuery } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { PUBLIC } from '../../src/transports/graphql/auth-checker';
import { buildGraphqlSchema } from '../../src/transports/graphql/schema';
import { DEFAULT_PASSWORD, factories } from '../support/factories';
import { codes, gql, wsClient, wsCollect } from '../support/graphql';
import { api, client } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const LOGIN = `mutation($input: LoginInput!) { login(input: $input) { accessToken refreshToken user { id email name platformRole orgPosition departmentId avatarColor } } }`;

describe('graphql: every operation declares its authentication', () => {
  it('each query, mutation and subscription is @Authorized (public ones with the PUBLIC role)', async () => {
    await buildGraphqlSchema();
    const storage = getMetadataStorage();
    const ops = [...storage.queries, ...storage.mutations, ...storage.subscriptions];
    expect(ops.length).toBeGreaterThan(0);
    const auth = Object.fromEntries(
      ops.map((op) => [op.schemaName, op.roles === undefined ? 'MISSING' : op.roles.includes(PUBLIC) ? 'public' : 'required']),
    );
    expect(Object.entries(auth).filter(([, mode]) => mode === 'MISSING')).toEqual([]);
    expect(
      Object.entries(auth)
        .filter(([, mode]) => mode === 'public')
        .map(([name]) => name)
        .sort(),
    ).toEqual(['login', 'refresh']);
  });
});

describe('graphql: auth', () => {
  it('login answers not_bootstrapped before bootstrap, like REST', async () => {
    // a server of its own: the file's server is bootstrapped by 'after bootstrap', in whatever order it runs
    const fresh = await createTestApp();
    try {
      const r = await gql(fresh.baseUrl, LOGIN, { variables: { input: { email: 'a@b.c', password: 'whatever1' } } });
      expect(codes(r)).toEqual(['not_bootstrapped']);
    } finally {
      await fresh.close();
    }
  });

  describe('after bootstrap', () => {
    beforeAll(async () => {
      await t.services.bootstrap.bootstrap({ email: 'root@example.com', password: 'rootpassword', name: 'Root' });
    });

    it('me requires authentication; a bad token is unauthorized', async () => {
      const none = await gql(t.baseUrl, '{ me { id } }');
      expect(none.status).toBe(200);
      expect(none.data).toBeNull();
      expect(codes(none)).toEqual(['unauthorized']);
      const bad = await gql(t.baseUrl, '{ me { id } }', { token: 'not-a-jwt' });
      expect(codes(bad)).toEqual(['unauthorized']);
    });

    it('login gives the REST login user and working tokens', async () => {
      const u = await f.makeUser();
      const rest = await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: u.email, password: DEFAULT_PASSWORD } });
      const r = await gql(t.baseUrl, LOGIN, { variables: { input: { email: u.email, password: DEFAULT_PASSWORD } } });
      expect(r.errors).toBeUndefined();
      expect(r.data.login.user).toEqual(rest.body.user);
      const me = await gql(t.baseUrl, '{ me { id email } }', { token: r.data.login.accessToken });
      expect(me.data.me).toEqual({ id: u.id, email: u.email });
    });

    it('a wrong password carries the REST code', async () => {
      const u = await f.makeUser();
      const r = await gql(t.baseUrl, LOGIN, { variables: { input: { email: u.email, password: 'wrong-password' } } });
      expect(codes(r)).toEqual(['Invalid email or password']);
      expect(r.errors![0].extensions!.status).toBe(401);
    });

    it('validates inputs with the REST rules: validation_failed with details', async () => {
      const r = await gql(t.baseUrl, LOGIN, { variables: { input: { email: 'x'.repeat(400), password: 'p' } } });
      expect(codes(r)).toEqual(['validation_failed']);
      expect(r.errors![0].extensions!.details).toEqual([expect.objectContaining({ field: 'email' })]);
      const unknownField = await gql(t.baseUrl, LOGIN, { variables: { input: { email: 'a@b.c', password: 'p', admin: true } } });
      // request errors: 200 under plain application/json (GraphQL over HTTP's rule for that media type)
      expect(unknownField.status).toBe(200);
      expect(codes(unknownField)).toEqual(['validation_failed']);
      const syntax = await gql(t.baseUrl, '{ me { id ');
      expect(syntax.status).toBe(200);
      expect(codes(syntax)).toEqual(['validation_failed']);
    });

    it('refresh rotates; the used token stops working', async () => {
      const u = await f.makeUser();
      const s = (await gql(t.baseUrl, LOGIN, { variables: { input: { email: u.email, password: DEFAULT_PASSWORD } } })).data.login;
      const REFRESH = 'mutation($t: String!) { refresh(input: { refreshToken: $t }) { accessToken refreshToken } }';
      const r1 = await gql(t.baseUrl, REFRESH, { variables: { t: s.refreshToken } });
      expect(r1.errors).toBeUndefined();
      expect(r1.data.refresh.refreshToken).not.toBe(s.refreshToken);
      expect(codes(await gql(t.baseUrl, REFRESH, { variables: { t: s.refreshToken } }))).toEqual(['unauthorized']);
    });

    it('logout requires authentication and revokes the refresh token', async () => {
      const u = await f.makeUser();
      const s = (await gql(t.baseUrl, LOGIN, { variables: { input: { email: u.email, password: DEFAULT_PASSWORD } } })).data.login;
      const LOGOUT = 'mutation($t: String) { logout(input: { refreshToken: $t }) }';
      expect(codes(await gql(t.baseUrl, LOGOUT, { variables: { t: s.refreshToken } }))).toEqual(['unauthorized']);
      const out = await gql(t.baseUrl, LOGOUT, { token: s.accessToken, variables: { t: s.refreshToken } });
      expect(out.data).toEqual({ logout: true });
      const refresh = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: s.refreshToken } });
      expect(refresh.status).toBe(401);
    });

    it('me equals REST /auth/me, and the caller may read the rest of their own user', async () => {
      const dept = await f.makeDepartment();
      const u = await f.makeUser({ department: dept });
      const rest = await client(t.baseUrl, u.token).get('/api/auth/me');
      const fields = Object.keys(rest.body.user).join(' ');
      const r = await gql(t.baseUrl, `{ me { ${fields} } }`, { token: u.token });
      expect(r.data.me).toEqual(rest.body.user);
      const more = await gql(t.baseUrl, '{ me { avatarColor department { id name color } } }', { token: u.token });
      expect(more.errors).toBeUndefined();
      expect(more.data.me).toEqual({ avatarColor: '#abcdef', department: { id: dept.id, name: dept.name, color: dept.color } });
    });

    it('re-reads the user per operation: a deactivated user is refused at once', async () => {
      const u = await f.makeUser();
      expect((await gql(t.baseUrl, '{ me { id } }', { token: u.token })).data.me.id).toBe(u.id);
      await t.orm.em.fork().getConnection().execute(`update users set status = 'inactive' where id = ?`, [u.id]);
      expect(codes(await gql(t.baseUrl, '{ me { id } }', { token: u.token }))).toEqual(['unauthorized']);
    });
  });
});

describe('graphql: operations safety with defaults (development)', () => {
  it('introspection is on and not counted against the depth limit', async () => {
    const r = await gql(t.baseUrl, getIntrospectionQuery());
    expect(r.errors).toBeUndefined();
    expect(r.data.__schema.queryType.name).toBe('Query');
  });

  it('GET /graphql serves our own playground page (no Apollo CDN landing page)', async () => {
    const res = await fetch(`${t.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('/graphql/assets/main.js');
    expect(html).not.toMatch(/apollo|https?:\/\//i);
  });
});

describe('graphql over WebSocket', () => {
  it('refuses a connection without a valid token in connection_init (4403)', async () => {
    let closedWith = 0;
    const c = wsClient(t.baseUrl, 'not-a-token', { onClosed: (code) => (closedWith = code) });
    await expect(wsCollect(c, '{ me { id } }')).rejects.toBeDefined();
    expect(closedWith).toBe(4403);
    await c.dispose();
  });

  it('runs queries with the same context and error codes as HTTP', async () => {
    const u = await f.makeUser();
    const c = wsClient(t.baseUrl, u.token);
    try {
      expect(await wsCollect(c, '{ me { id email } }')).toEqual([{ data: { me: { id: u.id, email: u.email } } }]);
      const invalid = await wsCollect(c, '{ me { nope } }');
      expect(codes(invalid[0])).toEqual(['validation_failed']);
    } finally {
      await c.dispose();
    }
  });
});
