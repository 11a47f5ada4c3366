import { bool, ConfigError, type Env, list, str, url } from './env';

/** Single sign-on with OpenID Connect (issue 38): on when OIDC_ISSUER is set. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  /** What the sign-in button says ("Sign in with …"): OIDC_NAME, else the issuer's host. */
  name: string;
  /** Unknown verified emails within `allowedDomains` get a `member` account. */
  autoCreate: boolean;
  /** Lower-case domains; empty: any (only with auto-creation). */
  allowedDomains: string[];
  /** The ID token claim naming the user's department (matched by name), or null. */
  departmentClaim: string | null;
}

/** OIDC_*: all four of issuer, client id, client secret and redirect URL, or none. */
export function oidcConfig(env: Env): OidcConfig | null {
  const issuer = url(env, 'OIDC_ISSUER');
  const clientId = str(env, 'OIDC_CLIENT_ID');
  const clientSecret = str(env, 'OIDC_CLIENT_SECRET');
  const redirectUrl = url(env, 'OIDC_REDIRECT_URL');
  if (!issuer && !clientId && !clientSecret && !redirectUrl) return null;
  if (!issuer || !clientId || !clientSecret || !redirectUrl)
    throw new ConfigError('Single sign-on needs all of OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_REDIRECT_URL');
  return {
    issuer,
    clientId,
    clientSecret,
    // the form openid-client sends at the token endpoint (a root URL keeps its "/"): the authorization
    // request must name exactly the same redirect_uri, or the provider refuses the code (invalid_grant)
    redirectUrl: new URL(redirectUrl).href,
    name: str(env, 'OIDC_NAME') ?? new URL(issuer).host,
    autoCreate: bool(env, 'OIDC_AUTO_CREATE', false),
    allowedDomains: list(env, 'OIDC_ALLOWED_DOMAINS').map((d) => d.toLowerCase().replace(/^@/, '')),
    departmentClaim: str(env, 'OIDC_DEPARTMENT_CLAIM') ?? null,
  };
}
