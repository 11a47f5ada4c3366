import { createGraphiQLFetcher, type Fetcher, type FetcherOpts } from '@graphiql/toolkit';
import type { ExecutionResult } from 'graphql';
import { currentSession, refreshSession } from './auth';

/** True for our documented "unauthorized" answer: HTTP 401 or an error with that code. */
function isUnauthorized(body: unknown): boolean {
  const errors = (body as { errors?: Array<{ extensions?: { code?: string } }> } | null)?.errors;
  return Array.isArray(errors) && errors.some((e) => e?.extensions?.code === 'unauthorized');
}

function isAsyncIterable(v: unknown): v is AsyncIterable<ExecutionResult> {
  return typeof v === 'object' && v !== null && Symbol.asyncIterator in v;
}

/** Header names in lower case: graphql-ws sends the headers as connectionParams, read as `authorization`. */
function lowerCased(headers: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * GraphiQL's fetcher: HTTP for queries and mutations, graphql-ws on the same origin for
 * subscriptions. The session's access token is added here, from memory, when the headers editor
 * has no Authorization of its own: it never enters GraphiQL's headers, so neither the tab state nor
 * the history plugin can store it. A request answered "unauthorized" (HTTP 401 or
 * `extensions.code`), or a socket refused with 4403, is retried once after the refresh mutation,
 * with the session's new token; `onRefreshed` then takes any Authorization the user typed out of
 * the headers editor (it was just refused).
 */
export function playgroundFetcher(url: string, onRefreshed: () => void): Fetcher {
  const wsUrl = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${url}`;
  let lastStatus = 0;
  const inner = createGraphiQLFetcher({
    url,
    subscriptionUrl: wsUrl,
    enableIncrementalDelivery: false,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      lastStatus = res.status;
      return res;
    },
  });

  const run = (params: Parameters<Fetcher>[0], opts: FetcherOpts | undefined, headers: Record<string, unknown>) =>
    inner(params, { ...opts, headers: lowerCased(headers) });

  return async (params, opts) => {
    const headers = { ...(opts?.headers ?? {}) } as Record<string, unknown>;
    // a tab whose headers editor has no Authorization uses the signed-in session's token
    const session = currentSession();
    if (session && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization'))
      headers.authorization = `Bearer ${session.accessToken}`;
    const retry = async () => {
      if (!currentSession()) return null;
      const s = await refreshSession(url);
      if (!s) return null;
      onRefreshed();
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'authorization') delete headers[k];
      headers.authorization = `Bearer ${s.accessToken}`;
      return run(params, opts, headers);
    };

    let first;
    try {
      first = await run(params, opts, headers);
    } catch (err) {
      // a WebSocket closed with 4403: connection_init without a valid token
      if ((err as { code?: number })?.code === 4403 || String((err as Error)?.message ?? err).includes('4403')) {
        const again = await retry();
        if (again) return again;
      }
      throw err;
    }
    if (isAsyncIterable(first)) return wrapIterable(first, retry);
    if (lastStatus === 401 || isUnauthorized(first)) return (await retry()) ?? first;
    return first;
  };
}

/** A subscription whose socket is refused before any result is retried once after a refresh. */
function wrapIterable(source: AsyncIterable<ExecutionResult>, retry: () => Promise<unknown>): AsyncIterable<ExecutionResult> {
  return {
    async *[Symbol.asyncIterator]() {
      let gotAny = false;
      try {
        for await (const value of source) {
          gotAny = true;
          yield value;
        }
      } catch (err) {
        const refused = (err as { code?: number })?.code === 4403 || String((err as Error)?.message ?? err).includes('4403');
        if (gotAny || !refused) throw err;
        const again = await retry();
        if (!again) throw err;
        if (isAsyncIterable(again)) yield* again;
        else yield again;
      }
    },
  };
}
