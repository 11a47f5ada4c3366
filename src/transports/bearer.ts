import type { Actor } from '../access/actor';
import type { ClientAddress } from '../auth/tokens';
import { UnauthorizedError } from '../errors';

/**
 * The token of `Authorization: Bearer <token>` (the REST and GraphQL-over-HTTP header, the
 * graphql-ws `connection_init` payload's `authorization`, the metrics endpoint's header), or null
 * when the value is missing or not of that form. The one place the header is parsed.
 */
export function bearerToken(header: unknown): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/** The caller behind a bearer header (an access token or a key, used from the client `address`): 401 `unauthorized` when it is missing, malformed or rejected. */
export async function authenticateBearer(
  tokens: { authenticate(token: string, address?: ClientAddress): Promise<Actor> },
  header: unknown,
  address?: ClientAddress,
): Promise<Actor> {
  const token = bearerToken(header);
  if (token === null) throw new UnauthorizedError('unauthorized', 'Missing bearer token');
  return tokens.authenticate(token, address);
}
