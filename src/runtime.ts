import type { AddressInfo } from 'node:net';
import { createApp, AppHandle } from './app';
import type { Config } from './config';
import { Database, openDatabase } from './db/database';
import { bootstrapOnFirstStart, BootstrapState, describeChatModel, startupBanner } from './first-run';
import { createLogger, Logger } from './logger';
import { startMetricsServer } from './observability/http-metrics';
import { createMetrics } from './observability/metrics';
import { createServices, Services } from './services';
import { requirePrivateUploadDir } from './util/private-dir';

export interface Runtime {
  config: Config;
  logger: Logger;
  db: Database;
  services: Services;
  app: AppHandle;
  port: number;
  /** The METRICS_PORT listener's port, when one runs. */
  metricsPort: number | null;
  /** Graceful stop: refuse new connections, end streams, finish in-flight requests, close the pool. */
  shutdown(): Promise<void>;
}

export async function startRuntime(
  config: Config,
  opts: { logger?: Logger; listen?: boolean; console?: { write(s: string): unknown } } = {},
): Promise<Runtime> {
  // before anything starts: a refused upload directory leaves no database server behind
  requirePrivateUploadDir(config.uploadTmpDir);
  const logger = opts.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const db = await openDatabase(config, logger);
  const shutdownCtl = new AbortController();
  const metrics = createMetrics({ defaultMetrics: config.metrics.enabled });
  const services = createServices({ orm: db.orm, config, logger, shutdown: shutdownCtl.signal, metrics });
  let bootstrap: BootstrapState;
  try {
    bootstrap = await bootstrapOnFirstStart(config, services, logger, opts.console ?? process.stdout);
    await services.start({ workers: config.runWorkers });
  } catch (e) {
    await db.close();
    throw e;
  }
  const app = await createApp({ config, orm: db.orm, services, logger });
  app.server.keepAliveTimeout = 65_000;
  app.server.headersTimeout = 66_000;
  let port = config.port;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  if (opts.listen !== false) {
    if (config.metrics.enabled && config.metrics.port !== null) {
      metricsServer = await startMetricsServer(metrics, { port: config.metrics.port, host: config.host, token: config.metrics.token });
      logger.info({ port: metricsServer.port }, 'metrics listening');
    }
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen(config.port, config.host, () => resolve());
    });
    port = (app.server.address() as AddressInfo).port;
    logger.info({ port, host: config.host }, `DocQA listening on http://localhost:${port}`);
    const chatModel = await describeChatModel(services);
    logger.info(
      { chatModel, bootstrap },
      startupBanner(config, {
        baseUrl: `http://localhost:${port}`,
        chatModel,
        bootstrap,
        pages: config.apiDocs ? { 'API reference': '/api/docs', OpenAPI: '/api/openapi.json' } : {},
      }),
    );
  }

  let stopping: Promise<void> | null = null;
  const shutdown = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      const closed = new Promise<void>((resolve) => app.server.close(() => resolve()));
      shutdownCtl.abort(); // open chat streams end with an error event
      await app.close();
      logger.debug('graphql closed');
      app.server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
      await Promise.race([closed, grace]);
      app.server.closeAllConnections();
      logger.debug('http closed');
      await services.stop();
      logger.debug('services stopped');
      await metricsServer?.close();
      await db.close();
      logger.info('stopped');
    })());

  return { config, logger, db, services, app, port, metricsPort: metricsServer?.port ?? null, shutdown };
}
