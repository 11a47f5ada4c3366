import { actorFromRow, type ActorRow } from '../access/actor';
import { User } from '../entities';
import { RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '../errors';
import type { LoginOutcome } from '../observability/metrics';
import { presentLoginUser } from '../presenters/user.presenter';
import type { LoginInput } from './auth.inputs';
import { BaseService, ServiceContext } from '../db/service-context';
import { LoginLimiter } from './login-limits';
import { dummyHash, normalizeEmail, verifyPassword } from './passwords';
import type { AuthPool } from './pool';
import type { Tokens } from './tokens';

/** What a sign-in answers (spec: exactly `{user, accessToken, refreshToken}`). */
export type LoginResult = { user: ReturnType<typeof presentLoginUser>; accessToken: string; refreshToken: string };

/** Issues a signed-in user's tokens: the one way a login (password or single sign-on) ends. */
export async function signedIn(tokens: Tokens, row: ActorRow): Promise<LoginResult> {
  const { accessToken, refreshToken } = await tokens.startFamily(row.id);
  // spec: exactly {user, accessToken, refreshToken} (the token's jti stays server-side)
  return { user: presentLoginUser(actorFromRow(row)), accessToken, refreshToken };
}

const INVALID_LOGIN = 'Invalid email or password';

// a named (server-side prepared) statement: parsed and planned once per connection
const LOGIN_QUERY = {
  name: 'docqa_login_user',
  text: `select id, email, name, password_hash, platform_role, org_position, department_id, avatar_color, avatar_url, status, last_login_at, created_at
           from users where email = $1`,
};

/** The metrics label of a failed login. */
function loginOutcome(e: unknown): LoginOutcome {
  if (e instanceof RateLimitedError) return 'rate_limited';
  if (e instanceof UnauthorizedError) return 'invalid_credentials';
  if (e instanceof ServiceUnavailableError) return 'not_bootstrapped';
  return 'error';
}

/** The login use case (POST /auth/login and the GraphQL mutation), behind its limits. */
export class Login extends BaseService {
  private limiterInstance: LoginLimiter | null = null;
  private bootstrapped = false;

  constructor(
    ctx: ServiceContext,
    private readonly tokens: Tokens,
    private readonly pool: AuthPool,
  ) {
    super(ctx);
    void dummyHash(); // made now, so the first unknown email costs no more than a known one
  }

  /** Login limits shared by every node (counters in PostgreSQL). */
  private get limiter(): LoginLimiter {
    return (this.limiterInstance ??= new LoginLimiter(this.pool.get(), {
      perIp: this.config.loginRateLimitPerIp,
      perAccount: this.config.loginRateLimitPerAccount,
      accountTotal: this.config.loginRateLimitAccountTotal,
    }));
  }

  private async isBootstrapped(): Promise<boolean> {
    if (this.bootstrapped) return true;
    const count = await this.em().count(User, { platformRole: 'superadmin' });
    this.bootstrapped = count > 0;
    return this.bootstrapped;
  }

  /** Every attempt's outcome is counted for metrics. */
  async attempt(input: LoginInput, ip: string) {
    try {
      const result = await this.check(input, ip);
      this.metrics.loginAttempts.inc({ outcome: 'success' });
      return result;
    } catch (e) {
      this.metrics.loginAttempts.inc({ outcome: loginOutcome(e) });
      throw e;
    }
  }

  private async check(input: LoginInput, ip: string) {
    if (!(await this.isBootstrapped())) throw new ServiceUnavailableError('not_bootstrapped', 'The platform has not been bootstrapped yet');
    const email = normalizeEmail(input.email);
    // counted before the password is compared (issue 38): a burst cannot all pass the check together
    const attempt = await this.limiter.beforeAttempt(email, ip);
    // hot path under a login storm: prepared statements on the auth pool, no ORM unit of work
    const { rows } = await this.pool.get().query<ActorRow & { password_hash: string }>({ ...LOGIN_QUERY, values: [email] });
    const row = rows[0];
    const ok = await verifyPassword(input.password, row?.password_hash);
    // PASSWORD_LOGIN=false: only the superadmin signs in with a password (answered like a wrong one: no oracle)
    const passwordAllowed = this.config.passwordLogin || row?.platform_role === 'superadmin';
    if (!row || !ok || row.status !== 'active' || !passwordAllowed) {
      await this.limiter.failed(attempt);
      throw new UnauthorizedError(INVALID_LOGIN, INVALID_LOGIN);
    }
    await this.limiter.succeeded(attempt);
    return signedIn(this.tokens, row);
  }
}
