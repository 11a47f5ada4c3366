/**
 * The playground's session: the access and refresh token (sessionStorage, so a reload keeps them
 * but closing the tab forgets them), sign-in through the `login` mutation and one refresh through
 * `refresh` when a request comes back unauthorized (the spec's client rule).
 */
const KEY = 'docqa-playground-session';

export interface Session {
  accessToken: string;
  refreshToken: string;
  email: string;
}

type Listener = (s: Session | null) => void;
const listeners = new Set<Listener>();

export function currentSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

function setSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
  for (const l of listeners) l(s);
}

export function onSession(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function headersFor(s: Session | null): string {
  return s ? JSON.stringify({ Authorization: `Bearer ${s.accessToken}` }, null, 2) : '{}';
}

async function post(
  url: string,
  query: string,
  variables: unknown,
): Promise<{ data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

export async function signIn(url: string, email: string, password: string): Promise<Session> {
  const r = await post(url, 'mutation($i: LoginInput!) { login(input: $i) { accessToken refreshToken user { email } } }', {
    i: { email, password },
  });
  if (!r.data?.login) throw new Error(r.errors?.[0]?.message ?? 'sign-in failed');
  const s = { accessToken: r.data.login.accessToken, refreshToken: r.data.login.refreshToken, email: r.data.login.user.email };
  setSession(s);
  return s;
}

export function signOut(): void {
  setSession(null);
}

let refreshing: Promise<Session | null> | undefined;

/** Trades the refresh token for a new pair (once at a time); null when there is none or it failed. */
export function refreshSession(url: string): Promise<Session | null> {
  refreshing ??= (async () => {
    const s = currentSession();
    if (!s) return null;
    try {
      const r = await post(url, 'mutation($i: RefreshInput!) { refresh(input: $i) { accessToken refreshToken } }', {
        i: { refreshToken: s.refreshToken },
      });
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
