import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { createLogger } from '../logger';
import { startMetricsServer } from '../observability/http-metrics';
import { createMetrics } from '../observability/metrics';
import { createServices } from '../services';

/**
 * `npm run worker`: ingestion workers without the HTTP server, for scaling ingestion out. Any
 * number of these (and of in-process workers) share the pg-boss queue in the same database.
 * SIGTERM/SIGINT stop taking jobs, let running ones finish within SHUTDOWN_GRACE_MS, and hand
 * the rest back to the queue for a retry.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const db = await openDatabase(config, logger);
  const shutdown = new AbortController();
  const metrics = createMetrics({ defaultMetrics: config.metrics.port !== null });
  const services = createServices({ orm: db.orm, config, logger, shutdown: shutdown.signal, metrics });
  try {
    await services.start({ workers: true });
  } catch (e) {
    await db.close();
    throw e;
  }
  logger.info({ concurrency: config.workerConcurrency }, 'ingestion worker running');
  // a worker has no HTTP server: its ingestion metrics are scraped on METRICS_PORT when set
  if (config.metrics.enabled && config.metrics.port !== null) {
    const m = await startMetricsServer(metrics, { port: config.metrics.port, host: config.host, token: config.metrics.token });
    logger.info({ port: m.port }, 'metrics listening');
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping');
    shutdown.abort();
    services
      .stop()
      .then(() => db.close())
      .then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e) => {
  process.stderr.write(
    (e instanceof ConfigError ? `configuration error: ${e.message}` : `worker failed: ${e instanceof Error ? e.message : String(e)}`) +
      '\n',
  );
  process.exit(1);
});
