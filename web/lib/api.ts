/**
 * The API client: every call goes to this origin's /api with the access token as a bearer header.
 * The access token lives only in memory; the refresh token in sessionStorage (a reload of the tab
 * keeps the session, closing the tab forgets it; nothing goes to localStorage). A 401 triggers one
 * refresh (shared by concurrent callers, since refresh rotates the token) and one retry; a failed
 * refresh ends the session (the spec's client rule).
 */
import type { BodyArgs, Method, ResponseOf, RoutePath } from './routes';
import type { Capabilities, ErrorDto, LoginResultDto, Routes, User } from './types';

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
    return this.signedIn(await this.postPublic('/auth/login', { email, password }));
  }

  /** Single sign-on's last step: the URL the identity provider sent the browser back to, exchanged for tokens. */
  async finishSso(callbackUrl: string): Promise<User> {
    return this.signedIn(await this.postPublic('/auth/oidc/callback', { callbackUrl }));
  }

  private signedIn(body: SignedIn): User {
    this.keep(body.accessToken, body.refreshToken);
    return body.user;
  }

  /** A POST to a public auth operation: no bearer token, no refresh on 401; ApiError for a non-2xx answer. */
  private async postPublic<P extends '/auth/login' | '/auth/oidc/callback' | '/auth/refresh'>(
    path: P,
    body: Routes[`POST ${P}`]['body'],
  ): Promise<Routes[`POST ${P}`]['response']> {
    const res = await fetch(`/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await errorFrom(res);
    return (await res.json()) as Routes[`POST ${P}`]['response'];
  }

  /** Resumes a session kept in this tab: the caller and what they may do; null when there is none or it has ended. */
  async resume(): Promise<{ user: User; can: Capabilities } | null> {
    if (!this.hasStoredSession()) return null;
    if (!(await this.refresh())) return null;
    const [me, can] = await Promise.all([this.get('/auth/me'), this.capabilities()]);
    return { user: me.user, can };
  }

  /** What the signed-in caller may do, as the server decides it. */
  async capabilities(): Promise<Capabilities> {
    return (await this.get('/auth/capabilities')).capabilities;
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
      try {
        const body = await this.postPublic('/auth/refresh', { refreshToken });
        this.keep(body.accessToken, body.refreshToken);
        return true;
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        this.forget();
        return false;
      }
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

  /**
   * A request to an operation of the API (web/lib/routes.ts): its body, when it takes one, is sent as
   * JSON (FormData as it is), and its answer is read as the operation says; ApiError for a non-2xx.
   */
  send<M extends Method, P extends string>(method: M, path: RoutePath<M, P>, ...[body]: BodyArgs<M, P>): Promise<ResponseOf<M, P>> {
    return this.request(method, path, body) as Promise<ResponseOf<M, P>>;
  }

  get<P extends string>(path: RoutePath<'GET', P>, signal?: AbortSignal): Promise<ResponseOf<'GET', P>> {
    return this.request('GET', path, undefined, signal) as Promise<ResponseOf<'GET', P>>;
  }

  private async request(method: Method, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const json = body !== undefined && !(body instanceof FormData);
    const res = await this.fetch(path, {
      method,
      signal,
      headers: json ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
      body: json ? JSON.stringify(body) : body,
    });
    if (!res.ok) throw await errorFrom(res);
    if (res.status === 204) return undefined;
    return res.json();
  }
}
