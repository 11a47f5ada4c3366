import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { api, ApiResponse } from './http';

export interface GqlResult<T = any> {
  data?: T;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: { code?: string; [k: string]: unknown } }>;
}

/** A plain HTTP POST to /graphql. */
export async function gql<T = any>(
  baseUrl: string,
  query: string,
  opts: { token?: string; variables?: Record<string, unknown> } = {},
): Promise<ApiResponse<GqlResult<T>> & GqlResult<T>> {
  const res = await api<GqlResult<T>>(baseUrl, 'POST', '/graphql', { token: opts.token, body: { query, variables: opts.variables } });
  return Object.assign(res, { data: res.body?.data, errors: res.body?.errors });
}

/** The error codes of a result, in order. */
export const codes = (r: GqlResult): Array<string | undefined> => (r.errors ?? []).map((e) => e.extensions?.code);

/** A graphql-ws client on the test server, authenticated in connection_init. */
export function wsClient(baseUrl: string, token?: string, extra: { onClosed?: (code: number) => void } = {}): Client {
  return createClient({
    url: baseUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: token === undefined ? {} : { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
    on: { closed: (e) => extra.onClosed?.((e as { code: number }).code) },
  });
}

/** Runs one operation over a graphql-ws client and collects every result until completion. */
export function wsCollect<T = any>(client: Client, query: string, variables?: Record<string, unknown>): Promise<Array<GqlResult<T>>> {
  return new Promise((resolve, reject) => {
    const out: Array<GqlResult<T>> = [];
    client.subscribe<T>(
      { query, variables },
      {
        next: (v) => out.push(v as GqlResult<T>),
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- graphql-ws hands over an Error or a CloseEvent; the caller sees it as given
        error: (e) => (Array.isArray(e) ? resolve([...out, { errors: e }]) : reject(e)),
        complete: () => resolve(out),
      },
    );
  });
}
