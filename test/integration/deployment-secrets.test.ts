import jwt from 'jsonwebtoken';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createOrm } from '../../src/db/orm';
import { createLogger } from '../../src/logger';
import { compose } from '../../src/composition';
import { existingDatabase } from '../../src/db/database';
import type { Services } from '../../src/services';
import { DEFAULT_PASSWORD, factories } from '../support/factories';
import { client } from '../support/http';
import { startOpenAiStub } from '../support/openai-stub';
import { createTestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';

/** Issue 13 items 4 and 6: one secret per deployment (in the database), a separate key-encryption key, spec-minimal tokens. */
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'docqa-secrets-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A process's services on `url` (what a node or worker builds at start), with its own DATA_DIR. */
async function node(url: string, env: Record<string, string>): Promise<{ services: Services; close(): Promise<void> }> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: url, LOG_LEVEL: 'silent', ...env });
  const orm = await createOrm(url, { poolMax: 3 });
  const node = await compose(config, { role: 'cli', overrides: { database: existingDatabase(url, orm), logger: createLogger('silent') } });
  await node.start();
  return { services: node.services, close: () => node.stop() };
}

describe('JWT secret and encryption key without the environment', () => {
  it('are generated once into the database: nodes with different DATA_DIRs agree, and DATA_DIR stays empty', async () => {
    const db = await createTestDatabase();
    const dirA = tmp();
    const dirB = tmp();
    // started together, as a deployment's nodes are
    const [a, b] = await Promise.all([node(db.url, { DATA_DIR: dirA }), node(db.url, { DATA_DIR: dirB })]);
    try {
      expect(a.services.secrets.jwtSecret).toBe(b.services.secrets.jwtSecret);
      expect(a.services.secrets.jwtSecret.length).toBeGreaterThanOrEqual(32);
      const token = a.services.tokens.signAccess((await factories(a.services.ctx.orm, a.services).superadmin()).id);
      await expect(b.services.tokens.authenticate(token)).resolves.toMatchObject({ platformRole: 'superadmin' });
      expect(readdirSync(dirA)).toEqual([]);
      expect(readdirSync(dirB)).toEqual([]);
      const rows = await a.services.ctx.orm.em.fork().getConnection().execute(`select key from settings order by key`);
      expect(rows.map((r: any) => r.key)).toEqual(['encryption_key', 'jwt_secret']);
    } finally {
      await a.close();
      await b.close();
      await db.drop();
    }
  });

  it('a JWT secret an earlier version generated into DATA_DIR is adopted (its tokens stay valid) and the file removed', async () => {
    const db = await createTestDatabase();
    const dir = tmp();
    writeFileSync(path.join(dir, 'jwt-secret'), 'the-old-generated-secret-0123456789\n', { mode: 0o600 });
    const n = await node(db.url, { DATA_DIR: dir });
    try {
      expect(n.services.secrets.jwtSecret).toBe('the-old-generated-secret-0123456789');
      expect(existsSync(path.join(dir, 'jwt-secret'))).toBe(false);
    } finally {
      await n.close();
      await db.drop();
    }
  });

  it('production still requires JWT_SECRET (one line naming the variable); ENCRYPTION_KEY may be left to the database', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: 'k'.repeat(20) })).toThrow(/JWT_SECRET is required/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's'.repeat(20) }).encryptionKey).toBeNull();
  });
});

describe('rotating JWT_SECRET keeps provider keys readable (they use ENCRYPTION_KEY)', () => {
  it('a provider key stored before the rotation is still sent after it; another ENCRYPTION_KEY cannot read it', async () => {
    const stub = await startOpenAiStub();
    const db = await createTestDatabase();
    const before = await node(db.url, { JWT_SECRET: 'jwt-secret-before-rotation', ENCRYPTION_KEY: 'the-encryption-key-0001' });
    let id: string;
    try {
      const root = await factories(before.services.ctx.orm, before.services).superadmin();
      const engineer = await before.services.tokens.authenticate(root.token);
      id = (
        await before.services.providers.create(engineer, {
          name: 'P',
          slug: 'p',
          baseUrl: stub.url,
          apiKey: 'sk-survives-rotation',
          models: ['m'],
        })
      ).id;
    } finally {
      await before.close();
    }
    const after = await node(db.url, { JWT_SECRET: 'jwt-secret-after-rotation', ENCRYPTION_KEY: 'the-encryption-key-0001' });
    const wrongKey = await node(db.url, { JWT_SECRET: 'jwt-secret-after-rotation', ENCRYPTION_KEY: 'another-encryption-key-02' });
    try {
      const root = await factories(after.services.ctx.orm, after.services).superadmin();
      const actor = await after.services.tokens.authenticate(root.token);
      expect(await after.services.providers.test(actor, id, { model: 'm' })).toMatchObject({ ok: true });
      expect(stub.last().authorization).toBe('Bearer sk-survives-rotation');
      expect(await wrongKey.services.providers.test(actor, id, { model: 'm' })).toMatchObject({
        ok: false,
        error: expect.stringMatching(/ENCRYPTION_KEY/),
      });
    } finally {
      await after.close();
      await wrongKey.close();
      await db.drop();
      await stub.close();
    }
  });
});

describe('access tokens', () => {
  it("a token with exactly the spec's claims (sub, iat, exp; HS256) is accepted; refresh tokens and exp-less tokens are not", async () => {
    const t = await createTestApp();
    try {
      const tf = factories(t.orm, t.services);
      await tf.superadmin();
      const u = await tf.makeUser();
      const secret = t.services.secrets.jwtSecret;
      const now = Math.floor(Date.now() / 1000);
      const minimal = jwt.sign({ sub: u.id, iat: now, exp: now + 600 }, secret, { algorithm: 'HS256' });
      expect(Object.keys(jwt.decode(minimal) as object).sort()).toEqual(['exp', 'iat', 'sub']);
      expect((await client(t.baseUrl, minimal).get('/api/auth/me')).status).toBe(200);
      // ours are spec-minimal too
      expect(Object.keys(jwt.decode(t.services.tokens.signAccess(u.id)) as object).sort()).toEqual(['exp', 'iat', 'sub']);
      const login = await client(t.baseUrl).post('/api/auth/login', { email: u.email, password: DEFAULT_PASSWORD });
      expect(login.status).toBe(200);
      expect((jwt.decode(login.body.refreshToken) as { typ: string }).typ).toBe('refresh');
      expect((await client(t.baseUrl, login.body.refreshToken).get('/api/auth/me')).status).toBe(401);
      expect((await client(t.baseUrl, login.body.accessToken).get('/api/auth/me')).status).toBe(200);
      const forever = jwt.sign({ sub: u.id, iat: now }, secret, { algorithm: 'HS256' });
      expect((await client(t.baseUrl, forever).get('/api/auth/me')).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
