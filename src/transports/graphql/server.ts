import type { Express, RequestHandler } from 'express';
import type http from 'node:http';
import type { AppDeps } from '../../app';

/** TODO(GraphQL area): Apollo + graphql-ws on the same server at /graphql. */
export async function mountGraphql(_app: Express, _server: http.Server, _deps: AppDeps, _json: RequestHandler): Promise<{ close(): Promise<void> }> {
  return { close: async () => undefined };
}
