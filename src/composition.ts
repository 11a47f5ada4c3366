import type { AddressInfo } from 'node:net';
import { createApp, AppHandle } from './app';
import type { Config } from './config';
import { Database, openDatabase } from './db/database';
import { bootstrapOnFirstStart, describeChatModel, startupBanner } from './first-run';
import { createLogger, Logger } from './logger';
import { startMetricsServer } from './transports/http/metrics';
import { createMetrics, Metrics } from './observability/metrics';
import { createServices, Services } from './services';
import { requirePrivateUploadDir } from './util/private-dir';

/**
 * The one place a process is assembled. `server` is `npm start` (HTTP, GraphQL, and ingestion
 * workers when RUN_WORKERS), `worker` is `npm run worker` (ingestion only), `cli` is a command
 * that uses the services once (bootstrap). Tests and benches use it too, with overrides.
 */
export type ProcessRole = 'server' | 'worker' | 'cli';

export interface ComposeOverrides {
  logger?: Logger;
  /** An open database to use instead of DATABASE_URL or the embedded one; stop() closes it. */
  database?: Database;
  /** Pool size when compose opens the database. */
  poolMax?: number;
  /** The Prometheus registry (default: one per process, with process metrics when they are exposed). */
  metrics?: Metrics;
  /** Run ingestion workers (default: RUN_WORKERS for a server, always for a worker, never for a CLI). */
  workers?: boolean;
  /** A server listens on HOST:PORT unless false (tests that only need the app). */
  listen?: boolean;
  /** A server's first start creates the first administrator outside production (default true; tests start empty). */
  firstRun?: boolean;
  /** Where a server's first start prints the generated credentials (default stdout). */
  console?: { write(s: string): unknown };
}

export interface Composition {
  config: Config;
  logger: Logger;
  db: Database;
  services: Services;
  /** The HTTP app of a server, once start() has built it. */
  app?: AppHandle;
  /** The port a server listens on, once started. */
  port: number | null;
  /** The METRICS_PORT listener's port, when one runs. */
  metricsPort: number | null;
  /** Aborted first by stop(): open chat streams end with an error event. */
  shutdown: AbortController;
  /** Start order: secrets and first-run bootstrap, job host, app, listeners, banner. */
  start(): Promise<void>;
  /** Stop order: refuse connections, end streams, finish requests (SHUTDOWN_GRACE_MS), jobs, pools. Idempotent. */
  stop(): Promise<void>;
}

/** Process metrics (event loop, memory) are collected where someone can scrape them. */
function exposesMetrics(config: Config, role: ProcessRole): boolean {
  if (role === 'cli' || !config.metrics.enabled) return false;
  return role === 'server' || config.metrics.port !== null;
}

export async function compose(config: Config, opts: { role: ProcessRole; overrides?: ComposeOverrides }): Promise<Composition> {
  const { role, overrides = {} } = opts;
  // before anything starts: a refused upload directory leaves no database server behind
  if (role === 'server') requirePrivateUploadDir(config.uploadTmpDir);
  const logger = overrides.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const db = overrides.database ?? (await openDatabase(config, logger, { poolMax: overrides.poolMax }));
  const shutdown = new AbortController();
  const metrics = overrides.metrics ?? createMetrics({ defaultMetrics: exposesMetrics(config, role) });
  const services = createServices({ orm: db.orm, config, logger, shutdown: shutdown.signal, metrics });
  const workers = overrides.workers ?? (role === 'server' ? config.runWorkers : role === 'worker');
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;

  const c: Composition = {
    config,
    logger,
    db,
    services,
    port: null,
    metricsPort: null,
    shutdown,
    async start() {
      try {
        const bootstrap =
          role === 'server' && overrides.firstRun !== false
            ? await bootstrapOnFirstStart(config, services, logger, overrides.console ?? process.stdout)
            : null;
        await services.start({ workers, live: role === 'server' });
        if (role === 'server') c.app = await createApp({ config, orm: db.orm, services, logger });
        if (role === 'cli' || overrides.listen === false) return;
        if (exposesMetrics(config, role) && config.metrics.port !== null) {
          metricsServer = await startMetricsServer(metrics, { port: config.metrics.port, host: config.host, token: config.metrics.token });
          c.metricsPort = metricsServer.port;
          logger.info({ port: metricsServer.port }, 'metrics listening');
        }
        if (role === 'worker') {
          logger.info({ concurrency: config.workerConcurrency }, 'ingestion worker running');
          return;
        }
        const server = c.app!.server;
        server.keepAliveTimeout = 65_000;
        server.headersTimeout = 66_000;
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(config.port, config.host, () => resolve());
        });
        const port = (server.address() as AddressInfo).port;
        c.port = port;
        logger.info({ port, host: config.host }, `DocQA listening on http://localhost:${port}`);
        const chatModel = await describeChatModel(services);
        const pages: Record<string, string> = config.apiDocs ? { 'API reference': '/api/docs', OpenAPI: '/api/openapi.json' } : {};
        logger.info(
          { chatModel, bootstrap },
          startupBanner(config, { baseUrl: `http://localhost:${port}`, chatModel, bootstrap: bootstrap ?? 'bootstrapped', pages }),
        );
      } catch (e) {
        await c.stop();
        throw e;
      }
    },
    stop: () => (stopping ??= stopAll()),
  };

  let stopping: Promise<void> | null = null;
  async function stopAll(): Promise<void> {
    logger.info('shutting down');
    const app = c.app;
    if (app) {
      const closed = new Promise<void>((resolve) => app.server.close(() => resolve()));
      shutdown.abort(); // open chat streams end with an error event
      await app.close();
      app.server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
      await Promise.race([closed, grace]);
      app.server.closeAllConnections();
      logger.debug('http closed');
    } else {
      shutdown.abort();
    }
    await services.stop();
    logger.debug('services stopped');
    await metricsServer?.close();
    await db.close();
    logger.info('stopped');
  }
  return c;
}

/** SIGTERM or SIGINT stops the process in the composition's order, then exits (0, or 1 when stopping failed). */
export function stopOnSignals(c: Composition): void {
  let signalled = false;
  const onSignal = (signal: string) => {
    if (signalled) return;
    signalled = true;
    c.logger.info({ signal }, 'signal received');
    c.stop().then(
      () => process.exit(0),
      (err) => {
        c.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
