/**
 * A document's ingestion progress from the server's progress stream: the GraphQL `documentProgress`
 * subscription over graphql-ws on this origin (the current state, then each change, ending after
 * `ready` or `failed`). The client library is loaded on first use, so the first screen does not
 * carry it.
 */
import type { Client } from 'graphql-ws/client';
import type { Api } from './api';
import type { DocumentStatus } from './types';

export interface ProgressEvent {
  documentId: string;
  status: DocumentStatus;
  pagesDone: number;
  pagesTotal: number;
  pageCount: number;
  chunkCount: number;
  error: string | null;
}

const QUERY = `subscription Progress($id: ID!) {
  documentProgress(documentId: $id) { documentId status pagesDone pagesTotal pageCount chunkCount error }
}`;

let client: Promise<Client> | null = null;

function connect(api: Api): Promise<Client> {
  client ??= import('graphql-ws/client').then(({ createClient }) =>
    createClient({
      url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
      // read at each (re)connection: the access token may have been refreshed since
      connectionParams: () => ({ authorization: `Bearer ${api.accessToken ?? ''}` }),
      lazy: true,
      retryAttempts: 3,
    }),
  );
  return client;
}

/** Closes the shared connection (on sign-out). */
export function disconnectProgress(): void {
  void client?.then((c) => c.dispose());
  client = null;
}

/**
 * Calls `onEvent` for each progress event of the document until it ends; `onEnd` once, with an
 * error when the stream failed (the caller then falls back to reading the document). Returns a
 * function that stops listening.
 */
export function watchProgress(
  api: Api,
  documentId: string,
  onEvent: (e: ProgressEvent) => void,
  onEnd: (err?: unknown) => void,
): () => void {
  let stop: (() => void) | null = null;
  let stopped = false;
  void connect(api)
    .then((c) => {
      if (stopped) return;
      stop = c.subscribe<{ documentProgress: ProgressEvent }>(
        { query: QUERY, variables: { id: documentId } },
        {
          next: (r) => {
            if (r.data) onEvent(r.data.documentProgress);
            else if (r.errors?.length) onEnd(new Error(r.errors[0].message));
          },
          error: (e) => onEnd(e),
          complete: () => onEnd(),
        },
      );
    })
    .catch(onEnd);
  return () => {
    stopped = true;
    stop?.();
  };
}
