import { checkResponse } from './openapi-validator';

/**
 * Minimal fetch wrapper for tests: JSON in, { status, body, headers } out. Every REST response is
 * also checked against the OpenAPI document (status listed, body matching its schema).
 */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export async function api<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  await checkResponse(method, path, res.status, res.headers.get('content-type'), parsed);
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/** A client bound to one base URL and (optionally) one token. */
export function client(baseUrl: string, token?: string) {
  const call = <T = any>(method: string, path: string, body?: unknown) => api<T>(baseUrl, method, path, { token, body });
  return {
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
    patch: <T = any>(path: string, body?: unknown) => call<T>('PATCH', path, body ?? {}),
    put: <T = any>(path: string, body?: unknown) => call<T>('PUT', path, body ?? {}),
    delete: <T = any>(path: string) => call<T>('DELETE', path),
  };
}
