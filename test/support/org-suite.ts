import { randomBytes } from 'node:crypto';
import type { User } from '../../src/entities';
import { factories } from './factories';
import { api, client } from './http';
import { createTestApp, TestApp } from './test-app';

/** The organisation suites' callers: one of each role and position, from `makeCast()`. */
export type Who = 'member' | 'manager' | 'otherManager' | 'engineer' | 'admin' | 'superadmin' | 'ceo';
export const WHO: Who[] = ['member', 'manager', 'otherManager', 'engineer', 'admin', 'superadmin', 'ceo'];
export type Caller = User & { token: string };
type Factories = ReturnType<typeof factories>;
type Cast = Awaited<ReturnType<Factories['makeCast']>>;

export const tag = (): string => randomBytes(4).toString('hex');

/** What an organisation suite (departments, groups) works with; valid once its beforeAll has run. */
export interface OrgSuite {
  readonly t: TestApp;
  readonly f: Factories;
  readonly cast: Cast;
  /** A client signed in as `u`. */
  as(u: { token: string }): ReturnType<typeof client>;
  /** Raw SQL, to read what the API does not show. */
  sql<T = any>(query: string, params?: unknown[]): Promise<T[]>;
}

/** A test app with its factories and the cast, made before the suite's tests and closed after them. */
export function orgSuite(): OrgSuite {
  const s = {} as { t: TestApp; f: Factories; cast: Cast };
  beforeAll(async () => {
    s.t = await createTestApp();
    s.f = factories(s.t.orm, s.t.services);
    s.cast = await s.f.makeCast();
  });
  afterAll(async () => s.t?.close());
  return {
    get t() {
      return s.t;
    },
    get f() {
      return s.f;
    },
    get cast() {
      return s.cast;
    },
    as: (u) => client(s.t.baseUrl, u.token),
    sql: (query, params = []) => s.t.orm.em.fork().getConnection().execute(query, params),
  };
}

/** Every endpoint answers 401 without a bearer token (spec: "requires authentication" comes first). */
export function requiresAuthentication(suite: OrgSuite, endpoints: Array<[string, string, unknown]>): void {
  describe('authentication', () => {
    it.each(endpoints)('%s %s requires authentication', async (method, path, body) => {
      expect((await api(suite.t.baseUrl, method, path, { body })).status).toBe(401);
    });
  });
}

/**
 * An authorization matrix, one describe per operation: each caller of WHO either passes (200/201)
 * or is refused with 403 `forbidden`. `perform` runs the operation as that caller.
 */
export function authorizationMatrix(
  suite: OrgSuite,
  matrix: Array<[string, Who[]]>,
  perform: (op: string, caller: Caller) => Promise<{ status: number; body: any }>,
): void {
  for (const [op, allowed] of matrix) {
    describe(op, () => {
      it.each(WHO.map((w) => [w, allowed.includes(w)] as const))('%s allowed: %s', async (who, ok) => {
        const res = await perform(op, suite.cast[who]);
        if (ok) expect([200, 201]).toContain(res.status);
        else {
          expect(res.status).toBe(403);
          expect(res.body.error).toBe('forbidden');
        }
      });
    });
  }
}
