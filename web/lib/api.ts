/**
 * The API client: every call goes to this origin's /api with the access token as a bearer header.
 * The access token lives only in memory; the refresh token in sessionStorage (a reload of the tab
 * keeps the session, closing the tab forgets it; nothing goes to localStorage). A 401 triggers one
 * refresh (shared by concurrent callers, since refresh rotates the token) and one retry; a failed
 * refresh ends the session (the spec's client rule).
 */
import type { Capabilities, ErrorDto, LoginResultDto, TokenPairDto, User } from './types';

const REFRESH_KEY = 'docqa.refreshToken';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from a Retry-After header (429). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** An error body `{error, message?}` (or anything else) as an ApiError with words a person can read. */
export async function errorFrom(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = `The server answered ${res.status} ${res.statusText}`.trim();
  try {
    const body = (await res.json()) as Partial<ErrorDto>;
    if (body.error) code = body.error;
    message = body.message ?? body.error ?? message;
  } catch {
    // not JSON: keep the status line
  }
  const ra = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, code, message, Number.isFinite(ra) && ra >= 0 ? ra : null);
}

/** What sign-in answers (`POST /auth/login`, `POST /auth/oidc/callback`). */
export type SignedIn = LoginResultDto;

export class Api {
  private access: string | null = null;
  private refreshing: Promise<boolean> | null = null;
  /** Called when the session ends without the user asking (refresh refused). */
  onExpired: () => void = () => {};

  get accessToken(): string | null {
    return this.access;
  }

  hasStoredSession(): boolean {
    return sessionStorage.getItem(REFRESH_KEY) !== null;
  }

  async signIn(email: string, password: string): Promise<User> {
    const res = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw await errorFrom(res);
    const body = (await res.json()) as SignedIn;
    this.keep(body.accessToken, body.refreshToken);
    return body.user;
  }

  /** Single sign-on's last step: the URL the identity provider sent the browser back to, exchanged for tokens. */
  async finishSso(callbackUrl: string): Promise<User> {
    const res = await fetch('/api/auth/oidc/callback', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ callbackUrl }),
    });
    if (!res.ok) throw await errorFrom(res);
    const body = (await res.json()) as SignedIn;
    this.keep(body.accessToken, body.refreshToken);
    return body.user;
  }

  /** Resumes a session kept in this tab: the caller and what they may do; null when there is none or it has ended. */
  async resume(): Promise<{ user: User; can: Capabilities } | null> {
    if (!this.hasStoredSession()) return null;
    if (!(await this.refresh())) return null;
    const [me, can] = await Promise.all([this.get<{ user: User }>('/auth/me'), this.capabilities()]);
    return { user: me.user, can };
  }

  /** What the signed-in caller may do, as the server decides it. */
  async capabilities(): Promise<Capabilities> {
    return (await this.get<{ capabilities: Capabilities }>('/auth/capabilities')).capabilities;
  }

  /** Revokes the refresh token on the server, then forgets both tokens. */
  async signOut(): Promise<void> {
    const refreshToken = sessionStorage.getItem(REFRESH_KEY);
    try {
      if (this.access) await this.send('POST', '/auth/logout', refreshToken ? { refreshToken } : undefined);
    } finally {
      this.forget();
    }
  }

  private keep(access: string, refresh: string): void {
    this.access = access;
    sessionStorage.setItem(REFRESH_KEY, refresh);
  }

  private forget(): void {
    this.access = null;
    sessionStorage.removeItem(REFRESH_KEY);
  }

  /** One refresh at a time: a rotated token must never be presented twice. */
  private refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const refreshToken = sessionStorage.getItem(REFRESH_KEY);
      if (!refreshToken) return false;
      const res = await fetch('/api/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
      });
      if (!res.ok) {
        this.forget();
        return false;
      }
      const body = (await res.json()) as TokenPairDto;
      this.keep(body.accessToken, body.refreshToken);
      return true;
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /**
   * fetch() of /api`path` with the bearer token; on 401, one refresh and one retry. The Response is
   * returned as it is (streams and uploads read it themselves); a refused refresh ends the session.
   */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const attempt = () => {
      const headers = new Headers(init.headers);
      if (this.access) headers.set('authorization', `Bearer ${this.access}`);
      return fetch(`/api${path}`, { ...init, headers });
    };
    const sent = this.access;
    let res = await attempt();
    if (res.status !== 401) return res;
    // another caller may have refreshed while this request was out
    const refreshed = this.access !== sent || (await this.refresh());
    if (!refreshed) {
      this.onExpired();
      return res;
    }
    res = await attempt();
    return res;
  }

  /** A JSON request; throws ApiError for any non-2xx answer. */
  async send<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await this.fetch(path, {
      method,
      signal,
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await errorFrom(res);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.send<T>('GET', path, undefined, signal);
  }
}
