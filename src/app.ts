import type { MikroORM } from '@mikro-orm/postgresql';
import cors from 'cors';
import express, { Express, NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import http from 'node:http';
import type { Config } from './config';
import type { Logger } from './logger';
import { httpMetrics, metricsHandler } from './transports/http/metrics';
import { requestScope } from './observability/request-context';
import type { Services } from './services';
import { trustFunction } from './util/client-address';
import { apiDocsRoutes } from './transports/http/api-docs';
import { errorHandler } from './transports/http/errors';
import { auditRoutes } from './transports/http/routes/audit.routes';
import { authRoutes } from './transports/http/routes/auth.routes';
import { chatRoutes } from './transports/http/routes/chat.routes';
import { departmentsRoutes } from './transports/http/routes/departments.routes';
import { documentsRoutes } from './transports/http/routes/documents.routes';
import { cleanUploadDir } from './transports/http/upload-storage';
import { grantsRoutes } from './transports/http/routes/grants.routes';
import { keysRoutes } from './transports/http/routes/keys.routes';
import { groupsRoutes } from './transports/http/routes/groups.routes';
import { projectsRoutes } from './transports/http/routes/projects.routes';
import { providersRoutes } from './transports/http/routes/providers.routes';
import { usersRoutes } from './transports/http/routes/users.routes';
import { mountWebApp } from './transports/http/web-app';
import { mountGraphql } from './transports/graphql/server';
import { inRequestContext } from './db/request-context';
import { query } from './db/sql';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  services: Services;
  logger: Logger;
}

export interface AppHandle {
  app: Express;
  server: http.Server;
  /** Stops GraphQL/WebSocket handling (the HTTP server itself is closed by its owner). */
  close(): Promise<void>;
}

/** The API routers, in mount order; exported so a test can walk them and check every route's auth. */
export function apiRouters(s: Services, config: Config) {
  return [
    authRoutes(s),
    keysRoutes(s),
    usersRoutes(s),
    departmentsRoutes(s),
    groupsRoutes(s),
    projectsRoutes(s),
    grantsRoutes(s),
    auditRoutes(s),
    providersRoutes(s),
    documentsRoutes(s, config),
    chatRoutes(s),
  ];
}

/** Express + Apollo + graphql-ws wiring on one HTTP server, without listening (tests import it). */
export async function createApp(deps: AppDeps): Promise<AppHandle> {
  const { config, orm, services, logger } = deps;
  // uploads stream to files here; leftovers of a crashed process are removed before we serve
  const leftovers = await cleanUploadDir(config.uploadTmpDir);
  if (leftovers) logger.info({ dir: config.uploadTmpDir, removed: leftovers }, 'removed leftover upload files');
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustFunction(config.trustProxy));
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(requestScope(logger));
  if (config.metrics.enabled) app.use(httpMetrics(services.ctx.metrics));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    // request lines are info: with a quieter level nothing is measured or built for them
    if (!logger.isLevelEnabled('info')) return next();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const extra = res.locals.logExtra as Record<string, unknown> | undefined;
      req.log.info(
        { method: req.method, url: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10, ...extra },
        'request',
      );
    });
    next();
  });

  const server = http.createServer(app);
  // /graphql answers JSON; its playground page and assets set their own same-origin CSP (playground.ts)
  const secureHeaders = helmet();
  const graphqlHeaders = helmet({ contentSecurityPolicy: false });
  app.use((req, res, next) => (req.path === '/graphql' ? graphqlHeaders(req, res, next) : secureHeaders(req, res, next)));
  if (config.corsOrigins.length) {
    app.use(cors({ origin: config.corsOrigins.includes('*') ? true : config.corsOrigins, credentials: false, maxAge: 600 }));
  }

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await query(orm.em.fork(), 'select 1');
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ error: 'database_unavailable', message: 'The database is not reachable' });
    }
  });

  // on the main port only when no METRICS_PORT is set (runtime.ts serves that one)
  if (config.metrics.enabled && config.metrics.port === null)
    app.get('/metrics', metricsHandler(services.ctx.metrics, config.metrics.token));

  const json = express.json({ limit: `${config.maxBodyKb}kb`, strict: true });
  // each request's EntityManager fork, made only if the request uses the ORM (db/request-context.ts)
  app.use(['/api', '/graphql'], (req, res, next) => inRequestContext(orm, next));
  // the API reference and its OpenAPI document: on outside production, like the GraphQL playground
  if (config.apiDocs) app.use(apiDocsRoutes());
  const api = express.Router();
  api.use(json);
  for (const r of apiRouters(services, config)) api.use(r);
  api.use((req, res) => {
    res.status(404).json({ error: 'not_found', message: `No route ${req.method} ${req.baseUrl}${req.path}` });
  });
  app.use('/api', api);

  app.use('/graphql', (_req, res, next) => {
    res.locals.routeTemplate = '/graphql';
    next();
  });
  const graphql = await mountGraphql(app, server, { ...deps, requestScope: (fn) => inRequestContext(deps.orm, fn) }, json);

  // the web app's page and assets: after every API route, so none of them is ever shadowed
  if (config.webApp) mountWebApp(app, logger);

  app.use((req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  app.use(errorHandler(logger));

  return {
    app,
    server,
    close: async () => {
      await graphql.close();
    },
  };
}
