import { createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { type Actor, ACTOR_COLUMNS, actorFromRow, type ActorRow } from '../access/actor';
import type { OidcConfig } from '../config';
import { query } from '../db/sql';
import { Department, User } from '../entities';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import type { LoginOptionsDto } from '../presenters/dto.generated';
import { avatarColorFor } from '../domain/avatar';
import { BaseService, type ServiceContext } from '../db/service-context';
import type { DeploymentSecrets } from './deployment-secrets';
import { insertAuditEntry, userEntry } from '../db/audit-entries';
import { signedIn, type LoginResult } from './login';
import { hashPassword, normalizeEmail } from './passwords';
import type { Tokens } from './tokens';

/** openid-client is ESM-only: loaded with a real import() (kept by TypeScript under node16), once. */
const loadClient = () => import('openid-client');
type OpenIdClient = Awaited<ReturnType<typeof loadClient>>;
type Discovered = Awaited<ReturnType<OpenIdClient['discovery']>>;

/** The cookie that carries one sign-in's state, nonce and PKCE verifier from start to callback (any node). */
export const OIDC_COOKIE = 'docqa_oidc';
const FLOW_SECONDS = 600;

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
}

const refused = (detail: string) => new UnauthorizedError('sso_failed', detail);

/** " (nonce)": the claim that failed, which oauth4webapi names in the error's cause chain (wrapped by openid-client). */
function failedClaim(e: unknown): string {
  for (let c = e as { cause?: unknown; claim?: unknown } | undefined, i = 0; c && i < 5; c = c.cause as typeof c, i++)
    if (typeof c.claim === 'string') return ` (${c.claim})`;
  return '';
}

