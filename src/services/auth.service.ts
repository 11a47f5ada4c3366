import bcrypt from 'bcrypt';
import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Semaphore } from '../util/semaphore';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import type { Actor } from '../access/actor';
import { RefreshToken, User } from '../entities';
import { RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '../errors';
import type { LoginOutcome } from '../observability/metrics';
import { presentLoginUser } from '../presenters/user.presenter';
import { BaseService, ServiceContext } from './context';
import type { DeploymentSecrets } from './deployment-secrets';
import type { LoginInput } from './auth.inputs';
import { LoginLimiter } from './rate-limiter';
import { isUuid } from '../validation';

export const ACCESS_TTL_SECONDS = 15 * 60;
export const REFRESH_TTL_SECONDS = 7 * 24 * 3600;
export const BCRYPT_COST = 10;
const INVALID_LOGIN = 'Invalid email or password';

/** The spec's access token: `sub`, `iat`, `exp` (HS256); ours add nothing else. */
interface AccessClaims {
  sub: string;
  typ?: 'access';
}
interface RefreshClaims {
  sub: string;
  typ: 'refresh';
  jti: string;
  fam: string;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

// a named (server-side prepared) statement: parsed and planned once per connection
const AUTH_QUERY = {
  name: 'docqa_authenticate',
  text: `select id, email, name, platform_role, org_position, department_id, status, avatar_color, avatar_url, last_login_at, created_at
           from users where id = $1`,
};
const LOGIN_QUERY = {
  name: 'docqa_login_user',
  text: `select id, email, name, password_hash, platform_role, org_position, department_id, avatar_color, status
           from users where email = $1`,
};
const RECORD_LOGIN = {
  name: 'docqa_record_login',
  text: `with touched as (update users set last_login_at = now() where id = $1)
         insert into refresh_tokens (id, user_id, family_id, expires_at) values ($2, $1, $3, now() + interval '${REFRESH_TTL_SECONDS} seconds')`,
};
interface LoginRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  platform_role: Actor['platformRole'];
  org_position: Actor['orgPosition'];
  department_id: string | null;
  avatar_color: string;
  status: Actor['status'];
}
interface ActorRow {
  id: string;
  email: string;
  name: string;
  platform_role: Actor['platformRole'];
  org_position: Actor['orgPosition'];
  department_id: string | null;
  status: Actor['status'];
  avatar_color: string;
  avatar_url: string | null;
  last_login_at: Date | null;
  created_at: Date;
}

/**
 * At most one bcrypt operation per core at a time: more only queues inside libuv's pool and
 * starves the event loop (and everyone else's requests) during a login storm.
 */
const bcryptSlots = new Semaphore(Math.max(1, availableParallelism()));
const compare = (password: string, hash: string): Promise<boolean> => bcryptSlots.run(() => bcrypt.compare(password, hash));

/** The metrics label of a failed login. */
function loginOutcome(e: unknown): LoginOutcome {
  if (e instanceof RateLimitedError) return 'rate_limited';
  if (e instanceof UnauthorizedError) return 'invalid_credentials';
  if (e instanceof ServiceUnavailableError) return 'not_bootstrapped';
  return 'error';
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** bcrypt runs on libuv's thread pool, so hashing never blocks the event loop. */
export const hashPassword = (password: string): Promise<string> => bcryptSlots.run(() => bcrypt.hash(password, BCRYPT_COST));

export class AuthService extends BaseService {
  private limiterInstance: LoginLimiter | null = null;
  /** Compared against when the email is unknown, so both paths cost one bcrypt compare. */
  private dummyHash: Promise<string>;
  private bootstrapped = false;
  /** Built once: given a string, jsonwebtoken re-derives a key object on every sign and verify. */
  private keyObject: KeyObject | null = null;

  constructor(
    ctx: ServiceContext,
    private readonly secrets: DeploymentSecrets,
  ) {
    super(ctx);
    this.dummyHash = hashPassword(randomUUID());
  }

  /** The deployment's JWT secret (JWT_SECRET or the one stored in the database). */
  private get key(): KeyObject {
    return (this.keyObject ??= createSecretKey(Buffer.from(this.secrets.jwtSecret, 'utf8')));
  }

  /** Login limits shared by every node (counters in PostgreSQL). */
  private get limiter(): LoginLimiter {
    return (this.limiterInstance ??= new LoginLimiter(this.authPool(), {
      perIp: this.config.loginRateLimitPerIp,
      perAccount: this.config.loginRateLimitPerAccount,
    }));
  }

  private async isBootstrapped(): Promise<boolean> {
    if (this.bootstrapped) return true;
    const count = await this.em().count(User, { platformRole: 'superadmin' });
    this.bootstrapped = count > 0;
    return this.bootstrapped;
  }

  /** POST /auth/login (and the GraphQL mutation); every attempt's outcome is counted for metrics. */
  async login(input: LoginInput, ip: string) {
    try {
      const result = await this.attemptLogin(input, ip);
      this.metrics.loginAttempts.inc({ outcome: 'success' });
      return result;
    } catch (e) {
      this.metrics.loginAttempts.inc({ outcome: loginOutcome(e) });
      throw e;
    }
  }

  private async attemptLogin(input: LoginInput, ip: string) {
    if (!(await this.isBootstrapped())) throw new ServiceUnavailableError('not_bootstrapped', 'The platform has not been bootstrapped yet');
    const email = normalizeEmail(input.email);
    await this.limiter.beforeAttempt(email, ip);
    // hot path under a login storm: two prepared statements, no ORM unit of work
    const pool = this.authPool();
    const { rows } = await pool.query<LoginRow>({ ...LOGIN_QUERY, values: [email] });
    const user = rows[0];
    const ok = await compare(input.password, user?.password_hash ?? (await this.dummyHash));
    if (!user || !ok || user.status !== 'active') {
      await this.limiter.failed(email, ip);
      throw new UnauthorizedError(INVALID_LOGIN, INVALID_LOGIN);
    }
    await this.limiter.succeeded(email, ip);
    const jti = randomUUID();
    const familyId = randomUUID();
    const refreshToken = this.signRefresh(user.id, familyId, jti);
    // one statement: the login time and the refresh token record are written atomically
    await pool.query({ ...RECORD_LOGIN, values: [user.id, jti, familyId] });
    // spec: exactly {user, accessToken, refreshToken} (the token's jti stays server-side)
    const fields = {
      id: user.id,
      email: user.email,
      name: user.name,
      platformRole: user.platform_role,
      orgPosition: user.org_position,
      departmentId: user.department_id,
      avatarColor: user.avatar_color,
    };
    return { user: presentLoginUser(fields), accessToken: this.signAccess(user.id), refreshToken };
  }

  private signRefresh(userId: string, familyId: string, jti: string): string {
    return jwt.sign({ typ: 'refresh', fam: familyId }, this.key, {
      algorithm: 'HS256',
      subject: userId,
      jwtid: jti,
      expiresIn: REFRESH_TTL_SECONDS,
    });
  }

  /** Signs a 15-minute access token for a user (also used by tests and benchmarks): `sub`, `iat`, `exp`. */
  signAccess(userId: string): string {
    return jwt.sign({}, this.key, { algorithm: 'HS256', subject: userId, expiresIn: ACCESS_TTL_SECONDS });
  }

  private async issueTokens(
    em: ReturnType<BaseService['em']>,
    userId: string,
    familyId: string,
    jti = randomUUID(),
  ): Promise<TokenPair & { jti: string }> {
    const refreshToken = this.signRefresh(userId, familyId, jti);
    em.create(RefreshToken, {
      id: jti,
      user: em.getReference(User, userId),
      familyId,
      expiresAt: new Date(Date.now() + REFRESH_TTL_SECONDS * 1000),
    });
    await em.flush();
    return { accessToken: this.signAccess(userId), refreshToken, jti };
  }

  private verify<T extends AccessClaims | RefreshClaims>(token: string, typ: T['typ']): T {
    let claims: jwt.JwtPayload | string;
    try {
      claims = jwt.verify(token, this.key, { algorithms: ['HS256'] });
    } catch {
      throw new UnauthorizedError(
        'unauthorized',
        typ === 'refresh' ? 'Refresh token expired or invalid' : 'Access token expired or invalid',
      );
    }
    // refresh tokens carry the marker (typ "refresh", jti): never accepted as access tokens; an
    // access token needs only the spec's sub, iat, exp (a typ, if any, must say "access")
    const isAccess =
      typeof claims === 'object' &&
      (claims.typ === undefined || claims.typ === 'access') &&
      claims.fam === undefined &&
      typeof claims.exp === 'number';
    const isRefresh = typeof claims === 'object' && claims.typ === 'refresh' && typeof claims.jti === 'string';
    if (typeof claims !== 'object' || typeof claims.sub !== 'string' || !(typ === 'access' ? isAccess : isRefresh)) {
      throw new UnauthorizedError('unauthorized', `Not an ${typ} token`);
    }
    return claims as unknown as T;
  }

  /** Rotates a refresh token: the used one stops working; reusing a rotated one revokes its family. */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const claims = this.verify<RefreshClaims>(refreshToken, 'refresh');
    if (!isUuid(claims.jti) || !isUuid(claims.fam)) throw new UnauthorizedError();
    const invalid = () => new UnauthorizedError('unauthorized', 'Refresh token expired or invalid');
    const nextJti = randomUUID();
    const outcome = await this.em().transactional(async (em) => {
      // conditional update: of two concurrent refreshes with the same token exactly one wins
      const rows: Array<{ user_id: string }> = await em.execute(
        `update refresh_tokens set revoked_at = now(), replaced_by = ?
          where id = ? and revoked_at is null and expires_at > now() returning user_id`,
        [nextJti, claims.jti],
      );
      if (rows.length === 0) return { reused: true as const };
      const user = await em.findOne(User, { id: rows[0].user_id });
      if (!user || user.status !== 'active') throw invalid();
      const { accessToken, refreshToken: next } = await this.issueTokens(em, user.id, claims.fam, nextJti);
      return { reused: false as const, tokens: { accessToken, refreshToken: next } };
    });
    if (!outcome.reused) return outcome.tokens;
    // not rotatable: if it was already rotated, assume it leaked and revoke the whole family
    // (outside the failed transaction, so the revocation sticks)
    const em = this.em();
    const rec = await em.findOne(RefreshToken, { id: claims.jti });
    if (rec?.replacedBy) {
      await em.execute(`update refresh_tokens set revoked_at = now() where family_id = ? and revoked_at is null`, [rec.familyId]);
    }
    throw invalid();
  }

  /** With a token: revokes that token (if it is the caller's). Without: all of the caller's tokens. */
  async logout(actor: Actor, refreshToken?: string): Promise<void> {
    const conn = this.em();
    if (refreshToken) {
      let claims: RefreshClaims;
      try {
        claims = this.verify<RefreshClaims>(refreshToken, 'refresh');
      } catch {
        return; // an invalid token is already unusable
      }
      await conn.execute(`update refresh_tokens set revoked_at = now() where id = ? and user_id = ? and revoked_at is null`, [
        claims.jti,
        actor.id,
      ]);
      return;
    }
    await conn.execute(`update refresh_tokens set revoked_at = now() where user_id = ? and revoked_at is null`, [actor.id]);
  }

  /** Verifies an access token and re-reads its user; role changes apply at once, inactive users are rejected. */
  async authenticate(token: string): Promise<Actor> {
    const claims = this.verify<AccessClaims>(token, 'access');
    if (!isUuid(claims.sub)) throw new UnauthorizedError();
    // hot path (every request): one prepared indexed read on a small pool of its own, no ORM
    const { rows } = await this.authPool().query<ActorRow>({ ...AUTH_QUERY, values: [claims.sub] });
    const u = rows[0];
    if (!u || u.status !== 'active') throw new UnauthorizedError('unauthorized', 'User not found or inactive');
    return {
      id: u.id,
      email: u.email,
      name: u.name,
      platformRole: u.platform_role,
      orgPosition: u.org_position,
      departmentId: u.department_id,
      status: u.status,
      avatarColor: u.avatar_color,
      avatarUrl: u.avatar_url,
      lastLoginAt: u.last_login_at,
      createdAt: u.created_at,
    };
  }

  private pool: pg.Pool | null = null;

  private authPool(): pg.Pool {
    if (!this.pool) {
      this.pool = new pg.Pool({
        connectionString: this.ctx.orm.config.get('clientUrl'),
        max: 4,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 5_000,
      });
      // an idle connection dropped by the server (restart) must not crash the process
      this.pool.on('error', (e) => this.logger.warn({ err: e }, 'auth pool connection error'));
    }
    return this.pool;
  }

  /** The authentication pool's connection counts (for metrics), or null before its first use. */
  poolStats(): { totalCount: number; idleCount: number; waitingCount: number } | null {
    return this.pool;
  }

  /** Closes the authentication pool (shutdown). */
  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    if (p) await p.end();
  }

  /** Parses `Authorization: Bearer <token>` (or a graphql-ws connection_init value). */
  async authenticateHeader(header: unknown): Promise<Actor> {
    if (typeof header !== 'string') throw new UnauthorizedError('unauthorized', 'Missing bearer token');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new UnauthorizedError('unauthorized', 'Missing bearer token');
    return this.authenticate(m[1]);
  }
}
