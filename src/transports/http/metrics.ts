import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken } from '../bearer';
import type { Metrics } from '../../observability/metrics';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The route template this request matched (`/api/projects/:id`), for metrics. */
    routeTemplate?: string;
  }
}

/**
 * Times every request until its response is finished or its connection closes (a stream's whole
 * life), labelled by route template, never by raw path. Routes declared through route() record
 * their template (mount path + route path) when they start; other matched routes give theirs via
 * `req.route`; anything else is `unmatched`.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.once('close', () => {
      const route =
        res.locals.routeTemplate ??
        ((req.route as { path?: unknown } | undefined) ? String((req.route as { path?: unknown }).path) : 'unmatched');
      metrics.observeHttp(req.method, route, res.statusCode, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}

/** Constant-time comparison of the presented bearer token with the configured one. */
function tokenMatches(header: unknown, token: string): boolean {
  const presented = bearerToken(header);
  if (presented === null) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** GET /metrics: the Prometheus text exposition; with a token, only for `Authorization: Bearer <token>`. */
export function metricsHandler(metrics: Metrics, token: string | null): RequestHandler {
  return (req, res, next) => {
    if (token !== null && !tokenMatches(req.headers.authorization, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      res.status(401).json({ error: 'unauthorized', message: 'Metrics need the bearer token configured in METRICS_TOKEN' });
      return;
    }
    metrics.scrape().then((body) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    }, next);
  };
}

/**
 * A listener of its own for METRICS_PORT: only `GET /metrics` (and the token check when one is
 * configured), so the scrape port can stay on an internal network.
 */
export async function startMetricsServer(
  metrics: Metrics,
  opts: { port: number; host: string; token: string | null },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    if (opts.token !== null && !tokenMatches(req.headers.authorization, opts.token)) {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
      return;
    }
    metrics.scrape().then(
      (body) =>
        res
          .writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"internal_error"}'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
