/**
 * The playground's session: the access and refresh token, held in this module's memory only —
 * never in localStorage, sessionStorage, a cookie or GraphiQL's state, so no plugin can persist
 * them and a reload or a closed tab forgets them. Sign-in through the `login` mutation, one refresh
 * through `refresh` when a request comes back unauthorized (the spec's client rule), and sign-out
 * through `POST /api/auth/logout`, which revokes the refresh token on the server.
 */
import type { GraphQLFormattedError } from 'graphql';
import type { LoginInput, LoginUserDto, LogoutInput, RefreshInput, TokenPairDto } from '../web/lib/wire.generated';

export interface Session {
  accessToken: string;
  refreshToken: string;
  email: string;
}

type Listener = (s: Session | null) => void;
const listeners = new Set<Listener>();
let session: Session | null = null;

// earlier versions kept the session in sessionStorage: forget what they left behind
try {
  sessionStorage.removeItem('docqa-playground-session');
} catch {
  // storage disabled: nothing to forget
}

export function currentSession(): Session | null {
  return session;
}

function setSession(s: Session | null): void {
  session = s;
  for (const l of listeners) l(s);
}

export function onSession(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** A GraphQL answer whose `data` has the server's wire shapes (the mutations below mirror REST's). */
interface Answer<T> {
  data?: T | null;
  errors?: readonly GraphQLFormattedError[];
}

async function post<T>(url: string, query: string, variables: unknown): Promise<Answer<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Answer<T>;
}

export async function signIn(url: string, email: string, password: string): Promise<Session> {
  const r = await post<{ login: TokenPairDto & { user: Pick<LoginUserDto, 'email'> } }>(
    url,
    'mutation($i: LoginInput!) { login(input: $i) { accessToken refreshToken user { email } } }',
    {
      i: { email, password } satisfies LoginInput,
    },
  );
  if (!r.data?.login) throw new Error(r.errors?.[0]?.message ?? 'sign-in failed');
  const s = { accessToken: r.data.login.accessToken, refreshToken: r.data.login.refreshToken, email: r.data.login.user.email };
  setSession(s);
  return s;
}

/** `POST /api/auth/logout` with the refresh token, as a REST client signs out: 204 once it is revoked. */
async function logout(s: Session): Promise<number> {
  const res = await fetch('/api/auth/logout', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.accessToken}` },
    body: JSON.stringify({ refreshToken: s.refreshToken } satisfies LogoutInput),
  });
  return res.status;
}

/**
 * Revokes the refresh token on the server (refreshing once first when the access token has
 * expired), then forgets the session whatever the server said.
 */
export async function signOut(url: string): Promise<void> {
  const s = currentSession();
  try {
    if (s && (await logout(s)) === 401) {
      const fresh = await refreshSession(url);
      if (fresh) await logout(fresh);
    }
  } catch {
    // offline: the tokens are still forgotten below, and expire on their own
  } finally {
    setSession(null);
  }
}

let refreshing: Promise<Session | null> | undefined;

/** Trades the refresh token for a new pair (once at a time); null when there is none or it failed. */
export function refreshSession(url: string): Promise<Session | null> {
  refreshing ??= (async () => {
    const s = currentSession();
    if (!s) return null;
    try {
      const r = await post<{ refresh: TokenPairDto }>(
        url,
        'mutation($i: RefreshInput!) { refresh(input: $i) { accessToken refreshToken } }',
        {
          i: { refreshToken: s.refreshToken } satisfies RefreshInput,
        },
      );
      if (!r.data?.refresh) {
        setSession(null);
        return null;
      }
      const next = { ...s, accessToken: r.data.refresh.accessToken, refreshToken: r.data.refresh.refreshToken };
      setSession(next);
      return next;
    } catch {
      return null;
    }
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}
