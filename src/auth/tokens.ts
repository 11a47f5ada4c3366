import { createSecretKey, KeyObject, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Actor, actorFromRow } from '../access/actor';
import { requireNotKey } from '../access/keys';
import { RefreshToken, User } from '../entities';
import { UnauthorizedError } from '../errors';
import { BaseService, ServiceContext } from '../db/service-context';
import type { DeploymentSecrets } from './deployment-secrets';
import { isUuid } from '../validation';
import { KEY_PREFIX, KeyAuth } from './api-keys';
import type { AuthPool } from './pool';
import { UserReads } from './user-reads';
import { VerifiedTokens } from './verified-tokens';
import { query } from '../db/sql';

/** The client's address, or how to find it (only a key's use needs it: a JWT's does not pay for it). */
export type ClientAddress = string | undefined | (() => string | undefined);

export const ACCESS_TTL_SECONDS = 15 * 60;
export const REFRESH_TTL_SECONDS = 7 * 24 * 3600;

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

// named (server-side prepared) statements: parsed and planned once per connection
const RECORD_LOGIN = {
  name: 'docqa_record_login',
  text: `with touched as (update users set last_login_at = now() where id = $1)
         insert into refresh_tokens (id, user_id, family_id, expires_at) values ($2, $1, $3, now() + interval '${REFRESH_TTL_SECONDS} seconds')`,
};

/**
 * Access and refresh tokens: signing, verifying, and refresh-token families (decision 0002). A
 * login starts a family; each refresh rotates within it; reusing a rotated token revokes the
 * whole family.
 */
export class Tokens extends BaseService {
  /** Built once: given a string, jsonwebtoken re-derives a key object on every sign and verify. */
  private keyObject: KeyObject | null = null;
  private readonly keys: KeyAuth;
  private readonly users: UserReads;
  /** Access tokens already verified here (until their `exp`): a repeat skips decode and HMAC. */
  private readonly verified = new VerifiedTokens<AccessClaims & { exp: number }>();

  constructor(
    ctx: ServiceContext,
    private readonly secrets: DeploymentSecrets,
    private readonly pool: AuthPool,
  ) {
    super(ctx);
    this.keys = new KeyAuth(pool, ctx.config.keyRateLimitPerMinute);
    this.users = new UserReads(pool);
  }

  /** The deployment's JWT secret (JWT_SECRET or the one stored in the database). */
  private get key(): KeyObject {
    return (this.keyObject ??= createSecretKey(Buffer.from(this.secrets.jwtSecret, 'utf8')));
  }

  /** Signs a 15-minute access token for a user (also used by tests and benchmarks): `sub`, `iat`, `exp`. */
  signAccess(userId: string): string {
    return jwt.sign({}, this.key, { algorithm: 'HS256', subject: userId, expiresIn: ACCESS_TTL_SECONDS });
  }

  private signRefresh(userId: string, familyId: string, jti: string): string {
    return jwt.sign({ typ: 'refresh', fam: familyId }, this.key, {
      algorithm: 'HS256',
      subject: userId,
      jwtid: jti,
      expiresIn: REFRESH_TTL_SECONDS,
    });
  }

  /** A login's tokens: a new family, recorded together with the user's login time. */
  async startFamily(userId: string): Promise<TokenPair> {
    const jti = randomUUID();
    const familyId = randomUUID();
    const refreshToken = this.signRefresh(userId, familyId, jti);
    // hot path under a login storm: one prepared statement on the auth pool, no ORM unit of work;
    // the login time and the refresh token record are written atomically
    await this.pool.get().query({ ...RECORD_LOGIN, values: [userId, jti, familyId] });
    return { accessToken: this.signAccess(userId), refreshToken };
  }

  private async issueTokens(em: ReturnType<BaseService['em']>, userId: string, familyId: string, jti: string): Promise<TokenPair> {
    const refreshToken = this.signRefresh(userId, familyId, jti);
    em.create(RefreshToken, {
      id: jti,
      user: em.getReference(User, userId),
      familyId,
      expiresAt: new Date(Date.now() + REFRESH_TTL_SECONDS * 1000),
    });
    await em.flush();
    return { accessToken: this.signAccess(userId), refreshToken };
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
      const rows = await query<{ user_id: string }>(
        em,
        `update refresh_tokens set revoked_at = now(), replaced_by = ?
          where id = ? and revoked_at is null and expires_at > now() returning user_id`,
        [nextJti, claims.jti],
      );
      if (rows.length === 0) return { reused: true as const };
      const user = await em.findOne(User, { id: rows[0].user_id });
      if (!user || user.status !== 'active') throw invalid();
      return { reused: false as const, tokens: await this.issueTokens(em, user.id, claims.fam, nextJti) };
    });
    if (!outcome.reused) return outcome.tokens;
    // not rotatable: if it was already rotated, assume it leaked and revoke the whole family
    // (outside the failed transaction, so the revocation sticks)
    const em = this.em();
    const rec = await em.findOne(RefreshToken, { id: claims.jti });
    if (rec?.replacedBy) {
      await query(em, `update refresh_tokens set revoked_at = now() where family_id = ? and revoked_at is null`, [rec.familyId]);
    }
    throw invalid();
  }

  /** With a token: revokes that token (if it is the caller's). Without: all of the caller's tokens. */
  async logout(actor: Actor, refreshToken?: string): Promise<void> {
    // a program's key cannot end its owner's sessions
    requireNotKey(actor);
    const conn = this.em();
    if (refreshToken) {
      let claims: RefreshClaims;
      try {
        claims = this.verify<RefreshClaims>(refreshToken, 'refresh');
      } catch {
        return; // an invalid token is already unusable
      }
      await query(conn, `update refresh_tokens set revoked_at = now() where id = ? and user_id = ? and revoked_at is null`, [
        claims.jti,
        actor.id,
      ]);
      return;
    }
    await query(conn, `update refresh_tokens set revoked_at = now() where user_id = ? and revoked_at is null`, [actor.id]);
  }

  /**
   * Verifies an access token, or a key for programs (`dq_…`, from `address`), and re-reads its user;
   * role changes apply at once, inactive users are rejected.
   */
  async authenticate(token: string, address: ClientAddress = 'unknown'): Promise<Actor> {
    if (token.startsWith(KEY_PREFIX))
      return this.keys.authenticate(token, (typeof address === 'function' ? address() : address) ?? 'unknown');
    let claims = this.verified.get(token);
    if (claims === undefined) {
      const verified = this.verify<AccessClaims & { exp: number }>(token, 'access');
      if (!isUuid(verified.sub)) throw new UnauthorizedError();
      this.verified.set(token, verified);
      claims = verified;
    }
    // hot path (every request): a prepared indexed read on the auth pool, no ORM, shared with the
    // requests that want theirs at the same time (user-reads.ts)
    const u = await this.users.read(claims.sub);
    if (!u || u.status !== 'active') throw new UnauthorizedError('unauthorized', 'User not found or inactive');
    return actorFromRow(u);
  }
}