/** Whether a URL is on this machine: only then may the provider be reached over plain http (tests, a local provider). */
function loopback(u: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/**
 * Single sign-on with OpenID Connect (issue 38 part 2): the authorization code flow with PKCE,
 * state and nonce, through openid-client. The flow's secrets travel in a signed, HttpOnly cookie,
 * so the callback may land on any node. A user is matched by verified email; tokens are issued
 * exactly as a password login issues them (`signedIn`).
 */
export class SingleSignOn extends BaseService {
  private discovered: Promise<{ lib: OpenIdClient; config: Discovered }> | null = null;
  private flowKey: KeyObject | null = null;

  constructor(
    ctx: ServiceContext,
    private readonly tokens: Tokens,
    private readonly secrets: DeploymentSecrets,
  ) {
    super(ctx);
  }

  /** GET /auth/sso: what the sign-in page offers (public). */
  options(): LoginOptionsDto {
    const o = this.config.oidc;
    return { oidc: o ? { name: o.name } : null, passwordLogin: this.config.passwordLogin };
  }

  private get oidc(): OidcConfig {
    const o = this.config.oidc;
    if (!o) throw new NotFoundError('not_found', 'Single sign-on is not configured on this server');
    return o;
  }

  /** A key of its own for the flow cookie, derived from the deployment's JWT secret (never a valid token key). */
  private get key(): KeyObject {
    return (this.flowKey ??= createSecretKey(createHash('sha256').update(`docqa-oidc-flow\0${this.secrets.jwtSecret}`).digest()));
  }

  private client(): Promise<{ lib: OpenIdClient; config: Discovered }> {
    const o = this.oidc;
    this.discovered ??= (async () => {
      const lib = await loadClient();
      const issuer = new URL(o.issuer);
      const config = await lib.discovery(
        issuer,
        o.clientId,
        o.clientSecret,
        undefined,
        loopback(issuer) ? { execute: [lib.allowInsecureRequests] } : undefined,
      );
      return { lib, config };
    })();
    // a provider that was down is asked again next time
    this.discovered.catch(() => (this.discovered = null));
    return this.discovered;
  }

  /** GET /auth/oidc/start: the provider's authorization URL and the signed flow cookie's value. */
  async start(): Promise<{ url: string; cookie: string; maxAgeSeconds: number }> {
    const { lib, config } = await this.client();
    const flow: Flow = { state: lib.randomState(), nonce: lib.randomNonce(), verifier: lib.randomPKCECodeVerifier() };
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: this.oidc.redirectUrl,
      scope: 'openid email profile',
      code_challenge: await lib.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    const cookie = jwt.sign(flow, this.key, { algorithm: 'HS256', expiresIn: FLOW_SECONDS });
    return { url: url.href, cookie, maxAgeSeconds: FLOW_SECONDS };
  }

  /**
   * POST /auth/oidc/callback: exchanges the code of `callbackUrl` (where the provider sent the
   * browser) under the flow of `cookie`; a wrong state, nonce or verifier, an unverified email, an
   * unknown email without auto-creation, a domain not allowed, or an inactive user are refused.
   */
  async finish(callbackUrl: string, cookie: string | undefined): Promise<LoginResult> {
    const o = this.oidc;
    let flow: Flow;
    try {
      flow = jwt.verify(cookie ?? '', this.key, { algorithms: ['HS256'] }) as Flow;
    } catch {
      throw refused('The sign-in expired or was started elsewhere; start again');
    }
    const back = new URL(o.redirectUrl);
    let given: URL;
    try {
      given = new URL(callbackUrl);
    } catch {
      throw refused('callbackUrl is not a URL');
    }
    back.search = given.search; // only the provider's answer is taken from the client
    const { lib, config } = await this.client();
    let claims: Record<string, unknown>;
    try {
      const tokens = await lib.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      if (typeof claims.email !== 'string' && tokens.access_token)
        claims = { ...claims, ...(await lib.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    } catch (e) {
      throw refused(`The identity provider's answer was refused: ${(e as Error).message}${failedClaim(e)}`);
    }
    return signedIn(this.tokens, await this.userFor(claims));
  }

  /** The account of a verified email: found, or created as a `member` when allowed. */
  private async userFor(claims: Record<string, unknown>): Promise<ActorRow> {
    const o = this.oidc;
    if (typeof claims.email !== 'string' || !claims.email) throw refused('The identity provider gave no email address');
    if (claims.email_verified !== true) throw refused('The identity provider has not verified this email address');
    const email = normalizeEmail(claims.email);
    const em = this.em();
    const find = async () => (await query<ActorRow>(em, `select ${ACTOR_COLUMNS} from users where email = ?`, [email]))[0];
    let row = await find();
    const department = await this.department(claims);
    if (!row) {
      const domain = email.split('@').pop()!;
      if (!o.autoCreate) throw new ForbiddenError('sso_no_account', 'No account uses this email address; ask an administrator');
      if (o.allowedDomains.length && !o.allowedDomains.includes(domain))
        throw new ForbiddenError('sso_domain_not_allowed', `Accounts are not created for ${domain}`);
      const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0];
      // the password is random and never shown: this account signs in through the provider
      const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
      await em.transactional(async (tx) => {
        const user = tx.create(User, {
          email,
          name,
          passwordHash,
          platformRole: 'none',
          orgPosition: 'member',
          department,
          avatarColor: avatarColorFor(email),
        });
        await tx.flush();
        // audited in the same transaction, naming the provider; the new account is the actor
        const [created] = await query<ActorRow>(tx, `select ${ACTOR_COLUMNS} from users where id = ?`, [user.id]);
        const actor = actorFromRow(created);
        await insertAuditEntry(tx, actor.id, userEntry('user_created_by_sso', user.id, { issuer: o.issuer }));
        if (department) await this.auditClaimedDepartment(tx, actor, department.id);
      });
      row = (await find())!;
    } else if (department && !row.department_id && row.org_position === 'member') {
      const actor = actorFromRow(row);
      await em.transactional(async (tx) => {
        const moved = await query<{ id: string }>(
          tx,
          `update users set department_id = ? where id = ? and department_id is null returning id`,
          [department.id, actor.id],
        );
        if (moved.length) await this.auditClaimedDepartment(tx, actor, department.id);
      });
      row = (await find())!;
    }
    if (row.status !== 'active') throw refused('This account is inactive');
    return row;
  }

  /** `department_member_added` for a department given by OIDC_DEPARTMENT_CLAIM (reason `sso_claim`, the issuer). */
  private async auditClaimedDepartment(tx: Parameters<typeof insertAuditEntry>[0], user: Actor, departmentId: string): Promise<void> {
    await insertAuditEntry(
      tx,
      user.id,
      userEntry('department_member_added', user.id, { departmentId, reason: 'sso_claim', issuer: this.oidc.issuer }),
    );
  }

  /** The department named by OIDC_DEPARTMENT_CLAIM, when set, given and existing. */
  private async department(claims: Record<string, unknown>): Promise<Department | null> {
    const claim = this.oidc.departmentClaim;
    const value = claim ? claims[claim] : undefined;
    if (typeof value !== 'string' || !value.trim()) return null;
    return this.em().findOne(Department, { name: value.trim() });
  }
}
